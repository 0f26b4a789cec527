"""Each caveat once per page: the notices a results table's heading carries (synthetic data, measured on a CPU, float32
on a TPU, one run per configuration, the frameworks not measured), said in full above the first table they apply to
and, above each later one, named by a short link to it.

A caveat is the same one where it says the same thing: its kind and, for the frameworks not measured, which
frameworks (and why). The page's tables are taken in the order the page shows them; the first table a caveat applies
to gets it in full, under an anchor of the page (``caveat-synthetic``, or ``caveat-not-measured-2`` for the second
list of frameworks not measured on that page).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from dataclasses import dataclass

from generator.views.table_view import TableView

SYNTHETIC, ON_CPU, TPU_FLOAT32, SINGLE_RUN = "synthetic", "cpu", "tpu-float32", "single-run"
NOT_TUNED, NOT_HERE, NOT_ON_DEVICE = "not-tuned", "not-measured", "not-on-device"


@dataclass(frozen=True)
class Caveat:
    """A caveat above one table: its kind, its anchor on the page, and whether it is said in full here (the first
    table it applies to) or named by a link to that one."""

    kind: str
    anchor: str
    first: bool


def _applying(view: TableView) -> list[tuple[str, Hashable]]:
    """The caveats of ``view``'s heading in the order it shows them, each with what tells it from another of its
    kind."""
    found: list[tuple[str, Hashable]] = []
    if view.synthetic:
        found.append((SYNTHETIC, None))
    if view.on_cpu:
        found.append((ON_CPU, None))
    if view.float32_on_tpu:
        found.append((TPU_FLOAT32, None))
    if view.single_run:
        found.append((SINGLE_RUN, None))
    if view.not_measured:
        found.append((NOT_TUNED if view.table.setting.tuning else NOT_HERE, tuple(view.not_measured)))
    if view.not_measured_there:
        found.append((NOT_ON_DEVICE, tuple(view.not_measured_there)))
    return found


class PageCaveats:
    """The caveats of a page's tables, decided once for the page: ``of(view)`` for each table's heading."""

    def __init__(self, views: Iterable[TableView]) -> None:
        anchors: dict[tuple[str, Hashable], str] = {}
        per_kind: dict[str, int] = {}
        self._found: dict[int, list[Caveat]] = {}
        for view in views:
            said = []
            for key in _applying(view):
                first = key not in anchors
                if first:
                    per_kind[key[0]] = per_kind.get(key[0], 0) + 1
                    count = per_kind[key[0]]
                    anchors[key] = f"caveat-{key[0]}" + (f"-{count}" if count > 1 else "")
                said.append(Caveat(key[0], anchors[key], first))
            self._found[id(view)] = said

    def of(self, view: TableView) -> list[Caveat]:
        """The caveats above ``view``'s table: in full where it is the first they apply to, else as links."""
        return self._found[id(view)]
