"""Which tables the home page answers from, and in which order: a group per device class, accelerators first (TPUs,
GPUs, then CPUs), and, where the site was built by ``make site`` (``--this-machine``), the machine that built it on
its own, first of all: its reader ran ``make site`` to learn this machine's answer, or what it still lacks.

The home page answers from the out-of-the-box tables; a table whose every run its machine measured again under a
newer timing protocol is left to the Results pages (it judges nothing). Within a group, tables with a decided lead
come before those without one, each kept in the order every page shows them (``table_view.answer_order``).
"""

from __future__ import annotations

from dataclasses import dataclass

from generator.i18n import N_
from generator.views.sitedata import SiteData
from generator.views.table_view import TableView, views

#: the device classes, accelerators first, each with the word that names its machines
DEVICE_CLASSES = (("tpu", N_("TPUs")), ("gpu", N_("GPUs")), ("cpu", N_("CPUs")))
#: the word of the group that holds the machine that built the site
THIS_MACHINE = N_("On this machine")


@dataclass(frozen=True)
class AnswerGroup:
    """The tables one paragraph of the answer speaks for: a device class's, or the builder's machine's."""

    kind: str  # the device class (``tpu``, ``gpu``, ``cpu``)
    word: str  # what names the group, English, marked for the catalogue
    views: tuple[TableView, ...]

    @property
    def machine_ids(self) -> list[str]:
        """The group's machines, each once, in the order of its tables."""
        return list(dict.fromkeys(v.table.machine_id for v in self.views))

    @property
    def builder(self) -> bool:
        """True for the group of the machine that built the site."""
        return self.word == THIS_MACHINE


def _current(site: SiteData) -> list[TableView]:
    """The out-of-the-box tables that judge something: those not wholly measured again under a newer protocol."""
    tables = [t for t in site.out_of_box if not all(s.superseded for s in t.summaries)]
    return views(site, tables)


def _decides(site: SiteData, found: list[TableView]) -> bool:
    """Whether a lead of ``found``'s tables is decided (in one sitting or more)."""
    return any(lead and lead.decided for v in found for lead in site.throughput_leads(v.table).values())


def _decided_first(site: SiteData, found: list[TableView]) -> tuple[TableView, ...]:
    return tuple(sorted(found, key=lambda view: not _decides(site, [view])))  # stable: the pages' order otherwise


def answer_groups(site: SiteData) -> list[AnswerGroup]:
    """The answer's groups in the order the home page answers: the machine that built the site first where there is
    one, then each device class with tables, accelerators first."""
    found = _current(site)
    groups = []
    for kind, word in DEVICE_CLASSES:
        of_kind = [v for v in found if v.device_kind == kind and v.table.machine_id != site.this_machine]
        if of_kind:
            groups.append(AnswerGroup(kind, word, _decided_first(site, of_kind)))
    own = [v for v in found if v.table.machine_id == site.this_machine]
    if own:
        groups.insert(0, AnswerGroup(own[0].device_kind, THIS_MACHINE, _decided_first(site, own)))
    return groups
