"""The home page's findings: what the records and the article's own figures show that the article does not say.

Each finding is computed — from the claims rows (the article against its own tables, the probes against its
4.1) or from the run records (a known platform issue's measured size) — and names its source and the command
that shows it.
"""

from __future__ import annotations

from dataclasses import dataclass

from generator.claims import CONTRADICTED, Claim
from generator.fmt import cell
from generator.platform_issues import Pair, size_text

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
    return [
        Finding(f"§{c.section}: the text and its own table disagree",
                f"{cell(c.claim)}: the article states **{cell(c.article)}**, its own figures give **{cell(c.ours)}**.",
                f"the article's §{c.section}, transcribed in `generator/data/article_figures.json`", None,
                "appendix/claims.md")
        for c in internal if c.verdict == CONTRADICTED
    ]


def probe_disagreements(probe_rows: list[Claim]) -> list[Finding]:
    """One finding listing the 4.1 statements that the captured messages and tracebacks contradict."""
    contradicted = [c for c in probe_rows if c.verdict == CONTRADICTED]
    if not contradicted:
        return []
    items = tuple(f"{cell(c.claim)}: {cell(c.reason.split(';')[0])}" for c in contradicted)
    return [Finding(f"§4.1: {len(contradicted)} of {len(probe_rows)} checks of the quoted errors disagree",
                    "The probes plant the article's shape bug and capture what each framework prints. Each row of "
                    "the claims check names the versions the probes ran, which may differ from the article's.",
                    "the probe records under `results/probes/` beside the article's §4.1", PROBES_COMMAND,
                    "appendix/claims.md#41-debugging", items)]


def platform_issue(issue: dict, pairs: list[Pair]) -> list[Finding]:
    """A known platform issue's measured size, where the records hold runs with and without its workaround."""
    size = size_text(pairs)
    if size is None:
        return []
    return [Finding(issue["title"], f"{cell(issue['symptom'])} Measured here: **{size}**.",
                    "run records made out of the box and with the workaround (labelled tuned)", issue["reproduce"],
                    "results/platform-issues.md")]
