"""The home page's findings: what the records and the article's own figures show that the article does not say.

Each finding is computed — from the claims rows (the article against its own tables, the probes against its
4.1) or from the run records (a known platform issue's measured size) — and names its source and the command
that shows it.
"""

from __future__ import annotations

from dataclasses import dataclass

from generator.i18n import _, part_separator
from generator.records.platform_issues import Pair, reproduces
from generator.spacing import fill
from generator.verdicts.claims import CONTRADICTED, INCONSISTENT, Claim
from generator.verdicts.platform_issue import sizes
from generator.views.text_format import cell
from generator.views.verdict_text import claim_text, verdict_words

PROBES_COMMAND = "runners probes --out results/probes"


@dataclass(frozen=True)
class Finding:
    """One finding: a title, what was found (Markdown, with its items), where it comes from, the command that
    shows it, the page with the detail."""

    title: str
    text: str
    source: str
    command: str | None
    link: str
    items: tuple[str, ...] = ()


def article_arithmetic(internal: list[Claim]) -> list[Finding]:
    """Each statement of the article that its own table contradicts."""
    worded = [claim_text(c) for c in internal if c.verdict == INCONSISTENT]
    return [
        Finding(
            fill(_("§{section}: the text and its own table disagree"), section=c.section),
            fill(
                _("{claim}: the article states **{article}**, its own figures give **{ours}**."),
                claim=cell(c.claim),
                article=cell(c.article),
                ours=cell(c.ours),
            ),
            fill(
                _("the article's §{section}, transcribed in `generator/data/article_figures.json`"), section=c.section
            ),
            None,
            "appendix/claims.md",
        )
        for c in worded
    ]


def probe_disagreements(probe_rows: list[Claim]) -> list[Finding]:
    """One finding listing the 4.1 statements that the captured messages and tracebacks contradict."""
    contradicted = [claim_text(c) for c in probe_rows if c.verdict == CONTRADICTED]
    if not contradicted:
        return []
    items = tuple(cell(c.claim) + _(": ") + cell(c.reason[0]) for c in contradicted)
    return [
        Finding(
            fill(
                _("§4.1: {contradicted} of {checks} checks of the quoted errors disagree"),
                contradicted=len(contradicted),
                checks=len(probe_rows),
            ),
            _(
                "The probes plant the article's shape bug and capture what each framework prints. Each row of "
                "the claims check names the versions the probes ran, which may differ from the article's."
            ),
            _("the probe records under `results/probes/` beside the article's §4.1"),
            PROBES_COMMAND,
            "appendix/claims.md#claims-4-1",
            items,
        )
    ]


def size_words(pairs: list[Pair]) -> str | None:
    """A known platform issue's measured size per machine (``verdicts.platform_issue.sizes``), each in bold only
    where the runs decide it, naming the machine where more than one measured it; None where none did."""
    measured = sizes(pairs)
    if not measured:
        return None
    if len(measured) == 1:
        return verdict_words(measured[0].text, measured[0].decided)
    return part_separator().join(
        fill(_("{size} on {machine}"), size=verdict_words(m.text, m.decided), machine=f"`{m.machine_id}`")
        for m in measured
    )


def platform_issue(issue: dict, pairs: list[Pair]) -> list[Finding]:
    """A known platform issue's measured size, where the records hold runs with and without its workaround (or the
    setting that reproduces its cause): per machine, in bold only where the runs decide it (``size_words``)."""
    measured = size_words(pairs)
    if measured is None:
        return []
    return [
        Finding(
            issue["title"],
            fill(_("{symptom} Measured here: {size}."), symptom=cell(issue["symptom"]), size=measured),
            _("run records made out of the box and with the setting that reproduces its cause (labelled tuned)")
            if reproduces(issue)
            else _("run records made out of the box and with the workaround (labelled tuned)"),
            issue["reproduce"],
            "results/platform-issues.md",
        )
    ]
