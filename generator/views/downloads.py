"""The site's CSV downloads: every configuration, run, probe, ecosystem metric, claims row and code-size count."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

from fwbench.stats import Stats
from fwbench.tuning import tuning_of
from generator.i18n import part_separator
from generator.message import Text
from generator.records.aggregate import Summary
from generator.records.codesize import SourceFile
from generator.records.flags import BUSY, OLDER
from generator.records.load import Loaded
from generator.records.metrics import MEMORY_METRICS
from generator.records.probes import probe_score
from generator.verdicts.claims import Claim
from generator.views.verdict_text import claim_text, text

#: run-record keys copied into runs.csv, read by name wherever they sit (DESIGN.md, "Records")
RUN_CSV_KEYS = (
    "dataset",
    "train_images",
    "images_per_epoch",
    "batch_size",
    "seed",
    "epoch_seconds",
    "images_per_second",
    "tokens_per_second",
    "compile_seconds",
    "final_test_accuracy",
    "busy",
    "upgraded_from",
    "exception_type",
)
#: probe-record fields copied into probes.csv as they are
PROBE_CSV_FIELDS = (
    "bug",
    "tooling",
    "outcome",
    "exception_type",
    "names_shapes",
    "points_to_file",
    "points_to_line",
    "names_layer",
    "traceback_lines",
    "traceback_frames",
    "seconds_to_error",
)


def _csv(header: list[str], rows: list[list[Any]]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return buffer.getvalue()


def _stat_columns(stats: Stats | None) -> list[Any]:
    if stats is None:
        return [0, "", "", "", "", ""]
    low, high = stats.ci95 if stats.ci95 else ("", "")
    return [stats.n, stats.median, stats.mean, "" if stats.std is None else stats.std, low, high]


def tta_name(target: float) -> str:
    """Column name of a time-to-accuracy target, e.g. ``seconds_to_90pct``."""
    return f"seconds_to_{100 * target:g}pct"


def summaries_csv(summaries: list[Summary], tta_targets: tuple[float, ...] = ()) -> str:
    """Every configuration: counts, statuses, flags and each statistic (n, median, mean, std, 95% interval).

    The statistics are over the counted runs (see aggregate.Summary); ``judged`` says whether they may enter
    a verdict, ``busy_runs`` and ``older_runs`` count the flagged successful runs. Figures that
    include compile work never pool cold and warm caches (``Summary.cached``): ``compile_seconds`` is the cold
    compile and ``warm_compile_seconds`` the warm one; each memory figure comes as ``{name}_cold`` and
    ``{name}_warm``.
    """
    header = [
        "machine_id",
        "workload",
        "profile",
        "dataset",
        "train_images",
        "images_per_epoch",
        "epochs",
        "precision",
        "tuning",
        "framework",
        "version",
        "mode",
        "batch_size",
        "runs",
        "ok",
        "failures",
        "busy_runs",
        "older_runs",
        "judged",
    ]
    metrics = ["epoch_seconds", "images_per_second", "tokens_per_second", "compile_seconds", "warm_compile_seconds"]
    metrics += ["final_test_accuracy", *(f"{m}_{state}" for m in MEMORY_METRICS for state in ("cold", "warm"))]
    metrics += [tta_name(t) for t in tta_targets]
    for m in metrics:
        header += [f"{m}_n", f"{m}_median", f"{m}_mean", f"{m}_std", f"{m}_ci95_low", f"{m}_ci95_high"]
    rows = []
    for s in summaries:
        k = s.key
        row = [
            k.machine_id,
            k.setting.workload,
            k.setting.profile,
            k.setting.dataset,
            k.setting.train_images,
            s.images_per_epoch,
            k.setting.epochs,
            k.setting.precision,
            k.setting.tuning,
            k.framework,
            k.version,
            k.mode,
            k.batch_size,
            s.n_runs,
            s.n_ok,
            text(s.failure_note),
            s.flagged[BUSY],
            s.flagged[OLDER],
            s.judgeable,
        ]
        figures = (s.epoch_seconds, s.images_per_second, s.tokens_per_second, s.compile_seconds)
        for stats in (*figures, s.warm_compile_seconds, s.accuracy):
            row += _stat_columns(stats)
        for name in MEMORY_METRICS:
            row += _stat_columns(s.cached(False).memory(name)) + _stat_columns(s.cached(True).memory(name))
        for target in tta_targets:
            row += _stat_columns(s.time_to_accuracy(target)[0])
        rows.append(row)
    return _csv(header, rows)


def first_values(record: Any, keys: tuple[str, ...]) -> dict[str, Any]:
    """``fwbench.records.find_key`` for several keys at once: the first non-null value of each key, depth-first,
    in one walk of the record (runs.csv reads twelve keys from each of thousands of records)."""
    found: dict[str, Any] = {}
    stack = [record]
    while stack and len(found) < len(keys):
        node = stack.pop()
        if isinstance(node, dict):
            for key in keys:
                if key not in found and node.get(key) is not None:
                    found[key] = node[key]
            stack.extend(reversed(list(node.values())))
        elif isinstance(node, list):
            stack.extend(reversed(node))
    return found


def runs_csv(runs: list[Loaded], root: Path) -> str:
    """One row per run record, failed runs included with their exception."""
    header = ["record", "machine_id", "status", "framework", "version", "mode", "tuning", *RUN_CSV_KEYS]
    rows = []
    for item in runs:
        r = item.record
        values = first_values(r, RUN_CSV_KEYS)
        rows.append(
            [
                item.name_under(root),
                item.machine_id,
                r["status"],
                r["framework"]["name"],
                r["framework"]["version"],
                r["framework"]["mode"],
                tuning_of(r),
                *(values.get(key) for key in RUN_CSV_KEYS),
            ]
        )
    return _csv(header, rows)


def probes_csv(probes: list[Loaded]) -> str:
    """One row per probe record with its score under the current rubric (``probe_score``)."""
    header = ["machine_id", "framework", "version", "mode", "score_total", "score_max", *PROBE_CSV_FIELDS]
    rows = [
        [
            p.machine_id,
            r["framework"]["name"],
            r["framework"]["version"],
            r["framework"]["mode"],
            score["total"],
            score["max"],
            *(r[name] for name in PROBE_CSV_FIELDS),
        ]
        for p in probes
        for r, score in [(p.record, probe_score(p.record))]
    ]
    return _csv(header, rows)


def ecosystem_csv(snapshots: list[Loaded]) -> str:
    """Every metric of every snapshot, long format."""
    header = [
        "date",
        "source",
        "subject",
        "metric",
        "value",
        "status",
        "reason",
        "endpoint",
        "window_days",
        "sample_size",
        "collected_at",
    ]
    rows = [
        [
            snap.record["date"],
            source,
            subject,
            name,
            m["value"],
            m["status"],
            m.get("reason"),
            m["method"]["endpoint"],
            m["method"].get("window_days"),
            m["method"].get("sample_size"),
            m["collected_at"],
        ]
        for snap in snapshots
        for source, subjects in snap.record["sources"].items()
        for subject, metrics in subjects.items()
        for name, m in metrics.items()
    ]
    return _csv(header, rows)


def claims_csv(rows: list[tuple[Text, Claim]]) -> str:
    """The claims check with its scope (internal, a machine, or the ecosystem snapshot) and the conditions
    each row checked (``; ``-separated)."""
    return _csv(
        ["scope", "section", "claim", "article", "fwbench", "verdict", "reason", "conditions"],
        [
            [
                text(scope),
                c.section,
                c.claim,
                c.article,
                c.ours,
                c.verdict,
                part_separator().join(c.reason),
                part_separator().join(c.conditions),
            ]
            for scope, c in ((scope, claim_text(row)) for scope, row in rows)
        ],
    )


def code_size_csv(sources: list[SourceFile]) -> str:
    """Code lines per part and framework, with the file counted."""
    return _csv(
        ["part", "framework", "file", "code_lines"], [[s.part, s.framework, s.path.name, s.lines] for s in sources]
    )
