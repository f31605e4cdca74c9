# compares: []
# (peer evidence only: sdcMicro's values, no published row)
#
# Peer evidence (issue 59, part 3): sdcMicro's own risk measures on categorical keys, for
# research/peer/compare_key_risk.py to check sdcrisk.criteria.key_risk against them.
#
#   Rscript research/peer/sdcmicro_key_risk.R OUT_DIR
#
# Needs sdcMicro installed by research/peer/install_sdcmicro.sh (R from Debian, sdcMicro 5.8.1
# at a pinned commit). The data sets are sdcMicro's own package data (data(testdata),
# data(free1)); nothing else is read. Writes to OUT_DIR (outside git):
#   cases.csv                  one line per case: name, keys, weights, sensitive (space-separated)
#   <case>__input.csv          the columns the case uses, as R holds them (numbers as %.17g,
#                              a missing value as an empty field)
#   <case>__records.csv        per record: fk, Fk, risk (createSdcObj(...)@risk$individual), the
#                              same from measure_risk(data.frame) (df_fk, df_Fk, df_risk), and
#                              per sensitive S: S_Distinct_Ldiversity, S_Entropy_Ldiversity,
#                              S_Recursive_Ldiversity (ldiversity(data.frame, ldiv_index=S))
#   <case>__global.csv         measure, value: risk_ER, risk, risk_pct (@risk$global), the
#                              same from measure_risk(data.frame) (df_*), and kanon_2/3/5: the
#                              records violating 2-, 3-, 5-anonymity (print(sdc, "kAnon"))
#   session.txt                R and sdcMicro versions, sdcMicro commit
#
# Cases (the keys and weights of the brief; the sensitive attributes are non-key attributes):
#   testdata        keys urbrur roof walls water electcon relat sex, weights sampling_weight
#                   (one value for every record), sensitive hhcivil, age
#   testdata_hw     the same keys with the varying household_weights as weights
#   testdata_na     testdata_hw with missing keys: roof NA in every 37th record, water in every
#                   53rd, relat in every 29th, all seven keys in every 101st; hhcivil -999 (the
#                   missing code) in every 41st record and NA in every 43rd
#   testdata_na1    one key (water, with its NAs of testdata_na), weights household_weights
#   testdata_nw     testdata's keys without weights (risk = 1 / fk)
#   free1           keys REGION SEX AGE MARSTAT KINDPERS, weights WEIGHT, sensitive EDUC1, ETNI
# ldiversity is called once per sensitive attribute (its MultiEntropy / MultiRecursive columns,
# which need two or more, are not compared).

suppressPackageStartupMessages(library(sdcMicro))

args <- commandArgs(trailingOnly = TRUE)
if (length(args) != 1) stop("usage: Rscript research/peer/sdcmicro_key_risk.R OUT_DIR")
out <- args[1]
dir.create(out, recursive = TRUE, showWarnings = FALSE)

as_text <- function(x) {
  if (is.numeric(x)) ifelse(is.na(x), "", sprintf("%.17g", x)) else ifelse(is.na(x), "", as.character(x))
}
write_table <- function(df, path) {
  df <- as.data.frame(lapply(df, as_text), stringsAsFactors = FALSE, check.names = FALSE)
  write.csv(df, path, row.names = FALSE, quote = FALSE, na = "")
}

data(testdata, package = "sdcMicro", envir = environment())
data(free1, package = "sdcMicro", envir = environment())
free1 <- as.data.frame(free1)

keys7 <- c("urbrur", "roof", "walls", "water", "electcon", "relat", "sex")
td_na <- testdata
i <- seq_len(nrow(td_na))
td_na$roof[i %% 37 == 0] <- NA
td_na$water[i %% 53 == 0] <- NA
td_na$relat[i %% 29 == 0] <- NA
td_na[i %% 101 == 0, keys7] <- NA
td_na$hhcivil[i %% 41 == 0] <- -999
td_na$hhcivil[i %% 43 == 0] <- NA

cases <- list(
  list(name = "testdata", data = testdata, keys = keys7, w = "sampling_weight", sens = c("hhcivil", "age")),
  list(name = "testdata_hw", data = testdata, keys = keys7, w = "household_weights", sens = c("hhcivil", "age")),
  list(name = "testdata_na", data = td_na, keys = keys7, w = "household_weights", sens = c("hhcivil", "age")),
  list(name = "testdata_na1", data = td_na, keys = "water", w = "household_weights", sens = "hhcivil"),
  list(name = "testdata_nw", data = testdata, keys = keys7, w = NULL, sens = "hhcivil"),
  list(name = "free1", data = free1, keys = c("REGION", "SEX", "AGE", "MARSTAT", "KINDPERS"), w = "WEIGHT",
       sens = c("EDUC1", "ETNI"))
)

manifest <- data.frame(name = character(), keys = character(), weights = character(), sensitive = character(),
                       stringsAsFactors = FALSE)
for (cs in cases) {
  d <- cs$data
  cols <- unique(c(cs$keys, cs$w, cs$sens))
  write_table(d[, cols, drop = FALSE], file.path(out, paste0(cs$name, "__input.csv")))

  sdc <- createSdcObj(d, keyVars = cs$keys, weightVar = cs$w)
  ind <- sdc@risk$individual
  g <- sdc@risk$global
  mr <- measure_risk(d, keyVars = cs$keys, w = cs$w)
  ka <- print(sdc, type = "kAnon", docat = FALSE)

  rec <- data.frame(fk = ind[, "fk"], Fk = ind[, "Fk"], risk = ind[, "risk"],
                    df_fk = mr$Res[, "fk"], df_Fk = mr$Res[, "Fk"], df_risk = mr$Res[, "risk"])
  for (s in cs$sens) {
    l <- unclass(ldiversity(d, keyVars = cs$keys, ldiv_index = s))
    for (m in c("Distinct_Ldiversity", "Entropy_Ldiversity", "Recursive_Ldiversity")) {
      rec[[paste0(s, "_", m)]] <- l[, paste0(s, "_", m)]
    }
  }
  write_table(rec, file.path(out, paste0(cs$name, "__records.csv")))

  glob <- data.frame(
    measure = c("risk_ER", "risk", "risk_pct", "df_risk_ER", "df_risk", "df_risk_pct",
                "kanon_2", "kanon_3", "kanon_5"),
    value = c(g$risk_ER, g$risk, g$risk_pct, mr$global_risk_ER, mr$global_risk, mr$global_risk_pct,
              ka[["2anon"]]$orig, ka[["3anon"]]$orig, ka[["5anon"]]$orig))
  write_table(glob, file.path(out, paste0(cs$name, "__global.csv")))
  manifest[nrow(manifest) + 1, ] <- c(cs$name, paste(cs$keys, collapse = " "),
                                      if (is.null(cs$w)) "" else cs$w, paste(cs$sens, collapse = " "))
  cat("[sdcmicro_key_risk]", cs$name, nrow(d), "records, risk_ER", sprintf("%.6f", g$risk_ER), "\n")
}
write_table(manifest, file.path(out, "cases.csv"))

desc <- packageDescription("sdcMicro")
writeLines(c(paste("R", getRversion()), paste("sdcMicro", desc$Version), paste("sdcMicro commit", desc$RemoteSha)),
           file.path(out, "session.txt"))
