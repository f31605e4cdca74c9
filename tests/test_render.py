"""Table rendering: the same cells in CSV, Markdown and LaTeX, the paper's layout, atomic writes."""

import pandas as pd

from sdcrisk.replication.render import render_table

EXPERIMENT = {"tables": {"T1": {"dataset": "census", "measure": "LLD_count", "layout": "known_by_param",
                                "caption": "L-RL links, 100% known & more_than_half"}}}


def _aggregated(tmp_path, n):
    rows = [{"experiment": "e", "dataset": "census", "method": "rankswap", "param": str(p), "known": str(k),
             "measure": "LLD_count", "mean": 10.0 * p + k, "sd": 0.5 * (n > 1), "n": n, "order": i}
            for i, p in enumerate((2, 4, 6)) for k in (1, 2)]
    rows.append({**rows[0], "measure": "IL", "known": ""})  # another table's cell: not selected
    path = tmp_path / "agg.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


def _render(tmp_path, n):
    out = {ext: tmp_path / "tables" / f"x_T1.{ext}" for ext in ("csv", "md", "tex")}
    tidy = render_table(_aggregated(tmp_path, n), EXPERIMENT, "T1", "x_T1", out["csv"], out["md"], out["tex"])
    return tidy, {ext: p.read_text() for ext, p in out.items()}


def test_three_formats_hold_the_same_cells(tmp_path):
    tidy, text = _render(tmp_path, 5)
    assert len(tidy) == 6 and set(tidy.measure) == {"LLD_count"}
    assert sorted(p.name for p in (tmp_path / "tables").iterdir()) == ["x_T1.csv", "x_T1.md", "x_T1.tex"]
    for mean in tidy["mean"]:
        assert f"{mean:.2f} ± 0.50" in text["md"]
        assert f"{mean:.2f} $\\pm$ 0.50" in text["tex"]
    body = [line for line in text["md"].splitlines() if line.startswith("| ") and line[2].isdigit()]
    assert [line.split(" | ")[0] for line in body] == ["| 1", "| 2"]  # rows: known attributes


def test_latex_is_a_balanced_booktabs_table_with_escaped_text(tmp_path):
    _, text = _render(tmp_path, 1)
    tex = text["tex"]
    assert tex.startswith("\\begin{table}") and tex.rstrip().endswith("\\end{table}")
    assert tex.count("{") - tex.count("\\{") == tex.count("}") - tex.count("\\}")
    assert "100\\% known \\& more\\_than\\_half" in tex and "\\label{tab:x_T1}" in tex
    rows = [line for line in tex.splitlines() if line.endswith("\\\\")]
    assert len(rows) == 3 and all(line.count(" & ") == 3 for line in rows)  # header + 2 rows, 4 columns
    assert "\\pm" not in tex.split("\\end{tabular}")[0]  # one replicate: means only
    assert "mean over n = 1 replicate(s)" in tex
