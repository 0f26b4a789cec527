"""Run order: the order a matrix runs its configurations in, and how its lines name them.

A Latin square over the frameworks (``record.RUN_ORDER_SCHEME``; docs/design.md, "Run order"): within each batch
size a round runs one configuration per framework, the first framework shifted by one from one batch size to the next
and from one round of the matrix to the next (``in_round``), so that over as many rounds as there are frameworks each
framework holds each place once. Slow drift of the machine, or what a run leaves to the one after it (heat, a cache),
is then never confounded with a framework.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from runners.measure.profiles import RunConfig
from runners.measure.record import RUN_ORDER_SCHEME


def interleaved_order(configs: list[RunConfig]) -> list[RunConfig]:
    """The order the matrix runs ``configs`` in, its first round (``RUN_ORDER_SCHEME``): batch sizes as given; within
    one, rounds over seeds (then modes, then precisions), each round one configuration per framework; the first
    framework of the rounds rotates by one from one batch size to the next (and from one matrix round to the next:
    ``in_round``).

    Run back to back, one framework's configurations would share whatever the machine went through at that
    time (a neighbour's load, heat, a cache warmed by the previous run); interleaved, such drift spreads over
    all frameworks, and no framework always goes first.
    """

    def first_seen(values) -> dict:
        return {value: index for index, value in enumerate(dict.fromkeys(values))}

    frameworks = first_seen((c.framework, c.framework_version) for c in configs)  # each version takes turns too
    batch_sizes = first_seen(c.batch_size for c in configs)
    seeds, modes = first_seen(c.seed for c in configs), first_seen(c.mode for c in configs)
    precisions = first_seen(c.precision for c in configs)

    def place(config: RunConfig) -> tuple[int, int, int, int, int]:
        rotation = batch_sizes[config.batch_size]
        return (
            rotation,
            seeds[config.seed],
            modes[config.mode],
            precisions[config.precision],
            (frameworks[config.framework, config.framework_version] - rotation) % len(frameworks),
        )

    return sorted(configs, key=place)


def in_round(configs: list[RunConfig], round_index: int) -> list[RunConfig]:
    """``configs`` of one matrix round (repeat ``round_index``), in the matrix's order (``interleaved_order``), with
    the frameworks of each group (one batch size, seed, mode and precision) shifted by ``round_index``: the Latin
    square's row of that round. A group keeps its place; within it the framework that went first in round 0 goes
    last in round 1, among the frameworks the round runs there (an auto repeat may run two of three)."""
    groups: dict[tuple, list[RunConfig]] = {}
    for config in configs:
        groups.setdefault((config.batch_size, config.seed, config.mode, config.precision), []).append(config)
    shifted = []
    for group in groups.values():
        shift = round_index % len(group)
        shifted += group[shift:] + group[:shift]
    return shifted


def order_line(order: list[RunConfig]) -> str:
    """The first runs in the order the matrix makes them, on one line: ``order (…): 1 torch/compiled bs32 seed0,
    2 …``; those at the ends (``at_ends``) first, with their repeats, when others follow them."""
    label, at_end = labeller(order), at_ends(order)
    ends = [config for config in order if at_end(config)]
    others = [config for config in order if not at_end(config)]
    how = RUN_ORDER_SCHEME
    if ends and others:
        sizes = " and ".join(str(size) for size in sorted({config.batch_size for config in ends}))
        how = f"batch {sizes} first, their repeats next, then the others; {how}"
    return f"order ({how}): " + ", ".join(f"{k} {label(c)}" for k, c in enumerate(ends + others, 1))


def labeller(configs: Iterable[RunConfig]) -> Callable[[RunConfig], str]:
    """How the matrix names ``configs`` in its lines: with the framework's version when one framework runs in
    several versions (``--versions``), else the plain label."""
    configs = list(configs)
    several = len({(c.framework, c.framework_version) for c in configs}) > len({c.framework for c in configs})
    return (lambda c: c.versioned_label) if several else (lambda c: c.label)


def at_ends(order: list[RunConfig]):
    """Whether a configuration of ``order`` is at one of the article's two ends (``ends_of``). Their first runs and
    repeats run before the others' so that a budget too short for every configuration decides the ends."""
    ends = ends_of((config.batch_size, config.precision) for config in order)
    return lambda config: (config.batch_size, config.precision) in ends


def ends_of(points: Iterable[tuple[int, str]]) -> set[tuple[int, str]]:
    """The ends among ``points`` (batch size, precision): the smallest and largest batch size in the main precision
    (the one at the most batch sizes; an extra precision such as the quick profile's bf16 at batch 32 is not an
    end). The site names the same ends for the machine that built it."""
    spread: dict[str, set[int]] = {}
    for batch_size, precision in points:
        spread.setdefault(precision, set()).add(batch_size)
    widest = max((len(batch_sizes) for batch_sizes in spread.values()), default=0)
    main = {precision for precision, batch_sizes in spread.items() if len(batch_sizes) == widest}
    sizes = [size for precision in main for size in spread[precision]]
    ends = {min(sizes), max(sizes)} if sizes else set()  # the main precision's: an extra's sizes never shift them
    return {(size, precision) for size in ends for precision in main if size in spread[precision]}


def matrix_plan(order: list[RunConfig]) -> dict:
    """What the matrix of ``order`` plans to run, as every record it writes carries it (``matrix.planned``): each
    configuration's identity and the fields a reader names it by, so that the site can say which of them have no
    run yet on this machine (a budget stopped the matrix before them) without knowing the runners' profiles."""
    return {
        "planned": [
            {
                "config_id": config.config_id,
                "framework": config.framework,
                **({"framework_version": config.framework_version} if config.framework_version else {}),
                "mode": config.mode,
                "batch_size": config.batch_size,
                "precision": config.precision,
                "seed": config.seed,
            }
            for config in order
        ]
    }
