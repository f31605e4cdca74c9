"""Committed cell results: every table, figure and the check from the last full run in seconds.

A full run ends by copying each experiment's aggregated cells (``results/aggregated/{e}.csv``:
mean, sd and n of every measure of every cell) to ``tables/cells/{e}.csv``, with a manifest
(``tables/cells/manifest.json``) holding, per experiment, a digest of everything its cells'
numbers depend on (the cells' parameters and settings, the root seed, the data sets' checksums,
the code digests of the cells and of the aggregation) and the sha256 of the copied file, and the
data sets' shapes. The fast path (``--config from_committed=true``) takes those files instead of
recomputing the cells, after checking that the digest equals the current one: results made by
other code, parameters or data are refused with the experiment named.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

from ..data import atomic_write, sha256_of

MANIFEST = "manifest.json"


def experiment_digest(cell_params: list[dict], aggregate_code: str) -> str:
    """Digest of an experiment's cell job parameters (every param of every cell job, in DAG
    order, as the cell rule passes them) and of the aggregation code."""
    payload = json.dumps({"cells": cell_params, "aggregate": aggregate_code}, sort_keys=True, default=repr)
    return hashlib.sha256(payload.encode()).hexdigest()[:16]


def snapshot(aggregated: dict, digests: dict, shapes_json, out_dir) -> None:
    """Copy the aggregated results to ``out_dir`` and write the manifest (atomically, manifest last)."""
    out_dir = Path(out_dir)
    experiments = {}
    for name, path in aggregated.items():
        dest = out_dir / f"{name}.csv"
        atomic_write(dest, lambda tmp, src=path: shutil.copyfile(src, tmp))
        experiments[name] = {"digest": digests[name], "sha256": sha256_of(dest)}
    manifest = {"experiments": experiments, "shapes": json.loads(Path(shapes_json).read_text())}
    atomic_write(out_dir / MANIFEST, lambda tmp: Path(tmp).write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n"))


def read_manifest(path) -> dict:
    path = Path(path)
    try:
        manifest = json.loads(path.read_text())
        manifest["experiments"], manifest["shapes"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"{path}: not a manifest of committed results ({exc}); run the full recompute") from None
    return manifest


def restore(experiment: str, committed_csv, manifest_path, digest: str, out_csv) -> None:
    """Copy the committed aggregated results of ``experiment`` to ``out_csv`` if they belong to the
    current code, parameters and data (``digest``) and are intact; else raise ValueError."""
    entry = read_manifest(manifest_path)["experiments"].get(experiment)
    full = "run the full recompute instead (snakemake --cores N, without from_committed)"
    if entry is None:
        raise ValueError(f"{manifest_path}: no committed results for experiment {experiment!r}; {full}")
    if entry["digest"] != digest:
        raise ValueError(f"{committed_csv}: committed results of experiment {experiment!r} were computed by other code, "
                         f"parameters or data (digest {entry['digest']}, current {digest}); {full}")
    if sha256_of(committed_csv) != entry["sha256"]:
        raise ValueError(f"{committed_csv}: file changed since it was committed (sha256 differs from {manifest_path}); {full}")
    atomic_write(out_csv, lambda tmp: shutil.copyfile(committed_csv, tmp))


def restore_shapes(manifest_path, out_json) -> None:
    """The data sets' shapes recorded with the committed results (no data needed on the fast path)."""
    shapes = read_manifest(manifest_path)["shapes"]
    atomic_write(out_json, lambda tmp: Path(tmp).write_text(json.dumps(shapes, indent=1, sort_keys=True) + "\n"))
