"""The claims check's vocabulary: a claims row, its verdicts, and the rules that decide one from figures.

A claims row (``Claim``) sets one of the article's published figures beside fwbench's counterpart, or beside the
article's own figures, where agreement is CONSISTENT, never CONFIRMED, and disagreement INCONSISTENT, never
CONTRADICTED, which is kept for what fwbench's records contradict (``self_consistent``). Every verdict is
computed: the article's figures come from ``data/article_figures.json`` (transcribed, with sections), fwbench's
from the records (``generator.verdicts.article``). A measurement is judged only where the comparability rules
(``data/comparability.json``) hold, else it is "not comparable" with the broken rules named; where its 95 %
interval cannot tell, the verdict is "within noise".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fwbench.frameworks import label
from fwbench.stats import APART, WITHIN_NOISE, Stats, separation
from generator.data_text import source_data
from generator.i18n import N_
from generator.message import Message, Text

#: the verdicts, English (a row keeps one; pages show it translated)
CONFIRMED = N_("confirmed")
#: a statement of the article that its own figures bear out: arithmetic on what it published, which no measurement
#: of fwbench's confirms (``self_consistent``)
CONSISTENT = N_("consistent with its own figures")
#: a statement of the article that its own figures go against: the article disagrees with itself
INCONSISTENT = N_("inconsistent with its own figures")
CONTRADICTED = N_("contradicted")
NOT_COMPARABLE = N_("not comparable")
#: every verdict, in the order the claims page counts them; the fourth is ``stats.WITHIN_NOISE`` (the intervals
#: cannot tell), spelled out to mark it for the catalogue
VERDICTS = (CONFIRMED, CONSISTENT, CONTRADICTED, INCONSISTENT, N_("within noise"), NOT_COMPARABLE)


@dataclass(frozen=True)
class Claim:
    """One published figure or statement, fwbench's counterpart and the verdict, language-neutral: its texts are
    message ids with their values (``generator.message``), worded where a page shows them."""

    section: str  # the article's section number: ``3.1``
    claim: Text
    article: Text
    ours: Text
    verdict: str  # one of VERDICTS, in English
    reason: tuple[Text, ...]  # its parts, each said once; a page joins them with i18n.part_separator()
    conditions: tuple[Text, ...] = ()  # the comparability conditions this row checked


def load_article_figures() -> dict[str, Any]:
    """The transcribed figures of the source article as written: its prose English, worded where shown."""
    return source_data("article_figures.json")


def self_consistent(verdict: str) -> str:
    """A rule's verdict on the article checked against its own figures: CONSISTENT where the rule found it
    CONFIRMED (the article agrees with itself, no measurement confirms it), INCONSISTENT where it found it
    CONTRADICTED (the article disagrees with itself, no measurement contradicts it), any other verdict as it is."""
    return {CONFIRMED: CONSISTENT, CONTRADICTED: INCONSISTENT}.get(verdict, verdict)


def own_figures_verdict(holds: bool) -> str:
    """The verdict on a statement of the article checked against its own figures: CONSISTENT when they bear it
    out, INCONSISTENT when they do not."""
    return CONSISTENT if holds else INCONSISTENT


def within_bound(measured: float, bound: float, tolerance: float) -> str:
    """CONFIRMED when ``measured`` is within a stated upper ``bound``, read at the precision it is stated to
    (``tolerance``, half a unit of its last digit): a stated 0.2 stands for anything up to 0.25."""
    return CONFIRMED if measured <= bound + tolerance else CONTRADICTED


def bound_reading(bound: float, tolerance: float) -> Message:
    """What ``within_bound`` reads a stated bound as, in words: ``0.2 stands for anything up to 0.25``."""
    return Message(
        N_("{bound} stands for anything up to {limit}"), {"bound": f"{bound:g}", "limit": f"{bound + tolerance:g}"}
    )


def within_relative(measured: float, published: float, tolerance: float) -> str:
    """CONFIRMED when ``measured`` is within ``tolerance`` (a fraction) of ``published``."""
    return CONFIRMED if abs(measured - published) <= tolerance * abs(published) else CONTRADICTED


def within_absolute(measured: float, published: float, tolerance: float) -> str:
    """CONFIRMED when ``measured`` differs from ``published`` by at most ``tolerance``."""
    return CONFIRMED if abs(measured - published) <= tolerance else CONTRADICTED


def ranking(values: dict[str, float]) -> list[str]:
    """Keys ordered from the smallest value to the largest."""
    return sorted(values, key=values.get)


def order_text(order: list[str]) -> str:
    """Frameworks in a stated order, smallest first: ``JAX < PyTorch < TensorFlow``."""
    return " < ".join(label(f) for f in order)


def band_verdict(low: float, high: float, published: float, tolerance: float, relative: bool) -> str:
    """The verdict of a 95 % interval ``[low, high]`` against ``published`` ± ``tolerance`` (a fraction of it
    when ``relative``): CONFIRMED inside the band, CONTRADICTED wholly outside it, WITHIN_NOISE across an edge."""
    margin = tolerance * abs(published) if relative else tolerance
    if published - margin <= low and high <= published + margin:
        return CONFIRMED
    if high < published - margin or low > published + margin:
        return CONTRADICTED
    return WITHIN_NOISE


def every(verdicts: list[str]) -> str:
    """The verdict on a statement made of parts that must all hold: CONTRADICTED when one part is contradicted,
    CONFIRMED when every part is confirmed, otherwise WITHIN_NOISE."""
    if CONTRADICTED in verdicts:
        return CONTRADICTED
    return CONFIRMED if all(v == CONFIRMED for v in verdicts) else WITHIN_NOISE


def order_verdict(stats: dict[str, Stats], stated: list[str]) -> str:
    """Does ``stated`` (smallest first) hold for these figures beyond the noise? Each neighbouring pair of the
    stated order is compared by its 95 % intervals: apart and in order confirms it, apart and reversed
    contradicts it, overlapping is within noise (see ``every``)."""
    outcomes = []
    for first, second in zip(stated, stated[1:], strict=False):
        a, b = stats[first], stats[second]
        if separation(a, b) != APART:
            outcomes.append(WITHIN_NOISE)
        else:
            outcomes.append(CONFIRMED if a.mean < b.mean else CONTRADICTED)
    return every(outcomes)
