# compares: []
# (masking only: research/peer/sdcmicro_score.py compares the masked files with published rows)
#
# Peer evidence (issue 26): mask Census and EIA with sdcMicro's own implementations, at the cells
# of Nin, Herranz & Torra (2007) Tables 1-4 (rank swapping) and 9-11 (MDAV), for scoring with this
# project's attacks by research/peer/sdcmicro_score.py. Nothing here is compared with a published
# value; the scoring script does that.
#
#   Rscript research/peer/sdcmicro_mask.R [--out DIR] [--datasets census,eia] [--impl a,b,...]
#
# Needs sdcMicro installed by research/peer/install_sdcmicro.sh (R from Debian, sdcMicro 5.8.1 at
# a pinned commit) and the two .rda files of config/datasets.yaml in $SDCRISK_DATA_MIRROR
# (sha256-checked). Writes to DIR (default /tmp/peer/masked, outside git):
#   <dataset>__original.f64              the attributes as read here (the scorer checks them)
#   <dataset>__<impl>__<label>__r<r>.f64 one masked file: float64, little-endian, row-major n x m
#   manifest.csv                         one line per file: impl, dataset, cell, replicate, seed, time
#   session.txt                          R and sdcMicro versions, sdcMicro commit, date, command
#
# Implementations (the exact R calls):
#   sdcmicro_mdav     microaggregation(block, variables=cols, aggr=k, method="mdav")$mx
#                     (sdcMicro's own MDAV, src/Mdav.cpp; weights divided by the variances)
#   muargus_mdav      argus_microaggregation(block, k=k, useOptimal=FALSE)$microaggregated
#                     (mu-ARGUS MDAV, "Mateo-Domingo method", src/muargus_microaggregation.cpp ->
#                     src/microAggregation.cpp; on standardised values)
#   sdcmicro_rankswap rankSwap(x, P=p/100, TopPercent=0, BottomPercent=0, seed=s)
#                     (OECD / IHSN code, src/RankSwapping.h: P is a fraction of n; own RNG seeded
#                     by `seed`; no top / bottom coding, as rank swapping in the paper)
#   sdcmicro_rankswap_tb5  rankSwap(x, P=p/100, seed=s): the same with the defaults
#                     TopPercent=5, BottomPercent=5 (top and bottom 5 % replaced by their mean)
#   muargus_rankswap  set.seed(s); argus_rankswap(x, perc=p)$swapped
#                     (mu-ARGUS code, src/rankSwap.cpp: partner within floor(n*perc/100) ranks;
#                     R's RNG via R::runif)
# MDAV runs per block of v consecutive attributes, floor(m/v) blocks with the m mod v leftover
# attributes joined to the last block (sdcrisk.masking.microaggregation.attribute_blocks), every
# (v, k) of config experiment nin2007_mdav. Rank swaps: every p of nin2007_rankswap, its
# `replicates` maskings per cell; replicate r of p uses seed 20071217 + 100 * p + r (recorded).

suppressPackageStartupMessages({
  library(sdcMicro)
  library(yaml)
})

args <- commandArgs(trailingOnly = TRUE)
opt <- list(out = "/tmp/peer/masked", datasets = "census,eia",
            impl = "sdcmicro_mdav,muargus_mdav,sdcmicro_rankswap,sdcmicro_rankswap_tb5,muargus_rankswap")
i <- 1
while (i <= length(args)) {
  key <- sub("^--", "", args[i])
  if (key %in% c("help", "h")) {
    cat("usage: Rscript research/peer/sdcmicro_mask.R [--out DIR] [--datasets census,eia] [--impl",
        opt$impl, "]\n")
    quit(status = 0)
  }
  if (!key %in% names(opt) || i == length(args)) stop("unknown or incomplete argument: ", args[i])
  opt[[key]] <- args[i + 1]
  i <- i + 2
}
datasets <- strsplit(opt$datasets, ",")[[1]]
impls <- strsplit(opt$impl, ",")[[1]]
known_impls <- c("sdcmicro_mdav", "muargus_mdav", "sdcmicro_rankswap", "sdcmicro_rankswap_tb5", "muargus_rankswap")
if (!all(impls %in% known_impls)) stop("unknown --impl: ", paste(setdiff(impls, known_impls), collapse = ","))

root <- normalizePath(file.path(dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1])), "..", ".."))
cfg <- yaml::read_yaml(file.path(root, "config", "config.yaml"))
dcfg <- yaml::read_yaml(file.path(root, "config", "datasets.yaml"))$datasets
rs_exp <- cfg$experiments$nin2007_rankswap
md_exp <- cfg$experiments$nin2007_mdav
ps <- unlist(rs_exp$methods$rankswap$p)
reps <- as.integer(rs_exp$replicates)
vs <- unlist(md_exp$methods$mdav$v)
ks <- unlist(md_exp$methods$mdav$k)
ROOT_SEED <- as.integer(cfg$seed)  # 20071217

mirror <- Sys.getenv("SDCRISK_DATA_MIRROR")
if (mirror == "") stop("set SDCRISK_DATA_MIRROR to the directory holding CASCrefmicrodata.rda and EIA.rda")
dir.create(opt$out, recursive = TRUE, showWarnings = FALSE)

# blocks of v consecutive attributes, leftover joined to the last (attribute_blocks)
attribute_blocks <- function(m, v) {
  r <- m %/% v
  lapply(seq_len(r), function(b) seq((b - 1) * v + 1, if (b < r) b * v else m))
}

write_f64 <- function(y, path) {
  y <- as.matrix(y)
  storage.mode(y) <- "double"
  stopifnot(!anyNA(y))
  con <- file(path, "wb")
  writeBin(as.vector(t(y)), con, size = 8, endian = "little")
  close(con)
}

manifest <- list()
record <- function(impl, ds, method, label, params, r, seed, file, secs) {
  manifest[[length(manifest) + 1]] <<- data.frame(
    implementation = impl, dataset = ds, method = method, param = label, params = params,
    replicate = r, seed = seed, file = basename(file), seconds = round(secs, 3), stringsAsFactors = FALSE)
}

t_all <- Sys.time()
for (ds in datasets) {
  entry <- dcfg[[ds]]
  path <- file.path(mirror, basename(entry$url))
  sha <- strsplit(system2("sha256sum", shQuote(path), stdout = TRUE), " ")[[1]][1]
  if (sha != entry$sha256) stop(path, ": sha256 ", sha, " is not the pinned ", entry$sha256)
  env <- new.env()
  load(path, envir = env)
  cols <- unlist(entry$columns)
  x <- env[[entry$object]][, cols]
  x[] <- lapply(x, as.numeric)
  n <- nrow(x); m <- ncol(x)
  write_f64(x, file.path(opt$out, sprintf("%s__original.f64", ds)))
  cat(sprintf("%s: n = %d, m = %d (%s)\n", ds, n, m, paste(cols, collapse = " ")))

  # ---- MDAV (deterministic), Tables 9-11
  for (impl in intersect(impls, c("sdcmicro_mdav", "muargus_mdav"))) {
    for (v in vs) for (k in ks) {
      label <- sprintf("v=%d;k=%d", v, k)
      t0 <- Sys.time()
      y <- x
      for (b in attribute_blocks(m, v)) {
        block <- x[, b, drop = FALSE]
        if (impl == "sdcmicro_mdav") {
          res <- microaggregation(obj = block, variables = colnames(block), aggr = k, method = "mdav")$mx
        } else {
          res <- argus_microaggregation(block, k = as.integer(k), useOptimal = FALSE)$microaggregated
        }
        stopifnot(nrow(res) == n, ncol(res) == length(b))
        y[, b] <- res
      }
      secs <- as.numeric(difftime(Sys.time(), t0, units = "secs"))
      f <- file.path(opt$out, sprintf("%s__%s__v%dk%d__r0.f64", ds, impl, v, k))
      write_f64(y, f)
      record(impl, ds, "mdav", label, sprintf("v=%d;k=%d", v, k), 0L, NA_integer_, f, secs)
    }
    cat(sprintf("  %s: %d MDAV cells\n", impl, length(vs) * length(ks)))
  }

  # ---- rank swapping (random), Tables 1-4
  for (impl in intersect(impls, c("sdcmicro_rankswap", "sdcmicro_rankswap_tb5", "muargus_rankswap"))) {
    for (p in ps) for (r in seq_len(reps) - 1L) {
      seed <- ROOT_SEED + 100L * as.integer(p) + r
      t0 <- Sys.time()
      if (impl == "sdcmicro_rankswap") {
        y <- rankSwap(x, variables = cols, P = p / 100, TopPercent = 0, BottomPercent = 0, seed = seed)
      } else if (impl == "sdcmicro_rankswap_tb5") {
        y <- rankSwap(x, variables = cols, P = p / 100, seed = seed)
      } else {
        set.seed(seed)
        y <- argus_rankswap(x, perc = as.integer(p))$swapped
      }
      secs <- as.numeric(difftime(Sys.time(), t0, units = "secs"))
      f <- file.path(opt$out, sprintf("%s__%s__p%d__r%d.f64", ds, impl, p, r))
      write_f64(y[, cols], f)
      record(impl, ds, "rankswap", as.character(p), sprintf("p=%d", p), r, seed, f, secs)
    }
    cat(sprintf("  %s: %d p x %d replicates\n", impl, length(ps), reps))
  }
}

man <- do.call(rbind, manifest)
mpath <- file.path(opt$out, "manifest.csv")
if (file.exists(mpath)) {  # keep the lines of other data sets / implementations of an earlier run
  old <- read.csv(mpath, stringsAsFactors = FALSE)
  old <- old[!(paste(old$implementation, old$dataset) %in% paste(man$implementation, man$dataset)), ]
  man <- rbind(old, man)
}
write.csv(man, mpath, row.names = FALSE)
d <- packageDescription("sdcMicro")
writeLines(c(
  sprintf("r_version: %s", R.version.string),
  sprintf("sdcmicro_version: %s", d$Version),
  sprintf("sdcmicro_commit: %s", if (is.null(d$RemoteSha)) "unknown" else d$RemoteSha),
  sprintf("command: Rscript research/peer/sdcmicro_mask.R %s", paste(args, collapse = " ")),
  sprintf("platform: %s", R.version$platform),
  sprintf("seconds: %.1f", as.numeric(difftime(Sys.time(), t_all, units = "secs")))
), file.path(opt$out, "session.txt"))
cat(sprintf("%d masked files, manifest %s, %.1f s\n", nrow(man), mpath,
            as.numeric(difftime(Sys.time(), t_all, units = "secs"))))
