# One narrative notebook per paper, executed by papermill on the rendered outputs and exported to HTML:
# results/notebooks/{paper}.ipynb|.html from notebooks/{paper}.ipynb (source notebooks are output-free).
# The HTML leaves the code out (nbconvert --no-input): a reader sees the narrative, tables and figures,
# as in a paper's supplement; the executed .ipynb keeps the code.
# The notebooks read only tables/, figures/, tables/replication.csv and tables/environment.json,
# so they run in seconds.

# Papers of the configured experiments that have a notebook (pseudo-papers such as extra experiments
# without a notebook are skipped).
NOTEBOOK_PAPERS = sorted(p for p in {exp["paper"] for exp in config["experiments"].values()}
                         if os.path.exists(repo_path("notebooks", f"{p}.ipynb")))


def paper_artefacts(paper):
    """The rendered tables (.csv, .md) and figures (.png) of one paper, from the TABLES/FIGURES maps."""
    of_paper = lambda targets: [n for n, (exp, _) in targets.items() if config["experiments"][exp]["paper"] == paper]
    extra = []
    if paper == "torra_belief" and hasattr(rules, "belief_examples"):  # worked examples, not a config table
        extra = [rules.belief_examples.output.csv, rules.belief_examples.output.md]
    return ([f"tables/{n}.{ext}" for n in of_paper(TABLES) for ext in ("csv", "md")]
            + [f"figures/{n}.png" for n in of_paper(FIGURES)] + extra)


rule notebook:
    input:
        notebook=repo_path("notebooks", "{paper}.ipynb"),
        support=repo_path("workflow", "scripts", "notebook_support.py"),
        artefacts=lambda wc: paper_artefacts(wc.paper),
        replication="tables/replication.csv",
        environment="tables/environment.json",
    output:
        ipynb="results/notebooks/{paper}.ipynb",
        html=report("results/notebooks/{paper}.html", category="Notebooks"),
    wildcard_constraints:
        paper="|".join(NOTEBOOK_PAPERS) if NOTEBOOK_PAPERS else "NONE",
    log:
        "logs/notebooks/{paper}.log",
    params:  # relative to the working directory, where papermill starts the kernel: moving the
        # checkout does not change them, so it reruns no notebook
        tables_dir="tables",
        figures_dir="figures",
        replication_csv="tables/replication.csv",
        repo_dir=REPO,
        out_dir="results/notebooks",
    shell:
        "papermill {input.notebook:q} {output.ipynb:q} -k python3 --no-progress-bar"
        " -r paper {wildcards.paper} -r tables_dir {params.tables_dir:q} -r figures_dir {params.figures_dir:q}"
        " -r replication_csv {params.replication_csv:q} -r repo_dir {params.repo_dir:q} > {log:q} 2>&1"
        " && jupyter nbconvert --to html --no-input --output {wildcards.paper} --output-dir {params.out_dir:q}"
        " {output.ipynb:q} >> {log:q} 2>&1"
