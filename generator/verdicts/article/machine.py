"""The article's 3.1–3.3 figures beside one machine's measurements, each row checked against the rules.

Where a table holds several versions of a framework, the rows use the article's release when it was measured,
else the newest, and name the other versions measured. Rows about seconds per epoch use one definition per table
(``figures.seconds_figure``) and say which; the article's epoch, compile inside, is read and its rules applied
within one compile-cache state (``figures.in_state``), which each row names.
"""

from __future__ import annotations

from typing import Any

from fwbench.frameworks import label
from fwbench.stats import Stats, ratio_interval
from generator.i18n import N_
from generator.message import Joined, Message, Text
from generator.records.aggregate import Summary, Table
from generator.records.identity import release, version_key
from generator.records.machines import Machine
from generator.verdicts import comparability
from generator.verdicts.article import article_frameworks
from generator.verdicts.article.figures import (
    ACCURACY,
    EQUAL_WORK_RATE,
    NVML,
    Figure,
    band_reason,
    in_state,
    measured,
    order_holds,
    seconds_figure,
)
from generator.verdicts.claims import (
    NOT_COMPARABLE,
    Claim,
    band_verdict,
    every,
    order_text,
    order_verdict,
    ranking,
)


def _best_table(tables: list[Table], setup: dict[str, Any]) -> Table | None:
    """The table closest to the article's protocol: clean records first, then CIFAR-10, then the most images
    and epochs."""
    if not tables:
        return None
    return max(
        tables,
        key=lambda t: (
            t.setting.dataset == setup["dataset"],
            t.setting.train_images == setup["train_images"],
            t.setting.epochs == setup["epochs"],
            t.setting.train_images,
            t.setting.epochs,
        ),
    )


def is_article_version(framework: str, version: str, article_versions: dict[str, str]) -> bool:
    """True when ``version`` is the release the article used (``2.2.1`` is the article's ``2.2.1+cu121``)."""
    return release(version) == release(article_versions.get(framework))


def one_version_each(table: Table, article_versions: dict[str, str]) -> tuple[Table, list[str]]:
    """``table`` with one version of each of the article's frameworks (``article_versions``' keys) — the article's
    release where it was measured, else the newest — and the other versions it held (``PyTorch 2.14.1``), which the
    rows name but do not compare."""
    chosen, others = set(), []
    for fw in article_versions:
        versions = sorted({c.version for c in table.columns if c.framework == fw}, key=version_key)
        if not versions:
            continue
        stated = article_versions.get(fw)
        pick = next((v for v in versions if stated and release(v) == release(stated)), versions[-1])
        chosen.add((fw, pick))
        others += [f"{label(fw)} {v}" for v in versions if v != pick]
    kept = [s for s in table.summaries if (s.key.framework, s.key.version) in chosen]
    return Table(table.machine_id, table.setting, kept), others


class _MachineCheck:
    """The article's 3.1–3.3 figures beside one machine's table, each row checked against the rules."""

    def __init__(self, article: dict[str, Any], machine: Machine, table: Table):
        self.article, self.setup, self.machine = article, article["setup"], machine
        self.table, self.other_versions = one_version_each(table, self.setup["framework_versions"])
        self.rules = comparability.load_rules(self.setup)
        self.frameworks = article_frameworks(article)
        self.seconds = seconds_figure(self.table.summaries)
        self.seconds_table = in_state(self.table, self.seconds)

    def table_of(self, figure: Figure) -> Table:
        """The table a row about ``figure`` reads: the runs of one compile-cache state for the article's epoch."""
        return self.seconds_table if figure is self.seconds else self.table

    def with_notes(
        self, reason: tuple[Text, ...], check: comparability.Check, figure: Figure | None = None
    ) -> tuple[Text, ...]:
        """The reason with the tolerated differences worth naming, how ``figure`` is measured where a row must say
        so, and the versions not compared."""
        definition = (Message(figure.definition),) if figure and figure.definition else ()
        others = (
            (
                Message(
                    N_("also measured, not compared here: {versions}"), {"versions": Joined(tuple(self.other_versions))}
                ),
            )
            if self.other_versions
            else ()
        )
        return (*reason, *definition, *check.notes, *others)

    def check(self, needs: tuple[tuple[str, int], ...], kind: str, figure: Figure = ACCURACY) -> comparability.Check:
        """The rules applied to the configurations a row about ``figure`` reads (``table_of``), for what it
        compares (``Evidence.kind``)."""
        evidence = comparability.Evidence(self.machine, self.table_of(figure), needs, kind)
        return comparability.check(self.rules, self.setup, evidence)

    def figure_rows(self, spec: dict[str, Any], figure: Figure) -> list[Claim]:
        """One row per batch size × framework of an article table, beside the same cell of ours."""
        return [self.figure_row(spec, figure, int(bs), fw) for bs in spec["table"] for fw in self.frameworks]

    def figure_row(self, spec: dict[str, Any], figure: Figure, batch_size: int, framework: str) -> Claim:
        """The article's figure for one framework at one batch size beside the same cell of ours."""
        summary = self.table_of(figure).cell(framework, "compiled", batch_size)
        stats = figure.stats(summary)
        published = spec["table"][str(batch_size)][framework]
        check = self.check(((framework, batch_size),), figure.kind, figure)
        if not check.comparable:
            verdict, reason = NOT_COMPARABLE, self.with_notes(check.problems, check, figure)
        elif stats is None:
            verdict = NOT_COMPARABLE
            reason = (Message(N_("no {figure} recorded"), {"figure": Message(figure.subject)}),)
        else:
            low, high = (v * figure.scale for v in stats.ci95)
            tolerance = spec["tolerance_relative"]
            verdict = band_verdict(low, high, published, tolerance, relative=True)
            band = Message(
                N_("±{tolerance:.0%} of {published:,} {unit}"),
                {"tolerance": tolerance, "published": published, "unit": figure.article_unit},
            )
            differs = f"{stats.mean * figure.scale / published - 1:+.0%}"
            reason = self.with_notes(band_reason(verdict, stats, figure, band, differs), check, figure)
        return Claim(
            spec["section"],
            Message(
                N_("{framework}, batch {batch}: {figure}"),
                {"framework": label(framework), "batch": batch_size, "figure": Message(figure.subject)},
            ),
            f"{published:,} {figure.article_unit}",
            measured(summary, stats, figure),
            verdict,
            reason,
            check.conditions,
        )

    def ranking_row(self, spec: dict[str, Any], figure: Figure) -> Claim:
        """The stated order of the frameworks at every batch size of the article's table."""
        sizes = [int(bs) for bs in spec["table"]]
        check = self.check(comparability.needs(self.frameworks, sizes), comparability.SCALE_FREE, figure)
        per_size: dict[int, dict[str, Stats]] = {}
        for bs in sizes:
            found = {fw: figure.stats(self.table_of(figure).cell(fw, "compiled", bs)) for fw in self.frameworks}
            if all(found.values()):
                per_size[bs] = found
        means_hold = sum(
            ranking({fw: st.mean for fw, st in found.items()}) == spec["stated_ranking"] for found in per_size.values()
        )
        ours: Text = order_holds(means_hold, len(per_size))
        if not check.comparable or len(per_size) < len(sizes):
            problems = check.problems or (
                Message(
                    N_("no {figure} for all three frameworks at every batch size"), {"figure": Message(figure.subject)}
                ),
            )
            verdict, reason = NOT_COMPARABLE, tuple(problems)
        else:
            verdicts = {bs: order_verdict(found, spec["stated_ranking"]) for bs, found in per_size.items()}
            ours = Joined(
                tuple(
                    Message(N_("batch {batch}: {verdict}"), {"batch": bs, "verdict": Message(v)})
                    for bs, v in verdicts.items()
                )
            )
            verdict = every(list(verdicts.values()))
            reason = (
                Message(N_("neighbours in the stated order compared by their 95 % intervals at every batch size")),
            )
        return Claim(
            spec["section"],
            Message(spec["stated_ranking_text"]),
            order_text(spec["stated_ranking"]),
            ours,
            verdict,
            self.with_notes(reason, check, figure),
            check.conditions,
        )

    def speedup_figure(self, small: Summary | None, large: Summary | None) -> Figure:
        """The figure a speed-up row divides: the table's seconds per epoch where each epoch is one pass over the
        training set (drop-last aside), the same work at both batch sizes as the article's 50,000 images are;
        images per second where an epoch repeats the set to a batch-sized length (a CPU's grow with the batch),
        since only the same work compares."""
        one_pass = all(s.images_per_epoch <= self.table.setting.train_images for s in (small, large) if s and s.n_ok)
        return self.seconds if one_pass else EQUAL_WORK_RATE

    def speedup_rows(self) -> list[Claim]:
        """Each framework's speed-up from the article's smallest to its largest batch size."""
        up, speed = self.article["speedup"], self.article["speed"]["table"]
        rows = []
        for fw in self.frameworks:
            computed = speed[str(up["from_batch"])][fw] / speed[str(up["to_batch"])][fw]
            ends = (up["from_batch"], up["to_batch"])
            figure = self.speedup_figure(*(self.table.cell(fw, "compiled", bs) for bs in ends))
            small, large = (self.table_of(figure).cell(fw, "compiled", bs) for bs in ends)
            first, last = figure.stats(small), figure.stats(large)
            check = self.check(tuple((fw, bs) for bs in ends), comparability.SCALE_FREE, figure)
            if first and last and figure is EQUAL_WORK_RATE:
                first, last = last, first  # a throughput grows as an epoch time shrinks
            ours: Text = "—" if not (first and last) else f"{first.mean / last.mean:.2f}×"
            interval = ratio_interval(first, last) if first and last else None
            if not check.comparable or interval is None:
                no_figure = Message(N_("no {figure} recorded"), {"figure": Message(figure.subject)})
                why = check.problems or (no_figure,)
                verdict, reason = NOT_COMPARABLE, self.with_notes(why, check, figure)
            else:
                low, high = interval
                ours = Joined((ours, Message(N_("(95 % CI {low:.2f}–{high:.2f}×)"), {"low": low, "high": high})), " ")
                verdict = band_verdict(low, high, computed, up["tolerance_relative"], relative=True)
                reason = self.with_notes(
                    (
                        Message(
                            N_("vs its table's {ratio:.2f}×, tolerance ±{tolerance:.0%}"),
                            {"ratio": computed, "tolerance": up["tolerance_relative"]},
                        ),
                    ),
                    check,
                    figure,
                )
            rows.append(
                Claim(
                    up["section"],
                    Message(
                        N_("{framework} speed-up batch {low} → {high}"),
                        {"framework": label(fw), "low": up["from_batch"], "high": up["to_batch"]},
                    ),
                    Message(
                        N_("{stated}× stated, {ratio:.2f}× in its table"),
                        {"stated": up["stated"][fw], "ratio": computed},
                    ),
                    ours,
                    verdict,
                    reason,
                    check.conditions,
                )
            )
        return rows

    def accuracy_rows(self) -> list[Claim]:
        """Each framework's final test accuracy beside the article's mean over its runs."""
        acc = self.article["accuracy"]
        rows = []
        for fw in self.frameworks:
            candidates = [
                s for s in self.table.summaries if s.key.framework == fw and s.key.mode == "compiled" and s.accuracy
            ]
            chosen = max(candidates, key=lambda s: (s.judgeable, s.n_clean, s.key.batch_size), default=None)
            published = acc["table"][fw]
            check = self.check(((fw, chosen.key.batch_size),) if chosen else (), ACCURACY.kind)
            ours = (
                Message(
                    N_("{figure}, batch {batch}"),
                    {"figure": measured(chosen, chosen.accuracy, ACCURACY), "batch": chosen.key.batch_size},
                )
                if chosen
                else Message(N_("not measured"))
            )
            if chosen is None:
                why = check.problems or (Message(N_("no successful compiled run")),)
                verdict, reason = NOT_COMPARABLE, self.with_notes(why, check)
            elif not check.comparable:
                verdict, reason = NOT_COMPARABLE, self.with_notes(check.problems, check)
            else:
                low, high = (100 * v for v in chosen.accuracy.ci95)
                verdict = band_verdict(low, high, published["mean"], acc["tolerance_points"], relative=False)
                band = Message(
                    N_("±{tolerance} points of {published} %"),
                    {"tolerance": acc["tolerance_points"], "published": published["mean"]},
                )
                differs = Message(
                    N_("{difference:+.2f} points"), {"difference": 100 * chosen.accuracy.mean - published["mean"]}
                )
                reason = self.with_notes(band_reason(verdict, chosen.accuracy, ACCURACY, band, differs), check)
            rows.append(
                Claim(
                    acc["section"],
                    Message(
                        N_("{framework} final test accuracy over {runs} runs"),
                        {"framework": label(fw), "runs": self.setup["runs_per_accuracy"]},
                    ),
                    f"{published['mean']} ± {published['std']} %",
                    ours,
                    verdict,
                    reason,
                    check.conditions,
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
        *rows.figure_rows(article["speed"], rows.seconds),
        rows.ranking_row(article["speed"], rows.seconds),
        *rows.speedup_rows(),
        *rows.figure_rows(article["memory"], NVML),
        rows.ranking_row(article["memory"], NVML),
        *rows.accuracy_rows(),
    ]


def speed_ranking(article: dict[str, Any], machine: Machine, table: Table) -> Claim:
    """The article's speed ordering (§3.1) checked against one table of ``machine``, under the same rules as the
    claims page's row: the table's article release of each framework where it holds one, else its newest."""
    rows = _MachineCheck(article, machine, table)
    return rows.ranking_row(article["speed"], rows.seconds)
