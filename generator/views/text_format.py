"""Number and text formatting: figures, spreads and Markdown-safe text, as the pages and the CSV tables write them.

``label`` (a framework's display name) comes from the one registry, ``fwbench.frameworks``. Part of the views layer:
the verdicts below it hold numbers and message ids (``generator.message``), which the views write with these.
"""

from __future__ import annotations

import html
import re

from fwbench.frameworks import label as label  # re-exported: the pages write text_format.label
from fwbench.stats import Stats
from generator.i18n import N_, _
from generator.spacing import fill

_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")
#: the units a language words its own way (``img/s``: 张/秒); the others (s, MiB, %) are written alike in every one
WORDED_UNITS = frozenset({N_("img/s")})


def unit_words(unit: str) -> str:
    """A unit as the language being written writes it."""
    return _(unit) if unit in WORDED_UNITS else unit


def num(value: float | None, digits: int = 1, unit: str = "") -> str:
    """``12.3 s``-style text; an em dash for a missing value."""
    if value is None:
        return "—"
    text = f"{value:,.{digits}f}"
    return f"{text} {unit_words(unit)}" if unit else text


def pct(fraction: float | None, digits: int = 2) -> str:
    """A 0..1 fraction as a percentage."""
    return "—" if fraction is None else f"{100 * fraction:.{digits}f} %"


def spread(stats: Stats | None, scale: float = 1.0, digits: int = 2, unit: str = "", with_sd: bool = False) -> str:
    """The mean with its spread and run count, the spread marked by what it is: ``9.07 s (n=1)``,
    ``9.07 s ± 0.12 (sd, n=2)``, ``9.07 s ± 0.30 (95 % CI, n=3)`` — the interval's half-width once there are
    enough runs for one, and ``with_sd`` the standard deviation beside it (``…, n=3, sd 0.12)``)."""
    if stats is None:
        return "—"
    text = f"{stats.mean * scale:,.{digits}f}" + (f" {unit_words(unit)}" if unit else "")
    sd = f"{stats.std * scale:,.{digits}f}" if stats.std is not None else None
    if stats.ci95 is not None:
        half = f"{(stats.ci95[1] - stats.mean) * scale:,.{digits}f}"
        if with_sd:
            return fill(_("{figure} ± {half} (95 % CI, n={n}, sd {sd})"), figure=text, half=half, n=stats.n, sd=sd)
        return fill(_("{figure} ± {half} (95 % CI, n={n})"), figure=text, half=half, n=stats.n)
    if sd is not None:
        return fill(_("{figure} ± {sd} (sd, n={n})"), figure=text, sd=sd, n=stats.n)
    return fill(_("{figure} (n={n})"), figure=text, n=stats.n)


#: a space that never breaks: a narrow cell breaks a figure only before its ``±``
NBSP = "\u00a0"


def compact(stats: Stats, scale: float = 1.0, digits: int = 2, unit: str = "") -> str:
    """A table cell's figure without its run count, its spread marked by what it is: ``9.07 ± 0.30 s`` where the
    ``±`` is always the 95 % interval's half-width (three runs or more), ``9.07 s (sd 0.12)`` the standard deviation
    of two runs, the mean alone for one run (``n`` beside it tells)."""
    text = f"{stats.mean * scale:,.{digits}f}"
    if stats.ci95 is not None:
        text += f" ±{NBSP}{(stats.ci95[1] - stats.mean) * scale:,.{digits}f}"
    text = f"{text}{NBSP}{unit_words(unit)}" if unit else text
    if stats.ci95 is None and stats.std is not None:
        text = fill(_("{figure} (sd\u00a0{sd})"), figure=text, sd=f"{stats.std * scale:,.{digits}f}")
    return text


def strip_ansi(text: str | None) -> str:
    """Remove terminal colour codes (records keep the raw text; the site shows the clean one)."""
    return _ANSI.sub("", text or "")


def cell(text: object, code_spans: bool = False) -> str:
    """Text safe inside a Markdown table cell: HTML-escaped, pipes and newlines neutralised, and backticks too
    unless ``code_spans`` (the site's own words, whose code spans stay code; never captured text)."""
    clean = html.escape(strip_ansi(str(text)), quote=False)
    clean = clean.replace("|", "&#124;").replace("\r", " ").replace("\n", " ")
    return clean if code_spans else clean.replace("`", "&#96;")


#: a word this long or longer may break after its dots and underscores (``tf.config.experimental.…``)
LONG_WORD = 16
_LONG_WORD = re.compile(rf"[^\s]{{{LONG_WORD},}}")


def breakable_cell(text: object) -> str:
    """``cell(text)`` with a break opportunity (``<wbr>``) after each dot and underscore inside a word of LONG_WORD
    characters or more: a long identifier in a prose table wraps at its parts instead of widening its column past the
    page, while every shorter word stays whole."""
    return _LONG_WORD.sub(lambda word: re.sub(r"([._])(?=\w)", r"\1<wbr>", word.group()), cell(text))


def fence(text: str, lang: str = "text", indent: str = "") -> str:
    """A fenced block holding ``text`` verbatim (the renderer escapes it), fenced past any backtick run."""
    text = strip_ansi(text)
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    ticks = "`" * max(3, longest + 1)
    body = "\n".join(indent + line if line else "" for line in text.splitlines())
    return f"{indent}{ticks}{lang}\n{body}\n{indent}{ticks}"


def code_span(text: object) -> str:
    """``text`` as an inline code span (the renderer escapes it), fenced past any backtick run inside it."""
    text = strip_ansi(str(text)).replace("\n", " ")
    ticks = "`" * (max((len(m) for m in re.findall(r"`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def title_text(text: object) -> str:
    """Text safe inside a quoted admonition title."""
    return cell(text).replace('"', "&quot;")
