"""The source article checked, one module per source of evidence, each giving claims rows (``verdicts.claims.Claim``).

Its own tables, one machine's measurements (their figures read and written by ``figures``), the probes, its
snippets, the ecosystem snapshot, its seeds' spread, its remaining figures. Here too what the modules share about
the run records: which may enter a verdict, and how a reason counts those left out.

The article's frameworks are the keys of its setup's ``framework_versions`` (``article_figures.json``), not the
registry's: a framework fwbench adds is measured but has no figure of the article to be checked against.
"""

from __future__ import annotations

from typing import Any

from generator.i18n import Nn_
from generator.message import Message, Text
from generator.records.flags import flags_of
from generator.records.load import Loaded


def article_frameworks(article: dict[str, Any]) -> tuple[str, ...]:
    """The frameworks the article measured, in its order: the keys of its setup's ``framework_versions``."""
    return tuple(article["setup"]["framework_versions"])


def judgeable_runs(runs: list[Loaded]) -> list[Loaded]:
    """Successful run records that may enter a verdict: neither busy nor older."""
    return [r for r in runs if r.record["status"] == "ok" and not flags_of(r.record)]


#: how a reason counts the flagged run records it leaves out
LEFT_OUT, LEFT_OUT_PLURAL = Nn_(
    "{n} flagged run record (busy or older) listed but left out of the verdict",
    "{n} flagged run records (busy or older) listed but left out of the verdict",
)


def left_out_reason(runs: list[Loaded]) -> tuple[Text, ...]:
    """The reason's part that counts the flagged run records left out, if any."""
    flagged = sum(1 for r in runs if flags_of(r.record))
    if not flagged:
        return ()
    return (Message(LEFT_OUT, {"n": flagged}, LEFT_OUT_PLURAL),)
