"""Everything the pages are built from, computed once and only when a page asks for it.

A page's ``context`` function reads what it needs from ``SiteData`` (records, tables, claims, scores…) and
registers the files it links to: downloads with ``add_file``, charts (as data, drawn together at the end)
with ``add_chart``. Everything is written in the language active when it is first computed (``generator.i18n``);
what does not depend on the language (tables, machines, probe scores, code sizes, record archives) is computed
once per build and shared by both languages' SiteData (``shared``, from ``shared_work``).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass, field
from functools import cache, cached_property
from pathlib import Path
from typing import Any

from generator import aggregate, article_checks, claims, codesize, comparability, ecosystem_claims, i18n, machine_claims
from generator.aggregate import Summary, Table
from generator.bisects import Bisect, reports
from generator.charts import Chart, cjk_font
from generator.data_text import translated
from generator.i18n import _, translate
from generator.identity import VERSIONS_PROFILE
from generator.load import Loaded, Results
from generator.machines import Machine, machines
from generator.probes import ProbeScores, probe_scores

REPO_ROOT = Path(__file__).resolve().parent.parent
DATA_DIR = Path(__file__).resolve().parent / "data"
log = logging.getLogger(__name__)
#: the language-neutral values of the records ``generator build`` loaded, shared by its per-language builds
shared_work: ContextVar[dict[str, Any] | None] = ContextVar("shared_work", default=None)


def load_data(name: str) -> dict[str, Any]:
    """A data file of ``generator/data/`` by name (``toolchains.json``), its prose in the language being written."""
    return translated(name, json.loads((DATA_DIR / name).read_text(encoding="utf-8")))


def chart_language() -> str:
    """The language a chart's labels can be drawn in: the language being written, or English when it needs a CJK
    font and none is installed (a logged note, not a failed build)."""
    language = i18n.current()
    if language == i18n.SOURCE or cjk_font():
        return language
    _note_english_charts(language)
    return i18n.SOURCE


@cache
def _note_english_charts(language: str) -> None:
    log.warning(
        "no CJK font found (Debian: apt-get install fonts-noto-cjk): the %s pages' charts keep their English labels",
        i18n.LANGUAGES[language],
    )


@dataclass
class SiteData:
    """The records under one results directory and what the pages derive from them."""

    results: Results
    frameworks_dir: Path
    repo_root: Path = REPO_ROOT
    repo_url: str | None = None
    files: dict[str, str | bytes] = field(default_factory=dict)
    charts: dict[str, Chart] = field(default_factory=dict)
    shared: dict[str, Any] = field(default_factory=dict)  # language-neutral values by name, see ``neutral``

    def neutral(self, name: str, compute: Callable[[], Any]) -> Any:
        """A value that no language changes, computed once for every SiteData given the same ``shared``."""
        if name not in self.shared:
            self.shared[name] = compute()
        return self.shared[name]

    def add_file(self, path: str, content: str | bytes) -> str:
        """Register a generated file (docs-relative ``path``) and return its path, for the page to link."""
        self.files[path] = content
        return path

    def add_chart(self, path: str, build: Callable[[], Chart]) -> str:
        """Register the chart that ``build`` describes, to draw at ``path`` (a PNG), and return its path, for the
        page to link. ``build`` runs in the language the chart's labels can be drawn in (``chart_language``)."""
        with i18n.language(chart_language()):
            self.charts[path] = build()
        return path

    @property
    def summaries(self) -> list[Summary]:
        """One summary per configuration."""
        return self.neutral("summaries", lambda: aggregate.summarise(self.results.runs))

    @property
    def all_tables(self) -> list[Table]:
        """One table per machine and setting, tuned ones and the versions profile's included."""
        return self.neutral("tables", lambda: aggregate.tables(self.summaries))

    @property
    def tables(self) -> list[Table]:
        """The tables that compare frameworks: every one but the versions profile's, tuned ones included."""
        return [t for t in self.all_tables if t.setting.profile != VERSIONS_PROFILE]

    @property
    def version_tables(self) -> list[Table]:
        """The versions profile's tables: one configuration on several releases of each framework."""
        return [t for t in self.all_tables if t.setting.profile == VERSIONS_PROFILE]

    @property
    def out_of_box(self) -> list[Table]:
        """The tables conclusions are drawn from: no tuning variables set."""
        return [t for t in self.tables if not t.setting.tuning]

    @property
    def tuned(self) -> list[Table]:
        """Tables of runs made with tuning variables: shown apart, never judged against the others."""
        return [t for t in self.tables if t.setting.tuning]

    @cached_property
    def bisects(self) -> list[Bisect]:
        """The release bisect reports, by machine, framework, metric and batch size."""
        return reports(self.results.bisects)

    @property
    def machines(self) -> list[Machine]:
        """Every machine with run records."""
        return self.neutral("machines", lambda: machines(self.results.runs))

    @cached_property
    def machine_by_id(self) -> dict[str, Machine]:
        """Machines by id."""
        return {m.machine_id: m for m in self.machines}

    @property
    def device_kinds(self) -> dict[str, str]:
        """Machine id -> ``cpu`` or ``gpu`` (machines that recorded hardware)."""
        return {m.machine_id: m.hardware["device_kind"] for m in self.machines if m.hardware}

    @cached_property
    def snapshot(self) -> Loaded | None:
        """The latest ecosystem snapshot."""
        return self.results.latest_snapshot()

    @cached_property
    def article(self) -> dict[str, Any]:
        """The source article's transcribed figures."""
        return claims.load_article_figures()

    @cached_property
    def rules(self) -> comparability.Rules:
        """The comparability rules with the article's setup filled in."""
        return comparability.load_rules(self.article["setup"])

    @cached_property
    def internal_claims(self) -> list[claims.Claim]:
        """The article checked against its own tables."""
        return claims.internal_claims(self.article)

    @cached_property
    def claim_scopes(self) -> list[tuple[str, list[claims.Claim]]]:
        """(scope, rows) of the claims check: the article's own tables, each machine, the ecosystem snapshot, the
        article's remaining figures; scopes without rows left out."""
        scopes = [(_("the article against its own tables"), self.internal_claims)]
        scopes += [
            (m.machine_id, machine_claims.machine_claims(self.article, m, self.out_of_box)) for m in self.machines
        ]
        scopes.append((_("the ecosystem snapshot"), ecosystem_claims.ecosystem_claims(self.article, self.snapshot)))
        scopes.append((translate(article_checks.SCOPE), article_checks.article_claims(self.article, self.results)))
        return [(scope, rows) for scope, rows in scopes if rows]

    @property
    def all_claims(self) -> list[tuple[str, claims.Claim]]:
        """Every claims row with its scope."""
        return [(scope, c) for scope, rows in self.claim_scopes for c in rows]

    @property
    def probe_scores(self) -> ProbeScores:
        """Each framework's probe score with and without its silently cast probes."""
        return self.neutral("probe_scores", lambda: probe_scores(self.results.probes))

    @property
    def sources(self) -> list[codesize.SourceFile]:
        """The framework implementation files and their code lines."""
        return self.neutral("sources", lambda: codesize.measure(self.frameworks_dir))

    def display_path(self, path: Path) -> str:
        """``path`` relative to the repository root when inside it."""
        try:
            return path.resolve().relative_to(self.repo_root.resolve()).as_posix()
        except ValueError:
            return str(path)
