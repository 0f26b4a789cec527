"""The matrix's ends on a machine, as the runners find them (``runners.matrix.order.ends_of``), and how long ``make
site`` needs for more paired rounds at one of them: each framework's expected seconds of a run from that machine's
records (``runners.matrix.budget.rounds_seconds``, as the matrix estimates its ends), the newest version of each
framework in compiled mode, the mode a lead compares."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from generator.records.aggregate import Table
from generator.records.load import Loaded
from generator.records.replay import run_config
from runners.matrix.budget import rounds_seconds
from runners.matrix.end_costs import minutes_figure
from runners.matrix.order import ends_of


def ends(points: Iterable[tuple[int, str]]) -> list[tuple[int, str]]:
    """The ends among ``points`` (batch size, precision), the smallest batch size first."""
    return sorted(ends_of(points))


def rounds_minutes(table: Table, batch_size: int, rounds: int) -> str:
    """The expected minutes of ``rounds`` more runs of every compiled framework of ``table`` at ``batch_size``, as
    the matrix writes them (``17``, ``3.5``): a framework without a run there is timed from its nearest batch size's
    runs, rescaled."""
    seconds = 0.0
    for framework in dict.fromkeys(column.framework for column in table.columns_in("compiled")):
        cells = {size: table.cell(framework, "compiled", size) for size in table.batch_sizes}
        records = {size: ok for size, cell in cells.items() if cell and (ok := _ok(cell.runs))}
        if not records:
            continue
        config = replace(run_config(next(iter(records.values()))[0]), batch_size=batch_size, repeat=0)
        others = [(run_config(found[0]), found) for size, found in records.items() if size != batch_size]
        seconds += rounds_seconds(config, records.get(batch_size, []), others, rounds)
    return minutes_figure(seconds)


def _ok(runs: list[Loaded]) -> list[dict]:
    """The records of the ok ``runs``: those a run's expected seconds come from."""
    return [item.record for item in runs if item.record["status"] == "ok"]
