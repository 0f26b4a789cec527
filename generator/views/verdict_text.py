"""The words of a language-neutral text (``generator.message``) in the language being written.

Verdicts and summaries say what they found as message ids with their values; this is where they become words:
a message is translated (its plural form chosen by its ``n``) and filled in with its values, each worded in
turn, numbers by their format spec, and spaced from its words as the language sets them (``generator.spacing``);
a spread is written as the pages write one (``fmt.spread``).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from generator.i18n import ngettext, translate
from generator.message import Joined, Message, Spread, Text
from generator.spacing import fill, joined
from generator.verdicts.claims import Claim
from generator.views import fmt


def text(value: Text) -> str:
    """``value`` in words, in the language being written."""
    if isinstance(value, Message):
        words = ngettext(value.msgid, value.plural, value.values["n"]) if value.plural else translate(value.msgid)
        return fill(words, **{name: _worded(v) for name, v in value.values.items()}) if value.values else words
    if isinstance(value, Joined):
        separator = text(value.separator)
        last = separator if value.last is None else text(value.last)
        parts = []
        for index, item in enumerate(value.items):
            if index:
                parts.append(last if index == len(value.items) - 1 else separator)
            parts.append(text(item))
        return joined(parts)
    if isinstance(value, Spread):
        return fmt.spread(value.stats, value.scale, value.digits, value.unit)
    return value


def _worded(value: Any) -> Any:
    """A message's value as its text takes it: neutral texts in words, anything else (a number) as it is."""
    return text(value) if isinstance(value, Message | Joined | Spread) else value


def claim_text(claim: Claim) -> Claim:
    """The claims row with its words written: every text of it a ``str`` in the language being written."""
    return replace(
        claim,
        claim=text(claim.claim),
        article=text(claim.article),
        ours=text(claim.ours),
        reason=tuple(text(part) for part in claim.reason),
        conditions=tuple(text(condition) for condition in claim.conditions),
    )


def verdict_words(value: Text, decided: bool) -> str:
    """``value`` in words, safe in a Markdown table cell, and in bold only where the records decide it."""
    words = fmt.cell(text(value))
    return f"**{words}**" if decided else words
