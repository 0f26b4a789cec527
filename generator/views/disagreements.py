"""Where machines of one device class, in one precision and at one batch size, name different leaders: one sentence
each, then why that can happen, said once for the class (the Results page's verdicts by machine)."""

from __future__ import annotations

from generator.i18n import N_, _, part_separator
from generator.spacing import fill
from generator.views.sitedata import SiteData
from generator.views.table_view import TableView, device_title, precision_words

#: why two machines of one class can name different leaders, said once where they do
WHY_MACHINES_DIFFER = N_(
    "Machines differ in their chips, instruction sets and software (the machines page sets them side by side), and "
    "each framework uses those differently: a verdict holds for the machine it was measured on."
)


def _decided(site: SiteData, view: TableView) -> dict[int, str]:
    """Batch size -> the leader, where the table's lead is decided (in one sitting or more)."""
    return {bs: lead.leader for bs, lead in site.throughput_leads(view.table).items() if lead and lead.decided}


def disagreements(site: SiteData, found: list[TableView]) -> list[str]:
    """Where the machines of ``found`` (one device class) name different leaders in one precision at one batch size:
    a sentence each, then why that can happen, once; nothing where they agree."""
    said = []
    for precision in dict.fromkeys(v.table.setting.precision for v in found):
        same = [v for v in found if v.table.setting.precision == precision]
        for bs in sorted({bs for v in same for bs in _decided(site, v)}):
            leaders = [(v, leader) for v in same if (leader := _decided(site, v).get(bs))]
            if len({leader for _view, leader in leaders}) > 1:
                said.append(
                    fill(
                        _("The machines disagree in {precision} at batch {batch}: {leaders}."),
                        precision=precision_words(same[0].table.setting),
                        batch=bs,
                        leaders=part_separator().join(
                            fill(
                                _("{leader} on the {machine}"),
                                leader=leader,
                                machine=device_title(v.machine, v.table.machine_id),
                            )
                            for v, leader in leaders
                        ),
                    )
                )
    return said + [_(WHY_MACHINES_DIFFER)] if said else []
