"""The claims check's vocabulary and the article checked against its own tables.

A claims row (``Claim``) sets one of the article's published figures beside fwbench's counterpart. Every verdict
is computed: the article's figures come from ``data/article_figures.json`` (transcribed, with sections),
fwbench's from the records (``machine_claims``, ``ecosystem_claims``, ``article_checks``). A measurement is
judged only where the comparability rules (``data/comparability.json``) hold, else it is "not comparable" with
the broken rules named; where its 95 % interval cannot tell, the verdict is "within noise".
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fwbench.frameworks import FRAMEWORKS
from generator import fmt
from generator.data_text import translated
from generator.i18n import N_, _
from generator.stats import APART, WITHIN_NOISE, Stats, separation

#: the verdicts, English (a row keeps one; pages show it translated)
CONFIRMED = N_("confirmed")
CONTRADICTED = N_("contradicted")
NOT_COMPARABLE = N_("not comparable")
#: every verdict, in the order the claims page counts them (WITHIN_NOISE: the intervals cannot tell)
VERDICTS = (CONFIRMED, CONTRADICTED, WITHIN_NOISE, NOT_COMPARABLE)
DATA_DIR = Path(__file__).resolve().parent / "data"


@dataclass(frozen=True)
class Claim:
    """One published figure or statement, fwbench's counterpart and the verdict."""

    section: str
    claim: str
    article: str
    ours: str
    verdict: str  # one of VERDICTS, in English
    reason: str  # its parts joined by i18n.part_separator()
    conditions: tuple[str, ...] = ()  # the comparability conditions this row checked


def load_article_figures() -> dict[str, Any]:
    """The transcribed figures of the source article, their prose in the language being written."""
    name = "article_figures.json"
    return translated(name, json.loads((DATA_DIR / name).read_text(encoding="utf-8")))


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
    return " < ".join(fmt.label(f) for f in order)


def internal_claims(article: dict[str, Any]) -> list[Claim]:
    """The article's statements checked against its own tables."""
    claims = []
    own_figures = (_("the article's own figures"),)
    speed, up = article["speed"], article["speedup"]
    lo, hi = str(up["from_batch"]), str(up["to_batch"])
    for fw in FRAMEWORKS:
        computed = speed["table"][lo][fw] / speed["table"][hi][fw]
        verdict = within_absolute(computed, up["stated"][fw], up["rounding_tolerance"])
        claims.append(
            Claim(
                up["section"],
                _("{framework} speed-up from batch {low} to {high}").format(framework=fmt.label(fw), low=lo, high=hi),
                f"{up['stated'][fw]}×",
                _("{ratio:.2f}× ({low} s ÷ {high} s, its own table)").format(
                    ratio=computed, low=speed["table"][lo][fw], high=speed["table"][hi][fw]
                ),
                verdict,
                _("stated ratio vs the ratio of the article's own table")
                if verdict == CONFIRMED
                else _("stated ratio vs the ratio of the article's own table: the text and the table disagree"),
                own_figures,
            )
        )
    for spec, what in ((speed, _("time")), (article["memory"], _("memory"))):
        wins = [bs for bs, row in spec["table"].items() if ranking(row) == spec["stated_ranking"]]
        claims.append(
            Claim(
                spec["section"],
                spec["stated_ranking_text"],
                order_text(spec["stated_ranking"]) + f" ({what})",
                _("order holds at {wins} of {sizes} batch sizes of its table").format(
                    wins=len(wins), sizes=len(spec["table"])
                ),
                CONFIRMED if len(wins) == len(spec["table"]) else CONTRADICTED,
                _("ranking of each row of the article's own table"),
                own_figures,
            )
        )
    over = article["python_overhead"]
    computed = over["total_seconds"] - over["overhead_seconds"]
    claims.append(
        Claim(
            over["section"],
            _("{framework} batch {batch} without interpreter overhead").format(
                framework=fmt.label(over["framework"]), batch=over["batch_size"]
            ),
            f"{over['without_overhead_seconds']} s",
            f"{computed:.1f} s ({over['total_seconds']} − {over['overhead_seconds']})",
            within_absolute(computed, over["without_overhead_seconds"], 0.05),
            _("arithmetic on its figures"),
            own_figures,
        )
    )
    acc = article["accuracy"]
    largest = max(row["std"] for row in acc["table"].values())
    claims.append(
        Claim(
            acc["section"],
            _("every standard deviation is within {bound} points").format(bound=acc["stated_std_bound"]),
            f"< {acc['stated_std_bound']}",
            _("largest in its table: {largest}").format(largest=largest),
            CONFIRMED if largest <= acc["stated_std_bound"] else CONTRADICTED,
            _("its own table"),
            own_figures,
        )
    )
    return claims


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
