"""The claims check: the article's published figures beside fwbench's measurements and its own tables.

Every verdict is computed: the article's figures come from ``data/article_figures.json`` (transcribed,
with sections), fwbench's from the records. A figure measured under different conditions (another
device, synthetic data, another window) is "not comparable", with the reason.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from generator import fmt
from generator.aggregate import FRAMEWORKS, Machine, Table
from generator.load import Loaded

CONFIRMED = "confirmed"
CONTRADICTED = "contradicted"
NOT_COMPARABLE = "not comparable"
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
        )
    )
    return claims


def _device_mismatch(machine: Machine, setup: dict[str, Any]) -> str | None:
    """Why this machine's absolute speed/memory cannot be set beside the article's, or None if it can."""
    if not machine.hardware:
        return "this machine recorded no hardware (no successful run)"
    if not machine.is_gpu:
        return f"article: {setup['device_name']} GPU; this machine trains on the CPU ({machine.device})"
    if setup["device_match"].lower() not in machine.device.lower():
        return f"different GPU (article: {setup['device_name']}; this machine: {machine.device})"
    return None


def _data_mismatch(table: Table, setup: dict[str, Any], check_epochs: bool) -> str | None:
    """Why this table's runs do not follow the article's data protocol, or None when they do."""
    s = table.setting
    if s.dataset != setup["dataset"]:
        return f"{s.dataset} data ({s.images_per_epoch:,} images/epoch), not CIFAR-10"
    if s.images_per_epoch != setup["images_per_epoch"]:
        return f"{s.images_per_epoch:,} images per epoch, not {setup['images_per_epoch']:,}"
    if check_epochs and s.epochs != setup["epochs"]:
        return f"{s.epochs} epochs, not {setup['epochs']}"
    return None


def _best_table(tables: list[Table], setup: dict[str, Any]) -> Table | None:
    """The table closest to the article's protocol: CIFAR-10 first, then the most images and epochs."""
    if not tables:
        return None
    return max(
        tables,
        key=lambda t: (
            t.setting.dataset == setup["dataset"],
            t.setting.epochs == setup["epochs"],
            t.setting.images_per_epoch,
            t.setting.epochs,
        ),
    )


def _figure_rows(
    section: dict[str, Any],
    subject: str,
    table: Table,
    value_of,
    ours_text,
    article_text,
    mismatch: str | None,
) -> list[Claim]:
    """Claims for a batch-size × framework table of the article beside the same cells of ours."""
    claims = []
    for bs, row in section["table"].items():
        for fw in FRAMEWORKS:
            summary = table.cell(fw, "compiled", int(bs))
            measured = value_of(summary) if summary else None
            if summary and not measured and summary.n_ok == 0:
                ours = f"failed: {summary.failure_note}"
            else:
                ours = ours_text(measured) if measured is not None else "not measured"
            if mismatch or measured is None:
                verdict, reason = NOT_COMPARABLE, mismatch or "no successful compiled run at this batch size"
            else:
                verdict = within_relative(measured, row[fw], section["tolerance_relative"])
                reason = (
                    f"within ±{section['tolerance_relative']:.0%}"
                    if verdict == CONFIRMED
                    else f"differs by {measured / row[fw] - 1:+.0%}"
                )
            claims.append(
                Claim(
                    section["section"],
                    f"{fmt.label(fw)}, batch {bs}: {subject}",
                    article_text(row[fw]),
                    ours,
                    verdict,
                    reason,
                )
            )
    return claims


def _ranking_claim(
    section: dict[str, Any], table: Table, value_of, what: str, device_reason: str | None
) -> Claim:
    ours_rows, holds = 0, 0
    for bs in section["table"]:
        values = {}
        for fw in FRAMEWORKS:
            summary = table.cell(fw, "compiled", int(bs))
            value = value_of(summary) if summary else None
            if value is not None:
                values[fw] = value
        if len(values) == len(FRAMEWORKS):
            ours_rows += 1
            holds += ranking(values) == section["stated_ranking"]
    if device_reason and "CPU" in device_reason:
        verdict, reason = NOT_COMPARABLE, device_reason
    elif ours_rows == 0:
        verdict, reason = (
            NOT_COMPARABLE,
            f"no batch size has successful {what} figures for all three frameworks",
        )
    else:
        verdict = CONFIRMED if holds == ours_rows else CONTRADICTED
        reason = "ranking of our medians" + (f" ({device_reason})" if device_reason else "")
    return Claim(
        section["section"],
        section["stated_ranking_text"],
        _names(section["stated_ranking"]),
        f"order holds at {holds} of {ours_rows} batch sizes",
        verdict,
        reason,
    )


def machine_claims(article: dict[str, Any], machine: Machine, tables: list[Table]) -> list[Claim]:
    """The article's 3.1–3.3 figures beside one machine's measurements."""
    setup = article["setup"]
    table = _best_table([t for t in tables if t.machine_id == machine.machine_id], setup)
    if table is None:
        return []
    device = _device_mismatch(machine, setup)
    data = _data_mismatch(table, setup, check_epochs=False)
    mismatch = device or data

    def seconds(s):
        return s.epoch_seconds.median if s.epoch_seconds else None

    def nvml(s):
        stats = s.memory("nvml_process_peak_bytes")
        return stats.median / fmt.MIB if stats else None

    claims = _figure_rows(
        article["speed"],
        "seconds per epoch",
        table,
        seconds,
        lambda v: f"{v:.1f} s",
        lambda v: f"{v} s",
        mismatch,
    )
    claims.append(_ranking_claim(article["speed"], table, seconds, "timing", device))
    up = article["speedup"]
    for fw in FRAMEWORKS:
        first, last = table.cell(fw, "compiled", up["from_batch"]), table.cell(fw, "compiled", up["to_batch"])
        measured = (
            (seconds(first) / seconds(last)) if first and last and seconds(first) and seconds(last) else None
        )
        computed = (
            article["speed"]["table"][str(up["from_batch"])][fw]
            / article["speed"]["table"][str(up["to_batch"])][fw]
        )
        if device and "CPU" in device:
            verdict, reason = NOT_COMPARABLE, device
        elif measured is None:
            verdict, reason = (
                NOT_COMPARABLE,
                f"no successful compiled runs at batch {up['from_batch']} and {up['to_batch']}",
            )
        else:
            verdict = within_relative(measured, computed, up["tolerance_relative"])
            reason = f"vs its table's {computed:.2f}×, tolerance ±{up['tolerance_relative']:.0%}" + (
                f"; {device}" if device else ""
            )
        claims.append(
            Claim(
                up["section"],
                f"{fmt.label(fw)} speed-up batch {up['from_batch']} → {up['to_batch']}",
                f"{up['stated'][fw]}× stated, {computed:.2f}× in its table",
                "—" if measured is None else f"{measured:.2f}×",
                verdict,
                reason,
            )
        )
    claims += _figure_rows(
        article["memory"],
        "peak GPU memory (NVML)",
        table,
        nvml,
        lambda v: f"{v:,.0f} MiB",
        lambda v: f"{v:,} MB",
        mismatch,
    )
    claims.append(_ranking_claim(article["memory"], table, nvml, "NVML memory", device))
    acc = article["accuracy"]
    data_acc = _data_mismatch(table, setup, check_epochs=True)
    for fw in FRAMEWORKS:
        candidates = [
            s for s in table.summaries if s.key.framework == fw and s.key.mode == "compiled" and s.accuracy
        ]
        chosen = max(candidates, key=lambda s: (s.accuracy.n, s.key.batch_size), default=None)
        best = chosen.accuracy if chosen else None
        ours = (
            fmt.mean_std(best, scale=100) + f" % (n={best.n}, batch {chosen.key.batch_size})"
            if best
            else "not measured"
        )
        if data_acc or best is None:
            verdict, reason = NOT_COMPARABLE, data_acc or "no successful compiled run"
        else:
            verdict = within_absolute(100 * best.mean, acc["table"][fw]["mean"], acc["tolerance_points"])
            reason = (
                f"mean within ±{acc['tolerance_points']} points"
                if verdict == CONFIRMED
                else f"mean differs by {100 * best.mean - acc['table'][fw]['mean']:+.2f} points"
            )
        claims.append(
            Claim(
                acc["section"],
                f"{fmt.label(fw)} final test accuracy over {setup['runs_per_accuracy']} runs",
                f"{acc['table'][fw]['mean']} ± {acc['table'][fw]['std']} %",
                ours,
                verdict,
                reason,
            )
        )
    return claims


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
    for tag, published in so["questions"].items():
        metric = _metric(snap, "stackoverflow", tag, "questions_in_window")
        why = _window_reason(metric, so["window_days"], so["window_slack_days"])
        ours = "—" if why and (metric is None or metric["value"] is None) else f"{metric['value']:,}"
        verdict = (
            NOT_COMPARABLE if why else within_relative(metric["value"], published, so["tolerance_relative"])
        )
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
                "order of fwbench's medians",
            )
        )
    stars = article["star_growth"]
    for repo, published in stars["percent_per_year"].items():
        metric = _metric(snap, "github", repo, "star_growth_percent_in_window")
        why = _window_reason(metric, stars["window_days"], stars["window_slack_days"])
        has_value = metric is not None and metric["status"] == "ok" and metric["value"] is not None
        window = metric["method"].get("window_days") if has_value else None
        ours = f"{metric['value']:.1f} % in {window} days" if has_value else "—"
        verdict = (
            NOT_COMPARABLE if why else within_absolute(metric["value"], published, stars["tolerance_points"])
        )
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
            )
        )
    return claims
