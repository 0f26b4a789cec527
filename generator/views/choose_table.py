"""Which to choose as one compact table: a row per need, accelerators first (fastest training on a TPU, on a GPU, on
your CPU or a CPU, then the shortest compile, the least memory, the smallest install, the clearest errors, the newest
Python), a column per framework, each cell a mark or a ratio linking to the table it comes from.

The training rows read the leads of each device class's tables (``answer_classes``, ``Lead``): the framework that
leads gets its lead over the runner-up (the smallest to the largest, with ``lead_words.pooled_gap``) and in how many
comparisons. The other rows read the page's choices (``generator.verdicts.choices``): where a need is judged on each
machine and setting (compile time, memory), in how many of them the records favour each framework; where it is one
figure per framework (install, errors, Python), which one they favour. A framework that trains another's model on a
device (PyTorch via torchax) stands in that framework's column, named under its cell.
"""

from __future__ import annotations

from dataclasses import dataclass

from fwbench.frameworks import FRAMEWORKS, REGISTRY, label, measured_on
from generator.i18n import N_, _
from generator.message import Joined, Message
from generator.spacing import fill
from generator.verdicts.choices import Choice
from generator.views.answer import comparisons
from generator.views.answer_classes import THIS_MACHINE, AnswerGroup, answer_groups
from generator.views.lead_words import pooled_gap
from generator.views.sitedata import SiteData
from generator.views.verdict_text import text

#: the frameworks the table has a column for: those that train their own model
COLUMNS = tuple(fw for fw in FRAMEWORKS if not REGISTRY[fw].model_of)
#: a training row's need, by the group it reads
TRAINING_NEEDS = {
    "tpu": N_("fastest training on a TPU"),
    "gpu": N_("fastest training on a GPU"),
    "cpu": N_("fastest training on a CPU"),
    THIS_MACHINE: N_("fastest training on your machine (the one that built this site)"),
}
#: the rows read from the page's choices: (need, the choice's scenario as it starts, its figure per machine)
CHOICE_NEEDS = (
    (N_("shortest compile"), "short start-up", True),
    (N_("least memory"), "tight memory", True),
    (N_("smallest install"), "the smallest install", False),
    (N_("clearest errors"), "clear error messages", False),
    (N_("newest Python"), "the fastest support of a new Python", False),
)
#: where the training rows link: every comparison, table by table
VERDICTS_PAGE = "results/verdicts.md"


@dataclass(frozen=True)
class Cell:
    """One framework's cell: its mark (``✓ 1.05–1.34×``, ``—``), linked to the row's table where it is favoured, and
    smaller lines under it (in how many comparisons; the framework that stands in the column)."""

    mark: str
    favoured: bool = False
    details: tuple[str, ...] = ()


@dataclass(frozen=True)
class NeedRow:
    """One need: its words, the page (docs-relative) its table is on, a cell per column, and a note where the records
    favour no one."""

    need: str
    link: str
    cells: tuple[Cell, ...]
    note: str = ""


def _column(framework: str) -> str:
    return REGISTRY[framework].model_of or framework


def _framework_of(name: str) -> str | None:
    """The framework a column label names (``PyTorch``, ``PyTorch 2.5``, ``PyTorch via torchax``): the longest
    registry label it is or starts with."""
    found = [fw for fw in FRAMEWORKS if name == label(fw) or name.startswith(f"{label(fw)} ")]
    return max(found, key=lambda fw: len(label(fw)), default=None)


def _ratio(gaps: list) -> str:
    low, high = min(gaps, key=lambda gap: gap.ratio), max(gaps, key=lambda gap: gap.ratio)
    return str(low) if len(gaps) == 1 else f"{low.ratio:.2f}–{high.ratio:.2f}×"


def _training_row(site: SiteData, group: AnswerGroup) -> NeedRow:
    """A device class's training row: the leader's lead over the runner-up, in how many comparisons."""
    found = comparisons(site, group)
    ran = {c.framework for v in group.views for c in v.table.columns_in("compiled")}
    gaps: dict[str, list] = {}
    for _view, lead in found:
        if lead.decided and (fw := _framework_of(lead.leader)):
            gaps.setdefault(fw, []).append(pooled_gap(lead))
    cells = []
    for column in COLUMNS:
        stands = [fw for fw in ran if _column(fw) == column]
        if not stands:
            cells.append(Cell("", details=(_("no run") if column in measured_on(group.kind) else _("not measured"),)))
            continue
        fw = stands[0]
        via = (label(fw),) if fw != column else ()
        if fw in gaps:
            ahead = fill(_("ahead in {k} of {n}"), k=len(gaps[fw]), n=len(found))
            cells.append(Cell(f"✓ {_ratio(gaps[fw])}", True, (ahead, *via)))
        else:
            cells.append(Cell("—", details=via))
    note = "" if gaps else (_("no verdict yet") if found else _("nothing judged yet"))
    return NeedRow(_(TRAINING_NEEDS[THIS_MACHINE if group.builder else group.kind]), VERDICTS_PAGE, tuple(cells), note)


def _favoured(choice: Choice) -> list[str]:
    """The frameworks a choice favours (none where it is not decided), read from what it names."""
    if not choice.decided:
        return []
    named = choice.favoured
    if isinstance(named, Message):  # "{leader}, in one sitting"
        named = named.values.get("leader", "")
    items = named.items if isinstance(named, Joined) else (named,)
    return [fw for item in items if isinstance(item, str) and (fw := _framework_of(item))]


def _choice_row(need: str, choices: list[Choice], per_setting: bool) -> NeedRow:
    """A row read from choices: per machine and setting, in how many each framework is favoured; one figure per
    framework, which one is."""
    favoured = [_column(fw) for choice in choices for fw in _favoured(choice)]
    cells = []
    for column in COLUMNS:
        k = favoured.count(column)
        if not k:
            cells.append(Cell("—"))
        elif per_setting:
            cells.append(Cell("✓", True, (fill(_("in {k} of {n}"), k=k, n=len(choices)),)))
        else:
            cells.append(Cell("✓", True))
    note = "" if favoured else text(choices[0].favoured)
    return NeedRow(_(need), choices[0].link, tuple(cells), note)


def need_rows(site: SiteData, choices: list[Choice]) -> list[NeedRow]:
    """The compact table's rows: training per device class, accelerators first, then the needs the choices judge."""
    groups = answer_groups(site)
    order = ("tpu", "gpu", "cpu")
    groups.sort(key=lambda g: (order.index(g.kind), not g.builder))
    rows = [_training_row(site, group) for group in groups]
    for need, starts, per_setting in CHOICE_NEEDS:
        found = [c for c in choices if isinstance(c.scenario, Message) and c.scenario.msgid.startswith(starts)]
        if found:
            rows.append(_choice_row(need, found, per_setting))
    return rows
