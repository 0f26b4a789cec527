"""The article's section 6 figures (Stack Overflow, GitHub stars) beside the latest ecosystem snapshot."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from generator.claims import CONFIRMED, CONTRADICTED, NOT_COMPARABLE, Claim, ranking, within_absolute, within_relative
from generator.ecosystem_view import status_text
from generator.i18n import _
from generator.load import Loaded


def _metric(snapshot: dict[str, Any], source: str, subject: str, name: str) -> dict[str, Any] | None:
    return snapshot["sources"].get(source, {}).get(subject, {}).get(name)


def _window_reason(metric: dict[str, Any] | None, wanted: int, slack: int) -> str | None:
    if metric is None:
        return _("not in the snapshot")
    if metric["status"] != "ok" or metric["value"] is None:
        return f"{status_text(metric['status'])}: " + (metric.get("reason") or _("no value"))
    window = metric["method"].get("window_days")
    if window is not None and abs(window - wanted) > slack:
        return _("fwbench's window is {days} days, the article's a year").format(days=window)
    return None


def _windowed(
    metric: dict[str, Any] | None,
    spec: dict[str, Any],
    judge: Callable[[float], str],
    within: str,
    differs: Callable[[float], str],
) -> tuple[str, str]:
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
    so_window = (
        _("a {days}-day window (±{slack} days)").format(days=so["window_days"], slack=so["window_slack_days"]),
    )
    for tag, published in so["questions"].items():
        metric = _metric(snap, "stackoverflow", tag, "questions_in_window")
        has_value = metric is not None and metric["value"] is not None
        ours = f"{metric['value']:,}" if has_value else "—"
        verdict, reason = _windowed(
            metric,
            so,
            lambda v, p=published: within_relative(v, p, so["tolerance_relative"]),
            _("within ±{tolerance:.0%}").format(tolerance=so["tolerance_relative"]),
            lambda v, p=published: _("differs by {difference:+.0%}").format(difference=v / p - 1),
        )
        claims.append(
            Claim(
                so["section"],
                _("[{tag}] questions in the past year").format(tag=tag),
                f"{published:,}+",
                ours,
                verdict,
                _("{reason} (snapshot {date})").format(reason=reason, date=snap["date"]),
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
                _("[{tag}] time to first answer").format(tag=tag),
                _("{minutes} min (mean)").format(minutes=published),
                _("{minutes:.0f} min (median, n={n})").format(minutes=metric["value"], n=sample) if ok else "—",
                NOT_COMPARABLE,
                _("the article gives a mean over an unstated sample; fwbench measures the median")
                if ok
                else (_window_reason(metric, 0, 10**6) or _("not collected")),
                (_("the same statistic"),),
            )
        )
    stated = ranking(so["first_answer_mean_minutes"])
    if len(medians) == len(stated):
        verdict = CONFIRMED if ranking(medians) == stated else CONTRADICTED
        claims.append(
            Claim(
                so["section"],
                _("order of first-answer times"),
                " < ".join(stated),
                " < ".join(ranking(medians)),
                verdict,
                _("order of fwbench's medians (the snapshot gives no spread to judge the noise by)"),
                (_("the order alone"),),
            )
        )
    stars = article["star_growth"]
    star_window = (
        _("a {days}-day window (±{slack} days)").format(days=stars["window_days"], slack=stars["window_slack_days"]),
    )
    for repo, published in stars["percent_per_year"].items():
        metric = _metric(snap, "github", repo, "star_growth_percent_in_window")
        has_value = metric is not None and metric["status"] == "ok" and metric["value"] is not None
        window = metric["method"].get("window_days") if has_value else None
        ours = _("{growth:.1f} % in {days} days").format(growth=metric["value"], days=window) if has_value else "—"
        verdict, reason = _windowed(
            metric,
            stars,
            lambda v, p=published: within_absolute(v, p, stars["tolerance_points"]),
            _("within ±{tolerance} points").format(tolerance=stars["tolerance_points"]),
            lambda v, p=published: _("differs by {difference:+.1f} points").format(difference=v - p),
        )
        claims.append(
            Claim(
                stars["section"],
                _("[{repository}] GitHub star growth per year").format(repository=repo),
                f"{published} %",
                ours,
                verdict,
                _("{reason} (snapshot {date})").format(reason=reason, date=snap["date"]),
                star_window,
            )
        )
    return claims
