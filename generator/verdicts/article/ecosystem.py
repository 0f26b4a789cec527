"""The article's section 6 figures (Stack Overflow, GitHub stars) beside the latest ecosystem snapshot, or why not;
its other ecosystem statements come from ``registry``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from generator.i18n import N_
from generator.message import Joined, Message, Text, labelled
from generator.records.ecosystem import status_words
from generator.records.load import Loaded
from generator.verdicts.article import article_frameworks
from generator.verdicts.article.registry import registry_claims
from generator.verdicts.claims import (
    CONFIRMED,
    CONTRADICTED,
    NOT_COMPARABLE,
    Claim,
    ranking,
    within_absolute,
    within_relative,
)


def _metric(snapshot: dict[str, Any], source: str, subject: str, name: str) -> dict[str, Any] | None:
    return snapshot["sources"].get(source, {}).get(subject, {}).get(name)


def _window_reason(metric: dict[str, Any] | None, wanted: int, slack: int) -> Text | None:
    if metric is None:
        return Message(N_("not in the snapshot"))
    if metric["status"] != "ok" or metric["value"] is None:
        why = metric.get("reason") or Message(N_("no value"))  # the collector's reason, quoted from the record
        return labelled(status_words(metric["status"]), why)
    window = metric["method"].get("window_days")
    if window is not None and abs(window - wanted) > slack:
        return Message(N_("fwbench's window is {days} days, the article's a year"), {"days": window})
    return None


def _windowed(
    metric: dict[str, Any] | None,
    spec: dict[str, Any],
    judge: Callable[[float], str],
    within: Text,
    differs: Callable[[float], Text],
) -> tuple[str, Text]:
    """(verdict, reason) of a figure counted over a window: not comparable when it is missing or its window is not
    the article's year, else ``judge``'s verdict with ``within`` or ``differs`` as the reason."""
    why = _window_reason(metric, spec["window_days"], spec["window_slack_days"])
    if why:
        return NOT_COMPARABLE, why
    verdict = judge(metric["value"])
    return verdict, within if verdict == CONFIRMED else differs(metric["value"])


def ecosystem_claims(article: dict[str, Any], snapshot: Loaded | None) -> list[Claim]:
    """The article's 6.1 and 6.3 figures beside the latest ecosystem snapshot, and its 4.3 and 6.3 statements judged
    from the snapshot's PyPI figures (``registry``)."""
    if snapshot is None:
        return []
    snap, claims = snapshot.record, []
    so = article["stackoverflow"]
    so_window = (
        Message(
            N_("a {days}-day window (±{slack} days)"), {"days": so["window_days"], "slack": so["window_slack_days"]}
        ),
    )
    for tag, published in so["questions"].items():
        metric = _metric(snap, "stackoverflow", tag, "questions_in_window")
        has_value = metric is not None and metric["value"] is not None
        ours = f"{metric['value']:,}" if has_value else "—"
        verdict, reason = _windowed(
            metric,
            so,
            lambda v, p=published: within_relative(v, p, so["tolerance_relative"]),
            Message(N_("within ±{tolerance:.0%}"), {"tolerance": so["tolerance_relative"]}),
            lambda v, p=published: Message(N_("differs by {difference:+.0%}"), {"difference": v / p - 1}),
        )
        claims.append(
            Claim(
                so["section"],
                Message(N_("[{tag}] questions in the past year"), {"tag": tag}),
                f"{published:,}+",
                ours,
                verdict,
                (Message(N_("{reason} (snapshot {date})"), {"reason": reason, "date": snap["date"]}),),
                so_window,
            )
        )
    medians = {}
    for tag, published in so["first_answer_mean_minutes"].items():
        metric = _metric(snap, "stackoverflow", tag, "first_answer_median_minutes")
        ok = metric is not None and metric["status"] == "ok" and metric["value"] is not None
        if ok:
            medians[tag] = metric["value"]
        sample = metric["method"].get("sample_size") if metric else None
        claims.append(
            Claim(
                so["section"],
                Message(N_("[{tag}] time to first answer"), {"tag": tag}),
                Message(N_("{minutes} min (mean)"), {"minutes": published}),
                Message(N_("{minutes:.0f} min (median, n={n})"), {"minutes": metric["value"], "n": sample})
                if ok
                else "—",
                NOT_COMPARABLE,
                (
                    Message(N_("the article gives a mean over an unstated sample; fwbench measures the median"))
                    if ok
                    else (_window_reason(metric, 0, 10**6) or Message(N_("not collected"))),
                ),
                (Message(N_("the same statistic")),),
            )
        )
    stated = ranking(so["first_answer_mean_minutes"])
    if len(medians) == len(stated):
        verdict = CONFIRMED if ranking(medians) == stated else CONTRADICTED
        claims.append(
            Claim(
                so["section"],
                Message(N_("order of first-answer times")),
                " < ".join(stated),
                " < ".join(ranking(medians)),
                verdict,
                (Message(N_("order of fwbench's medians (the snapshot gives no spread to judge the noise by)")),),
                (Message(N_("the order alone")),),
            )
        )
    stars = article["star_growth"]
    star_window = (
        Message(
            N_("a {days}-day window (±{slack} days)"),
            {"days": stars["window_days"], "slack": stars["window_slack_days"]},
        ),
    )
    for repo, published in stars["percent_per_year"].items():
        metric = _metric(snap, "github", repo, "star_growth_percent_in_window")
        has_value = metric is not None and metric["status"] == "ok" and metric["value"] is not None
        window = metric["method"].get("window_days") if has_value else None
        ours = (
            Message(N_("{growth:.1f} % in {days} days"), {"growth": metric["value"], "days": window})
            if has_value
            else "—"
        )
        verdict, reason = _windowed(
            metric,
            stars,
            lambda v, p=published: within_absolute(v, p, stars["tolerance_points"]),
            Message(N_("within ±{tolerance} points"), {"tolerance": stars["tolerance_points"]}),
            lambda v, p=published: Message(N_("differs by {difference:+.1f} points"), {"difference": v - p}),
        )
        claims.append(
            Claim(
                stars["section"],
                Message(N_("[{repository}] GitHub star growth per year"), {"repository": repo}),
                f"{published} %",
                ours,
                verdict,
                (Message(N_("{reason} (snapshot {date})"), {"reason": reason, "date": snap["date"]}),),
                star_window,
            )
        )
    return claims + registry_claims(snap, article_frameworks(article))


def _figures(figures: dict[str, Any], form: Callable[[Any], Text]) -> Joined:
    """``[subject] figure, …``: an ecosystem figure of the article for each subject, written by ``form``."""
    return Joined(tuple(Joined((f"[{subject}]", form(value)), " ") for subject, value in figures.items()))


def ecosystem_gap_claims(article: dict[str, Any], snapshot: Loaded | None) -> list[Claim]:
    """Without an ecosystem snapshot, one row per figure group of section 6 saying it cannot be checked yet, and the
    4.3 and 6.3 statements, each with why it is not judged."""
    if snapshot is not None:
        return []  # ecosystem_claims checks them against the snapshot
    so, stars = article["stackoverflow"], article["star_growth"]
    groups = (
        (so["section"], N_("Stack Overflow questions in the past year"), _figures(so["questions"], "{:,}+".format)),
        (
            so["section"],
            N_("time to a first answer on Stack Overflow"),
            _figures(
                so["first_answer_mean_minutes"],
                lambda minutes: Message(N_("{minutes} min (mean)"), {"minutes": minutes}),
            ),
        ),
        (stars["section"], N_("GitHub star growth per year"), _figures(stars["percent_per_year"], "{} %".format)),
    )
    return [
        Claim(
            section=section,
            claim=Message(claim),
            article=figures,
            ours="—",
            verdict=NOT_COMPARABLE,
            reason=(
                Message(
                    N_(
                        "no snapshot: no ecosystem snapshot under results/ecosystem/ to compare with "
                        "(`ecosystem collect --out results/ecosystem` makes one)"
                    )
                ),
            ),
            conditions=(Message(N_("an ecosystem snapshot")),),
        )
        for section, claim, figures in groups
    ] + registry_claims(None, article_frameworks(article))
