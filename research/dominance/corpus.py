"""Build the corpus of masked releases and attack each one with every attack of ``sdcrisk assess``.

    export SDCRISK_DATA_MIRROR=/path/to/data   # else the pinned URLs are downloaded
    python research/dominance/corpus.py [--only census,eia,testdata,normal,lognormal,scaling,counts] [--out DIR]

The corpus (:func:`releases`): the reference files Census (1080 x 13) and EIA (4092 x 10, as
the papers use them), sdcMicro's mixed survey ``testdata`` (4580 records, categorical keys;
:mod:`sdcrisk.assess.mixed_example`) and four synthetic files (correlated normal 2,000 x 6, correlated
lognormal 5,000 x 8, the benchmarks' n x 10 file at 20,000 records, Poisson counts 3,000 x 5, many
tied values), each masked several ways: by the package's maskings (:mod:`sdcrisk.masking`: rank
swapping p = 5, 10, 15; additive noise a = 0.1, 0.3, 0.5; correlated and multiplicative noise;
MDAV k = 3, 5; individual ranking and optimal univariate microaggregation) and by code written
here, outside the package (:func:`hand_noise`, :func:`hand_rankswap`, :func:`hand_sort_ma`,
:func:`hand_round`, :func:`hand_topcode`), so that the default set is not tuned to the
package's own maskings only.

Every release is attacked by :func:`sdcrisk.assess` with every attack (``attacks=["all"]``),
every attribute known, no information loss, seed 0 (the command's default). Every random choice
flows from :data:`SEED` and the release's name (:func:`seed_of`), so a rerun gives the same
files and the same counts.

Writes to ``--out`` (default ``research/dominance/results``): ``manifest.csv`` (one row per
release: name, source file, n, m, method, parameters, the masking's seed, who made it: package
or hand code) and ``linked.csv`` (one row per release and attack: linked, percent, seconds,
note; ``linked`` empty where the attack was not run). ``dominance.py`` reads them.
"""
# The published rows this script consults (the replication check reads this line; docs/calibration.yaml):
# compares: []

from __future__ import annotations

import argparse
import csv
import io
import json
import sys
import tempfile
import time
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT / "research"))
sys.path.insert(0, str(ROOT / "benchmarks"))

SEED = 20261129
SOURCES = ("census", "eia", "testdata", "normal", "lognormal", "scaling", "counts")
FIELDS_MANIFEST = ["release", "source", "n", "m", "method", "params", "seed", "made_by", "categorical"]
FIELDS_LINKED = ["release", "attack", "n", "linked", "percent", "seconds", "note"]


def seed_of(name: str) -> int:
    """The masking seed of release ``name``: from :data:`SEED` and the name alone (stable under
    a reordering or a subset of the corpus)."""
    return int(np.random.SeedSequence([SEED, zlib.crc32(name.encode())]).generate_state(1)[0])


# ----------------------------------------------------------------------------- hand-written maskings
def hand_noise(x: np.ndarray, rng: np.random.Generator, a: float) -> np.ndarray:
    """Plain numpy additive noise: each attribute plus independent normal noise of standard
    deviation a times the attribute's."""
    return x + rng.standard_normal(x.shape) * (a * x.std(axis=0, ddof=1))


def hand_rankswap(x: np.ndarray, rng: np.random.Generator, p: float) -> np.ndarray:
    """Rank swapping written out (Moore 1996): per attribute, in rank order, each value not yet
    swapped trades places with a random value not yet swapped among the next floor(p n / 100)
    ranks (none left: it stays)."""
    n = x.shape[0]
    w = int(p * n / 100)
    out = x.copy()
    for j in range(x.shape[1]):
        order = np.argsort(x[:, j], kind="stable")
        v = x[order, j].copy()
        done = np.zeros(n, bool)
        for i in range(n):
            if done[i]:
                continue
            free = np.flatnonzero(~done[i + 1:i + 1 + w]) + i + 1
            done[i] = True
            if free.size:
                k = free[rng.integers(free.size)]
                v[i], v[k] = v[k], v[i]
                done[k] = True
        out[order, j] = v
    return out


def hand_sort_ma(x: np.ndarray, rng: np.random.Generator, k: int, column: int = 0) -> np.ndarray:
    """Microaggregation by sorting on one attribute: records in the order of ``column``, groups
    of k consecutive records (the last one takes the remainder), every attribute replaced by its
    group mean."""
    n = x.shape[0]
    order = np.argsort(x[:, column], kind="stable")
    group = np.minimum(np.arange(n) // k, n // k - 1)
    out = np.empty_like(x)
    for g in range(n // k):
        rows = order[group == g]
        out[rows] = x[rows].mean(axis=0)
    return out


def hand_round(x: np.ndarray, rng: np.random.Generator, step: float) -> np.ndarray:
    """Rounding: each attribute to the nearest multiple of ``step`` times its standard deviation."""
    base = step * x.std(axis=0, ddof=1)
    return np.round(x / base) * base


def hand_topcode(x: np.ndarray, rng: np.random.Generator, q: float) -> np.ndarray:
    """Top- and bottom-coding: each attribute's values above its (1 - q) quantile set to that
    quantile, those below its q quantile to that one."""
    lo, hi = np.quantile(x, q, axis=0), np.quantile(x, 1 - q, axis=0)
    return np.clip(x, lo, hi)


HAND = {"hand_noise": hand_noise, "hand_rankswap": hand_rankswap, "hand_sort_ma": hand_sort_ma,
        "hand_round": hand_round, "hand_topcode": hand_topcode}


# ----------------------------------------------------------------------------- sources
def source(name: str) -> tuple[pd.DataFrame, list[str]]:
    """The original file ``name`` as a table, and its categorical attributes."""
    if name in ("census", "eia"):
        from research_lib import columns, load

        return pd.DataFrame(load(name), columns=columns(name)), []
    if name == "testdata":
        import os

        from sdcrisk.assess.mixed_example import CATEGORICAL, load_testdata

        with tempfile.TemporaryDirectory() as tmp:
            table = load_testdata(tmp, os.environ.get("SDCRISK_DATA_MIRROR") or None)
        table.insert(0, "rid", np.arange(1, len(table) + 1))
        return table, list(CATEGORICAL)
    rng = np.random.Generator(np.random.PCG64(seed_of(f"source {name}")))
    if name == "normal":  # 2,000 x 6, correlation 0.5 between every two attributes
        m = 6
        cov = np.full((m, m), 0.5) + 0.5 * np.eye(m)
        x = rng.multivariate_normal(np.zeros(m), cov, size=2000)
    elif name == "lognormal":  # 5,000 x 8, a random correlation matrix, skewed values
        m = 8
        a = rng.standard_normal((m, m))
        cov = a @ a.T + m * np.eye(m)
        d = np.sqrt(np.diag(cov))
        x = np.round(np.exp(1.0 + 0.8 * rng.multivariate_normal(np.zeros(m), cov / np.outer(d, d), size=5000)), 2)
    elif name == "scaling":  # the benchmarks' synthetic n x 10 file (bench_scaling.make_data) at 20,000 records
        from bench_scaling import make_data

        x = make_data(20_000, 10)
    elif name == "counts":  # 3,000 x 5 Poisson counts sharing a gamma factor: many tied values
        lam = rng.gamma(2.0, 2.0, size=(3000, 1)) * np.array([1.0, 2.0, 3.0, 5.0, 8.0])
        x = rng.poisson(lam).astype(np.float64)
    else:
        raise SystemExit(f"--only: unknown source {name!r}; choose from {', '.join(SOURCES)}")
    return pd.DataFrame(x, columns=[f"v{j + 1}" for j in range(x.shape[1])]), []


@dataclass
class Release:
    name: str
    source: str
    method: str
    params: dict = field(default_factory=dict)

    @property
    def made_by(self) -> str:
        return "hand code (research/dominance/corpus.py)" if self.method in HAND else "package (sdcrisk.masking)"


#: the maskings of the sources other than Census and EIA (testdata: the mixed example's three, and
#: two by hand with the same PRAM of its recoded categoricals)
OTHER_MASKINGS = {
    "testdata": [("mdav", {"v": 4, "k": 3}), ("additive_noise", {"a": 0.5}), ("rankswap", {"p": 5}),
                 ("hand_noise", {"a": 0.2}), ("hand_round", {"step": 0.25})],
    "normal": [("rankswap", {"p": 10}), ("additive_noise", {"a": 0.3}), ("mdav", {"v": 6, "k": 3}),
               ("hand_sort_ma", {"k": 3}), ("hand_round", {"step": 0.5})],
    "lognormal": [("rankswap", {"p": 5}), ("additive_noise", {"a": 0.5}), ("correlated_noise", {"a": 0.2}),
                  ("hand_noise", {"a": 0.1}), ("hand_topcode", {"q": 0.05})],
    "scaling": [("rankswap", {"p": 5}), ("additive_noise", {"a": 0.1})],
    "counts": [("hand_noise", {"a": 0.3}), ("rankswap", {"p": 5})],
}


def releases(names=SOURCES) -> list[Release]:
    """The corpus: every source with its maskings."""
    out = []

    def add(src, method, **params):
        label = ",".join(f"{k}={v}" for k, v in params.items())
        out.append(Release(f"{src}/{method}({label})", src, method, params))

    for src in ("census", "eia"):
        if src not in names:
            continue
        m = 13 if src == "census" else 10
        for p in (5, 15):
            add(src, "rankswap", p=p)
        for a in (0.1, 0.5):
            add(src, "additive_noise", a=a)
        add(src, "multiplicative_noise", b=0.1)
        add(src, "mdav", v=m, k=3)
        add(src, "mdav", v=3, k=5)
        add(src, "individual_ranking_ma", k=3)
        add(src, "optimal_univariate_ma", k=5)
        add(src, "hand_noise", a=0.2)
        add(src, "hand_rankswap", p=10)
        add(src, "hand_sort_ma", k=4)
        add(src, "hand_round", step=0.25)
        add(src, "hand_topcode", q=0.1)
    for src, maskings in OTHER_MASKINGS.items():
        if src in names:
            for method, params in maskings:
                add(src, method, **params)
    return out


def masked(release: Release, original: pd.DataFrame, categorical: list[str]) -> pd.DataFrame:
    """The masked file of ``release``: numeric attributes masked, the mixed file's recoded
    categoricals drawn anew (PRAM, as :mod:`sdcrisk.assess.mixed_example`) and its rows shuffled."""
    from sdcrisk.masking import mask

    rng = np.random.Generator(np.random.PCG64(seed_of(release.name)))
    numeric = [c for c in original.columns if c not in categorical and c != "rid"]
    x = original[numeric].to_numpy(np.float64)
    if release.method in HAND:
        y = HAND[release.method](x, rng, **release.params)
    else:
        y = mask(release.method, x, rng, **release.params)
    out = original.copy()
    out[numeric] = y
    if categorical:
        from sdcrisk.assess.mixed_example import RECODED, pram

        for c in numeric:
            out[c] = np.round(out[c], 2)
        for c in RECODED:
            out[c] = pram(original[c], rng)
        out = out.iloc[rng.permutation(len(out))].reset_index(drop=True)
    return out


def attack(release: Release, original: pd.DataFrame, categorical: list[str]) -> list[dict]:
    """Every attack on ``release``: one row per attack."""
    from sdcrisk import assess

    y = masked(release, original, categorical)
    kw = {"id": "rid", "categorical": categorical} if categorical else {}
    table = assess(original, y, attacks=["all"], information_loss=False, seed=0, **kw)
    rows = []
    for r in table.itertuples():
        rows.append({"release": release.name, "attack": r.measure, "n": int(r.n),
                     "linked": "" if pd.isna(r.linked) else repr(float(r.linked)),
                     "percent": "" if pd.isna(r.percent) else repr(float(r.percent)),
                     "seconds": f"{r.seconds:.2f}", "note": r.note if isinstance(r.note, str) else ""})
    return rows


def write_csv(path: Path, fields: list[str], rows: list[dict]) -> None:
    buf = io.StringIO()
    w = csv.DictWriter(buf, fields, lineterminator="\n")
    w.writeheader()
    w.writerows(rows)
    path.write_text(buf.getvalue())


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default=",".join(SOURCES), help="comma-separated sources (default: all)")
    ap.add_argument("--out", default=str(HERE / "results"), help="output directory (default: %(default)s)")
    args = ap.parse_args(argv)
    names = [s for s in args.only.split(",") if s]
    bad = [s for s in names if s not in SOURCES]
    if bad:
        print(f"corpus.py: --only: unknown source(s) {bad}; choose from {', '.join(SOURCES)}", file=sys.stderr)
        return 2
    if str(ROOT / "src") not in sys.path:
        sys.path.insert(0, str(ROOT / "src"))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    manifest, linked = [], []
    t0 = time.perf_counter()
    for src in names:
        original, categorical = source(src)
        for rel in releases([src]):
            t = time.perf_counter()
            rows = attack(rel, original, categorical)
            linked += rows
            attrs = [c for c in original.columns if c != "rid"]
            manifest.append({"release": rel.name, "source": src, "n": len(original), "m": len(attrs),
                             "method": rel.method, "params": json.dumps(rel.params, sort_keys=True),
                             "seed": seed_of(rel.name), "made_by": rel.made_by, "categorical": ",".join(categorical)})
            best = max((r for r in rows if r["attack"] != "ID" and r["linked"]), key=lambda r: float(r["linked"]))
            print(f"{rel.name}: {time.perf_counter() - t:.1f} s; highest {best['attack']} "
                  f"{float(best['percent']):.2f} %", flush=True)
    write_csv(out / "manifest.csv", FIELDS_MANIFEST, manifest)
    write_csv(out / "linked.csv", FIELDS_LINKED, linked)
    print(f"{len(manifest)} releases in {time.perf_counter() - t0:.0f} s; wrote {out / 'manifest.csv'}, "
          f"{out / 'linked.csv'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
