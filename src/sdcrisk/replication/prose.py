"""Numbers in prose, written from the replication check (``tables/replication_summary.json``).

Every count or share of the check quoted in README.md or REPLICATION.md sits in a marked region
that this module rewrites, so the text cannot drift from the check:

* ``<!-- check:per-paper -->`` ... ``<!-- /check -->``: the per-paper table
  (:func:`sdcrisk.replication.check.per_paper_table`);
* ``<!-- check:rules -->`` ... ``<!-- /check -->``: the status rules, as the check applies them
  (:data:`sdcrisk.replication.check.STATUS_RULES`);
* ``<!-- check: WHAT [paper=ID] [tables=T1,T2] [split=calibration|held-out] -->text<!-- /check -->``
  inline, where WHAT is ``ok`` ("12 of 40": rows that match or are close, of the rows compared),
  ``okpct`` ("12 of 40 (30 %)"), ``rows`` (all rows, compared or not) or a status name
  (``match``, ``close``, ``differs``, ``unconverged``, ``missing``: its row count). A selection
  that matches no row of the check is an error (a typo); a split without rows gives "0 of 0".

``python -m sdcrisk.replication.prose README.md REPLICATION.md`` rewrites the regions after a paper-scale
run; ``--check`` only reports the regions that disagree (exit status 1), as the test suite does.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from .check import CALIBRATION, HELD_OUT, STATUSES, per_paper_table, rules_markdown

REGION = re.compile(r"(<!-- check:\s*(?P<spec>[^>]*?)\s*-->)(?P<body>.*?)(<!-- /check -->)", re.S)
SPLITS = ("all", CALIBRATION, HELD_OUT)


def _counts(summary: dict, paper: str | None, tables: list[str] | None, split: str) -> dict:
    """Status counts summed over the selected paper(s) and tables, for one split."""
    total = dict.fromkeys(STATUSES, 0)
    for key, per_split in summary["by_paper_table"].items():
        pa, ta = key.split("|")
        if (paper is None or pa == paper) and (tables is None or ta in tables):
            for s in STATUSES:
                total[s] += per_split[split][s]
    return total


def render_spec(spec: str, summary: dict) -> str:
    """The text of one region (module docstring); ValueError for an unknown or empty selection."""
    if spec == "per-paper":
        return "\n" + "\n".join(per_paper_table(summary)) + "\n"
    if spec == "rules":
        return "\n" + rules_markdown() + "\n"
    what, *opts = spec.split()
    kv = dict(o.split("=", 1) for o in opts if "=" in o)
    if len(kv) != len(opts) or set(kv) - {"paper", "tables", "split"} or kv.get("split", "all") not in SPLITS:
        raise ValueError(f"check region {spec!r}: expected 'WHAT [paper=ID] [tables=T1,T2] [split={'|'.join(SPLITS)}]'")
    tables = kv["tables"].split(",") if "tables" in kv else None
    if not sum(_counts(summary, kv.get("paper"), tables, "all").values()):
        raise ValueError(f"check region {spec!r}: selects no row of the check")
    c = _counts(summary, kv.get("paper"), tables, kv.get("split", "all"))
    rows = sum(c.values())
    ok, compared = c["match"] + c["close"], rows - c["unconverged"]
    if what == "ok":
        return f"{ok} of {compared}"
    if what == "okpct":
        return f"{ok} of {compared} ({100 * ok / compared:.0f} %)" if compared else "0 of 0"
    if what == "rows":
        return str(rows)
    if what in STATUSES:
        return str(c[what])
    raise ValueError(f"check region {spec!r}: WHAT must be ok, okpct, rows or one of {list(STATUSES)}")


def rewrite(text: str, summary: dict) -> str:
    """``text`` with every marked region rewritten from ``summary``."""
    return REGION.sub(lambda m: m.group(1) + render_spec(m.group("spec"), summary) + m.group(4), text)


def stale_regions(text: str, summary: dict) -> list[tuple[str, str, str]]:
    """``(spec, written, expected)`` of every region whose text disagrees with the check."""
    out = []
    for m in REGION.finditer(text):
        expected = render_spec(m.group("spec"), summary)
        if m.group("body").strip() != expected.strip():
            out.append((m.group("spec"), m.group("body").strip(), expected.strip()))
    return out


def main(argv=None) -> int:
    import argparse

    from ..data import atomic_write

    ap = argparse.ArgumentParser(description="Rewrite (or --check) the check's numbers in Markdown documents.")
    ap.add_argument("documents", nargs="+")
    ap.add_argument("--summary", default="tables/replication_summary.json")
    ap.add_argument("--check", action="store_true", help="only report regions that disagree (exit 1)")
    a = ap.parse_args(argv)
    summary = json.loads(Path(a.summary).read_text())
    bad = 0
    for doc in a.documents:
        text = Path(doc).read_text()
        if a.check:
            for spec, written, expected in stale_regions(text, summary):
                bad += 1
                print(f"{doc}: <!-- check: {spec} --> says {written!r}, the check says {expected!r}")
        else:
            new = rewrite(text, summary)
            if new != text:
                atomic_write(doc, lambda p, t=new: Path(p).write_text(t))
                print(f"{doc}: rewritten")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
