"""MkDocs hook: the repository files the documentation pages link to, served with the site.

The pages are written to be read in the repository too (on a code host, in an editor), so they
link to files outside ``docs/`` with ordinary relative links: ``../REPLICATION.md``,
``../benchmarks/results/scaling.md``. MkDocs only knows the files under ``docs/`` and, with
``--strict``, fails on such a link. This hook adds every file outside ``docs/`` that a page links
to (and, for a Markdown file, the files it links to in turn) to the site under ``repo/<its path>``,
and rewrites each relative link of every page to the place its target has in the site. A link
whose target does not exist is left as it is, so that the strict build still fails on it.
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path

from mkdocs.structure.files import File, Files, InclusionLevel

#: an inline Markdown link or image: ``[text](target)`` or ``[text](target "title")``
LINK = re.compile(r"(\]\()([^)\s]+)((?:\s+\"[^\"]*\")?\))")
#: where the repository's files outside docs/ go in the site
PREFIX = "repo/"


def _root(config) -> Path:
    return Path(config["config_file_path"]).resolve().parent


def _docs(config) -> str:
    """docs_dir relative to the repository root, e.g. ``docs``."""
    return Path(config["docs_dir"]).resolve().relative_to(_root(config)).as_posix()


def _split(target: str) -> tuple[str, str]:
    path, _, anchor = target.partition("#")
    return path, anchor


def _relative(target: str) -> bool:
    return not (re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target) or target.startswith(("/", "#")))


def _repo_path(page_repo_path: str, path: str) -> str:
    """The repository path a link ``path`` in the file ``page_repo_path`` points to."""
    return posixpath.normpath(posixpath.join(posixpath.dirname(page_repo_path), path))


def _site_path(repo_path: str, docs: str) -> str:
    """Where the file at ``repo_path`` is in the site (relative to the site's root)."""
    if repo_path.startswith(docs + "/"):
        return repo_path[len(docs) + 1:]
    return PREFIX + repo_path


def _targets(text: str, repo_path: str) -> list[str]:
    out = []
    for _, target, _ in LINK.findall(text):
        path, _ = _split(target)
        if path and _relative(target):
            out.append(_repo_path(repo_path, path))
    return out


def _nav_paths(item) -> list[str]:
    """The repository paths the nav names as ``repo/<path>``."""
    if isinstance(item, str):
        return [item[len(PREFIX):]] if item.startswith(PREFIX) else []
    values = item.values() if isinstance(item, dict) else item or []
    return [p for value in values for p in _nav_paths(value)]


def on_files(files: Files, config) -> Files:
    root, docs = _root(config), _docs(config)
    queue = [f"{docs}/{f.src_uri}" for f in files.documentation_pages()] + _nav_paths(config["nav"])
    seen = set(queue)
    while queue:
        repo_path = queue.pop()
        source = root / repo_path
        if not source.is_file():
            continue
        if not repo_path.startswith(docs + "/"):
            # pages reached by links, not by the nav (where the nav names one, it is listed there too)
            files.append(File.generated(config, PREFIX + repo_path, abs_src_path=str(source),
                                        inclusion=InclusionLevel.NOT_IN_NAV))
        if source.suffix == ".md":
            for target in _targets(source.read_text(encoding="utf-8"), repo_path):
                if target not in seen and not target.startswith("..") and (root / target).is_file():
                    seen.add(target)
                    queue.append(target)
    return files


def on_page_markdown(markdown: str, page, config, files) -> str:
    docs = _docs(config)
    src_uri = page.file.src_uri
    repo_path = src_uri[len(PREFIX):] if src_uri.startswith(PREFIX) else f"{docs}/{src_uri}"

    def rewrite(match: re.Match) -> str:
        target = match.group(2)
        path, anchor = _split(target)
        if not path or not _relative(target):
            return match.group(0)
        site = _site_path(_repo_path(repo_path, path), docs)
        if files.get_file_from_path(site) is None:
            return match.group(0)  # left for the strict build to report
        new = posixpath.relpath(site, posixpath.dirname(src_uri) or ".")
        return match.group(1) + new + (f"#{anchor}" if anchor else "") + match.group(3)

    return LINK.sub(rewrite, markdown)
