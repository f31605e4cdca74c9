#!/usr/bin/env bash
# Install R (Debian packages) and sdcMicro from its public source at a pinned commit, for
# research/peer/sdcmicro_mask.R. Idempotent: every step is skipped when already done.
#
#   bash research/peer/install_sdcmicro.sh            # needs root (apt-get) and the sdcMicro git
#   SDCMICRO_GIT=/path/to/sdcMicro.git bash research/peer/install_sdcmicro.sh
#
# SDCMICRO_GIT: a clone (bare or not) of https://github.com/sdcTools/sdcMicro holding the pinned
# commit; when unset the script clones it into $WORK/sdcMicro.git (needs network access to GitHub).
#
# Pinned commit: cf3251017482bb215f0a9abf4a930f502399fb72 (sdcMicro 5.8.1, 2026-04-22), the newest
# of the public history at the time of the run. The data pin of config/datasets.yaml
# (ea3a1048..., sdcMicro 4.0.4, 2013) is in the history too but predates the mu-ARGUS code
# (argus_rankswap, argus_microaggregation / src/muargus_*.cpp), so it cannot run this comparison.
#
# Deviation from a plain `R CMD INSTALL`: Debian 12 has every Imports package of sdcMicro 5.8.1
# except prettydoc (used only as the output format of the report() template, via
# importFrom(prettydoc, html_pretty) in NAMESPACE). A scratch copy of the source drops exactly
# two things: the NAMESPACE line `importFrom(prettydoc,html_pretty)` and `prettydoc,` from the
# Imports of DESCRIPTION. Nothing else is changed; the C++ code is the pinned one.
set -euo pipefail

COMMIT=cf3251017482bb215f0a9abf4a930f502399fb72
WORK=${WORK:-/tmp/sdcmicro-build}
SRC=$WORK/sdcMicro-src
LIB=${R_LIBS_SITE_DIR:-/usr/local/lib/R/site-library}
DEBS="r-base-dev r-cran-car r-cran-cardata r-cran-rmarkdown r-cran-knitr r-cran-data.table
      r-cran-xtable r-cran-robustbase r-cran-cluster r-cran-mass r-cran-e1071 r-cran-rcpp
      r-cran-ggplot2 r-cran-shiny r-cran-haven r-cran-rhandsontable r-cran-dt r-cran-vim
      r-cran-httr r-cran-jsonlite"

say() { printf '[install_sdcmicro] %s\n' "$*"; }

# 1. R and the Imports of sdcMicro from Debian (no CRAN access is needed)
missing=""
for d in $DEBS; do dpkg -s "$d" >/dev/null 2>&1 || missing="$missing $d"; done
if [ -n "$missing" ]; then
  say "apt-get install:$missing"
  apt-get update
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $missing
else
  say "Debian packages already installed"
fi
say "$(R --version | head -1)"

# 2. already installed at the pinned commit?
have=$(Rscript -e 'cat(tryCatch(as.character(utils::packageDescription("sdcMicro")$RemoteSha), error=function(e) ""))' 2>/dev/null || true)
if [ "$have" = "$COMMIT" ]; then
  say "sdcMicro $(Rscript -e 'cat(as.character(packageVersion("sdcMicro")))') already installed at $COMMIT"
  exit 0
fi

# 3. the source at the pinned commit
mkdir -p "$WORK"
GIT=${SDCMICRO_GIT:-}
if [ -z "$GIT" ]; then
  GIT=$WORK/sdcMicro.git
  [ -d "$GIT" ] || git clone --bare https://github.com/sdcTools/sdcMicro "$GIT"
fi
git --git-dir="$GIT" cat-file -e "$COMMIT^{commit}" || { say "commit $COMMIT not in $GIT"; exit 1; }
rm -rf "$SRC" && mkdir -p "$SRC"
git --git-dir="$GIT" archive "$COMMIT" | tar -x -C "$SRC"
say "source of $COMMIT in $SRC ($(grep '^Version:' "$SRC/DESCRIPTION"))"

# 4. the one change: prettydoc (not packaged by Debian) dropped from NAMESPACE and DESCRIPTION
if ! Rscript -e 'quit(status = !requireNamespace("prettydoc", quietly=TRUE))' >/dev/null 2>&1; then
  sed -i '/^importFrom(prettydoc,html_pretty)$/d' "$SRC/NAMESPACE"
  sed -i 's/^    prettydoc,$//' "$SRC/DESCRIPTION"
  sed -i '/^$/d' "$SRC/DESCRIPTION"
  ! grep -n prettydoc "$SRC/NAMESPACE" "$SRC/DESCRIPTION"
  say "prettydoc not installed: dropped importFrom(prettydoc,html_pretty) from NAMESPACE, prettydoc from Imports"
fi
# record the commit in the installed DESCRIPTION (read back by step 2 and by sdcmicro_mask.R)
printf 'RemoteType: git\nRemoteUrl: https://github.com/sdcTools/sdcMicro\nRemoteSha: %s\n' "$COMMIT" >> "$SRC/DESCRIPTION"

# 5. build and install (no vignettes: R CMD INSTALL does not build them)
mkdir -p "$LIB"
MAKEFLAGS="-j${JOBS:-2}" R CMD INSTALL --no-docs --no-multiarch --library="$LIB" "$SRC"
Rscript -e 'suppressPackageStartupMessages(library(sdcMicro)); d <- packageDescription("sdcMicro");
  cat("[install_sdcmicro] installed sdcMicro", d$Version, "commit", d$RemoteSha, "\n");
  stopifnot(exists("rankSwap"), exists("argus_rankswap"), exists("argus_microaggregation"), exists("microaggregation"))'
