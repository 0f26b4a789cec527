"""Everything the pages are built from, computed once and only when a page asks for it.

A page's ``context`` function reads what it needs from ``SiteData`` (records, tables, claims, scores…) and
registers the files it links to: downloads with ``add_file``, charts (as data, drawn together at the end)
with ``add_chart``. What does not depend on the language — tables, machines, probe scores, code sizes, and every
verdict (claims rows, comparability rules, leads, choices, accuracy checks), which say what they found as message
ids with their values (``generator.message``) — is computed once per build and shared by both languages'
SiteData (``shared``, handed from one language's build to the next); the pages put it in words
(``generator.views.verdict_text``). The rest is written in the language active when it is computed
(``generator.i18n``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache, cached_property
from pathlib import Path
from typing import Any

from generator import i18n
from generator.data_text import load_data
from generator.i18n import N_
from generator.message import Message, Text
from generator.records import aggregate, codesize
from generator.records.aggregate import Summary, Table
from generator.records.bisects import Bisect, reports
from generator.records.identity import VERSIONS_PROFILE, ConfigKey
from generator.records.load import Loaded, Results
from generator.records.machines import Machine, machines
from generator.records.plans import Planned, named_with, not_run_yet
from generator.records.probes import ProbeScores, probe_scores
from generator.records.this_sitting import latest_sitting
from generator.verdicts import claims, comparability
from generator.verdicts.accuracy import Agreement, diverged, image_agreement, undertrained
from generator.verdicts.article import ecosystem, machine, own_tables, probes, setup_and_unsourced
from generator.verdicts.choices import Choice, measured_choices, other_choices
from generator.verdicts.leads import Lead, leads_by_batch
from generator.views.charts import CJK_FONT_HINT, Chart, cjk_font

REPO_ROOT = Path(__file__).resolve().parents[2]
log = logging.getLogger(__name__)


def table_id(table: Table) -> str:
    """A table's id, the same in every language: its machine and its setting's slug."""
    return f"{table.machine_id}/{table.setting.slug}"


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
        "no CJK font found (%s): the %s pages' charts keep their English labels",
        CJK_FONT_HINT,
        i18n.LANGUAGES[language],
    )


@dataclass
class SiteData:
    """The records under one results directory and what the pages derive from them."""

    results: Results
    source_root: Path  # the repository whose framework implementations the code-size page counts
    repo_root: Path = REPO_ROOT
    repo_url: str | None = None
    files: dict[str, str | bytes] = field(default_factory=dict)
    charts: dict[str, Chart] = field(default_factory=dict)
    shared: dict[str, Any] = field(default_factory=dict)  # language-neutral values by name, see ``neutral``
    this_machine: str | None = None  # the machine id of the machine that built the site (``make site``), if given

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
        return self.neutral("tables", lambda: aggregate.tables(self.summaries, tuple(self.results.harness_checks)))

    @property
    def tables(self) -> list[Table]:
        """The tables that compare frameworks on the article's ResNet-18: every one but the versions profile's and
        the transformer's, tuned ones included."""
        return [t for t in self.all_tables if t.setting.profile != VERSIONS_PROFILE and t.setting.is_article_workload]

    @property
    def transformer_tables(self) -> list[Table]:
        """The tables of the transformer beside the article (``runners --workload gpt``): never checked against
        the article's claims, shown on a page of their own."""
        return [t for t in self.all_tables if not t.setting.is_article_workload]

    @property
    def workload_tables(self) -> list[Table]:
        """The tables of both workloads, ResNet-18's and the transformer's, tuned ones included: where a platform
        issue is measured."""
        return self.tables + self.transformer_tables

    @property
    def version_tables(self) -> list[Table]:
        """The versions profile's tables: one configuration on several releases of each framework."""
        return [t for t in self.all_tables if t.setting.profile == VERSIONS_PROFILE]

    @property
    def unrun(self) -> list[Planned]:
        """The configurations a matrix planned on a machine that have no run there yet (``plans.not_run_yet``)."""
        return self.neutral("unrun", lambda: not_run_yet(self.results.runs))

    def latest_sitting(self, machine_id: str) -> list[Loaded]:
        """The records of the machine's latest sitting (``this_sitting.latest_sitting``)."""
        return self.neutral(f"sitting/{machine_id}", lambda: latest_sitting(self.results.runs, machine_id))

    def not_run_yet(self, table: Table) -> list[Planned]:
        """The configurations not run yet that ``table`` names (``plans.named_with``)."""
        return self.neutral(f"not_run_yet/{table_id(table)}", lambda: named_with(table, self.unrun, self.all_tables))

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
        """The source article's transcribed figures, their prose in the language being written (the verdicts read
        them as written: ``claims.load_article_figures``)."""
        return load_data("article_figures.json")

    @property
    def rules(self) -> comparability.Rules:
        """The comparability rules with the article's setup filled in."""
        return self.neutral("rules", lambda: comparability.load_rules(claims.load_article_figures()["setup"]))

    @property
    def internal_claims(self) -> list[claims.Claim]:
        """The article checked against its own tables."""
        return self.neutral("internal_claims", lambda: own_tables.internal_claims(claims.load_article_figures()))

    @property
    def claim_scopes(self) -> list[tuple[Text, list[claims.Claim]]]:
        """(scope, rows) of the claims check: the article's own tables, each machine, the ecosystem snapshot, the
        article's remaining figures; scopes without rows left out."""
        return self.neutral("claim_scopes", self._claim_scopes)

    def _claim_scopes(self) -> list[tuple[Text, list[claims.Claim]]]:
        article = claims.load_article_figures()
        scopes: list[tuple[Text, list[claims.Claim]]] = [
            (Message(N_("the article against its own tables")), self.internal_claims)
        ]
        scopes += [(m.machine_id, machine.machine_claims(article, m, self.out_of_box)) for m in self.machines]
        scopes.append((Message(N_("the ecosystem snapshot")), ecosystem.ecosystem_claims(article, self.snapshot)))
        scopes.append((Message(setup_and_unsourced.SCOPE), setup_and_unsourced.article_claims(article, self.results)))
        return [(scope, rows) for scope, rows in scopes if rows]

    @property
    def all_claims(self) -> list[tuple[Text, claims.Claim]]:
        """Every claims row with its scope."""
        return [(scope, c) for scope, rows in self.claim_scopes for c in rows]

    @property
    def probe_claims(self) -> list[claims.Claim]:
        """The article's 4.1 messages and traceback beside what the shape-bug probes captured."""
        article, found = claims.load_article_figures(), self.results.probes
        return self.neutral(
            "probe_claims", lambda: probes.message_claims(article, found) + probes.traceback_claims(article, found)
        )

    @property
    def choices(self) -> list[Choice]:
        """The "which to choose" scenarios: from the out-of-the-box tables, probe scores, code size, the snapshot."""
        return self.neutral(
            "choices",
            lambda: (
                measured_choices(self.out_of_box, self.machine_by_id)
                + other_choices(self.probe_scores, self.sources, self.snapshot)
            ),
        )

    def throughput_leads(self, table: Table) -> dict[int, Lead | None]:
        """Batch size -> the compiled-mode throughput lead of ``table`` (``leads.leads_by_batch``): images/s, or the
        transformer's tokens/s."""
        return self.neutral(f"leads/{table_id(table)}", lambda: leads_by_batch(table))

    def undertrained(self, table: Table) -> dict[ConfigKey, tuple[Message, ...]]:
        """Configuration -> why its accuracy means nothing yet, for each configuration of ``table`` that has a reason
        (``accuracy.undertrained``)."""
        classes = claims.load_article_figures()["setup"]["classes"]  # one 10-way head in every model
        return self.neutral(
            f"undertrained/{table_id(table)}",
            lambda: {s.key: why for s in table.summaries if s.n_ok and (why := undertrained(s, classes))},
        )

    def diverged(self, table: Table) -> dict[ConfigKey, tuple[Message, ...]]:
        """Configuration -> why its training diverged, for each configuration of ``table`` whose losses show it
        (``accuracy.diverged``)."""
        classes = claims.load_article_figures()["setup"]["classes"]
        return self.neutral(
            f"diverged/{table_id(table)}",
            lambda: {s.key: why for s in table.summaries if s.n_ok and (why := diverged(s, classes))},
        )

    def agreement(self, table: Table) -> list[Agreement]:
        """Per batch size of ``table``, the correct test images, seed by seed (``accuracy.image_agreement``)."""
        return self.neutral(f"agreement/{table_id(table)}", lambda: image_agreement(table))

    def article_speed_ranking(self, table: Table) -> claims.Claim | None:
        """The article's speed ordering checked on ``table``'s runs of the article's releases alone (the claims
        page's row, ``machine.speed_ranking``); None where it holds none of them or its machine is unknown."""
        return self.neutral(f"article_speed_ranking/{table_id(table)}", lambda: self._article_speed_ranking(table))

    def _article_speed_ranking(self, table: Table) -> claims.Claim | None:
        article = claims.load_article_figures()
        stated = article["setup"]["framework_versions"]
        kept = [s for s in table.summaries if machine.is_article_version(s.key.framework, s.key.version, stated)]
        found = self.machine_by_id.get(table.machine_id)
        if not kept or found is None:
            return None
        return machine.speed_ranking(article, found, Table(table.machine_id, table.setting, kept))

    @property
    def probe_scores(self) -> ProbeScores:
        """Each framework's probe score with and without its silently cast probes."""
        return self.neutral("probe_scores", lambda: probe_scores(self.results.probes))

    @property
    def sources(self) -> list[codesize.SourceFile]:
        """The framework implementation files and their code lines."""
        return self.neutral("sources", lambda: codesize.measure(self.source_root))

    def display_path(self, path: Path) -> str:
        """``path`` relative to the repository root when inside it."""
        try:
            return path.resolve().relative_to(self.repo_root.resolve()).as_posix()
        except ValueError:
            return str(path)
