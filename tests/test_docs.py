"""The documentation: README's shape, its commands as typed, every internal link, the site's nav.

README.md is the front page (at most 200 lines, a quick start for each reader in its first 40
lines); docs/ holds the rest and is also built as a site (mkdocs.yml; ``mkdocs build --strict``
in .ci/run). Here, without building anything: every relative Markdown link of README.md,
docs/**/*.md, REPLICATION.md and CHANGELOG.md names a file or directory that exists, and a
``#anchor`` names a heading of the target, with the anchor GitHub gives a heading (the site
uses the same, ``toc.slugify`` in mkdocs.yml).
"""

import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
LINKED_DOCUMENTS = [ROOT / "README.md", ROOT / "REPLICATION.md", ROOT / "CHANGELOG.md",
                    *sorted(p for p in DOCS.rglob("*.md"))]
README = ROOT / "README.md"

FENCE = re.compile(r"^\s*(```|~~~)")
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")


def prose_lines(text: str, blank_code: bool = True) -> list[tuple[int, str]]:
    """(line number, line) outside fenced code blocks, inline code spans blanked (or kept)."""
    out, fenced = [], False
    for number, line in enumerate(text.splitlines(), 1):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            out.append((number, re.sub(r"(`+)(.+?)\1", lambda m: " " * len(m.group(0)), line) if blank_code else line))
    return out


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading: the text without markup, lower case, every character
    but letters, digits, '_', '-' and spaces dropped, spaces as '-'."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link's text
    text = re.sub(r"<[^>]+>", "", text).replace("`", "").replace("*", "")
    text = "".join(c for c in text.strip().lower() if c.isalnum() or c in "_- ")
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """Every heading anchor of a Markdown file; a repeated heading gets -1, -2, ... as on GitHub."""
    seen: dict[str, int] = {}
    out = set()
    for _, line in prose_lines(path.read_text(encoding="utf-8"), blank_code=False):
        m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not m:
            continue
        base = slug(m.group(1))
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.add(base if n == 0 else f"{base}-{n}")
    return out


def broken_links(path: Path, root: Path = ROOT) -> list[str]:
    """Each relative link of ``path`` whose target file, directory or heading does not exist."""
    text = path.read_text(encoding="utf-8")
    # inline code is blanked in prose_lines; take the links from the original line at the same place
    raw = text.splitlines()
    broken = []
    for number, line in prose_lines(text):
        for m in LINK.finditer(line):
            target = raw[number - 1][m.start(1):m.end(1)]
            if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target) or target.startswith("/"):
                continue  # another site, mail, or an absolute path: not checked here
            where, _, anchor = target.partition("#")
            dest = (path.parent / where).resolve() if where else path
            if not dest.exists():
                broken.append(f"{path.relative_to(root)}:{number}: {target} (no such file)")
            elif anchor and (dest.suffix != ".md" or anchor not in anchors(dest)):
                broken.append(f"{path.relative_to(root)}:{number}: {target} (no heading #{anchor})")
    return broken


def test_slug_is_github_s():
    assert slug("`sdcrisk assess` on large files") == "sdcrisk-assess-on-large-files"
    assert slug("Mixed-type files: categorical keys") == "mixed-type-files-categorical-keys"
    assert slug("Calibration evidence (deterministic cells; `python research/calibrate.py`)") == \
        "calibration-evidence-deterministic-cells-python-researchcalibratepy"


def test_link_check_finds_missing_files_and_headings(tmp_path):
    """The checker itself on a made-up page: a good link, a good anchor (also a repeated heading's
    second anchor), a missing file, a missing heading, and links in code that are not links."""
    (tmp_path / "other.md").write_text("# Title\n\n## Part one\n\n## Part one\n")
    page = tmp_path / "page.md"
    page.write_text("\n".join([
        "# Page", "",
        "[ok](other.md) [ok](other.md#part-one) [ok](other.md#part-one-1) [ok](#page) [ok](https://x.org/y)",
        "[bad](missing.md) [bad](other.md#part-two) [bad](#nowhere)",
        "`[code](not-a-link.md)`", "```", "[code](not-a-link-either.md)", "```", "![img](missing.png)",
    ]))
    found = broken_links(page, root=tmp_path)
    assert [f.split(": ", 1)[1] for f in found] == [
        "missing.md (no such file)", "other.md#part-two (no heading #part-two)", "#nowhere (no heading #nowhere)",
        "missing.png (no such file)"]


@pytest.mark.parametrize("path", LINKED_DOCUMENTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(path):
    assert broken_links(path) == []


# ----------------------------------------------------------------------------- README
def _sections(text: str) -> dict[str, tuple[int, int]]:
    """Each '## ' section of README: (first line, last line), 1-based."""
    lines = text.splitlines()
    starts = [i for i, ln in enumerate(lines, 1) if ln.startswith("## ")]
    spans = {}
    for k, s in enumerate(starts):
        last = starts[k + 1] - 1 if k + 1 < len(starts) else len(lines)
        while not lines[last - 1].strip():
            last -= 1
        spans[lines[s - 1][3:]] = (s, last)
    return spans


def _bash_blocks(text: str) -> list[str]:
    return re.findall(r"```bash\n(.*?)```", text, flags=re.S)


def test_readme_is_short_and_opens_with_both_quick_starts():
    text = README.read_text()
    assert len(text.splitlines()) <= 200
    sections = _sections(text)
    quick = {name: span for name, span in sections.items() if name.lower().startswith("quick start")}
    assert len(quick) == 2, sorted(sections)
    assert all(last <= 40 for _, last in quick.values()), quick  # each whole section in the first 40 lines
    head = "\n".join(text.splitlines()[:40])
    # the reviewer's fast path and full run, the custodian's install and command
    assert "--config from_committed=true" in head and re.search(r"^snakemake --cores all(\s+#.*)?$", head, flags=re.M)
    assert "python -m pip install . && sdcrisk compile" in head and "\nsdcrisk assess " in head


def test_readme_commands_work_as_typed_on_a_fresh_machine():
    """A venv before pip (Debian's system Python refuses pip), the data mirror exported on its own
    line (``VAR=x a && b`` sets it for ``a`` only), the machine's cores, never a fixed count."""
    text = README.read_text()
    lines = [re.sub(r"\s+#.*$", "", ln).strip() for block in _bash_blocks(text) for ln in block.splitlines()]
    lines = [ln for ln in lines if ln]  # the commands, without their comments
    first_pip = next(i for i, ln in enumerate(lines) if "pip install" in ln)
    assert any(ln.startswith("python3 -m venv .venv && . .venv/bin/activate") for ln in lines[:first_pip])
    assert not [ln for ln in lines if re.match(r"^[A-Z_]+=\S*\s+\S", ln)], "a variable set for one command only"
    assert any(ln.startswith("export SDCRISK_DATA_MIRROR=") for ln in lines)
    cores = re.findall(r"--cores\s+(\S+)", "\n".join(lines))
    assert cores and set(cores) == {"all"}
    assert 'python -m pytest -m "not slow"' in text


# ----------------------------------------------------------------------------- the site
def _nav_files() -> list[str]:
    return re.findall(r"^\s*-\s+[^:\n]+:\s+(\S+\.md)\s*$", (ROOT / "mkdocs.yml").read_text(), flags=re.M)


def test_nav_names_existing_pages_and_every_page():
    nav = _nav_files()
    for entry in nav:
        where = ROOT / entry.removeprefix("repo/") if entry.startswith("repo/") else DOCS / entry
        assert where.is_file(), entry
    pages = {p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md")}
    assert pages - set(nav) == set()


def test_api_pages_name_objects_that_exist():
    """Each ``::: dotted.path`` of the API reference names a module or an object in one (so that a
    module moved without its page fails here, before the site is built)."""
    names = [m for p in sorted((DOCS / "api").glob("*.md")) for m in re.findall(r"^::: (\S+)$", p.read_text(), flags=re.M)]
    assert len(names) >= 4
    for name in names:
        try:
            importlib.import_module(name)
        except ImportError:
            module, _, attr = name.rpartition(".")
            assert hasattr(importlib.import_module(module), attr), name


_REGION = re.compile(r"<!--\s*(?P<name>[\w:-]+)[^>]*-->.*?<!--\s*/[\w:-]*\s*-->", re.S)
_FENCE = re.compile(r"```.*?```", re.S)
_MEASURED = re.compile(r"\d[\d,.]*(?:\s*-\s*\d[\d,.]*)?\s?(?:s|min|minutes|seconds|hours|GB|GiB|MB|MiB|KiB)(?![\w])"
                       r"|\d[\d,.]*\s*-\s*\d[\d,.]*\s?% of (?:n|the records)")  # a measured range (rules are single numbers)


def measured_figures(text: str) -> list[str]:
    """Run times, memory and measured shares written by hand: outside generated regions and code."""
    return _MEASURED.findall(_FENCE.sub("", _REGION.sub("", text)))


def test_measured_figures_check_finds_hand_written_ones():
    assert measured_figures("It runs in 93 s and 1.2 GiB; ours 1-3 % of n high.") == ["93 s", "1.2 GiB", "1-3 % of n"]
    assert measured_figures("<!-- run-times -->took 93 s<!-- /run-times --> ```\nsleep 5 s\n```") == []
    assert measured_figures("targets: 95 % of the cells, within 1 point") == []


def test_readme_carries_no_measured_figure_outside_a_generated_region():
    assert measured_figures((ROOT / "README.md").read_text()) == []


def test_replication_record_stays_a_reviewers_document():
    """REPLICATION.md under 300 lines: the evidence in full lives in docs/differences.md and docs/."""
    assert len((ROOT / "REPLICATION.md").read_text().splitlines()) < 300


# the change-by-change phrasing of a history: a figure "before" or of "the previous commit", a
# table with before / now columns (each check outside code; versions are named by what they are)
HISTORY = re.compile(r"\bprevious (?:commit|kernel|code|estimate|table|run|machine)s?\b|\bthe first version\b|"
                     r"\b[\d.,]+ (?:s|MiB|MB|GB|GiB) before\b|\|\s*(?:before|now)\s*\||\bused to\b|"
                     r"\bEarlier measurements\b|\bbefore (?:this|that|the) change\b|\bwas [\d.,]+ s\b", re.I)


def history_phrases(text: str) -> list[str]:
    return [m.group(0) for _, line in prose_lines(text) for m in HISTORY.finditer(line)]


def test_history_phrases_are_found():
    assert history_phrases("4.2 s (9.7 s before); the previous kernel took 3 s\n| attack | before | now |") == [
        "9.7 s before", "previous kernel", "| before |"]
    assert history_phrases("It used to force pairs; the first version took 10 s; was 39 s") == [
        "used to", "the first version", "was 39 s"]
    assert history_phrases("refused before allocating; freed before the flow; `x before y`") == []


@pytest.mark.parametrize("page", ["benchmarks.md", "tried_and_not_kept.md", "value_changes.md",
                                  *(f"../benchmarks/results/{name}.md" for name in
                                    ("mdav", "assignment", "gdbrl_gap", "assess", "mask_memory", "scaling", "graded"))])
def test_benchmark_pages_name_versions_not_times(page):
    """docs/benchmarks.md states each step's current figure, then what was tried and not kept;
    docs/tried_and_not_kept.md, docs/value_changes.md and the records of benchmarks/results/ hold the
    measurements of the code versions the package no longer runs. None narrates change by change: a version is named by what it does
    (or by its commit), never as "before", "the previous commit" or "was X s"."""
    assert history_phrases((DOCS / page).read_text(encoding="utf-8")) == []

