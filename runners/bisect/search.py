"""The release bisect's search, apart from how a release is measured: the first release of a list where a metric
dropped beyond the noise, halving the range with repeated runs of each release and confirming the drop either side of
it. ``measure`` is injected: ``runners.bisect.releases`` measures real releases, the tests made-up ones."""

from __future__ import annotations

import statistics
from collections.abc import Callable
from dataclasses import dataclass

#: timing fields a bisect may compare, and whether more is better
METRICS = {"images_per_second": True, "epoch_seconds": False, "compile_seconds": False, "step_seconds_median": False}


@dataclass(frozen=True)
class Sample:
    """One run at one release: the metric (None when the run failed) and where it came from."""

    value: float | None
    record_id: str
    status: str
    message: str | None
    packages: dict

    def as_json(self) -> dict:
        return {
            "value": self.value,
            "record_id": self.record_id,
            "status": self.status,
            "message": self.message,
            "packages": self.packages,
        }


Measure = Callable[[str, int], list[Sample]]  # (release, runs wanted in all) -> every sample of that release


def values(samples: list[Sample]) -> list[float]:
    return [s.value for s in samples if s.value is not None]


def worse_beyond_noise(good: list[float], bad: list[float], threshold: float, higher_is_better: bool) -> float | None:
    """The relative drop from ``good`` to ``bad`` when it exceeds ``threshold`` and the two sets of runs do not
    overlap (every bad run worse than every good one), else None."""
    if not good or not bad:
        return None
    if higher_is_better:
        drop = 1 - statistics.median(bad) / statistics.median(good)
        apart = max(bad) < min(good)
    else:
        drop = 1 - statistics.median(good) / statistics.median(bad)
        apart = min(bad) > max(good)
    return drop if drop > threshold and apart else None


def bisect(releases: list[str], measure: Measure, threshold: float, repeats: int, higher_is_better: bool) -> dict:
    """Search ``releases`` (oldest first) for the first one worse than its predecessor beyond the noise; the
    report's ``result`` section. ``measure(release, n)`` runs the release until it has ``n`` samples and returns
    them all (an empty list or no values: the release could not be measured, and is skipped)."""
    skipped: list[str] = []

    def usable(release: str, n: int) -> list[float] | None:
        found = values(measure(release, n))
        if not found:
            skipped.append(release)
        return found or None

    candidates = list(releases)
    good, bad = usable(candidates[0], repeats), usable(candidates[-1], repeats)
    if good is None or bad is None:
        return search_result("inconclusive", "the oldest or the newest release could not be measured", skipped=skipped)
    if worse_beyond_noise(good, bad, threshold, higher_is_better) is None:
        return search_result(
            "no_drop",
            f"{candidates[-1]} is not worse than {candidates[0]} by more than {threshold:.0%} beyond the noise",
            good_median=statistics.median(good),
            bad_median=statistics.median(bad),
            skipped=skipped,
        )
    # A release is good when the median of its runs lies on the good side of the midpoint (geometric: the metric is
    # a rate). Every release gets ``repeats`` runs, not one: a slow release's single run can land anywhere between
    # the two medians (seen here: jaxlib's slow releases gave 9-18 img/s, its fast ones 23-25).
    boundary = (statistics.median(good) * statistics.median(bad)) ** 0.5
    lo, hi = 0, len(candidates) - 1
    while hi - lo > 1:
        mid = (lo + hi) // 2
        found = usable(candidates[mid], repeats)
        if found is None:
            del candidates[mid]
            hi -= 1
            continue
        is_good = (statistics.median(found) > boundary) == higher_is_better
        lo, hi = (mid, hi) if is_good else (lo, mid)
    last_good, first_bad = candidates[lo], candidates[hi]
    good, bad = usable(last_good, repeats) or [], usable(first_bad, repeats) or []
    drop = worse_beyond_noise(good, bad, threshold, higher_is_better)
    medians = {"good_median": statistics.median(good), "bad_median": statistics.median(bad)}
    if drop is None:
        return search_result(
            "inconclusive",
            f"the halving ended between {last_good} and {first_bad}, but with {repeats} runs each the step there is "
            f"not beyond the noise: the drop may be spread over several releases",
            last_good=last_good,
            first_bad=first_bad,
            skipped=skipped,
            **medians,
        )
    return search_result(
        "found",
        f"{first_bad} is the first release worse than its predecessor {last_good} by {drop:.0%} "
        f"(medians of {len(bad)} and {len(good)} runs, no overlap)",
        last_good=last_good,
        first_bad=first_bad,
        drop=drop,
        skipped=skipped,
        **medians,
    )


def search_result(status: str, message: str, **fields) -> dict:
    """The report's ``result`` section: ``status``, ``message`` and the ``fields`` known, the others null."""
    result = {"status": status, "message": message, "last_good": None, "first_bad": None}
    result.update({"good_median": None, "bad_median": None, "drop": None, "skipped": []})
    result.update(fields)
    result["skipped"] = sorted(set(result["skipped"]), key=result["skipped"].index)
    return result
