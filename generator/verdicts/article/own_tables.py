"""The article checked against its own tables: its stated speed-ups, orderings, overhead and spread. Where they
agree the verdict is CONSISTENT, where they do not INCONSISTENT (``claims.self_consistent``): the article agrees or
disagrees with itself, and no measurement confirms or contradicts it."""

from __future__ import annotations

from typing import Any

from fwbench.frameworks import label
from generator.i18n import N_
from generator.message import Message, parenthesised
from generator.verdicts.article import article_frameworks
from generator.verdicts.claims import (
    CONFIRMED,
    Claim,
    bound_reading,
    order_text,
    own_figures_verdict,
    ranking,
    self_consistent,
    within_absolute,
    within_bound,
)


def _rounded(stated: float, tolerance: float) -> dict[str, str]:
    """What a figure stated to the precision ``tolerance`` (half a unit of its last digit) stands for."""
    return {"stated": f"{stated:g}", "low": f"{stated - tolerance:g}", "high": f"{stated + tolerance:g}"}


def internal_claims(article: dict[str, Any]) -> list[Claim]:
    """The article's statements checked against its own tables."""
    claims = []
    own_figures = (Message(N_("the article's own figures")),)
    speed, up = article["speed"], article["speedup"]
    lo, hi = str(up["from_batch"]), str(up["to_batch"])
    for fw in article_frameworks(article):
        computed = speed["table"][lo][fw] / speed["table"][hi][fw]
        verdict = within_absolute(computed, up["stated"][fw], up["rounding_tolerance"])
        claims.append(
            Claim(
                up["section"],
                Message(
                    N_("{framework} speed-up from batch {low} to {high}"),
                    {"framework": label(fw), "low": lo, "high": hi},
                ),
                f"{up['stated'][fw]}×",
                Message(
                    N_("{ratio:.2f}× ({low} s ÷ {high} s, its own table)"),
                    {"ratio": computed, "low": speed["table"][lo][fw], "high": speed["table"][hi][fw]},
                ),
                self_consistent(verdict),
                (
                    Message(
                        N_(
                            "stated ratio vs the ratio of the article's own table, at the stated ratio's precision: "
                            "{stated} stands for {low}–{high}"
                        )
                        if verdict == CONFIRMED
                        else N_(
                            "stated ratio vs the ratio of the article's own table, at the stated ratio's precision "
                            "({stated} stands for {low}–{high}): the text and the table disagree"
                        ),
                        _rounded(up["stated"][fw], up["rounding_tolerance"]),
                    ),
                ),
                own_figures,
            )
        )
    for spec, what in ((speed, N_("time")), (article["memory"], N_("memory"))):
        wins = [bs for bs, row in spec["table"].items() if ranking(row) == spec["stated_ranking"]]
        claims.append(
            Claim(
                spec["section"],
                Message(spec["stated_ranking_text"]),
                parenthesised(order_text(spec["stated_ranking"]), Message(what)),
                Message(
                    N_("order holds at {wins} of {sizes} batch sizes of its table"),
                    {"wins": len(wins), "sizes": len(spec["table"])},
                ),
                own_figures_verdict(len(wins) == len(spec["table"])),
                (Message(N_("ranking of each row of the article's own table")),),
                own_figures,
            )
        )
    over = article["python_overhead"]
    computed = over["total_seconds"] - over["overhead_seconds"]
    claims.append(
        Claim(
            over["section"],
            Message(
                N_("{framework} batch {batch} without interpreter overhead"),
                {"framework": label(over["framework"]), "batch": over["batch_size"]},
            ),
            f"{over['without_overhead_seconds']} s",
            f"{computed:.1f} s ({over['total_seconds']} − {over['overhead_seconds']})",
            self_consistent(within_absolute(computed, over["without_overhead_seconds"], 0.05)),
            (Message(N_("arithmetic on its figures")),),
            own_figures,
        )
    )
    claims.append(_spread_claim(article["accuracy"], own_figures))
    return claims


def _spread_claim(acc: dict[str, Any], own_figures: tuple[Message, ...]) -> Claim:
    """The stated bound on every standard deviation against the largest of its table, compared like the stated
    speed-ups: at the precision the bound is stated to (``rounding_tolerance``, half a unit of its last digit)."""
    bound, tolerance = acc["stated_std_bound"], acc["rounding_tolerance"]
    fw, row = max(acc["table"].items(), key=lambda item: item[1]["std"])
    return Claim(
        acc["section"],
        Message(N_("every standard deviation is within {bound} points"), {"bound": bound}),
        f"≤ {bound}",
        Message(
            N_("{largest}, the largest standard deviation of its table ({framework})"),
            {"largest": row["std"], "framework": label(fw)},
        ),
        self_consistent(within_bound(row["std"], bound, tolerance)),
        (
            Message(
                N_(
                    "the largest standard deviation of its own table against the stated bound, at the bound's "
                    "precision as the stated speed-ups are: {reading}"
                ),
                {"reading": bound_reading(bound, tolerance)},
            ),
        ),
        own_figures,
    )
