"""The reference replication of the papers' tables and figures, one of the two products over
the shared engine (the other: :mod:`sdcrisk.assess`); its modules run in the Snakemake workflow
(``Snakefile``, ``workflow/``):

* :mod:`~sdcrisk.replication.config`: the workflow's config, its cells and their seeds;
  :mod:`~sdcrisk.replication.estimate`: the compute estimate; :mod:`~sdcrisk.replication.preflight`:
  the checks before any cell;
* :mod:`~sdcrisk.replication.evaluation`: the evaluation families a cell runs;
  :mod:`~sdcrisk.replication.celljob`: a cell job; :mod:`~sdcrisk.replication.belief`,
  :mod:`~sdcrisk.replication.experiments_belief`: the belief-function experiments;
* :mod:`~sdcrisk.replication.check`: the comparison with the published numbers and its
  calibration split; :mod:`~sdcrisk.replication.committed`: the committed results;
  :mod:`~sdcrisk.replication.overview`, :mod:`~sdcrisk.replication.render`,
  :mod:`~sdcrisk.replication.figures`, :mod:`~sdcrisk.replication.prose`: the tables, figures and
  generated prose;
* :mod:`~sdcrisk.replication.provenance`, :mod:`~sdcrisk.replication.environment`: the code
  digests and the machine record of the manifest; :mod:`~sdcrisk.replication.joblog`: the jobs'
  logs.

Layers: this package imports the engine (``sdcrisk.masking``, ``sdcrisk.linkage``,
``sdcrisk.measures``, ``sdcrisk.attacks`` and the top-level helper modules) and never
:mod:`sdcrisk.assess`; the engine imports neither product; only :mod:`sdcrisk.cli` (the entry
point) imports both (``tests/test_layers.py``).
"""
