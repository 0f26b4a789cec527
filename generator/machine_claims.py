"""The article's 3.1–3.3 figures beside one machine's measurements, each row checked against the rules.

Where a table holds several versions of a framework, the rows use the article's release when it was measured,
else the newest, and name the other versions measured.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fwbench.frameworks import FRAMEWORKS
from generator import comparability, fmt
from generator.aggregate import Summary, Table
from generator.claims import (
    CONFIRMED,
    CONTRADICTED,
    NOT_COMPARABLE,
    Claim,
    band_verdict,
    every,
    order_text,
    order_verdict,
    ranking,
)
from generator.i18n import N_, _, part_separator, translate
from generator.identity import release, version_key
from generator.machines import Machine
from generator.stats import Stats


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


def one_version_each(table: Table, article_versions: dict[str, str]) -> tuple[Table, list[str]]:
    """``table`` with one version per framework — the article's release where it was measured, else the newest —
    and the other versions it held (``PyTorch 2.14.1``), which the rows name but do not compare."""
    chosen, others = set(), []
    for fw in FRAMEWORKS:
        versions = sorted({c.version for c in table.columns if c.framework == fw}, key=version_key)
        if not versions:
            continue
        stated = article_versions.get(fw)
        pick = next((v for v in versions if stated and release(v) == release(stated)), versions[-1])
        chosen.add((fw, pick))
        others += [f"{fmt.label(fw)} {v}" for v in versions if v != pick]
    kept = [s for s in table.summaries if (s.key.framework, s.key.version) in chosen]
    return Table(table.machine_id, table.setting, kept), others


@dataclass(frozen=True)
class _Figure:
    """How one measured figure is read from a configuration and written, in the article's unit."""

    subject: str  # English, marked with N_
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
        return (
            _("95 % CI {low}–{high} {unit}")
            .format(low=f"{low:,.{self.digits}f}", high=f"{high:,.{self.digits}f}", unit=self.unit)
            .rstrip()
        )


SECONDS = _Figure(N_("seconds per epoch"), lambda s: s.epoch_seconds, 1.0, 1, "s", "s")
NVML = _Figure(N_("peak GPU memory (NVML)"), lambda s: s.memory("nvml_process_peak_bytes"), 1 / fmt.MIB, 0, "MiB", "MB")
ACCURACY = _Figure(N_("final test accuracy"), lambda s: s.accuracy, 100.0, 2, "%", "%")


def _ours(summary: Summary | None, stats: Stats | None, figure: _Figure) -> str:
    if summary is None:
        return _("not run")
    if summary.n_ok == 0:
        return _("failed: {failures}").format(failures=summary.failure_note)
    if stats is None:
        return _("not measured")
    marks = f" [{', '.join(translate(flag) for flag in summary.flags)}]" if summary.flags else ""
    return figure.text(stats) + marks


def _band_reason(verdict: str, stats: Stats, figure: _Figure, band: str, differs: str) -> str:
    """Why ``band_verdict`` decided as it did: where the interval lies against ``band`` (both in words)."""
    interval = figure.ci_text(stats)
    if verdict == CONFIRMED:
        return _("{interval} lies inside {band}").format(interval=interval, band=band)
    if verdict == CONTRADICTED:
        return part_separator().join(
            (
                _("mean differs by {difference}").format(difference=differs),
                _("{interval} lies outside {band}").format(interval=interval, band=band),
            )
        )
    return _("{interval} reaches across the edge of {band}").format(interval=interval, band=band)


class _MachineCheck:
    """The article's 3.1–3.3 figures beside one machine's table, each row checked against the rules."""

    def __init__(self, article: dict[str, Any], machine: Machine, table: Table):
        self.article, self.setup, self.machine = article, article["setup"], machine
        self.table, self.other_versions = one_version_each(table, self.setup["framework_versions"])
        self.rules = comparability.load_rules(self.setup)

    def with_notes(self, reason: str, check: comparability.Check) -> str:
        """The reason with the tolerated differences worth naming, and the versions not compared."""
        others = (
            (_("also measured, not compared here: {versions}").format(versions=", ".join(self.other_versions)),)
            if self.other_versions
            else ()
        )
        return part_separator().join((reason, *check.notes, *others))

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
                    verdict, reason = NOT_COMPARABLE, self.with_notes(part_separator().join(check.problems), check)
                elif stats is None:
                    verdict = NOT_COMPARABLE
                    reason = _("no {figure} recorded").format(figure=translate(figure.subject))
                else:
                    low, high = (v * figure.scale for v in stats.ci95)
                    tolerance = spec["tolerance_relative"]
                    verdict = band_verdict(low, high, published, tolerance, relative=True)
                    band = _("±{tolerance:.0%} of {published:,} {unit}").format(
                        tolerance=tolerance, published=published, unit=figure.article_unit
                    )
                    differs = f"{stats.mean * figure.scale / published - 1:+.0%}"
                    reason = self.with_notes(_band_reason(verdict, stats, figure, band, differs), check)
                rows.append(
                    self.claim(
                        spec["section"],
                        _("{framework}, batch {batch}: {figure}").format(
                            framework=fmt.label(fw), batch=bs, figure=translate(figure.subject)
                        ),
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
        ours = _("order of the means holds at {holds} of {sizes} batch sizes with all three").format(
            holds=means_hold, sizes=len(per_size)
        )
        if not check.comparable or len(per_size) < len(sizes):
            problems = check.problems or (
                _("no {figure} for all three frameworks at every batch size").format(figure=translate(figure.subject)),
            )
            verdict, reason = NOT_COMPARABLE, part_separator().join(problems)
        else:
            verdicts = {bs: order_verdict(found, spec["stated_ranking"]) for bs, found in per_size.items()}
            ours = ", ".join(
                _("batch {batch}: {verdict}").format(batch=bs, verdict=translate(v)) for bs, v in verdicts.items()
            )
            verdict = every(list(verdicts.values()))
            reason = _("neighbours in the stated order compared by their 95 % intervals at every batch size")
        return self.claim(
            spec["section"],
            spec["stated_ranking_text"],
            order_text(spec["stated_ranking"]),
            ours,
            verdict,
            self.with_notes(reason, check),
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
                verdict, reason = NOT_COMPARABLE, self.with_notes(part_separator().join(check.problems), check)
            else:
                # the ratio's interval from the two intervals (conservative: the extremes of each)
                low, high = first.ci95[0] / last.ci95[1], first.ci95[1] / last.ci95[0]
                ours += " " + _("(from the 95 % CIs: {low:.2f}–{high:.2f}×)").format(low=low, high=high)
                verdict = band_verdict(low, high, computed, up["tolerance_relative"], relative=True)
                reason = self.with_notes(
                    _("vs its table's {ratio:.2f}×, tolerance ±{tolerance:.0%}").format(
                        ratio=computed, tolerance=up["tolerance_relative"]
                    ),
                    check,
                )
            rows.append(
                self.claim(
                    up["section"],
                    _("{framework} speed-up batch {low} → {high}").format(
                        framework=fmt.label(fw), low=up["from_batch"], high=up["to_batch"]
                    ),
                    _("{stated}× stated, {ratio:.2f}× in its table").format(stated=up["stated"][fw], ratio=computed),
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
                _("{figure}, batch {batch}").format(
                    figure=_ours(chosen, chosen.accuracy, ACCURACY), batch=chosen.key.batch_size
                )
                if chosen
                else _("not measured")
            )
            if chosen is None:
                why = part_separator().join(check.problems) or _("no successful compiled run")
                verdict, reason = NOT_COMPARABLE, self.with_notes(why, check)
            elif not check.comparable:
                verdict, reason = NOT_COMPARABLE, self.with_notes(part_separator().join(check.problems), check)
            else:
                low, high = (100 * v for v in chosen.accuracy.ci95)
                verdict = band_verdict(low, high, published["mean"], acc["tolerance_points"], relative=False)
                band = _("±{tolerance} points of {published} %").format(
                    tolerance=acc["tolerance_points"], published=published["mean"]
                )
                differs = _("{difference:+.2f} points").format(
                    difference=100 * chosen.accuracy.mean - published["mean"]
                )
                reason = self.with_notes(_band_reason(verdict, chosen.accuracy, ACCURACY, band, differs), check)
            rows.append(
                self.claim(
                    acc["section"],
                    _("{framework} final test accuracy over {runs} runs").format(
                        framework=fmt.label(fw), runs=self.setup["runs_per_accuracy"]
                    ),
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


def speed_ranking(article: dict[str, Any], machine: Machine, table: Table) -> Claim:
    """The article's speed ordering (§3.1) checked against one table of ``machine``, under the same rules as the
    claims page's row: the table's article release of each framework where it holds one, else its newest."""
    return _MachineCheck(article, machine, table).ranking_row(article["speed"], SECONDS)
