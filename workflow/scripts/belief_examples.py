"""Snakemake adapter: the worked belief-function examples of Torra, Stokes et al. (compatible probabilities) as a table (CSV, Markdown, LaTeX)."""

from sdcrisk.replication.experiments_belief import worked_examples_table
from sdcrisk.replication.render import write_formats
from sdcrisk.replication.joblog import log_stderr

log_stderr(snakemake.log[0])
table = worked_examples_table()
body = [[r.example, r.quantity, f"{r.value:.7g}"] for r in table.itertuples()]
write_formats(snakemake.output.csv, snakemake.output.md, snakemake.output.tex, table,
              (["example", "quantity", "value"], body, ""), "torra_belief_Texamples",
              "worked examples of re-identification as belief functions (Torra, Stokes et al. (compatible probabilities))",
              float_format="%.7g", align="llr")
