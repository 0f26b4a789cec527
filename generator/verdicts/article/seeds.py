"""The article's ± (2.2, 3.3), one seed run five times, beside fwbench's same-seed repeats, and what fwbench's own ±
is in its records: the run-to-run spread of one seed, or the spread over seeds, as the seeds the records hold say."""

from __future__ import annotations

import statistics
from collections import defaultdict
from typing import Any

from fwbench.frameworks import label
from fwbench.records import find_key
from generator.i18n import N_
from generator.message import Joined, Message, Text, parenthesised
from generator.records.aggregate import config_key
from generator.records.load import Loaded
from generator.verdicts.article import article_frameworks, judgeable_runs, left_out_reason
from generator.verdicts.claims import NOT_COMPARABLE, Claim, bound_reading, within_bound


def _same_seed_spreads(article: dict[str, Any], runs: list[Loaded]) -> dict[str, tuple[float, int]]:
    """framework -> (largest standard deviation in points of final test accuracy among configurations repeated
    with one seed on CIFAR-10, its number of runs); only configurations with the note's minimum of runs."""
    repeats = defaultdict(list)
    for item in judgeable_runs(runs):
        r = item.record
        accuracy = find_key(r, "final_test_accuracy")
        if r["config"]["dataset"] != article["setup"]["dataset"] or accuracy is None:
            continue
        repeats[(config_key(item), r["config"]["seed"])].append(100 * accuracy)
    spreads: dict[str, tuple[float, int]] = {}
    for key, values in repeats.items():
        if len(values) >= article["seeding"]["min_runs"]:
            spread = (statistics.stdev(values), len(values))
            framework = key[0].framework
            spreads[framework] = max(spreads.get(framework, spread), spread)
    return spreads


def _records_spread(runs: list[Loaded]) -> tuple[Text, ...]:
    """What fwbench's ± is in these records: the run-to-run spread of one seed where each configuration ran one,
    the spread over seeds where each ran several, and how many of each where they differ; nothing without runs."""
    seeds = defaultdict(set)
    for item in runs:
        seeds[config_key(item)].add(item.record["config"]["seed"])
    if not seeds:
        return ()
    several = sum(len(found) > 1 for found in seeds.values())
    if not several:
        return (
            Message(
                N_(
                    "each configuration in fwbench's records ran with a single seed, so its ± too is the run-to-run "
                    "spread of one seed: the same kind as the article's"
                )
            ),
        )
    if several == len(seeds):
        return (
            Message(
                N_(
                    "fwbench's records run each configuration with several seeds, so its ± is the spread over seeds: "
                    "a different measure from the article's"
                )
            ),
        )
    return (
        Message(
            N_(
                "of the configurations in fwbench's records, {one} ran with a single seed (their ± the run-to-run "
                "spread of one seed, as the article's) and {several} with several (their ± the spread over seeds, a "
                "different measure)"
            ),
            {"one": len(seeds) - several, "several": several},
        ),
    )


def seed_spread_claim(article: dict[str, Any], runs: list[Loaded]) -> Claim:
    """The article's ± comes from one seed run five times: set beside fwbench's same-seed repeats, if any."""
    seeding, accuracy = article["seeding"], article["accuracy"]
    bound, tolerance = accuracy["stated_std_bound"], accuracy["rounding_tolerance"]
    frameworks = article_frameworks(article)
    spreads = _same_seed_spreads(article, runs)
    seeds = sorted({r.record["config"]["seed"] for r in runs})
    ours: Text
    if spreads:
        found = [fw for fw in frameworks if fw in spreads]
        ours = Joined(tuple(parenthesised(f"{label(fw)} ±{spreads[fw][0]:.2f}", f"n={spreads[fw][1]}") for fw in found))
        largest = max(s for s, _n in spreads.values())
        verdict = within_bound(largest, bound, tolerance)  # at the bound's precision, as its own table's check
        judged: tuple[Text, ...] = (
            Message(
                N_("largest same-seed spread {largest:.2f} points against the bound at its precision: {reading}."),
                {"largest": largest, "reading": bound_reading(bound, tolerance)},
            ),
        )
    else:
        ours = Message(N_("no CIFAR-10 configuration run {runs}+ times with one seed"), {"runs": seeding["min_runs"]})
        if seeds:
            listed = Message(N_("(seeds in the records: {seeds})"), {"seeds": Joined(tuple(map(str, seeds)))})
            ours = Joined((ours, listed), " ")
        verdict, judged = NOT_COMPARABLE, ()
    return Claim(
        section=seeding["section"],
        claim=Message(
            N_("the ± is the spread of {runs} runs with one seed ({seed}), each within {bound} points"),
            {"runs": seeding["runs"], "seed": seeding["seed"], "bound": bound},
        ),
        article=Joined(tuple(f"{label(fw)} ±{accuracy['table'][fw]['std']}" for fw in frameworks)),
        ours=ours,
        verdict=verdict,
        reason=(Joined((*judged, Message(seeding["note"])), " "), *_records_spread(runs), *left_out_reason(runs)),
        conditions=(
            Message(N_("data set")),
            Message(N_("one seed repeated")),
            Message(N_("at least {runs} runs"), {"runs": seeding["min_runs"]}),
        ),
    )
