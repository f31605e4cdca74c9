"""The mixed-type example of ``sdcrisk assess``: sdcMicro's household survey ``testdata``
(4580 records; categorical keys and continuous attributes), masked three ways.

    python -m sdcrisk.assess.mixed_example --out example      # then the command it prints

The file is obtained like the reference data (:func:`sdcrisk.data.fetch`): copied from the mirror
directory ``$SDCRISK_DATA_MIRROR`` (or ``--mirror``) or downloaded from sdcMicro's repository at a
pinned commit, and its sha256 verified either way.

Attributes: the categorical keys ``urbrur, roof, walls, water, electcon, sex`` (released
unchanged: the intruder's blocking keys), the categorical ``relat, hhcivil`` (recoded by a
PRAM-like draw, Gouweleeuw, Kooiman, Willenborg & de Wolf 1998: each value kept with probability
:data:`RETAIN`, else replaced by a draw from the column's distribution), and the continuous
``age, expend, income, savings``, masked by MDAV (k = 3), additive noise (a = 0.5) or rank
swapping (p = 5) of :mod:`sdcrisk.masking`. ``ori_hid`` (a household id shared by the members)
and ``sampling_weight`` (constant) are not attributes an intruder matches on and are left out.
Every file carries a record id ``rid``; the masked files' rows are shuffled. All random choices
flow from ``seed``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from ..data import DatasetSpec, fetch

TESTDATA = DatasetSpec(
    name="testdata",
    url="https://raw.githubusercontent.com/sdcTools/sdcMicro/ea3a1048e7f811f9afc806f2e85906cd974ce0ac/data/testdata.RData",
    sha256="7a15fe73169254a7fd5a6b9da4b62815a25025bfd1e3f63937ca0179223b8b4d",
    object="testdata",
    columns=("urbrur", "roof", "walls", "water", "electcon", "relat", "sex", "age", "hhcivil", "expend", "income",
             "savings"),
    filename="testdata.RData",
)
KEYS = ("urbrur", "roof", "walls", "water", "electcon", "sex")
RECODED = ("relat", "hhcivil")
CATEGORICAL = KEYS + RECODED
CONTINUOUS = ("age", "expend", "income", "savings")
RETAIN = 0.8
MASKINGS = {"mdav": ("mdav", {"v": 4, "k": 3}), "noise": ("additive_noise", {"a": 0.5}),
            "rankswap": ("rankswap", {"p": 5.0})}


def load_testdata(workdir: str | Path, mirror: str | Path | None = None) -> pd.DataFrame:
    """The verified ``testdata`` file's attributes (:data:`TESTDATA`), integer-coded categoricals kept as integers."""
    import pyreadr

    path = fetch(TESTDATA, Path(workdir) / "testdata.RData", mirror)
    frame = pyreadr.read_r(str(path))[TESTDATA.object]
    return frame.loc[:, list(TESTDATA.columns)].reset_index(drop=True)


def pram(column: pd.Series, rng: np.random.Generator, retain: float = RETAIN) -> pd.Series:
    """Each value kept with probability ``retain``, else drawn from the column's own distribution."""
    values = column.to_numpy()
    draw = rng.choice(values, size=values.size)
    keep = rng.random(values.size) < retain
    return pd.Series(np.where(keep, values, draw), name=column.name)


def masked_versions(original: pd.DataFrame, seed: int = 2026) -> dict[str, pd.DataFrame]:
    """The three masked files of the example, keyed by masking (:data:`MASKINGS`), rows shuffled."""
    from ..masking import mask

    root = np.random.Generator(np.random.PCG64(seed))
    out = {}
    for label, (method, params) in MASKINGS.items():
        rng = np.random.Generator(np.random.PCG64(root.integers(2**63)))
        m = original.copy()
        cont = mask(method, original[list(CONTINUOUS)].to_numpy(np.float64), rng, **params)
        for j, c in enumerate(CONTINUOUS):
            m[c] = np.round(cont[:, j], 2)
        for c in RECODED:
            m[c] = pram(original[c], rng)
        out[label] = m.iloc[rng.permutation(len(m))].reset_index(drop=True)
    return out


def write_example(out_dir: str | Path, mirror: str | Path | None = None, seed: int = 2026) -> list[Path]:
    """Write ``original.csv`` and ``masked_<masking>.csv`` to ``out_dir``; return their paths."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    original = load_testdata(out, mirror)
    original.insert(0, "rid", np.arange(1, len(original) + 1))
    paths = [out / "original.csv"]
    original.to_csv(paths[0], index=False)
    for label, table in masked_versions(original, seed).items():
        paths.append(out / f"masked_{label}.csv")
        table.to_csv(paths[-1], index=False)
    return paths


def command(paths: list[Path]) -> str:
    """The ``sdcrisk assess`` command that assesses the example's masked files."""
    return (f"sdcrisk assess {paths[0]} {' '.join(str(p) for p in paths[1:])} --id rid "
            f"--categorical {','.join(CATEGORICAL)} --out {paths[0].parent / 'report'}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m sdcrisk.assess.mixed_example", description=__doc__.split("\n\n")[0])
    p.add_argument("--out", default="mixed-example", help="directory for the files (default: %(default)s)")
    p.add_argument("--mirror", help="directory holding testdata.RData (default: $SDCRISK_DATA_MIRROR, else download)")
    p.add_argument("--seed", type=int, default=2026, help="seed of the maskings (default: %(default)s)")
    args = p.parse_args(argv)
    try:
        paths = write_example(args.out, args.mirror, args.seed)
    except (OSError, ValueError) as exc:
        print(f"sdcrisk.assess.mixed_example: error: {exc}", file=sys.stderr)
        return 2
    print("wrote " + ", ".join(str(q) for q in paths))
    print(command(paths))
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
