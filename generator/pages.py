"""Render every page, chart and download of the site from loaded records (no mkdocs needed here).

``build_pages`` returns ``{docs-relative path: text or bytes}``; ``gen_pages.py`` hands that to
mkdocs-gen-files, the tests read it directly.
"""

from __future__ import annotations

import ast
import csv
import io
import json
import posixpath
import shlex
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined, pass_context

from fwbench.probe_outcome import SILENTLY_CAST, cast_evidence
from fwbench.records import find_key
from generator import aggregate, article_checks, charts, claims, codesize, comparability, fmt
from generator.aggregate import FRAMEWORKS, Stats, Summary, Table
from generator.load import Loaded, Results

REPO_ROOT = Path(__file__).resolve().parent.parent

#: page path -> template; the nav in mkdocs.yml lists the same paths
PAGES = {
    "index.md": "index.md.j2",
    "method.md": "method.md.j2",
    "results/speed.md": "speed.md.j2",
    "results/memory.md": "memory.md.j2",
    "results/accuracy.md": "accuracy.md.j2",
    "devex/debugging.md": "debugging.md.j2",
    "devex/code-size.md": "code_size.md.j2",
    "devex/toolchains.md": "toolchains.md.j2",
    "choose.md": "choose.md.j2",
    "beyond/community.md": "community.md.j2",
    "beyond/maintenance.md": "maintenance.md.j2",
    "appendix/claims.md": "claims.md.j2",
    "appendix/raw-data.md": "raw_data.md.j2",
    "appendix/reproduce.md": "reproduce.md.j2",
}

#: memory field -> (axis/column title, what it means)
MEMORY_METRICS = {
    "allocator_peak_bytes": (
        "allocator peak",
        "the most memory the framework's own allocator held in live tensors",
    ),
    "allocator_reserved_bytes": (
        "allocator reserved",
        "what the allocator had reserved from the device (cache included)",
    ),
    "nvml_process_peak_bytes": (
        "NVML process peak",
        "the process's GPU memory as the driver sees it (what "
        "nvidia-smi shows), sampled during training with preallocation off",
    ),
    "host_peak_rss_bytes": (
        "host peak RSS",
        "the peak resident host memory of the run's whole process tree (compiler worker processes such as "
        "Inductor's g++ workers included) above the post-import baseline",
    ),
    "host_children_peak_rss_bytes": (
        "host peak RSS of child processes",
        "the part of the host peak held by the run's child processes (the framework's compiler workers)",
    ),
}

#: ecosystem metric -> definition shown beside its figure
METRIC_DEFINITIONS = {
    "total_questions": "questions ever asked with the tag",
    "questions_in_window": "questions asked with the tag within the window",
    "unanswered_share_in_window": "share of the window's questions with no answer",
    "first_answer_median_minutes": "median minutes from question to first answer, over the sampled questions",
    "answered_within_1h_share": "share of sampled questions answered within 1 hour",
    "answered_within_24h_share": "share of sampled questions answered within 24 hours",
    "first_answer_sample_size": "questions sampled for the answer-time figures",
    "sample_unanswered": "sampled questions still without an answer",
    "stars": "GitHub stargazers",
    "forks": "forks",
    "subscribers": "watchers (subscribers)",
    "open_issues": "open issues (pull requests excluded)",
    "open_pull_requests": "open pull requests",
    "contributors": "contributors",
    "releases_in_window": "releases published within the window",
    "latest_release_date": "date of the latest release",
    "issues_opened_in_window": "issues opened within the window",
    "stars_gained_in_window": "stars gained within the window",
    "star_growth_percent_in_window": "stars gained within the window as a share of the stars at its start",
    "downloads_last_month": "PyPI downloads in the last month",
}
SHARE_METRICS = {"unanswered_share_in_window", "answered_within_1h_share", "answered_within_24h_share"}


# ---- table cells -------------------------------------------------------------------------------

#: the mark a cell carries when its figures come from flagged runs only (shown, never judged)
FLAG_MARKS = {aggregate.BUSY: "⚑ busy", aggregate.OLDER: "◌ older record"}


def marks(summary: Summary) -> str:
    """What a cell's figures carry besides the numbers: flags, flagged runs left out, failed runs."""
    text = "".join(f" {FLAG_MARKS[flag]}" for flag in summary.flags)
    if summary.left_out:
        left_out = (f"{n} {flag} run{'s' if n != 1 else ''} left out" for flag, n in sorted(summary.left_out.items()))
        text += f" ({', '.join(left_out)})"
    if summary.failure_note:
        text += f" ⚠ {summary.failure_note}"
    return text


def _cell(summary: Summary | None, stats_of: Callable[[Summary], Stats | None], **spread: Any) -> str:
    """A figure's mean with its spread and n (fmt.spread), its marks, or why there is none (never a blank)."""
    if summary is None:
        return "not run"
    if summary.n_ok == 0:
        return f"**✗ {summary.failure_note}**"
    return fmt.spread(stats_of(summary), **spread) + marks(summary)


def time_cell(summary: Summary | None) -> str:
    """Seconds per epoch: mean over runs, its spread and n, and failures spelled out."""
    return _cell(summary, lambda s: s.epoch_seconds, digits=2, unit="s")


def rate_cell(summary: Summary | None) -> str:
    """Images per second."""
    return _cell(summary, lambda s: s.images_per_second, digits=1)


def compile_cell(summary: Summary | None) -> str:
    """Compile / first-step seconds."""
    return _cell(summary, lambda s: s.compile_seconds, digits=2, unit="s")


def memory_cell(summary: Summary | None, name: str) -> str:
    """One memory figure in MiB."""
    return _cell(summary, lambda s: s.memory(name), scale=1 / fmt.MIB, digits=0, unit="MiB")


def accuracy_cell(summary: Summary | None) -> str:
    """Final test accuracy in percent; beside an interval the standard deviation too (the article gives it)."""
    return _cell(summary, lambda s: s.accuracy, scale=100, unit="%", with_sd=True)


def speedup_cell(table: Table, framework: str, mode: str) -> str:
    """Mean seconds per epoch at the smallest batch size ÷ at the largest, with both run counts."""
    up = table.speedup(framework, mode)
    if up is None:
        return "— (fewer than two batch sizes ran)"
    ratio, first, last = up
    counts = (table.cell(framework, mode, bs).epoch_seconds.n for bs in (first, last))
    return f"{ratio:.2f}× ({first} → {last}; n={', '.join(map(str, counts))})"


def time_to_accuracy_cell(summary: Summary | None, target: float) -> str:
    """Seconds of training (compile included, evaluation excluded) until the test accuracy first reached
    ``target``, over the runs that reached it, and how many never did."""
    if summary is None or summary.n_ok == 0:
        return _cell(summary, lambda s: None)
    stats, counted = summary.time_to_accuracy(target)
    if stats is None:
        return f"not reached in {summary.key.setting.epochs} epochs (n={counted})" + marks(summary)
    never = f"; {counted - stats.n} of {counted} runs never reached it" if stats.n < counted else ""
    return fmt.spread(stats, digits=1, unit="s") + never + marks(summary)


# ---- derived views -----------------------------------------------------------------------------


@dataclass
class Lead:
    """Who has the lowest figure at one batch size of one table, by how much over the next one, and whether
    the data can tell them apart: ``status`` is APART, WITHIN_NOISE or TOO_FEW_RUNS (aggregate.separation),
    None when no competitor finished."""

    batch_size: int
    leader: str
    leader_stats: Stats
    runner_up: str | None
    runner_up_stats: Stats | None
    status: str | None
    failed: list[str] = field(default_factory=list)

    @property
    def margin(self) -> float | None:
        """How much higher the runner-up's mean is, as a fraction of the leader's."""
        return self.runner_up_stats.mean / self.leader_stats.mean - 1 if self.runner_up_stats else None

    @property
    def n(self) -> int:
        """The smaller run count of the two figures compared."""
        return min(self.leader_stats.n, self.runner_up_stats.n if self.runner_up_stats else self.leader_stats.n)


def lead_among(batch_size: int, figures: dict[str, Stats], failed: list[str]) -> Lead | None:
    """The lowest of ``figures`` (framework -> statistics of judged runs) beside the next one; None when no
    framework has a figure or none has a competitor (a lead needs one that ran, even if it failed)."""
    if not figures or len(figures) + len(failed) < 2:
        return None
    first, *rest = sorted(figures, key=lambda fw: figures[fw].mean)
    second = rest[0] if rest else None
    return Lead(
        batch_size=batch_size,
        leader=first,
        leader_stats=figures[first],
        runner_up=second,
        runner_up_stats=figures[second] if second else None,
        status=aggregate.separation(figures[first], figures[second]) if second else None,
        failed=failed,
    )


def leads(table: Table, mode: str = "compiled") -> list[Lead]:
    """Per batch size, the framework with the lowest mean seconds per epoch in ``mode``, from judged runs only
    (busy-flagged and older records never lead)."""
    found = []
    for bs in table.batch_sizes:
        figures, failed = {}, []
        for fw in FRAMEWORKS:
            s = table.cell(fw, mode, bs)
            if s and s.judgeable and s.epoch_seconds:
                figures[fw] = s.epoch_seconds
            elif s and s.n_ok == 0:
                failed.append(f"{fmt.label(fw)} ({s.failure_note})")
        lead = lead_among(bs, figures, failed)
        if lead:
            found.append(lead)
    return found


def _seconds(stats: Stats) -> str:
    return fmt.spread(stats, digits=2, unit="s")


def lead_text(lead: Lead, show: Callable[[Stats], str] = _seconds, best: str = "fastest") -> str:
    """The lead in words (Markdown): "within noise" where the intervals overlap, and never a lead from fewer
    than three runs without saying it may be noise. ``show`` writes a figure, ``best`` names the leader's edge."""
    leader, runner_up = fmt.label(lead.leader), fmt.label(lead.runner_up) if lead.runner_up else None
    if lead.status is None:
        return f"only **{leader}** finished, at {show(lead.leader_stats)} ({', '.join(lead.failed)})"
    if lead.status == aggregate.WITHIN_NOISE:
        return (
            f"**{leader}** at {show(lead.leader_stats)} and **{runner_up}** at {show(lead.runner_up_stats)} "
            "are within noise: their 95 % intervals overlap"
        )
    text = f"**{leader}** is {best} at {show(lead.leader_stats)}, {100 * lead.margin:.1f} % ahead of {runner_up}"
    if lead.status == aggregate.TOO_FEW_RUNS:
        return f"{text} — n={lead.n}, may be noise"
    return f"{text}, beyond the noise (95 % intervals apart)"


LEAD_VERDICTS = {
    aggregate.APART: "beyond noise",
    aggregate.WITHIN_NOISE: "within noise",
    aggregate.TOO_FEW_RUNS: "may be noise",
    None: "only one finished",
}


def no_lead_reason(table: Table) -> str | None:
    """Why a table with successful runs has no lead: its figures come from flagged runs (shown, never judged)."""
    flags = sorted({flag for s in table.summaries for flag in s.flags})
    if not flags or leads(table):
        return None
    kinds = " and ".join(aggregate.FLAGGED_RUNS[f] for f in flags)
    return f"no lead: its figures come from {kinds}, shown in the tables but never judged"


def versions_in(table: Table) -> list[str]:
    """``PyTorch 2.x`` strings for the framework versions a table's runs used."""
    seen = sorted(
        {
            (
                FRAMEWORKS.index(r.record["framework"]["name"]),
                r.record["framework"]["name"],
                r.record["framework"]["version"] or "unknown",
            )
            for s in table.summaries
            for r in s.runs
        }
    )
    return [f"{fmt.label(name)} {version}" for _, name, version in seen]


def git_commits(table: Table) -> list[str]:
    """The benchmark code's commits the table's runs came from (``+dirty`` when uncommitted changes)."""
    commits = set()
    for s in table.summaries:
        for r in s.runs:
            software = r.record.get("software")
            if software and software.get("git_commit"):
                commits.add(software["git_commit"][:12] + ("+dirty" if software.get("git_dirty") else ""))
    return sorted(commits)


def memory_metrics_of(table: Table) -> list[str]:
    """The memory fields that at least one run of the table recorded."""
    return [name for name in MEMORY_METRICS if any(s.memory(name) for s in table.summaries)]


def host_bases(table: Table) -> list[str]:
    """What the table's host peak RSS figures count, as the records say (``memory.host_peak_basis``); records
    that do not say (older ones) are named as such."""
    said = {(r.record.get("memory") or {}).get("host_peak_basis") for r in table.runs if r.record.get("memory")}
    bases = sorted(b for b in said if b)
    if None in said:
        bases.append("not stated by older records, which may count the benchmark's own process only")
    return bases


@dataclass(frozen=True, eq=False)
class ProbeScores(Mapping[str, float]):
    """Mean probe score per framework (fraction of the maximum) with the silently cast probes left out.

    That mapping is the figure the site ranks. A silently cast probe (a float64 input the framework cast
    to float32 as documented, see fwbench.probe_outcome) shows no message to judge, so it is scored apart:
    ``with_cast`` holds the means over every probe, ``scored`` and ``cast`` count each framework's scored
    and silently cast probes, ``evidence`` says what in each silently cast record (by path) shows the cast.
    """

    without_cast: dict[str, float]
    with_cast: dict[str, float]
    scored: dict[str, int]
    cast: dict[str, int]
    evidence: dict[str, str]

    def __getitem__(self, framework: str) -> float:
        return self.without_cast[framework]

    def __iter__(self):
        return iter(self.without_cast)

    def __len__(self) -> int:
        return len(self.without_cast)

    def category(self, probe: Loaded) -> str:
        """The probe's outcome category: ``silently cast`` or its recorded outcome."""
        return SILENTLY_CAST if str(probe.path) in self.evidence else probe.record["outcome"]


def _mean(values: list[float]) -> float:
    return sum(values) / len(values)


def probe_scores(probes: list[Loaded]) -> ProbeScores:
    """Each framework's mean probe score with and without its silently cast probes (see ProbeScores)."""
    fractions: dict[str, list[tuple[float, bool]]] = defaultdict(list)
    evidence = {}
    for p in probes:
        why = cast_evidence(p.record)
        if why:
            evidence[str(p.path)] = why
        score = p.record["score"]
        if score["max"]:
            fractions[p.record["framework"]["name"]].append((score["total"] / score["max"], why is not None))
    kept = {fw: [f for f, cast in v if not cast] for fw, v in fractions.items()}
    return ProbeScores(
        without_cast={fw: _mean(v) for fw, v in kept.items() if v},
        with_cast={fw: _mean([f for f, _ in v]) for fw, v in fractions.items()},
        scored={fw: len(v) for fw, v in fractions.items()},
        cast={fw: sum(cast for _, cast in v) for fw, v in fractions.items()},
        evidence=evidence,
    )


def parity_tests(repo_root: Path) -> list[tuple[str, list[str]]]:
    """(file, test names) of the repository's parity tests: the proof that the three models match."""
    found = []
    for path in sorted((repo_root / "tests").rglob("test_*parity*.py")):
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (OSError, SyntaxError):
            continue
        names = [
            n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name.startswith("test")
        ]
        found.append((path.relative_to(repo_root).as_posix(), names))
    return found


def metric_text(metric: dict[str, Any] | None, name: str) -> str:
    """An ecosystem metric's value with its status; a reason instead of a figure when it was not collected."""
    if metric is None:
        return "—"
    if metric["status"] != "ok" or metric["value"] is None:
        return f"{metric['status'].replace('_', ' ')}" + (
            f": {fmt.cell(metric['reason'])}" if metric.get("reason") else ""
        )
    value = metric["value"]
    if isinstance(value, str):
        return fmt.cell(value)
    if name in SHARE_METRICS:
        return fmt.pct(value, 1)
    if name.endswith("_percent_in_window"):
        return f"{value:.1f} %"
    if name.endswith("_minutes"):
        return f"{value:,.0f} min"
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.2f}"


def ecosystem_rows(
    snapshot: dict[str, Any], source: str
) -> tuple[list[str], list[str], dict[tuple[str, str], Any]]:
    """(subjects, metric names, {(subject, metric): metric}) of one source of a snapshot."""
    subjects = snapshot["sources"].get(source, {})
    names: list[str] = []
    for metrics in subjects.values():
        names += [m for m in metrics if m not in names]
    return list(subjects), names, {(s, m): v for s, metrics in subjects.items() for m, v in metrics.items()}


def method_notes(snapshot: dict[str, Any], source: str) -> list[str]:
    """Distinct ``endpoint, window, sample size`` descriptions of how a source's metrics were computed."""
    notes = set()
    for metrics in snapshot["sources"].get(source, {}).values():
        for name, metric in metrics.items():
            method = metric["method"]
            parts = [f"`{name}`: {fmt.cell(method['endpoint'])}"]
            if method.get("window_days"):
                parts.append(f"window {method['window_days']} days")
            if method.get("sample_size") is not None:
                parts.append(f"sample {method['sample_size']}")
            notes.add(", ".join(parts))
    return sorted(notes)


def history(snapshots: list[Loaded], source: str, metric: str) -> dict[str, list[tuple[str, float]]]:
    """Subject -> [(snapshot date, value)] for one numeric metric, across all snapshots that have it."""
    series: dict[str, dict[str, float]] = defaultdict(dict)
    for snap in snapshots:
        for subject, metrics in snap.record["sources"].get(source, {}).items():
            m = metrics.get(metric)
            if m and m["status"] == "ok" and isinstance(m["value"], int | float):
                series[subject][snap.record["date"]] = m["value"]
    return {s: sorted(points.items()) for s, points in series.items() if len(points) >= 2}


# ---- CSV downloads ---------------------------------------------------------------------------


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
    a verdict, ``busy_runs`` and ``older_runs`` count the flagged successful runs.
    """
    header = [
        "machine_id",
        "profile",
        "dataset",
        "train_images",
        "older_records",
        "images_per_epoch",
        "epochs",
        "precision",
        "tuning",
        "framework",
        "mode",
        "batch_size",
        "runs",
        "ok",
        "failures",
        "busy_runs",
        "older_runs",
        "judged",
    ]
    metrics = ["epoch_seconds", "images_per_second", "compile_seconds", "final_test_accuracy"]
    metrics += [*MEMORY_METRICS, *(tta_name(t) for t in tta_targets)]
    for m in metrics:
        header += [f"{m}_n", f"{m}_median", f"{m}_mean", f"{m}_std", f"{m}_ci95_low", f"{m}_ci95_high"]
    rows = []
    for s in summaries:
        k = s.key
        row = [
            k.machine_id,
            k.setting.profile,
            k.setting.dataset,
            k.setting.train_images,
            k.setting.older,
            s.images_per_epoch,
            k.setting.epochs,
            k.setting.precision,
            k.setting.tuning,
            k.framework,
            k.mode,
            k.batch_size,
            s.n_runs,
            s.n_ok,
            s.failure_note,
            s.flagged[aggregate.BUSY],
            s.flagged[aggregate.OLDER],
            s.judgeable,
        ]
        for stats in (s.epoch_seconds, s.images_per_second, s.compile_seconds, s.accuracy):
            row += _stat_columns(stats)
        for name in MEMORY_METRICS:
            row += _stat_columns(s.memory(name))
        for target in tta_targets:
            row += _stat_columns(s.time_to_accuracy(target)[0])
        rows.append(row)
    return _csv(header, rows)


#: run-record keys copied into runs.csv, read by name wherever they sit (DESIGN.md, "Records")
RUN_CSV_KEYS = ("dataset", "train_images", "images_per_epoch", "batch_size", "seed", "epoch_seconds",
                "images_per_second", "compile_seconds", "final_test_accuracy", "busy", "upgraded_from",
                "exception_type")
#: probe-record fields copied into probes.csv as they are
PROBE_CSV_FIELDS = ("bug", "tooling", "outcome", "exception_type", "names_shapes", "points_to_file",
                    "points_to_line", "names_layer", "traceback_lines", "traceback_frames", "seconds_to_error")


def runs_csv(runs: list[Loaded], root: Path) -> str:
    """One row per run record, failed runs included with their exception."""
    header = ["record", "machine_id", "status", "framework", "version", "mode", "tuning", *RUN_CSV_KEYS]
    rows = [
        [item.path.relative_to(root).as_posix(), item.machine_id, r["status"], r["framework"]["name"],
         r["framework"]["version"], r["framework"]["mode"], aggregate.tuning_of(r),
         *(find_key(r, key) for key in RUN_CSV_KEYS)]
        for item in runs
        for r in [item.record]
    ]
    return _csv(header, rows)


def probes_csv(probes: list[Loaded]) -> str:
    """One row per probe record with its score parts."""
    header = ["machine_id", "framework", "version", "mode", "score_total", "score_max", *PROBE_CSV_FIELDS]
    rows = [
        [p.machine_id, r["framework"]["name"], r["framework"]["version"], r["framework"]["mode"],
         r["score"]["total"], r["score"]["max"], *(r[name] for name in PROBE_CSV_FIELDS)]
        for p in probes
        for r in [p.record]
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
    rows = []
    for snap in snapshots:
        for source, subjects in snap.record["sources"].items():
            for subject, metrics in subjects.items():
                for name, m in metrics.items():
                    rows.append(
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
                    )
    return _csv(header, rows)


def claims_csv(rows: list[tuple[str, claims.Claim]]) -> str:
    """The claims check with its scope (internal, a machine, or the ecosystem snapshot) and the conditions
    each row checked (``; ``-separated)."""
    return _csv(
        ["scope", "section", "claim", "article", "fwbench", "verdict", "reason", "conditions"],
        [
            [scope, c.section, c.claim, c.article, c.ours, c.verdict, c.reason, "; ".join(c.conditions)]
            for scope, c in rows
        ],
    )


# ---- the site --------------------------------------------------------------------------------


@pass_context
def rel(context, target: str) -> str:
    """Link to ``target`` (docs-relative) from the page being rendered."""
    return posixpath.relpath(target, posixpath.dirname(context["page"]) or ".")


def _environment() -> Environment:
    env = Environment(
        loader=PackageLoader("generator", "templates"),
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        undefined=StrictUndefined,
        autoescape=False,
    )
    env.globals.update(
        fmt=fmt,
        label=fmt.label,
        time_cell=time_cell,
        rate_cell=rate_cell,
        compile_cell=compile_cell,
        memory_cell=memory_cell,
        accuracy_cell=accuracy_cell,
        metric_text=metric_text,
        METRIC_DEFINITIONS=METRIC_DEFINITIONS,
        MEMORY_METRICS=MEMORY_METRICS,
        FRAMEWORKS=FRAMEWORKS,
        rel=rel,
        versions_in=versions_in,
        memory_metrics_of=memory_metrics_of,
        git_commits=git_commits,
        leads=leads,
        lead_text=lead_text,
        no_lead_reason=no_lead_reason,
        LEAD_VERDICTS=LEAD_VERDICTS,
        FLAG_MARKS=FLAG_MARKS,
        time_to_accuracy_cell=time_to_accuracy_cell,
        speedup_cell=speedup_cell,
        host_bases=host_bases,
        mark=fmt.mark,
    )
    env.filters.update(cell=fmt.cell, fence=fmt.fence, title_text=fmt.title_text)
    return env


def _chart_name(kind: str, table: Table) -> str:
    return f"charts/{kind}-{table.machine_id}-{table.setting.slug}.png"


def build_pages(
    results: Results, frameworks_dir: Path | None = None, repo_root: Path = REPO_ROOT
) -> dict[str, Any]:
    """Every file of the generated site: Markdown pages (str), charts (bytes), CSV and JSON downloads."""
    frameworks_dir = frameworks_dir or repo_root / "runners" / "frameworks"
    summaries = aggregate.summarise(results.runs)
    tables = aggregate.tables(summaries)
    # conclusions (headline, claims, choices) compare out-of-the-box runs only; tuned ones are shown apart
    out_of_box = [t for t in tables if not t.setting.tuning]
    machines = aggregate.machines(results.runs)
    machine_by_id = {m.machine_id: m for m in machines}
    snapshot = results.latest_snapshot()
    article = claims.load_article_figures()
    rules = comparability.load_rules(article["setup"])
    claim_scopes = [("article's own tables", claims.internal_claims(article))]
    claim_scopes += [(m.machine_id, claims.machine_claims(article, m, out_of_box)) for m in machines]
    claim_scopes.append(("ecosystem snapshot", claims.ecosystem_claims(article, snapshot)))
    claim_scopes.append((article_checks.SCOPE, article_checks.article_claims(article, results)))
    claim_scopes = [(scope, rows) for scope, rows in claim_scopes if rows]
    toolchains = json.loads((claims.DATA_DIR / "toolchains.json").read_text(encoding="utf-8"))
    sources = codesize.measure(frameworks_dir)

    files: dict[str, Any] = {}
    for table in tables:
        files[_chart_name("speed", table)] = charts.speed_chart(table)
        memory_metrics = [(name, MEMORY_METRICS[name][0]) for name in memory_metrics_of(table)]
        if memory_metrics:
            files[_chart_name("memory", table)] = charts.memory_chart(table, memory_metrics)
        if any(s.curve("test_accuracy") for s in table.summaries):
            files[_chart_name("convergence", table)] = charts.convergence_chart(table)
    history_charts = {}
    for source, metric, ylabel in (
        ("github", "stars", "stars"),
        ("stackoverflow", "total_questions", "questions"),
    ):
        series = history(results.snapshots, source, metric)
        if series:
            name = f"charts/history-{source}-{metric}.png"
            files[name] = charts.history_chart(series, ylabel, f"{source}: {METRIC_DEFINITIONS[metric]}")
            history_charts[(source, metric)] = name

    records = [
        (kind, item)
        for kind, items in (
            ("runs", results.runs),
            ("probes", results.probes),
            ("ecosystem", results.snapshots),
        )
        for item in items
    ]
    record_links = []
    for kind, item in records:
        target = "data/records/" + item.path.relative_to(results.root).as_posix()
        files[target] = item.path.read_bytes()
        record_links.append((kind, item.machine_id if kind != "ecosystem" else "", target))
    all_claims = [(scope, c) for scope, rows in claim_scopes for c in rows]
    files["data/configurations.csv"] = summaries_csv(summaries, rules.tta_targets)
    files["data/runs.csv"] = runs_csv(results.runs, results.root)
    files["data/probes.csv"] = probes_csv(results.probes)
    files["data/ecosystem.csv"] = ecosystem_csv(results.snapshots)
    files["data/claims.csv"] = claims_csv(all_claims)
    files["data/code-size.csv"] = _csv(
        ["part", "framework", "file", "code_lines"],
        [[s.part, s.framework, s.path.name, s.lines] for s in sources],
    )

    scores = probe_scores(results.probes)
    probes_by_machine: dict[str, list[Loaded]] = defaultdict(list)
    for p in sorted(
        results.probes,
        key=lambda p: (
            p.record["bug"],
            str(p.record["tooling"]),
            FRAMEWORKS.index(p.record["framework"]["name"]),
            p.record["framework"]["mode"],
        ),
    ):
        probes_by_machine[p.machine_id].append(p)
    context = dict(
        results=results,
        root=results.root,
        summaries=summaries,
        tables=tables,
        headline_tables=out_of_box,
        tuned_tables=[t for t in tables if t.setting.tuning],
        machines=machines,
        machine_by_id=machine_by_id,
        snapshot=snapshot.record if snapshot else None,
        snapshots=results.snapshots,
        claim_scopes=claim_scopes,
        verdict_counts=_verdict_counts(all_claims),
        rules=rules,
        flagged_runs=Counter(f for r in results.runs for f in aggregate.flags_of(r.record)),
        older_missing=sorted({name for r in results.runs for name in r.record.get("missing") or ()}),
        article=article,
        toolchains=toolchains,
        sources=sources,
        parts=list(codesize.PARTS),
        chart=_chart_name,
        files=files,
        history_charts=history_charts,
        probes_by_machine=dict(probes_by_machine),
        probe_scores=scores,
        parity=parity_tests(repo_root),
        record_links=record_links,
        frameworks_dir=_display_path(frameworks_dir, repo_root),
        skipped=results.skipped,
        commands=_recorded_commands(results.runs),
        choices=choices(out_of_box, machine_by_id, scores, sources, snapshot),
        ecosystem_rows=ecosystem_rows,
        method_notes=method_notes,
    )
    env = _environment()
    for page, template in PAGES.items():
        files[page] = env.get_template(template).render(page=page, **context)
    return files


def _display_path(path: Path, repo_root: Path) -> str:
    try:
        return path.resolve().relative_to(repo_root.resolve()).as_posix()
    except ValueError:
        return str(path)


def _verdict_counts(rows: list[tuple[str, claims.Claim]]) -> dict[str, int]:
    counts = dict.fromkeys(claims.VERDICTS, 0)
    for _, c in rows:
        counts[c.verdict] += 1
    return counts


def _recorded_commands(runs: list[Loaded]) -> list[str]:
    """Distinct command lines stored in the run records (what actually produced them), each prefixed with
    the tuning variables it ran with."""
    seen = set()
    for r in runs:
        if r.record.get("command"):
            tuning = r.record["config"].get("tuning_environment", {})
            assignments = [f"{name}={shlex.quote(value)}" for name, value in sorted(tuning.items())]
            seen.add(" ".join([*assignments, shlex.join(r.record["command"])]))
    return sorted(seen)


def _best(values: dict[str, float], lowest: bool = True) -> tuple[str, float]:
    """(display names of every framework tied for the best value, that value)."""
    target = min(values.values()) if lowest else max(values.values())
    return " and ".join(fmt.label(k) for k, v in values.items() if v == target), target


@dataclass(frozen=True)
class Choice:
    """One scenario of the "which to choose" page and what the records favour for it."""

    scenario: str
    favoured: str
    evidence: str
    link: str


def _largest_batch_lead(table: Table, stats_of: Callable[[Summary], Stats | None]) -> Lead | None:
    """The lowest compiled-mode figure at the largest batch size where judged runs of two frameworks have one."""
    for batch_size in reversed(table.batch_sizes):
        figures = {
            s.key.framework: stats
            for s in table.summaries
            if s.key.mode == "compiled" and s.key.batch_size == batch_size and s.judgeable and (stats := stats_of(s))
        }
        lead = lead_among(batch_size, figures, failed=[])
        if lead:
            return lead
    return None


def _lead_choice(
    scenario: str, lead: Lead, link: str, show: Callable[[Stats], str] = _seconds, best: str = "fastest"
) -> Choice:
    """A choice from a lead: no favourite where the figures are within noise."""
    favoured = "no clear favourite" if lead.status == aggregate.WITHIN_NOISE else fmt.label(lead.leader)
    return Choice(scenario, favoured, lead_text(lead, show, best), link)


def choices(
    tables: list[Table],
    machines: dict[str, aggregate.Machine],
    scores: dict[str, float],
    sources: list[codesize.SourceFile],
    snapshot: Loaded | None,
) -> list[Choice]:
    """Scenario guidance computed from the measured tables (nothing here is asserted without a figure)."""
    found = []
    for table in tables:
        where = (
            f"{machines[table.machine_id].device if table.machine_id in machines else table.machine_id}, "
            f"{table.setting.dataset}"
        )
        table_leads = leads(table)
        if table_leads:
            small, large = table_leads[0], table_leads[-1]
            for size, lead in (("small", small), ("large", large)):
                scenario = f"fast training at {size} batches (batch {lead.batch_size}) on {where}"
                found.append(_lead_choice(scenario, lead, "results/speed.md"))
        compile_lead = _largest_batch_lead(table, lambda s: s.compile_seconds)
        if compile_lead:
            scenario = f"short start-up (compile time at batch {compile_lead.batch_size}) on {where}"
            found.append(_lead_choice(scenario, compile_lead, "results/speed.md", best="quickest to compile"))
        for name in ("nvml_process_peak_bytes", "allocator_peak_bytes", "host_peak_rss_bytes"):
            memory_lead = _largest_batch_lead(table, lambda s, name=name: s.memory(name))
            if memory_lead:
                title = MEMORY_METRICS[name][0]
                found.append(
                    _lead_choice(
                        f"tight memory ({title} at batch {memory_lead.batch_size}) on {where}",
                        memory_lead,
                        "results/memory.md",
                        show=lambda st: fmt.spread(st, 1 / fmt.MIB, 0, "MiB"),
                        best="leanest",
                    )
                )
                break
    if scores:
        best, score = _best(scores, lowest=False)
        found.append(
            Choice(
                "clear error messages",
                best,
                f"mean probe score {score:.0%} of the maximum",
                "devex/debugging.md",
            )
        )
    totals: dict[str, int] = defaultdict(int)
    for s in sources:
        if s.lines is not None:
            totals[s.framework] += s.lines
    if all(s.lines is not None for s in sources):
        best, lines = _best(totals)
        found.append(
            Choice(
                "the least code to read", best, f"{lines} lines (model + training step)", "devex/code-size.md"
            )
        )
    if snapshot:
        questions = {
            tag: m["value"]
            for tag in ("pytorch", "tensorflow", "jax")
            if (m := snapshot.record["sources"].get("stackoverflow", {}).get(tag, {}).get("total_questions"))
            and m["status"] == "ok"
            and m["value"] is not None
        }
        if questions:
            best, count = _best(questions, lowest=False)
            found.append(
                Choice(
                    "the most Stack Overflow questions to search",
                    best,
                    f"{count:,} questions tagged ({snapshot.record['date']})",
                    "beyond/community.md",
                )
            )
    return found
