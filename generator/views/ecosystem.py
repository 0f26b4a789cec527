"""The ecosystem snapshots as the section 6 pages show them: metrics with their definitions, values with their
status, small tables that fit a phone."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from generator.i18n import N_, _, list_separator, translate
from generator.message import labelled
from generator.records.ecosystem import status_words
from generator.spacing import fill
from generator.views import text_format
from generator.views.verdict_text import text

#: source -> metric -> definition shown beside its figure, English (ecosystem/METRICS.md has the exact endpoints)
METRICS = {
    "stackoverflow": {
        "total_questions": N_("questions ever asked with the tag"),
        "questions_in_window": N_("questions asked with the tag within the window"),
        "unanswered_share_in_window": N_("share of the window's questions with no answer"),
        "first_answer_median_minutes": N_("median minutes from question to first answer, over the sampled questions"),
        "answered_within_1h_share": N_("share of sampled questions answered within 1 hour"),
        "answered_within_24h_share": N_("share of sampled questions answered within 24 hours"),
        "first_answer_sample_size": N_("questions sampled for the answer-time figures"),
        "sample_unanswered": N_("sampled questions still without an answer"),
    },
    "github": {
        "stars": N_("GitHub stargazers"),
        "forks": N_("forks"),
        "subscribers": N_("watchers (subscribers)"),
        "open_issues": N_("open issues (pull requests excluded)"),
        "open_pull_requests": N_("open pull requests"),
        "contributors": N_("contributors, anonymous authors included"),
        "releases_in_window": N_("releases published within the window"),
        "latest_release_date": N_("date of the latest release"),
        "issues_opened_in_window": N_("issues opened within the window"),
        "stars_gained_in_window": N_("stars gained within the window"),
        "star_growth_percent_in_window": N_("stars gained within the window as a share of the stars at its start"),
    },
    "pypistats": {"downloads_last_month": N_("PyPI downloads in the last month")},
}
#: how a snapshot is made, for the maintainers (the reproduce page): collect, then commit the file it writes
MAINTAINER_COMMANDS = ("GITHUB_TOKEN=… ecosystem collect --out results/ecosystem", "git add results/ecosystem")
#: the start of the reason a snapshot gives for star growth it could not collect since GitHub restricted
#: stargazer lists (``ecosystem.github_stars.RESTRICTED``), and what a reader reads instead
RESTRICTED_STARS = "restricted by GitHub since July 2026"
RESTRICTED_STARS_WORDS = N_("not measured: GitHub restricts stargazer data since July 2026")
SOURCE_TITLES = {"stackoverflow": "Stack Overflow", "github": "GitHub", "pypistats": "pypistats.org"}
#: source -> the page that shows its figures
SOURCE_PAGES = {
    "stackoverflow": "beyond/community.md",
    "pypistats": "beyond/community.md",
    "github": "beyond/maintenance.md",
}
#: the start of the reason a snapshot gives for every figure of a source whose host it could not reach
UNREACHED = "not attempted: cannot reach "
SHARE_METRICS = {"unanswered_share_in_window", "answered_within_1h_share", "answered_within_24h_share"}
#: metrics per table: a subject column and this many figures fit a phone's width
METRICS_PER_TABLE = 3


def definition(source: str, name: str) -> str:
    """What a metric counts, in words (its name when unknown)."""
    return translate(METRICS[source][name]) if name in METRICS.get(source, {}) else name.replace("_", " ")


def metric_text(metric: dict[str, Any] | None, name: str) -> str:
    """An ecosystem metric's value with its status; a reason instead of a figure when it was not collected."""
    if metric is None:
        return _("not measured")
    if (metric.get("reason") or "").startswith(RESTRICTED_STARS):
        return translate(RESTRICTED_STARS_WORDS)
    if metric["status"] != "ok" or metric["value"] is None:
        status = status_words(metric["status"])
        return text(labelled(status, text_format.cell(metric["reason"])) if metric.get("reason") else status)
    value = metric["value"]
    if isinstance(value, str):
        return text_format.cell(value)
    if name in SHARE_METRICS:
        return text_format.pct(value, 1)
    if name.endswith("_percent_in_window"):
        return f"{value:.1f} %"
    if name.endswith("_minutes"):
        return fill(_("{minutes:,.0f} min"), minutes=value)
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.2f}"


def subject_text(subject: str) -> str:
    """A subject (tag, ``owner/repository``, package) for a table cell, breakable after its slash."""
    return text_format.cell(subject).replace("/", "/<wbr>")


@dataclass(frozen=True)
class MetricTable:
    """A few metrics of one source: a row per subject, a column per metric."""

    metrics: list[str]
    rows: list[tuple[str, list[str]]]  # (subject, the cells)


def metric_tables(snapshot: dict[str, Any], source: str) -> list[MetricTable]:
    """One source of a snapshot as tables of METRICS_PER_TABLE metrics each, subjects as rows."""
    subjects = snapshot["sources"].get(source, {})
    names: list[str] = []
    for metrics in subjects.values():
        names += [m for m in metrics if m not in names]
    tables = []
    for start in range(0, len(names), METRICS_PER_TABLE):
        chunk = names[start : start + METRICS_PER_TABLE]
        rows = [(subject_text(s), [metric_text(m.get(n), n) for n in chunk]) for s, m in subjects.items()]
        tables.append(MetricTable(chunk, rows))
    return tables


def method_notes(snapshot: dict[str, Any], source: str) -> list[str]:
    """Distinct ``endpoint, window, sample size`` descriptions of how a source's metrics were computed."""
    notes = set()
    for metrics in snapshot["sources"].get(source, {}).values():
        for name, metric in metrics.items():
            method = metric["method"]
            parts = [f"`{name}`: {text_format.cell(method['endpoint'])}"]
            if method.get("window_days"):
                parts.append(fill(_("window {days} days"), days=method["window_days"]))
            if method.get("sample_size") is not None:
                parts.append(fill(_("sample {size}"), size=method["sample_size"]))
            notes.add(list_separator().join(parts))
    return sorted(notes)


def field_names() -> list[str]:
    """Every metric a snapshot records, as the snapshot names it (``source.metric``), for the maintainers."""
    return [f"{source}.{name}" for source, names in METRICS.items() for name in names]


@dataclass(frozen=True)
class SourceSection:
    """One source of the latest snapshot as a page shows it: its tables and how they were computed."""

    source: str
    title: str
    definitions: dict[str, str]
    tables: list[MetricTable]
    notes: list[str]
    unreached: str | None = None  # the host, where no figure was collected because it could not be reached


def unreached_host(snapshot: dict[str, Any], source: str) -> str | None:
    """The host of ``source`` when the snapshot could reach it for none of its figures (None otherwise)."""
    reasons = {
        m.get("reason") or "" for metrics in snapshot["sources"].get(source, {}).values() for m in metrics.values()
    }
    if len(reasons) != 1 or not (reason := reasons.pop()).startswith(UNREACHED):
        return None
    return reason.removeprefix(UNREACHED).split(" ")[0]


def sources_on(page: str) -> tuple[str, ...]:
    """The sources whose figures ``page`` shows, in SOURCE_PAGES' order."""
    return tuple(source for source, shown_on in SOURCE_PAGES.items() if shown_on == page)


@dataclass(frozen=True)
class UnreachedSource:
    """A source whose host the snapshot could not reach, and the figures it holds back."""

    title: str
    host: str
    figures: list[str]  # what each missing metric counts, in words
    page: str | None  # the page that would show them


def unreached_sources(snapshot: dict[str, Any] | None, page: str | None = None) -> list[UnreachedSource]:
    """The sources the snapshot records as unreachable in its failures (their reason starts with UNREACHED), in
    the order it recorded them, those shown on ``page`` alone where one is given; none without a snapshot."""
    hosts: dict[str, str] = {}
    metrics: dict[str, list[str]] = defaultdict(list)
    for failure in (snapshot or {}).get("failures") or []:
        reason, source = failure.get("reason") or "", failure["source"]
        if not reason.startswith(UNREACHED):
            continue
        hosts.setdefault(source, reason.removeprefix(UNREACHED).split(" ")[0])
        if failure.get("metric") and failure["metric"] not in metrics[source]:
            metrics[source].append(failure["metric"])
    return [
        UnreachedSource(
            SOURCE_TITLES.get(source, source),
            host,
            [definition(source, name) for name in metrics[source]],
            SOURCE_PAGES.get(source),
        )
        for source, host in hosts.items()
        if page is None or SOURCE_PAGES.get(source) == page
    ]


def source_sections(snapshot: dict[str, Any] | None, sources: tuple[str, ...]) -> list[SourceSection]:
    """The sections of ``sources`` (with metrics to show): from the snapshot, or, without one, empty but for
    the definitions of what would be measured."""
    sections = []
    for source in sources:
        unreached = unreached_host(snapshot, source) if snapshot else None
        tables = metric_tables(snapshot, source) if snapshot and not unreached else []
        notes = method_notes(snapshot, source) if snapshot and not unreached else []
        definitions = {name: definition(source, name) for name in METRICS[source]}
        sections.append(SourceSection(source, SOURCE_TITLES[source], definitions, tables, notes, unreached))
    return sections
