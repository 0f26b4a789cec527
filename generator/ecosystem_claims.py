"""The article's section 6 figures (Stack Overflow, GitHub stars) beside the latest ecosystem snapshot."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from generator.claims import CONFIRMED, CONTRADICTED, NOT_COMPARABLE, Claim, ranking, within_absolute, within_relative
from generator.load import Loaded


def _metric(snapshot: dict[str, Any], source: str, subject: str, name: str) -> dict[str, Any] | None:
    return snapshot["sources"].get(source, {}).get(subject, {}).get(name)


def _window_reason(metric: dict[str, Any] | None, wanted: int, slack: int) -> str | None:
    if metric is None:
        return "not in the snapshot"
    if metric["status"] != "ok" or metric["value"] is None:
        return f"{metric['status']}: {metric.get('reason') or 'no value'}"
    window = metric["method"].get("window_days")
    if window is not None and abs(window - wanted) > slack:
        return f"fwbench's window is {window} days, the article's a year"
    return None


def _windowed(metric: dict[str, Any] | None, spec: dict[str, Any], judge: Callable[[float], str], within: str,
              differs: Callable[[float], str]) -> tuple[str, str]:
    """(verdict, reason) of a figure counted over a window: not comparable when it is missing or its window is not
    the article's year, else ``judge``'s verdict with ``within`` or ``differs`` as the reason."""
    why = _window_reason(metric, spec["window_days"], spec["window_slack_days"])
    if why:
        return NOT_COMPARABLE, why
    verdict = judge(metric["value"])
    return verdict, within if verdict == CONFIRMED else differs(metric["value"])


def ecosystem_claims(article: dict[str, Any], snapshot: Loaded | None) -> list[Claim]:
    """The article's 6.1 and 6.3 figures beside the latest ecosystem snapshot."""
    if snapshot is None:
        return []
    snap, claims = snapshot.record, []
    so = article["stackoverflow"]
    so_window = (f"a {so['window_days']}-day window (±{so['window_slack_days']} days)",)
    for tag, published in so["questions"].items():
        metric = _metric(snap, "stackoverflow", tag, "questions_in_window")
        has_value = metric is not None and metric["value"] is not None
        ours = f"{metric['value']:,}" if has_value else "—"
        verdict, reason = _windowed(metric, so, lambda v, p=published: within_relative(v, p, so["tolerance_relative"]),
                                    f"within ±{so['tolerance_relative']:.0%}",
                                    lambda v, p=published: f"differs by {v / p - 1:+.0%}")
        claims.append(
            Claim(
                so["section"],
                f"[{tag}] questions in the past year",
                f"{published:,}+",
                ours,
                verdict,
                f"{reason} (snapshot {snap['date']})",
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
                f"[{tag}] time to first answer",
                f"{published} min (mean)",
                f"{metric['value']:.0f} min (median, n={sample})" if ok else "—",
                NOT_COMPARABLE,
                "the article gives a mean over an unstated sample; fwbench measures the median"
                if ok
                else (_window_reason(metric, 0, 10**6) or "not collected"),
                ("the same statistic",),
            )
        )
    stated = ranking(so["first_answer_mean_minutes"])
    if len(medians) == len(stated):
        verdict = CONFIRMED if ranking(medians) == stated else CONTRADICTED
        claims.append(
            Claim(
                so["section"],
                "order of first-answer times",
                " < ".join(stated),
                " < ".join(ranking(medians)),
                verdict,
                "order of fwbench's medians (the snapshot gives no spread to judge the noise by)",
                ("the order alone",),
            )
        )
    stars = article["star_growth"]
    star_window = (f"a {stars['window_days']}-day window (±{stars['window_slack_days']} days)",)
    for repo, published in stars["percent_per_year"].items():
        metric = _metric(snap, "github", repo, "star_growth_percent_in_window")
        has_value = metric is not None and metric["status"] == "ok" and metric["value"] is not None
        window = metric["method"].get("window_days") if has_value else None
        ours = f"{metric['value']:.1f} % in {window} days" if has_value else "—"
        verdict, reason = _windowed(metric, stars,
                                    lambda v, p=published: within_absolute(v, p, stars["tolerance_points"]),
                                    f"within ±{stars['tolerance_points']} points",
                                    lambda v, p=published: f"differs by {v - p:+.1f} points")
        claims.append(
            Claim(
                stars["section"],
                f"[{repo}] GitHub star growth per year",
                f"{published} %",
                ours,
                verdict,
                f"{reason} (snapshot {snap['date']})",
                star_window,
            )
        )
    return claims
