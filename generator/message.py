"""Language-neutral text: what a verdict or a summary says, as message ids with their values, worded where shown.

A ``Message`` is an English message id (marked for the catalogue with ``N_`` or ``Nn_``) and the values it names;
``Joined`` is several texts with what goes between them; ``Spread`` is a figure with its spread, written as the
pages write one. A plain ``str`` is text that no language changes: a figure written the same in every language, a
framework's or a machine's name, a message quoted from a record. The views put any of them in words in the language
being written (``generator.views.verdict_text``), so a verdict is computed once and shown in every language.

A shared bottom module like ``generator.i18n``: every layer may import it, and it imports no layer.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from generator.i18n import LIST_SEPARATOR, N_, PART_SEPARATOR

if TYPE_CHECKING:  # an annotation only: this module sits below the records layer
    from fwbench.stats import Stats


@dataclass(frozen=True)
class Message:
    """A message id and the values it names: numbers keep their format spec (``{count:,}``), texts are worded."""

    msgid: str  # English, marked for the catalogue; without values it is only translated, never formatted
    values: Mapping[str, Any] = field(default_factory=dict)  # name -> number, str, or another neutral text
    plural: str | None = None  # the plural form's msgid (marked with Nn_): the form is chosen by values["n"]


#: joins the items of a list: ``32, 64 and 128``
LIST = Message(LIST_SEPARATOR)


@dataclass(frozen=True)
class Joined:
    """Texts joined by ``separator`` (a list's, ``, `` in English), and by ``last`` before the last one where given
    (``a, b and c``)."""

    items: tuple[Text, ...]
    separator: Text = LIST
    last: Text | None = None


@dataclass(frozen=True)
class Spread:
    """A figure's mean with its spread and run count (``9.07 s ± 0.30 (95 % CI, n=3)``), scaled for its unit."""

    stats: Stats
    scale: float = 1.0
    digits: int = 2
    unit: str = ""


#: a language-neutral text: words are made from it where it is shown
Text = str | Message | Joined | Spread

#: joins the parts of one statement (a claims row's reasons) in the language being written
PARTS = Message(PART_SEPARATOR)
#: the word before the last of several items: ``PyTorch and JAX``
AND = Message(N_(" and "))
#: the word between alternatives: ``busy-flagged runs or older records``
OR = Message(N_(" or "))
#: what follows a heading before what it introduces: ``fewer than 3 clean runs: JAX at batch 256``
COLON = Message(N_(": "))


def parts(items: list[Text] | tuple[Text, ...]) -> Joined:
    """The parts of one statement, joined as the language joins them (``; `` in English)."""
    return Joined(tuple(items), PARTS)


def labelled(heading: Text, body: Text) -> Joined:
    """``heading: body``, with the language's colon."""
    return Joined((heading, body), COLON)


def parenthesised(text: Text, detail: Text) -> Message:
    """``text (detail)``, with the language's parentheses."""
    # Translators: a text and a detail about it (English "{text} ({detail})"), such as "JAX at batch 256 (n=2)".
    return Message(N_("{text} ({detail})"), {"text": text, "detail": detail})


def and_list(items: list[Text] | tuple[Text, ...]) -> Joined:
    """``a, b and c``, joined as the language joins a list."""
    return Joined(tuple(items), LIST, AND)
