"""The words of a language-neutral text (``generator.message``) in the language being written.

Verdicts and summaries say what they found as message ids with their values; this is where they become words:
a message is translated (its plural form chosen by its ``n``) and filled in with its values, each worded in
turn, numbers by their format spec, and spaced from its words as the language sets them (``generator.spacing``);
a spread is written as the pages write one (``text_format.spread``).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from generator.i18n import ngettext, translate
from generator.message import Joined, Message, Spread, Text
from generator.spacing import fill, joined
from generator.verdicts.claims import Claim
from generator.views import text_format


def text(value: Text, cell: bool = False) -> str:
    """``value`` in words, in the language being written; with ``cell``, as Markdown safe in a table cell: every
    value it quotes or computes HTML-escaped (``text_format.cell``: a message captured from a record stays text),
    while the message ids' own words keep their Markdown (a command written as code)."""
    if isinstance(value, Message):
        words = ngettext(value.msgid, value.plural, value.values["n"]) if value.plural else translate(value.msgid)
        if cell:
            words = text_format.cell(words, code_spans=True)  # the catalogue's own code spans stay code
        return fill(words, **{name: _worded(v, cell) for name, v in value.values.items()}) if value.values else words
    if isinstance(value, Joined):
        separator = text(value.separator, cell)
        last = separator if value.last is None else text(value.last, cell)
        parts = []
        for index, item in enumerate(value.items):
            if index:
                parts.append(last if index == len(value.items) - 1 else separator)
            parts.append(text(item, cell))
        return joined(parts)
    if isinstance(value, Spread):
        written = text_format.spread(value.stats, value.scale, value.digits, value.unit)
        return text_format.cell(written) if cell else written
    return text_format.cell(value) if cell else value


def _worded(value: Any, cell: bool) -> Any:
    """A message's value as its text takes it: neutral texts in words, anything else (a number) as it is."""
    return text(value, cell) if isinstance(value, Message | Joined | Spread | str) else value


def claim_text(claim: Claim, cell: bool = False) -> Claim:
    """The claims row with its words written: every text of it a ``str`` in the language being written, Markdown
    safe in a table cell with ``cell`` (``text``)."""
    return replace(
        claim,
        claim=text(claim.claim, cell),
        article=text(claim.article, cell),
        ours=text(claim.ours, cell),
        reason=tuple(text(part, cell) for part in claim.reason),
        conditions=tuple(text(condition, cell) for condition in claim.conditions),
    )


def verdict_words(value: Text, decided: bool) -> str:
    """``value`` in words, safe in a Markdown table cell, and in bold only where the records decide it."""
    words = text_format.cell(text(value))
    return f"**{words}**" if decided else words
