"""Snakemake adapter: the worked belief-function examples of seed 004 as a table."""
import sys
from pathlib import Path

from sdcrisk.experiments_belief import worked_examples_table

sys.stderr = open(snakemake.log[0], "w")
table = worked_examples_table()
table.to_csv(snakemake.output.csv, index=False, float_format="%.7g")
lines = ["**torra_belief_Texamples**: worked examples of re-identification as belief functions (seed 004)", "",
         "| example | quantity | value |", "|---|---|---|"]
lines += [f"| {r.example} | {r.quantity} | {r.value:.7g} |" for r in table.itertuples()]
Path(snakemake.output.md).write_text("\n".join(lines) + "\n")
