"""Snakemake adapter: the worked belief-function examples of seed 004 as a table (CSV, Markdown, LaTeX)."""
import sys
from pathlib import Path

from sdcrisk.data import atomic_write
from sdcrisk.experiments_belief import worked_examples_table
from sdcrisk.render import latex_table, markdown_table

sys.stderr = open(snakemake.log[0], "w")
table = worked_examples_table()
name, caption = "torra_belief_Texamples", "worked examples of re-identification as belief functions (seed 004)"
header = ["example", "quantity", "value"]
body = [[r.example, r.quantity, f"{r.value:.7g}"] for r in table.itertuples()]
atomic_write(snakemake.output.csv, lambda p: table.to_csv(p, index=False, float_format="%.7g"))
atomic_write(snakemake.output.md, lambda p: Path(p).write_text(markdown_table(header, body, f"**{name}**: {caption}")))
atomic_write(snakemake.output.tex, lambda p: Path(p).write_text(latex_table(header, body, f"{name}: {caption}", name, align="llr")))
