# One rule instance per published artefact: tables/{paper}_{table}.csv|.md|.tex, figures/{paper}_{figure}.png|.pdf


rule table:
    input:
        lambda wc: f"results/aggregated/{TABLES[wc.name][0]}.csv",
    output:
        csv=report("tables/{name}.csv", category="Tables", caption="../report/table.rst"),
        md="tables/{name}.md",
        tex="tables/{name}.tex",
    wildcard_constraints:
        name="|".join(TABLES) if TABLES else "NONE",
    log:
        "logs/tables/{name}.log",
    params:
        experiment=lambda wc: config["experiments"][TABLES[wc.name][0]],
        table=lambda wc: TABLES[wc.name][1],
        name=lambda wc: wc.name,
        code=sdc_provenance.code_digest("sdcrisk.replication.render"),
    script:
        "../scripts/render_table.py"


rule figure:
    input:
        aggregated=lambda wc: f"results/aggregated/{FIGURES[wc.name][0]}.csv",
        published=repo_path("published", "published_values.csv"),
        claims=repo_path("published", "published_claims.csv"),
    output:
        png=report("figures/{name}.png", category="Figures", caption="../report/figure.rst"),
        pdf="figures/{name}.pdf",
    wildcard_constraints:
        name="|".join(FIGURES) if FIGURES else "NONE",
    log:
        "logs/figures/{name}.log",
    params:
        experiment=lambda wc: config["experiments"][FIGURES[wc.name][0]],
        figure=lambda wc: FIGURES[wc.name][1],
        # axis labels (units), averaged scenarios (render) and paper names (replication) too
        code=sdc_provenance.code_digest("sdcrisk.replication.figures", "sdcrisk.measures.units", "sdcrisk.replication.render",
                                        "sdcrisk.replication.check", libraries=sdc_provenance.FIGURE_LIBRARIES),
    script:
        "../scripts/render_figure.py"


rule belief_examples:
    output:
        csv=report("tables/torra_belief_Texamples.csv", category="Tables", caption="../report/table.rst"),
        md="tables/torra_belief_Texamples.md",
        tex="tables/torra_belief_Texamples.tex",
    log:
        "logs/tables/torra_belief_Texamples.log",
    params:
        code=sdc_provenance.code_digest("sdcrisk.replication.belief", "sdcrisk.replication.experiments_belief", "sdcrisk.replication.render"),
    script:
        "../scripts/belief_examples.py"
