"""Where a sentence is put together from parts, the spaces between them as the language being written sets them.

The site's Chinese puts a space between Chinese and Latin letters or digits (``3 次``, ``JAX 训练``) and none beside
full-width punctuation (``。``, ``，``, ``（``) or between two Chinese characters. A message's words follow that, but
a value filled into them cannot know what it meets: a setting ends in ``bfloat16`` or in ``（TF32 关闭）``, a data
set is ``CIFAR-10`` or ``合成数据``. So a Chinese message gives a value the space a Latin neighbour takes
(``在 {where} 上``), and ``fill`` drops it where the value's edge is Chinese or full-width punctuation. Only the
spaces where two parts meet are touched, never a part's own text (code, commands and captured errors stay as they
are), and only in a language written in Chinese characters: English is joined as it is written.

A shared bottom module like ``generator.i18n``: every layer may import it.
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterable
from typing import Any

from generator.i18n import current

#: the languages written in Chinese characters, whose typography this module sets
HAN_LANGUAGES = frozenset({"zh"})
#: full-width punctuation: Chinese typography puts no space beside it (the middle dot ``·`` that separates a
#: heading's parts keeps its spaces, as in English)
FULL_WIDTH = frozenset("，。、；：？！（）《》「」『』【】“”‘’…—")
#: markup at a part's edge that the reader does not see: the character that meets the next part lies inside it
_MARKUP_AT_END = re.compile(r"(?:<[^<>]*>|\*+)+$")
_MARKUP_AT_START = re.compile(r"^(?:<[^<>]*>|\*+)+")
_PERCENT_FIELD = re.compile(r"%%|%\((\w+)\)s")


def _han(char: str) -> bool:
    return "\u4e00" <= char <= "\u9fff" or "\u3400" <= char <= "\u4dbf"


def _tight(before: str, after: str) -> bool:
    """Whether Chinese typography sets no space between these two visible characters."""
    return before in FULL_WIDTH or after in FULL_WIDTH or (_han(before) and _han(after))


def joined(parts: Iterable[str]) -> str:
    """``parts`` one after another, without the spaces where two meet that the language being written does not
    set there (none in English)."""
    pieces = [part for part in parts if part]
    if current() not in HAN_LANGUAGES:
        return "".join(pieces)
    text = ""
    for part in pieces:
        left, right = text.rstrip(" "), part.lstrip(" ")
        gap = len(left) < len(text) or len(right) < len(part)
        before = _MARKUP_AT_END.sub("", left)[-1:]
        after = _MARKUP_AT_START.sub("", right)[:1]
        text = left + right if gap and before and after and _tight(before, after) else text + part
    return text


def spaced(items: Iterable[str | None]) -> str:
    """The non-empty ``items`` (words, sentences) with a space between each two where the language being written
    sets one: in English always, in Chinese not after a sentence's ``。`` or beside other full-width punctuation."""
    present = [item for item in items if item]
    return joined(part for index, item in enumerate(present) for part in ((" ", item) if index else (item,)))


def fill(template: str, **values: Any) -> str:
    """``template.format(**values)``, each value spaced from the words it meets as ``joined`` spaces them."""
    formatter = string.Formatter()
    parts = []
    for literal, name, spec, conversion in formatter.parse(template):
        parts.append(literal)
        if name is not None:
            value = formatter.convert_field(formatter.get_field(name, (), values)[0], conversion)
            parts.append(formatter.format_field(value, spec or ""))
    return joined(parts)


def fill_percent(template: str, values: dict[str, Any]) -> str:
    """``template % values`` for the ``%(name)s`` fields of a template's ``{% trans %}`` block, spaced as ``fill``
    spaces its values."""
    parts, literal, start = [], "", 0
    for field in _PERCENT_FIELD.finditer(template):
        literal += template[start : field.start()]
        if field.group(1):
            parts += [literal, str(values[field.group(1)])]
            literal = ""
        else:
            literal += "%"
        start = field.end()
    return joined([*parts, literal + template[start:]])
