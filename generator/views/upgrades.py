"""The versions axis of 6.3: how often an upgrade changed a result or an error message, per framework, from the
probes run on an older release (``runners probes --versions``) beside today's same probe, and the release bisects."""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass

from fwbench.frameworks import FRAMEWORKS
from fwbench.probe_outcome import outcome_category
from generator.i18n import _, list_separator, ngettext
from generator.records.bisects import Bisect
from generator.records.identity import release
from generator.records.load import Loaded
from generator.records.probes import todays
from generator.spacing import fill
from generator.views import text_format
from generator.views.markdown_table import Grid

#: what differs between two runs of one message without the framework changing it: a file's path, an address
_INCIDENTAL = re.compile(r'File "[^"]*"|0x[0-9a-fA-F]+|\d+')


@dataclass(frozen=True)
class ProbePair:
    """One probe (machine, bug, tooling, mode) run on an older release and on today's."""

    older: Loaded
    newer: Loaded

    @property
    def releases(self) -> str:
        """``2.15.0 → 2.21.0``."""
        return f"{self.older.record['framework']['version']} → {self.newer.record['framework']['version']}"

    @property
    def outcome_changed(self) -> bool:
        """Whether the upgrade changed how the probe ended (an error raised, none, a crash…)."""
        return outcome_category(self.older.record) != outcome_category(self.newer.record)

    @property
    def message_changed(self) -> bool:
        """Whether both releases raised an error and its type or wording differs (paths and addresses aside)."""
        if self.older.record["outcome"] != "error" or self.newer.record["outcome"] != "error":
            return False
        return _wording(self.older.record) != _wording(self.newer.record)


def _wording(record: dict) -> tuple[str | None, str]:
    return record["exception_type"], _INCIDENTAL.sub("", record["message_clean"] or "")


def _key(probe: Loaded) -> tuple:
    r = probe.record
    return probe.machine_id, r["bug"], str(r["tooling"]), r["framework"]["name"], r["framework"]["mode"]


def probe_pairs(probes: list[Loaded]) -> dict[str, list[ProbePair]]:
    """Framework -> each probe of an older release's environment paired with today's same probe on its machine."""
    today = {_key(p): p for p in todays(probes)}
    pairs: dict[str, list[ProbePair]] = defaultdict(list)
    for p in probes:
        newer = today.get(_key(p))
        if not p.record.get("environment") or newer is None:
            continue
        if release(p.record["framework"]["version"]) != release(newer.record["framework"]["version"]):
            pairs[p.record["framework"]["name"]].append(ProbePair(p, newer))
    return pairs


def _share(count: int, total: int) -> str:
    return fill(_("{count} of {total}"), count=count, total=total)


def _bisect_cell(found: list[Bisect]) -> str:
    """What each of the framework's release bisects concluded, with the releases it spans and its machine."""
    return "<br>".join(
        text_format.cell(
            fill(
                _("{first} → {last}, {metric}: {conclusion} ({machine})"),
                first=b.report["releases"][0],
                last=b.report["releases"][-1],
                metric=b.metric_words,
                conclusion=b.conclusion(),
                machine=b.machine_id,
            )
        )
        for b in found
    )


def upgrades_grid(probes: list[Loaded], bisects: list[Bisect]) -> Grid | None:
    """A row per framework with probes on two releases or a release bisect; None when there is neither."""
    pairs = probe_pairs(probes)
    by_framework: dict[str, list[Bisect]] = defaultdict(list)
    for b in bisects:
        by_framework[b.framework].append(b)
    rows = []
    for fw in FRAMEWORKS:
        found, searched = pairs.get(fw, []), by_framework.get(fw, [])
        if not found and not searched:
            continue
        machines = {p.newer.machine_id for p in found}
        compared = (
            list_separator().join(
                [
                    fill(ngettext("{n} probe", "{n} probes", len(found)), n=len(found)),
                    fill(ngettext("{n} machine", "{n} machines", len(machines)), n=len(machines)),
                ]
            )
            + _(": ")
            + list_separator().join(dict.fromkeys(p.releases for p in found))
            if found
            else "—"
        )
        errors = [p for p in found if p.older.record["outcome"] == "error" and p.newer.record["outcome"] == "error"]
        rows.append(
            [
                text_format.label(fw),
                compared,
                _share(sum(p.outcome_changed for p in found), len(found)) if found else "—",
                _share(sum(p.message_changed for p in errors), len(errors)) if errors else "—",
                _bisect_cell(searched) or "—",
            ]
        )
    if not rows:
        return None
    header = [_("framework"), _("probes on an older release and today's"), _("outcome changed")]
    header += [_("error message changed"), _("release bisects")]
    return Grid(header, rows, text=(0, 1, 4))
