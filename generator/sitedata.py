"""Everything the pages are built from, computed once and only when a page asks for it.

A page's ``context`` function reads what it needs from ``SiteData`` (records, tables, claims, scores…) and
registers the files it links to: downloads with ``add_file``, charts (as data, drawn together at the end)
with ``add_chart``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from generator import aggregate, article_checks, claims, codesize, comparability, ecosystem_claims, machine_claims
from generator.aggregate import Summary, Table
from generator.charts import Chart
from generator.load import Loaded, Results
from generator.machines import Machine, machines
from generator.probes import ProbeScores, probe_scores

REPO_ROOT = Path(__file__).resolve().parent.parent
DATA_DIR = Path(__file__).resolve().parent / "data"


def load_data(name: str) -> dict[str, Any]:
    """A data file of ``generator/data/`` by name (``toolchains.json``)."""
    return json.loads((DATA_DIR / name).read_text(encoding="utf-8"))


@dataclass
class SiteData:
    """The records under one results directory and what the pages derive from them."""

    results: Results
    frameworks_dir: Path
    repo_root: Path = REPO_ROOT
    repo_url: str | None = None
    files: dict[str, str | bytes] = field(default_factory=dict)
    charts: dict[str, Chart] = field(default_factory=dict)

    def add_file(self, path: str, content: str | bytes) -> str:
        """Register a generated file (docs-relative ``path``) and return its path, for the page to link."""
        self.files[path] = content
        return path

    def add_chart(self, path: str, chart: Chart) -> str:
        """Register a chart to draw at ``path`` (a PNG) and return its path, for the page to link."""
        self.charts[path] = chart
        return path

    @cached_property
    def summaries(self) -> list[Summary]:
        """One summary per configuration."""
        return aggregate.summarise(self.results.runs)

    @cached_property
    def tables(self) -> list[Table]:
        """One table per machine and setting, tuned ones included."""
        return aggregate.tables(self.summaries)

    @property
    def out_of_box(self) -> list[Table]:
        """The tables conclusions are drawn from: no tuning variables set."""
        return [t for t in self.tables if not t.setting.tuning]

    @property
    def tuned(self) -> list[Table]:
        """Tables of runs made with tuning variables: shown apart, never judged against the others."""
        return [t for t in self.tables if t.setting.tuning]

    @cached_property
    def machines(self) -> list[Machine]:
        """Every machine with run records."""
        return machines(self.results.runs)

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
        scopes = [("the article against its own tables", self.internal_claims)]
        scopes += [(m.machine_id, machine_claims.machine_claims(self.article, m, self.out_of_box))
                   for m in self.machines]
        scopes.append(("the ecosystem snapshot", ecosystem_claims.ecosystem_claims(self.article, self.snapshot)))
        scopes.append((article_checks.SCOPE, article_checks.article_claims(self.article, self.results)))
        return [(scope, rows) for scope, rows in scopes if rows]

    @property
    def all_claims(self) -> list[tuple[str, claims.Claim]]:
        """Every claims row with its scope."""
        return [(scope, c) for scope, rows in self.claim_scopes for c in rows]

    @cached_property
    def probe_scores(self) -> ProbeScores:
        """Each framework's probe score with and without its silently cast probes."""
        return probe_scores(self.results.probes)

    @cached_property
    def sources(self) -> list[codesize.SourceFile]:
        """The framework implementation files and their code lines."""
        return codesize.measure(self.frameworks_dir)

    def display_path(self, path: Path) -> str:
        """``path`` relative to the repository root when inside it."""
        try:
            return path.resolve().relative_to(self.repo_root.resolve()).as_posix()
        except ValueError:
            return str(path)
