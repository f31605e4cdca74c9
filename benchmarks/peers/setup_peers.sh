#!/usr/bin/env bash
# The peers of benchmarks/bench_peers.py (anonymeter, SDMetrics, SDV) in their own virtual
# environment: their pins differ from sdcrisk's, and none of them is a dependency of the package.
#
#     bash benchmarks/peers/setup_peers.sh [VENV]        # default VENV: /work/peers-venv
#     python benchmarks/bench_peers.py --peers-python VENV/bin/python
#
# torch (needed by SDV's other synthesizers, not by the Gaussian copula the benchmark uses) is
# installed first at the CPU build 2.13.0, so that SDV does not pull a CUDA build of several GB.
# requirements.txt holds every package of the environment the committed results were measured in
# (pip freeze, torch apart).
set -euo pipefail
VENV="${1:-/work/peers-venv}"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
python3 -m venv "$VENV"
"$VENV/bin/pip" install --quiet --upgrade pip
"$VENV/bin/pip" install --quiet torch==2.13.0
"$VENV/bin/pip" install --quiet -r "$HERE/requirements.txt"
"$VENV/bin/python" -c "import anonymeter, sdmetrics, sdv; from importlib.metadata import version as v; print('peers:', *(p + ' ' + v(p) for p in ('anonymeter', 'sdmetrics', 'sdv')))"
