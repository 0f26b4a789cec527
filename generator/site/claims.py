"""Appendix: the claims check, grouped by the article's sections; a reason shared by several rows is one note."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from fwbench.stats import WITHIN_NOISE
from generator.i18n import N_, _, part_separator, translate
from generator.site import Page
from generator.spacing import fill, spaced
from generator.verdicts.claims import (
    CONFIRMED,
    CONSISTENT,
    CONTRADICTED,
    INCONSISTENT,
    NOT_COMPARABLE,
    VERDICTS,
    Claim,
)
from generator.views.markdown_table import Grid
from generator.views.sitedata import SiteData
from generator.views.verdict_text import claim_text, text

PAGE = Page("appendix/claims.md", "claims.md.j2", N_("Claims check"), N_("Appendix"), 90.0)
#: more rows than this, none of them comparable: shown in a closed block, which says why in one line
COLLAPSE_FROM = 3
#: verdict -> a Material icon and its colour class (the emoji extension draws it inline, no emoji font needed)
ICONS = {
    CONFIRMED: ":material-check-circle:{ .fw-good }",
    CONSISTENT: ":material-check-circle-outline:{ .fw-neutral }",
    CONTRADICTED: ":material-close-circle:{ .fw-bad }",
    INCONSISTENT: ":material-close-circle-outline:{ .fw-bad }",
    WITHIN_NOISE: ":material-approximately-equal:{ .fw-neutral }",
    NOT_COMPARABLE: ":material-minus-circle-outline:{ .fw-muted }",
}


@dataclass(frozen=True)
class ScopeTable:
    """One scope's rows of one section: the grid, what every row's reason shares, and the numbered notes (each
    distinct remainder once)."""

    scope: str
    grid: Grid
    shared: str | None  # the reason every row gives, in part
    checked: str | None  # "(checked: …)": the conditions every row checked
    notes: list[str]
    collapsed: bool  # every row not comparable: the block starts closed, its summary says so


@dataclass(frozen=True)
class Section:
    """One section of the article and its rows, scope by scope."""

    number: str
    title: str
    tables: list[ScopeTable]

    @property
    def anchor(self) -> str:
        """The section heading's id, the same in every language: ``claims-4-1``."""
        return "claims-" + re.sub(r"[^0-9]+", "-", self.number).strip("-")


def verdict_text(verdict: str, note: int | None = None) -> str:
    """The verdict as an icon and its words, with the number of its note, kept on one line."""
    ref = f" <sup>{note}</sup>" if note else ""
    return f'<span class="fw-verdict">{ICONS[verdict]} {translate(verdict)}{ref}</span>'


def section_of(claim: Claim) -> str:
    """The first section a row cites: ``2.1–2.2`` -> ``2.1``, ``1, 2.1`` -> ``1``."""
    match = re.match(r"\d+(?:\.\d+)?", claim.section)
    return match[0] if match else claim.section


def checked_text(conditions: str) -> str:
    """``(checked: …)``: the conditions a row checked, as its note names them."""
    return fill(_("(checked: {conditions})"), conditions=conditions)


def _note(parts: list[str], conditions: tuple[str, ...] | None) -> str:
    checked = checked_text(part_separator().join(conditions)) if conditions else None
    return spaced((part_separator().join(parts), checked))


def scope_table(scope: str, rows: list[Claim]) -> ScopeTable:
    """The grid of one scope's rows, worded as Markdown safe in a table cell (``claim_text(row, cell=True)``). The
    parts of the reasons and the conditions that every row shares are said once; each distinct remainder is one
    numbered note, which rows refer to."""
    reasons = [list(c.reason) for c in rows]
    common = [part for part in reasons[0] if all(part in r for r in reasons)] if len(rows) > 1 else []
    same_conditions = len(rows) > 1 and len({c.conditions for c in rows}) == 1
    notes: list[str] = []
    cells = []
    for c, parts in zip(rows, reasons, strict=True):
        rest = [part for part in parts if part not in common]
        number = None
        if rest or not same_conditions:
            note = _note(rest, None if same_conditions else c.conditions)
            if note not in notes:
                notes.append(note)
            number = notes.index(note) + 1
        cells.append([c.claim, c.article, c.ours, verdict_text(c.verdict, number)])
    shared = part_separator().join(common) if common else None
    checked = checked_text(part_separator().join(rows[0].conditions)) if same_conditions else None
    header = [_("claim"), _("the article says"), _("fwbench finds"), _("verdict")]
    collapsed = len(rows) > COLLAPSE_FROM and all(c.verdict == NOT_COMPARABLE for c in rows)
    return ScopeTable(scope, Grid(header, cells, text=tuple(range(len(header)))), shared, checked, notes, collapsed)


def sections(scopes: list[tuple[str, list[Claim]]], titles: dict[str, str]) -> list[Section]:
    """The rows grouped by section (in the article's order), each section's rows by scope (scopes and rows
    worded)."""
    grouped: dict[str, dict[str, list[Claim]]] = {}
    for scope, rows in scopes:
        for c in rows:
            grouped.setdefault(section_of(c), {}).setdefault(scope, []).append(c)
    order = sorted(grouped, key=lambda s: tuple(int(n) for n in s.split(".")) if re.fullmatch(r"[\d.]+", s) else (99,))
    return [
        Section(number, titles.get(number, ""), [scope_table(scope, rows) for scope, rows in by_scope.items()])
        for number in order
        for by_scope in [grouped[number]]
    ]


def context(site: SiteData) -> dict[str, Any]:
    """The claims page's context."""
    counts = dict.fromkeys(VERDICTS, 0)
    for _scope, c in site.all_claims:
        counts[c.verdict] += 1
    machines = {m.machine_id for m in site.machines}
    return {
        "counts": Grid([_("verdict"), _("rows")], [[verdict_text(v), str(n)] for v, n in counts.items()]),
        "rules": site.rules,
        "sections": sections(
            [(text(scope), [claim_text(c, cell=True) for c in rows]) for scope, rows in site.claim_scopes],
            site.article["article"]["sections"],
        ),
        "machines": machines,
        "has_runs": bool(site.tables),
        "has_snapshot": site.snapshot is not None,
    }
