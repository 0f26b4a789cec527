"""A Markdown table's content — header and rows of cell text — built in Python, written by one template macro.

Results tables have a row per batch size and a column per framework (at its version) in one mode, so that
they stay narrow enough for a phone; modes go into tabs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from generator.i18n import _
from generator.records.aggregate import Summary, Table


@dataclass(frozen=True)
class Grid:
    """A table: the header's cells, the rows' cells, and which columns hold text (left-aligned; a negative index
    counts from the end) rather than figures (right-aligned)."""

    header: list[str]
    rows: list[list[str]]
    text: tuple[int, ...] = (0,)

    @property
    def align(self) -> list[str]:
        """The Markdown alignment row's cells: text left, figures right."""
        count = len(self.header)
        return [":--" if i in self.text or i - count in self.text else "--:" for i in range(count)]


def batch_grid(table: Table, mode: str, cell: Callable[[Summary | None], str]) -> Grid:
    """A row per batch size, a column per framework (and version) in ``mode``, each cell written by ``cell``."""
    columns = table.columns_in(mode)
    rows = [[str(bs), *(cell(table.at(c, bs)) for c in columns)] for bs in table.batch_sizes]
    return Grid([_("batch"), *(table.column_label(c) for c in columns)], rows)
