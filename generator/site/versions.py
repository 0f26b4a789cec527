"""Versions: one configuration measured on several releases of each framework (the ``versions`` profile), the
article's speed ordering on the article's releases, and the release bisects of each machine."""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from typing import Any

from fwbench.frameworks import FRAMEWORKS
from fwbench.stats import Stats
from generator.data_text import translated
from generator.i18n import N_, _, list_separator, part_separator, pgettext, translate
from generator.message import parenthesised
from generator.records.aggregate import Summary, Table
from generator.records.bisects import Bisect, companions
from generator.records.identity import Column, first_step, release
from generator.records.load import Loaded
from generator.records.metrics import MEMORY_METRICS, charted_metric
from generator.site import Page
from generator.site.claims import verdict_text
from generator.site.machines import beside_results, record_facts, short_epochs
from generator.spacing import fill, spaced
from generator.verdicts.article.machine import is_article_version
from generator.verdicts.claims import Claim
from generator.views import cell_text, chart_data, text_format
from generator.views.caveats import PageCaveats
from generator.views.charts import Chart
from generator.views.markdown_table import Grid
from generator.views.sitedata import SiteData
from generator.views.table_view import TableView, row_name, views
from generator.views.verdict_text import claim_text, text

#: the known-good sets, shared with runners envs (its notes and reasons are prose: ``generator.data_text.PROSE``)
SETS = "version_sets.json"
PAGE = Page("results/versions.md", "versions.md.j2", N_("Versions"), N_("3 Results"), 3.35)


@dataclass(frozen=True)
class FrameworkVersions:
    """One framework's versions in one table: a grid per mode and batch size, and its chart."""

    framework: str
    grids: dict[str, dict[int, Grid]]  # mode -> batch size -> grid (a row per version)
    chart: str


@dataclass(frozen=True)
class ArticleVersions:
    """The article's speed ordering checked on the article's releases alone, with the claims page's reasons."""

    versions: str  # "PyTorch 2.2.1, TensorFlow 2.15.0, JAX 0.4.26"
    claim: Claim | None  # worded (``claim_text``); None: none of the article's releases was measured in this table
    reasons: list[str]
    verdict: str  # the claim's verdict as the claims page shows it (icon and words)


@dataclass(frozen=True)
class VersionsTable:
    """One machine and setting of the versions profile."""

    view: TableView
    frameworks: list[FrameworkVersions]
    article: ArticleVersions
    beside: str | None  # how its records differ from the speed page's of the same configurations (``beside_results``)
    short: str | None  # the batch sizes whose epochs are shorter than a timing window (``machines.short_epochs``)


@dataclass(frozen=True)
class BisectView:
    """One bisect report: its title, what it found, each measured release."""

    bisect: Bisect
    title: str
    drop: str | None
    grid: Grid
    upstream: str
    facts: str  # what its sample run records say of their setting (``machines.record_facts``)
    notes: str | None  # how they differ from the speed page's, and where their epochs are too short (``bisect_notes``)


def article_badge() -> str:
    """The mark of the article's release of a framework (the word the profile ``article`` also has, in its own
    sense here)."""
    return pgettext("the article's version", "article")


def _version_cell(framework: str, version: str, article_versions: dict[str, str]) -> str:
    mark = f" :material-book-open-variant:{{ .fw-neutral }} **{article_badge()}**"
    return text_format.cell(version) + (mark if is_article_version(framework, version, article_versions) else "")


def _companions_cell(summary: Summary) -> str:
    """The companion packages the configuration's runs had (each distinct set once)."""
    sets = {
        list_separator().join(companions(summary.key.framework, (r.record.get("software") or {}).get("packages") or {}))
        for r in summary.runs
    }
    return text_format.cell(part_separator().join(sorted(s for s in sets if s))) or _("not recorded")


def _grid(table: Table, columns: list[Column], batch_size: int, memory: str | None, article: dict[str, str]) -> Grid:
    """A row per version (``columns``, of one mode) at one batch size: images/s, the first-step figure (a compile
    time in compiled mode, the first-step overhead in eager mode), the memory figure, companions."""
    header = [_("version"), _("images/s"), translate(first_step(columns[0].mode).name)]
    header += [text(parenthesised(translate(MEMORY_METRICS[memory][0]), "MiB"))] if memory else []
    rows = []
    for column in columns:
        summary = table.at(column, batch_size)
        row = [_version_cell(column.framework, column.version, article), cell_text.rate_cell(summary)]
        row.append(cell_text.compile_cell(summary))
        # its cold runs, as the compile time's: a whole-run peak includes the compile's work
        row += [cell_text.cached_memory_cell(summary, memory, False)] if memory else []
        row.append(_companions_cell(summary) if summary else "—")
        rows.append(row)
    return Grid([*header, _("companion packages")], rows, text=(0, -1))


def _chart(table: Table, framework: str, versions: list[str]) -> Chart:
    """Images per second across the framework's versions, a line per batch size (and mode, when several)."""
    lines: dict[str, dict[str, Stats]] = {}
    for mode in table.modes:
        for bs in table.batch_sizes:
            name = row_name(table, mode, bs)
            points = {
                v: s.images_per_second
                for v in versions
                if (s := table.at(Column(framework, v, mode), bs)) and s.n_ok and s.images_per_second
            }
            if points:
                lines[name] = points
    return chart_data.per_version(
        versions, lines, fill(_("{framework} version"), framework=text_format.label(framework)), _("images per second")
    )


def _framework(site: SiteData, table: Table, framework: str) -> FrameworkVersions | None:
    columns = [c for c in table.columns if c.framework == framework]
    if not columns:
        return None
    article = site.article["setup"]["framework_versions"]
    memory = charted_metric(table.summaries)
    grids = {
        mode: {
            bs: _grid(table, [c for c in columns if c.mode == mode], bs, memory, article) for bs in table.batch_sizes
        }
        for mode in table.modes
        if any(c.mode == mode for c in columns)
    }
    versions = list(dict.fromkeys(c.version for c in columns))  # already in version order
    chart = site.add_chart(
        f"charts/versions-{table.machine_id}-{table.setting.slug}-{framework}.png",
        lambda: _chart(table, framework, versions),
    )
    return FrameworkVersions(framework, grids, chart)


def _article_versions(site: SiteData, table: Table) -> ArticleVersions:
    """The claims page's speed-ordering row, computed from the table's runs of the article's releases alone."""
    article = site.article["setup"]["framework_versions"]
    names = list_separator().join(f"{text_format.label(fw)} {release(v)}" for fw, v in article.items())
    found = site.article_speed_ranking(table)
    if found is None:
        return ArticleVersions(names, None, [], "")
    claim = claim_text(found)
    return ArticleVersions(names, claim, list(claim.reason), verdict_text(claim.verdict))


def bisect_records(found: Bisect, runs: list[Loaded]) -> list[dict[str, Any]]:
    """The run records of a bisect's samples, where its runs are in the results (``Results.bisect_runs``)."""
    ids = {sample["record_id"] for samples in found.report["samples"].values() for sample in samples}
    return [r.record for r in runs if r.machine_id == found.machine_id and r.record["record_id"] in ids]


def bisect_notes(site: SiteData, found: Bisect, own: list[dict[str, Any]]) -> str | None:
    """How a bisect's run records ``own`` (``bisect_records``) differ from the speed page's of the same configuration
    on its machine (``machines.beside_results``), and where their epochs are shorter than a timing window
    (``machines.short_epochs``); None where its runs are not in the results or neither applies."""
    if not own:
        return None
    return (
        spaced([beside_results(site, found.machine_id, own, _("The bisect's run records")), short_epochs(own)]) or None
    )


def _bisect_view(site: SiteData, found: Bisect) -> BisectView:
    report, result = found.report, found.result
    marks = {result.get("last_good"): _("last good"), result.get("first_bad"): _("first bad")}
    skipped = set(result.get("skipped") or ())
    rows = []
    fixed = [found.with_workaround] if found.with_workaround else []
    marks |= {fixed[0].release: _("with the workaround")} if fixed else {}
    for rel in [*found.releases, *fixed]:
        figure = f"{found.figure(rel.stats)}<br><small>n={rel.stats.n}</small>" if rel.stats else _("no successful run")
        notes = [f"**{marks[rel.release]}**"] if rel.release in marks else []
        notes += [_("skipped")] if rel.release in skipped else []
        notes += [f"⚠ {text_format.cell(message)}" for message in rel.failures]
        name = f"**{text_format.cell(rel.release)}**" if rel.release in marks else text_format.cell(rel.release)
        rows.append(
            [
                name,
                figure,
                text_format.cell(list_separator().join(companions(found.framework, rel.packages))) or "—",
                " · ".join(notes) or "—",
            ]
        )
    header = [_("release"), _("median"), _("companion packages"), _("note")]
    title = fill(
        _("{framework}: {metric} at batch {batch}, {mode} mode"),
        framework=text_format.label(found.framework),
        metric=found.metric_words,
        batch=report["config"]["batch_size"],
        mode=translate(report["config"]["mode"]),
    )
    own = bisect_records(found, site.results.bisect_runs)
    facts = part_separator().join(record_facts(own)) if own else ""  # none where its runs are not in the results
    grid = Grid(header, rows, text=(0, 2, 3))
    notes = bisect_notes(site, found, own)
    return BisectView(found, title, found.drop_text(), grid, found.upstream_text(), facts, notes)


def bisects_by_machine(site: SiteData) -> dict[str, list[BisectView]]:
    """Every bisect report's view, grouped by the machine it ran on."""
    grouped: dict[str, list[BisectView]] = {}
    for found in site.bisects:
        grouped.setdefault(found.machine_id, []).append(_bisect_view(site, found))
    return grouped


def version_sets_grid(data: dict[str, Any] | None = None) -> Grid:
    """The known-good sets of fwbench/version_sets.json (shared with ``runners envs``): a row per pinned set, with
    what it installs, and a row per version that cannot run the shared model, with why."""
    data = translated("version_sets.json", data or json.loads(resources.files("fwbench").joinpath(SETS).read_text()))
    rows = []
    for name in FRAMEWORKS:
        entry = data["frameworks"].get(name, {})
        for version, pinned in entry.get("pinned", {}).items():
            marked = f"{version} **{article_badge()}**" if version == entry.get("article") else version
            packages = list_separator().join(f"`{p}`" for p in pinned["packages"])
            rows.append(
                [
                    text_format.label(name),
                    marked,
                    _("runs the model"),
                    f"{packages}<br><small>{text_format.cell(pinned.get('note', ''))}</small>",
                ]
            )
        for version, why in entry.get("cannot_run", {}).items():
            rows.append([text_format.label(name), version, _("cannot run the shared model"), text_format.cell(why)])
    return Grid([_("framework"), _("version"), _("status"), _("installs / why")], rows, text=(0, 1, 2, 3))


def context(site: SiteData) -> dict[str, Any]:
    """The Versions page's context."""
    tables = []
    for view in views(site, site.version_tables):
        table = view.table
        frameworks = [f for fw in FRAMEWORKS if (f := _framework(site, table, fw))]
        records = [run.record for summary in table.summaries for run in summary.runs]
        beside = beside_results(site, table.machine_id, records, _("These run records"))
        tables.append(VersionsTable(view, frameworks, _article_versions(site, table), beside, short_epochs(records)))
    return {
        "tables": tables,
        "caveats": PageCaveats(t.view for t in tables),
        "bisects": bisects_by_machine(site),
        "version_sets": version_sets_grid(),
    }
