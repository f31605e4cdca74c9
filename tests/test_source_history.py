"""Comments and docstrings in src/ explain intent and cite papers; measurements and their history
live in benchmarks/results and docs/benchmarks.md. A dated or "previous round" sentence, or a
"was X s" / "X -> Y s" timing, in src/ fails here."""

from __future__ import annotations

import re
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "sdcrisk"
HISTORY = re.compile(
    r"(January|February|March|April|May|June|July|August|September|October|November|December)"
    r" ?(20\d\d|\d{1,2}\b)"
    r"|previous (round|session|run)|earlier (round|session)|this session|last session"
    r"|\bwas \d[\d.,]* ?(s|ms|min|MiB|GiB|MB|GB)\b"
    r"|\d ?-> ?\d[\d.,]* ?(s|ms|MiB|GiB|MB|GB)\b")


def history_lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if HISTORY.search(line)]


def test_the_pattern_finds_dated_and_timed_history():
    assert history_lines("# measured November 27, later\nx = 1\n# L-RL 10.3 -> 6.5 s\n# (was 23.9 s)") == [
        "# measured November 27, later", "# L-RL 10.3 -> 6.5 s", "# (was 23.9 s)"]
    assert history_lines('"""Runs before any job; at most 20 % off."""') == []


def test_src_carries_no_history():
    found = {str(p.relative_to(SRC)): history_lines(p.read_text()) for p in sorted(SRC.rglob("*.py"))}
    assert {k: v for k, v in found.items() if v} == {}
