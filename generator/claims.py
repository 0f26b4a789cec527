"""The claims check: the article's published figures beside fwbench's measurements and its own tables.

Every verdict is computed: the article's figures come from ``data/article_figures.json`` (transcribed,
with sections), fwbench's from the records. A measurement is judged only where the comparability rules
(``data/comparability.json``) hold, else it is "not comparable" with the broken rules named; where its
95 % interval cannot tell, the verdict is "within noise".
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from generator import comparability, fmt
from generator.aggregate import APART, FRAMEWORKS, WITHIN_NOISE, Machine, Stats, Summary, Table, separation
from generator.load import Loaded

CONFIRMED = "confirmed"
CONTRADICTED = "contradicted"
NOT_COMPARABLE = "not comparable"
#: every verdict, in the order the claims page counts them (WITHIN_NOISE: the intervals cannot tell)
VERDICTS = (CONFIRMED, CONTRADICTED, WITHIN_NOISE, NOT_COMPARABLE)
#: what the article-against-itself rows check
OWN_FIGURES = ("the article's own figures",)
DATA_DIR = Path(__file__).resolve().parent / "data"


@dataclass(frozen=True)
class Claim:
    """One published figure or statement, fwbench's counterpart and the verdict."""

    section: str
    claim: str
    article: str
    ours: str
    verdict: str
    reason: str
    conditions: tuple[str, ...] = ()  # the comparability conditions this row checked


def load_article_figures() -> dict[str, Any]:
    """The transcribed figures of the source article."""
    return json.loads((DATA_DIR / "article_figures.json").read_text(encoding="utf-8"))


def within_relative(measured: float, published: float, tolerance: float) -> str:
    """CONFIRMED when ``measured`` is within ``tolerance`` (a fraction) of ``published``."""
    return CONFIRMED if abs(measured - published) <= tolerance * abs(published) else CONTRADICTED


def within_absolute(measured: float, published: float, tolerance: float) -> str:
    """CONFIRMED when ``measured`` differs from ``published`` by at most ``tolerance``."""
    return CONFIRMED if abs(measured - published) <= tolerance else CONTRADICTED


def ranking(values: dict[str, float]) -> list[str]:
    """Keys ordered from the smallest value to the largest."""
    return sorted(values, key=values.get)


def _names(order: list[str]) -> str:
    return " < ".join(fmt.label(f) for f in order)


def internal_claims(article: dict[str, Any]) -> list[Claim]:
    """The article's statements checked against its own tables."""
    claims = []
    speed, up = article["speed"], article["speedup"]
    lo, hi = str(up["from_batch"]), str(up["to_batch"])
    for fw in FRAMEWORKS:
        computed = speed["table"][lo][fw] / speed["table"][hi][fw]
        verdict = within_absolute(computed, up["stated"][fw], up["rounding_tolerance"])
        claims.append(
            Claim(
                up["section"],
                f"{fmt.label(fw)} speed-up from batch {lo} to {hi}",
                f"{up['stated'][fw]}×",
                f"{computed:.2f}× ({speed['table'][lo][fw]} s ÷ {speed['table'][hi][fw]} s, its own table)",
                verdict,
                "stated ratio vs the ratio of the article's own table"
                + ("" if verdict == CONFIRMED else ": the text and the table disagree"),
                OWN_FIGURES,
            )
        )
    for spec, what in ((speed, "time"), (article["memory"], "memory")):
        wins = [bs for bs, row in spec["table"].items() if ranking(row) == spec["stated_ranking"]]
        claims.append(
            Claim(
                spec["section"],
                spec["stated_ranking_text"],
                _names(spec["stated_ranking"]) + f" ({what})",
                f"order holds at {len(wins)} of {len(spec['table'])} batch sizes of its table",
                CONFIRMED if len(wins) == len(spec["table"]) else CONTRADICTED,
                "ranking of each row of the article's own table",
                OWN_FIGURES,
            )
        )
    over = article["python_overhead"]
    computed = over["total_seconds"] - over["overhead_seconds"]
    claims.append(
        Claim(
            over["section"],
            f"{fmt.label(over['framework'])} batch {over['batch_size']} without interpreter overhead",
            f"{over['without_overhead_seconds']} s",
            f"{computed:.1f} s ({over['total_seconds']} − {over['overhead_seconds']})",
            within_absolute(computed, over["without_overhead_seconds"], 0.05),
            "arithmetic on its figures",
            OWN_FIGURES,
        )
    )
    acc = article["accuracy"]
    largest = max(row["std"] for row in acc["table"].values())
    claims.append(
        Claim(
            acc["section"],
            f"every standard deviation is within {acc['stated_std_bound']} points",
            f"< {acc['stated_std_bound']}",
            f"largest in its table: {largest}",
            CONFIRMED if largest <= acc["stated_std_bound"] else CONTRADICTED,
            "its own table",
            OWN_FIGURES,
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


def _best_table(tables: list[Table], setup: dict[str, Any]) -> Table | None:
    """The table closest to the article's protocol: clean records first, then CIFAR-10, then the most images
    and epochs."""
    if not tables:
        return None
    return max(
        tables,
        key=lambda t: (
            not t.setting.older,
            t.setting.dataset == setup["dataset"],
            t.setting.train_images == setup["train_images"],
            t.setting.epochs == setup["epochs"],
            t.setting.train_images,
            t.setting.epochs,
        ),
    )


def _with_notes(reason: str, check: comparability.Check) -> str:
    return "; ".join((reason, *check.notes))


@dataclass(frozen=True)
class _Figure:
    """How one measured figure is read from a configuration and written, in the article's unit."""

    subject: str
    stats_of: Callable[[Summary], Stats | None]
    scale: float
    digits: int
    unit: str
    article_unit: str

    def stats(self, summary: Summary | None) -> Stats | None:
        return self.stats_of(summary) if summary and summary.n_ok else None

    def text(self, stats: Stats) -> str:
        return fmt.spread(stats, self.scale, self.digits, self.unit)

    def ci_text(self, stats: Stats) -> str:
        low, high = (v * self.scale for v in stats.ci95)
        return f"95 % CI {low:,.{self.digits}f}–{high:,.{self.digits}f} {self.unit}".rstrip()


SECONDS = _Figure("seconds per epoch", lambda s: s.epoch_seconds, 1.0, 1, "s", "s")
NVML = _Figure("peak GPU memory (NVML)", lambda s: s.memory("nvml_process_peak_bytes"), 1 / fmt.MIB, 0, "MiB", "MB")
ACCURACY = _Figure("final test accuracy", lambda s: s.accuracy, 100.0, 2, "%", "%")


def _ours(summary: Summary | None, stats: Stats | None, figure: _Figure) -> str:
    if summary is None:
        return "not run"
    if summary.n_ok == 0:
        return f"failed: {summary.failure_note}"
    if stats is None:
        return "not measured"
    marks = f" [{', '.join(summary.flags)}]" if summary.flags else ""
    return figure.text(stats) + marks


def _band_reason(verdict: str, stats: Stats, figure: _Figure, band: str, differs: str) -> str:
    """Why ``band_verdict`` decided as it did: where the interval lies against ``band`` (both in words)."""
    if verdict == CONFIRMED:
        return f"{figure.ci_text(stats)} lies inside {band}"
    if verdict == CONTRADICTED:
        return f"mean differs by {differs}; {figure.ci_text(stats)} lies outside {band}"
    return f"{figure.ci_text(stats)} reaches across the edge of {band}"


class _MachineCheck:
    """The article's 3.1–3.3 figures beside one machine's table, each row checked against the rules."""

    def __init__(self, article: dict[str, Any], machine: Machine, table: Table):
        self.article, self.setup, self.machine, self.table = article, article["setup"], machine, table
        self.rules = comparability.load_rules(self.setup)

    def check(self, needs: tuple[tuple[str, int], ...]) -> comparability.Check:
        evidence = comparability.Evidence(self.machine, self.table, needs)
        return comparability.check(self.rules, self.setup, evidence)

    def claim(
        self, section: str, claim: str, article: str, ours: str, verdict: str, reason: str, check: comparability.Check
    ) -> Claim:
        return Claim(section, claim, article, ours, verdict, reason, check.conditions)

    def figure_rows(self, spec: dict[str, Any], figure: _Figure) -> list[Claim]:
        """One row per batch size × framework of an article table, beside the same cell of ours."""
        rows = []
        for bs, published_row in spec["table"].items():
            for fw in FRAMEWORKS:
                summary = self.table.cell(fw, "compiled", int(bs))
                stats = figure.stats(summary)
                published = published_row[fw]
                check = self.check(((fw, int(bs)),))
                if not check.comparable:
                    verdict, reason = NOT_COMPARABLE, "; ".join(check.problems)
                elif stats is None:
                    verdict, reason = NOT_COMPARABLE, f"no {figure.subject} recorded"
                else:
                    low, high = (v * figure.scale for v in stats.ci95)
                    tolerance = spec["tolerance_relative"]
                    verdict = band_verdict(low, high, published, tolerance, relative=True)
                    band = f"±{tolerance:.0%} of {published:,} {figure.article_unit}"
                    differs = f"{stats.mean * figure.scale / published - 1:+.0%}"
                    reason = _with_notes(_band_reason(verdict, stats, figure, band, differs), check)
                rows.append(
                    self.claim(
                        spec["section"],
                        f"{fmt.label(fw)}, batch {bs}: {figure.subject}",
                        f"{published:,} {figure.article_unit}",
                        _ours(summary, stats, figure),
                        verdict,
                        reason,
                        check,
                    )
                )
        return rows

    def ranking_row(self, spec: dict[str, Any], figure: _Figure) -> Claim:
        """The stated order of the frameworks at every batch size of the article's table."""
        sizes = [int(bs) for bs in spec["table"]]
        check = self.check(comparability.needs(FRAMEWORKS, sizes))
        per_size: dict[int, dict[str, Stats]] = {}
        for bs in sizes:
            found = {fw: figure.stats(self.table.cell(fw, "compiled", bs)) for fw in FRAMEWORKS}
            if all(found.values()):
                per_size[bs] = found
        means_hold = sum(
            ranking({fw: st.mean for fw, st in found.items()}) == spec["stated_ranking"] for found in per_size.values()
        )
        ours = f"order of the means holds at {means_hold} of {len(per_size)} batch sizes with all three"
        if not check.comparable or len(per_size) < len(sizes):
            problems = check.problems or (f"no {figure.subject} for all three frameworks at every batch size",)
            return self.claim(
                spec["section"],
                spec["stated_ranking_text"],
                _names(spec["stated_ranking"]),
                ours,
                NOT_COMPARABLE,
                "; ".join(problems),
                check,
            )
        verdicts = {bs: order_verdict(found, spec["stated_ranking"]) for bs, found in per_size.items()}
        ours = ", ".join(f"batch {bs}: {v}" for bs, v in verdicts.items())
        overall = every(list(verdicts.values()))
        reason = "neighbours in the stated order compared by their 95 % intervals at every batch size"
        return self.claim(
            spec["section"],
            spec["stated_ranking_text"],
            _names(spec["stated_ranking"]),
            ours,
            overall,
            _with_notes(reason, check),
            check,
        )

    def speedup_rows(self) -> list[Claim]:
        """Each framework's speed-up from the article's smallest to its largest batch size."""
        up, speed = self.article["speedup"], self.article["speed"]["table"]
        rows = []
        for fw in FRAMEWORKS:
            computed = speed[str(up["from_batch"])][fw] / speed[str(up["to_batch"])][fw]
            first = SECONDS.stats(self.table.cell(fw, "compiled", up["from_batch"]))
            last = SECONDS.stats(self.table.cell(fw, "compiled", up["to_batch"]))
            check = self.check(((fw, up["from_batch"]), (fw, up["to_batch"])))
            ours = "—" if not (first and last) else f"{first.mean / last.mean:.2f}×"
            if not check.comparable:
                verdict, reason = NOT_COMPARABLE, "; ".join(check.problems)
            else:
                # the ratio's interval from the two intervals (conservative: the extremes of each)
                low, high = first.ci95[0] / last.ci95[1], first.ci95[1] / last.ci95[0]
                ours += f" (from the 95 % CIs: {low:.2f}–{high:.2f}×)"
                verdict = band_verdict(low, high, computed, up["tolerance_relative"], relative=True)
                reason = _with_notes(
                    f"vs its table's {computed:.2f}×, tolerance ±{up['tolerance_relative']:.0%}", check
                )
            rows.append(
                self.claim(
                    up["section"],
                    f"{fmt.label(fw)} speed-up batch {up['from_batch']} → {up['to_batch']}",
                    f"{up['stated'][fw]}× stated, {computed:.2f}× in its table",
                    ours,
                    verdict,
                    reason,
                    check,
                )
            )
        return rows

    def accuracy_rows(self) -> list[Claim]:
        """Each framework's final test accuracy beside the article's mean over its runs."""
        acc = self.article["accuracy"]
        rows = []
        for fw in FRAMEWORKS:
            candidates = [
                s for s in self.table.summaries if s.key.framework == fw and s.key.mode == "compiled" and s.accuracy
            ]
            chosen = max(candidates, key=lambda s: (s.judgeable, s.n_clean, s.key.batch_size), default=None)
            published = acc["table"][fw]
            check = self.check(((fw, chosen.key.batch_size),) if chosen else ())
            ours = (
                (_ours(chosen, chosen.accuracy, ACCURACY) + f", batch {chosen.key.batch_size}")
                if chosen
                else "not measured"
            )
            if chosen is None:
                verdict, reason = NOT_COMPARABLE, "; ".join(check.problems) or "no successful compiled run"
            elif not check.comparable:
                verdict, reason = NOT_COMPARABLE, "; ".join(check.problems)
            else:
                low, high = (100 * v for v in chosen.accuracy.ci95)
                verdict = band_verdict(low, high, published["mean"], acc["tolerance_points"], relative=False)
                band = f"±{acc['tolerance_points']} points of {published['mean']} %"
                differs = f"{100 * chosen.accuracy.mean - published['mean']:+.2f} points"
                reason = _with_notes(_band_reason(verdict, chosen.accuracy, ACCURACY, band, differs), check)
            rows.append(
                self.claim(
                    acc["section"],
                    f"{fmt.label(fw)} final test accuracy over {self.setup['runs_per_accuracy']} runs",
                    f"{published['mean']} ± {published['std']} %",
                    ours,
                    verdict,
                    reason,
                    check,
                )
            )
        return rows


def machine_claims(article: dict[str, Any], machine: Machine, tables: list[Table]) -> list[Claim]:
    """The article's 3.1–3.3 figures beside one machine's measurements, each row checked against the
    comparability rules (``data/comparability.json``)."""
    table = _best_table([t for t in tables if t.machine_id == machine.machine_id], article["setup"])
    if table is None:
        return []
    rows = _MachineCheck(article, machine, table)
    return [
        *rows.figure_rows(article["speed"], SECONDS),
        rows.ranking_row(article["speed"], SECONDS),
        *rows.speedup_rows(),
        *rows.figure_rows(article["memory"], NVML),
        rows.ranking_row(article["memory"], NVML),
        *rows.accuracy_rows(),
    ]


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


def ecosystem_claims(article: dict[str, Any], snapshot: Loaded | None) -> list[Claim]:
    """The article's 6.1 and 6.3 figures beside the latest ecosystem snapshot."""
    if snapshot is None:
        return []
    snap, claims = snapshot.record, []
    so = article["stackoverflow"]
    so_window = (f"a {so['window_days']}-day window (±{so['window_slack_days']} days)",)
    for tag, published in so["questions"].items():
        metric = _metric(snap, "stackoverflow", tag, "questions_in_window")
        why = _window_reason(metric, so["window_days"], so["window_slack_days"])
        ours = "—" if why and (metric is None or metric["value"] is None) else f"{metric['value']:,}"
        verdict = NOT_COMPARABLE if why else within_relative(metric["value"], published, so["tolerance_relative"])
        reason = why or (
            f"within ±{so['tolerance_relative']:.0%}"
            if verdict == CONFIRMED
            else f"differs by {metric['value'] / published - 1:+.0%}"
        )
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
        why = _window_reason(metric, stars["window_days"], stars["window_slack_days"])
        has_value = metric is not None and metric["status"] == "ok" and metric["value"] is not None
        window = metric["method"].get("window_days") if has_value else None
        ours = f"{metric['value']:.1f} % in {window} days" if has_value else "—"
        verdict = NOT_COMPARABLE if why else within_absolute(metric["value"], published, stars["tolerance_points"])
        reason = why or (
            f"within ±{stars['tolerance_points']} points"
            if verdict == CONFIRMED
            else f"differs by {metric['value'] - published:+.1f} points"
        )
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
