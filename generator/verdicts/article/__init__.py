"""The source article checked, one module per source of evidence, each giving claims rows (``verdicts.claims.Claim``).

Its own tables, one machine's measurements (their figures read and written by ``figures``), the probes, its
snippets, the ecosystem snapshot, its remaining figures.

The article's frameworks are the keys of its setup's ``framework_versions`` (``article_figures.json``), not the
registry's: a framework fwbench adds is measured but has no figure of the article to be checked against.
"""

from __future__ import annotations

from typing import Any


def article_frameworks(article: dict[str, Any]) -> tuple[str, ...]:
    """The frameworks the article measured, in its order: the keys of its setup's ``framework_versions``."""
    return tuple(article["setup"]["framework_versions"])
