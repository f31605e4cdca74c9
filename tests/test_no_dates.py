"""The documentation pages and the measured records carry no dates and no clock times.

What changed, and when, is CHANGELOG.md's; the pages under docs/ and benchmarks/results/ state
measurements by topic, with their machine, load and command, and name each code version by what it
does or by its commit. The benchmark scripts that write benchmarks/results/ therefore write no date
or clock time either (a static look at their source: the next run of any of them must not bring a
date back). Fast: no reference data, nothing run (``pytest -m "not slow"`` includes it).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

MONTHS = "January|February|March|April|May|June|July|August|September|October|November|December"
ORDINALS = "first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|previous|earlier|later|last|this"
#: an ISO date, a clock time "HH:MM UTC" (also the end of a range "08:58-09:09 UTC"), a day of a
#: month ("November 27", "November 2026"), or an ordinal round or session ("fourth round")
DATED = re.compile(
    r"\b\d{4}-\d{2}-\d{2}\b"
    r"|\b\d{1,2}:\d{2}(?::\d{2})?(?:\s*-\s*\d{1,2}:\d{2})?\s*UTC\b"
    rf"|\b(?:{MONTHS})\s+(?:\d{{1,2}}|\d{{4}})\b"
    rf"|\b(?:{ORDINALS})\s+(?:round|session)s?\b",
    re.I,
)

#: the pages that state the current record: every Markdown page of docs/ and benchmarks/results/
#: (CHANGELOG.md lives at the top and is not among them)
PAGES = sorted([*(ROOT / "docs").rglob("*.md"), *(ROOT / "benchmarks" / "results").glob("*.md")])

#: writers of benchmarks/results/ and of the measured regions of docs/benchmarks.md
WRITERS = sorted((ROOT / "benchmarks").glob("*.py"))
CLOCK = re.compile(r"\bstrftime\b|\bdatetime\b|\bgmtime\b|\blocaltime\b|\basctime\b|\bctime\b|\bdate\.today\b"
                   r"|\bUTC\b|%Y|%H:%M")


def dated_phrases(text: str) -> list[str]:
    return [m.group(0) for m in DATED.finditer(text)]


def clock_calls(source: str) -> list[str]:
    """Each line of a script's source that reads or formats the date or the time of day."""
    return [line.strip() for line in source.splitlines() if CLOCK.search(line)]


def test_the_pattern_finds_dates_clock_times_and_rounds():
    text = ("## Tried and not kept (2026-11-27, fourth round)\n"
            "alternated just before (08:58-09:09 UTC); written 13:58 UTC; measured November 28, late;\n"
            "the run of November 2026; the previous round took 3 s")
    assert dated_phrases(text) == ["2026-11-27", "fourth round", "08:58-09:09 UTC", "13:58 UTC", "November 28",
                                   "November 2026", "previous round"]


def test_the_pattern_leaves_measurements_and_citations_alone():
    text = ("Nin, Herranz & Torra (2007) T7; three rounds alternating; 7-8 rounds at 10^6; 12 min 48 s;"
            " seed 20240611; 4,092 x 10; ratio 1:2; load (0.82, 1.41, 1.49); a may stay; round(x, 2)")
    assert dated_phrases(text) == []


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_page_carries_no_date_or_clock_time(page):
    assert dated_phrases(page.read_text(encoding="utf-8")) == []


def test_the_pages_are_found():
    names = {p.relative_to(ROOT).as_posix() for p in PAGES}
    assert {"docs/benchmarks.md", "docs/tried_and_not_kept.md", "docs/value_changes.md",
            "benchmarks/results/mdav.md", "benchmarks/results/scaling.md"} <= names
    assert not any(n.endswith("CHANGELOG.md") for n in names)


def test_clock_calls_are_found():
    source = ("import datetime as dt\nwhen = time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())\n"
              "t0 = time.perf_counter()\nload = os.getloadavg()\n")
    assert clock_calls(source) == ["import datetime as dt", "when = time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())"]


@pytest.mark.parametrize("script", WRITERS, ids=lambda p: p.name)
def test_benchmark_writers_emit_no_date(script):
    """Machine, load and command are provenance and stay; the date and the time of day are not."""
    assert clock_calls(script.read_text(encoding="utf-8")) == []
