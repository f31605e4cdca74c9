"""Griffe extension: Sphinx roles in the package's docstrings shown as code in the API pages.

The docstrings name other objects the Sphinx way (``:func:`assess```, ``:mod:`.swapping```),
which reads well in ``help()`` and in the source. mkdocstrings renders docstrings as Markdown,
where a role would show as raw text: this extension turns each ``:role:`target``` into the code
span ``target`` (a leading ``~`` dropped), leaving the rest of the docstring as written.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

ROLE = re.compile(r":(?:py:)?(?:func|meth|class|mod|data|attr|obj|exc|const|term|ref):`~?([^`]+)`")


def _walk(obj: griffe.Object):
    yield obj
    for member in obj.members.values():
        if not member.is_alias:
            yield from _walk(member)


class SphinxRoles(griffe.Extension):
    def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
        for obj in _walk(pkg):
            if obj.docstring is not None:
                obj.docstring.value = ROLE.sub(r"`\1`", obj.docstring.value)
