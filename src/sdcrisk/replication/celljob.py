"""One cell of the replication DAG as a workflow job runs it: rule ``cell`` (one cell per job,
workflow/scripts/run_cell.py) and the batch rules of the ``cell_batch`` config key (several cells
in one process, workflow/scripts/run_cells.py) both call :func:`run_cell_job`, so a cell's files
are the same whichever ran it."""

from __future__ import annotations

from .config import Cell, load_plugins
from ..data import read_table, write_table
from .evaluation import run_cell
from .joblog import log_stderr


def run_cell_job(data: str, output: str, log: str, *, cell: Cell, experiment: dict, seed: int,
                 plugins: list[str], code: str | None = None) -> None:
    """Standard error to ``log``; load the cell's own plugins; mask, attack and measure every
    replicate of ``cell`` on the processed data file ``data``; write its rows to ``output``.
    The keywords are the cell job's params (workflow/rules/cells.smk, ``CELL_PARAMS``); ``code``
    is only a rerun trigger."""
    log_stderr(log)
    load_plugins({"plugins": plugins})
    x = read_table(data).to_numpy()
    write_table(run_cell(x, cell, experiment, seed), output)
