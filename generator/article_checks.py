"""The article's remaining figures: its setup, its 4.1 error messages, its 4.2 line counts, its unsourced share.

Each row is a ``generator.claims.Claim`` whose verdict is computed from the figures transcribed in
``data/article_figures.json`` and, where records can speak to them, from the run and probe records. Run
records flagged busy or older (``aggregate.flags_of``) are listed but never enter a verdict. Setup rows
(versions, GPU stack, data set, seeds) are confirmed when judgeable records were made under the article's
condition and not comparable when they were not: they say how far fwbench's figures are like-for-like,
not whether the article's machine was as described. The 4.1 rows (messages and tracebacks) come
from ``probe_claims``, the 4.2 rows from ``snippet_claims``. Section 6's Stack Overflow and GitHub figures are
checked against a snapshot by ``claims.ecosystem_claims``; without one, the rows here say why not.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from typing import Any

from fwbench.frameworks import FRAMEWORKS
from fwbench.records import find_key
from generator import fmt
from generator.aggregate import flags_of
from generator.claims import CONFIRMED, CONTRADICTED, NOT_COMPARABLE, Claim
from generator.i18n import N_, _, ngettext, part_separator
from generator.identity import release
from generator.load import Loaded, Results
from generator.probe_claims import message_claims, traceback_claims
from generator.snippet_claims import code_size_claims

#: the claims page's heading for these rows
SCOPE = N_("The article's remaining figures")


def article_claims(article: dict[str, Any], results: Results) -> list[Claim]:
    """Every row of this module for the loaded ``results``, in the article's order."""
    return [
        gpu_mentions_claim(article),
        gpu_stack_claim(article, results.runs),
        versions_claim(article, results.runs, results.probes),
        dataset_claim(article, results.runs),
        seed_spread_claim(article, results.runs),
        *message_claims(article, results.probes),
        *traceback_claims(article, results.probes),
        *code_size_claims(article),
        *unsourced_claims(article),
        *ecosystem_gap_claims(article, results.latest_snapshot()),
    ]


def _judgeable(runs: list[Loaded]) -> list[Loaded]:
    """Successful run records that may enter a verdict: neither busy nor older."""
    return [r for r in runs if r.record["status"] == "ok" and not flags_of(r.record)]


def _left_out(runs: list[Loaded]) -> str:
    flagged = sum(1 for r in runs if flags_of(r.record))
    if not flagged:
        return ""
    return part_separator() + ngettext(
        "{n} flagged run record (busy or older) listed but left out of the verdict",
        "{n} flagged run records (busy or older) listed but left out of the verdict",
        flagged,
    ).format(n=flagged)


def _samerelease(recorded: str | None, stated: str) -> bool:
    """Whether ``recorded`` is the release ``stated`` (``12.2`` matches ``12.2`` and ``12.2.1``)."""
    recorded = release(recorded)
    return recorded is not None and (recorded == stated or recorded.startswith(stated + "."))


def gpu_mentions_claim(article: dict[str, Any]) -> Claim:
    """Section 1 speaks of a 3090, section 2.1 measured on a 4090: an internal inconsistency."""
    gpus = article["gpu_mentions"]
    same = gpus["introduction"] == gpus["setup"]
    return Claim(
        section=gpus["section"],
        claim=_("the GPU the figures are about"),
        article=_("introduction: {introduction}; setup: {setup}").format(**gpus),
        ours=_("the same GPU") if same else _("two different GPUs"),
        verdict=CONFIRMED if same else CONTRADICTED,
        reason=_("the article's own text")
        if same
        else _(
            "the article's own text: the introduction speaks of throughput on the reader's {introduction}, but every "
            "figure was measured on the {setup}, and none is given for the {introduction}"
        ).format(**gpus),
        conditions=(_("the article's own text"),),
    )


def gpu_stack_claim(article: dict[str, Any], runs: list[Loaded]) -> Claim:
    """The article's driver, CUDA and cuDNN beside those of the judgeable GPU runs."""
    stack = article["setup"]
    stated = _("driver {driver}, CUDA {cuda}, cuDNN {cudnn}").format(
        driver=stack["gpu_driver"], cuda=stack["cuda"], cudnn=stack["cudnn"]
    )
    gpu = [r for r in _judgeable(runs) if (r.record.get("hardware") or {}).get("device_kind") == "gpu"]
    recorded = sorted(
        {(h.get("gpu_driver"), h.get("cuda"), h.get("cudnn")) for h in (r.record["hardware"] for r in gpu)},
        key=str,
    )
    if not recorded:
        machines = sorted({r.machine_id for r in runs})
        return Claim(
            section=stack["section"],
            claim=_("GPU driver, CUDA and cuDNN"),
            article=stated,
            ours=_("no GPU run record (runs on {machines})").format(machines=", ".join(machines))
            if machines
            else _("no GPU run record"),
            verdict=NOT_COMPARABLE,
            reason=_("no judgeable run on a GPU recorded its driver, CUDA and cuDNN") + _left_out(runs),
            conditions=(_("GPU software stack"),),
        )
    same = any(
        driver == stack["gpu_driver"] and _samerelease(cuda, stack["cuda"]) and _samerelease(cudnn, stack["cudnn"])
        for driver, cuda, cudnn in recorded
    )
    return Claim(
        section=stack["section"],
        claim=_("GPU driver, CUDA and cuDNN"),
        article=stated,
        ours=part_separator().join(
            _("driver {driver}, CUDA {cuda}, cuDNN {cudnn}").format(driver=d or "?", cuda=c or "?", cudnn=n or "?")
            for d, c, n in recorded
        ),
        verdict=CONFIRMED if same else NOT_COMPARABLE,
        reason=(
            _("a judgeable GPU run used the article's stack")
            if same
            else _("the GPU runs used another driver, CUDA or cuDNN (shown as each framework reports them)")
        )
        + _left_out(runs),
        conditions=(_("GPU software stack"),),
    )


def _versions_text(items: list[Loaded]) -> str:
    found = defaultdict(set)
    for item in items:
        found[item.record["framework"]["name"]].add(item.record["framework"]["version"] or _("unknown"))
    return ", ".join(f"{fmt.label(fw)} {' / '.join(sorted(found[fw]))}" for fw in FRAMEWORKS if fw in found)


def versions_claim(article: dict[str, Any], runs: list[Loaded], probes: list[Loaded]) -> Claim:
    """The article's framework versions beside the versions in the records: a statement, not a speed verdict."""
    stack = article["setup"]
    stated = stack["framework_versions"]
    judged = _judgeable(runs) + probes
    matched = [
        fw
        for fw in FRAMEWORKS
        if any(
            r.record["framework"]["name"] == fw and release(r.record["framework"]["version"]) == release(stated[fw])
            for r in judged
        )
    ]
    ours = part_separator().join(
        f"{kind}: {_versions_text(items)}" for kind, items in ((_("runs"), runs), (_("probes"), probes)) if items
    )
    missing = [fmt.label(fw) for fw in FRAMEWORKS if fw not in matched]
    if not runs and not probes:
        reason = _("no run or probe records yet")
    elif missing:
        reason = _(
            "no judgeable record ran the article's release of {frameworks}: the figures here come from other releases"
        ).format(frameworks=", ".join(missing))
    else:
        reason = _("every framework has judgeable records at the article's release")
    return Claim(
        section=stack["section"],
        claim=_("framework versions (a statement of versions, not a verdict on speed)"),
        article=", ".join(f"{fmt.label(fw)} {stated[fw]}" for fw in FRAMEWORKS),
        ours=ours or "—",
        verdict=CONFIRMED if not missing else NOT_COMPARABLE,
        reason=reason + _left_out(runs),
        conditions=(_("framework versions"),),
    )


def _count(value: int | None) -> str:
    return "?" if value is None else f"{value:,}"


def dataset_claim(article: dict[str, Any], runs: list[Loaded]) -> Claim:
    """CIFAR-10's 60,000 images: the records' training and test sets beside the article's figure."""
    data = article["setup"]
    split = (data["train_images"], data["test_images"])
    sizes = sorted(
        {
            (c["dataset"], c.get("train_images") or c.get("images_per_epoch"), c.get("test_images"))
            for c in (r.record["config"] for r in runs)
        },
        key=str,
    )
    full = any(
        (r.record["config"].get("train_images"), r.record["config"].get("test_images")) == split
        for r in _judgeable(runs)
        if r.record["config"]["dataset"] == data["dataset"]
    )
    whole = _("the {total:,} images are the whole set: {train:,} for training, {test:,} for testing").format(
        total=data["total_images"], train=split[0], test=split[1]
    )
    return Claim(
        section=data["section"],
        claim=_("the data set's size"),
        article=_("CIFAR-10, {classes} classes, {total:,} images of {side}×{side}").format(
            classes=data["classes"], total=data["total_images"], side=data["image_side"]
        ),
        ours=part_separator().join(
            _("{dataset}: {train} training + {test} test images").format(
                dataset=name, train=_count(train), test=_count(test)
            )
            for name, train, test in sizes
        )
        or _("no run records"),
        verdict=CONFIRMED if full else NOT_COMPARABLE,
        reason=(
            _("{whole}, as the judgeable CIFAR-10 runs used").format(whole=whole)
            if full
            else part_separator().join((whole, _("no judgeable run used all of CIFAR-10")))
        )
        + _left_out(runs),
        conditions=(_("data set"), _("training images")),
    )


def _same_seed_spreads(article: dict[str, Any], runs: list[Loaded]) -> dict[str, tuple[float, int]]:
    """framework -> (largest standard deviation in points of final test accuracy among configurations repeated
    with one seed on CIFAR-10, its number of runs); only configurations with the note's minimum of runs."""
    repeats = defaultdict(list)
    for item in _judgeable(runs):
        r = item.record
        accuracy = find_key(r, "final_test_accuracy")
        if r["config"]["dataset"] != article["setup"]["dataset"] or accuracy is None:
            continue
        config = r["config"]
        key = (
            item.machine_id,
            r["framework"]["name"],
            r["framework"]["version"],
            r["framework"]["mode"],
            config["batch_size"],
            config.get("train_images"),
            config["epochs"],
            config["seed"],
        )
        repeats[key].append(100 * accuracy)
    spreads: dict[str, tuple[float, int]] = {}
    for key, values in repeats.items():
        if len(values) >= article["seeding"]["min_runs"]:
            spread = (statistics.stdev(values), len(values))
            spreads[key[1]] = max(spreads.get(key[1], spread), spread)
    return spreads


def seed_spread_claim(article: dict[str, Any], runs: list[Loaded]) -> Claim:
    """The article's ± comes from one seed run five times: set beside fwbench's same-seed repeats, if any."""
    seeding, accuracy = article["seeding"], article["accuracy"]
    bound = accuracy["stated_std_bound"]
    spreads = _same_seed_spreads(article, runs)
    seeds = sorted({r.record["config"]["seed"] for r in runs})
    if spreads:
        ours = ", ".join(
            f"{fmt.label(fw)} ±{spreads[fw][0]:.2f} (n={spreads[fw][1]})" for fw in FRAMEWORKS if fw in spreads
        )
        largest = max(s for s, _n in spreads.values())
        verdict = CONFIRMED if largest <= bound else CONTRADICTED
        judged = (
            _("largest same-seed spread {largest:.2f} points against the stated {bound}.").format(
                largest=largest, bound=bound
            )
            + " "
        )
    else:
        ours = _("no CIFAR-10 configuration run {runs}+ times with one seed").format(runs=seeding["min_runs"]) + (
            " " + _("(seeds in the records: {seeds})").format(seeds=", ".join(map(str, seeds))) if seeds else ""
        )
        verdict, judged = NOT_COMPARABLE, ""
    return Claim(
        section=seeding["section"],
        claim=_("the ± is the spread of {runs} runs with one seed ({seed}), each within {bound} points").format(
            runs=seeding["runs"], seed=seeding["seed"], bound=bound
        ),
        article=", ".join(f"{fmt.label(fw)} ±{accuracy['table'][fw]['std']}" for fw in FRAMEWORKS),
        ours=ours,
        verdict=verdict,
        reason=judged + seeding["note"] + _left_out(runs),
        conditions=(_("data set"), _("one seed repeated"), _("at least {runs} runs").format(runs=seeding["min_runs"])),
    )


def unsourced_claims(article: dict[str, Any]) -> list[Claim]:
    """Figures the article gives without a source: listed, and why nothing can check them."""
    return [
        Claim(
            section=item["section"],
            claim=item["claim"],
            article=item["figure"],
            ours="—",
            verdict=NOT_COMPARABLE,
            reason=item["why"],
            conditions=(_("a source for the figure"),),
        )
        for item in article["unsourced"]
    ]


def ecosystem_gap_claims(article: dict[str, Any], snapshot: Loaded | None) -> list[Claim]:
    """Without an ecosystem snapshot, one row per figure group of section 6 saying it cannot be checked yet."""
    if snapshot is not None:
        return []  # claims.ecosystem_claims checks them against the snapshot
    so, stars = article["stackoverflow"], article["star_growth"]
    groups = (
        (so["section"], _("Stack Overflow questions in the past year"), so["questions"], "{:,}+"),
        (
            so["section"],
            _("time to a first answer on Stack Overflow"),
            so["first_answer_mean_minutes"],
            _("{} min (mean)"),
        ),
        (stars["section"], _("GitHub star growth per year"), stars["percent_per_year"], "{} %"),
    )
    return [
        Claim(
            section=section,
            claim=claim,
            article=", ".join(f"[{subject}] {form.format(value)}" for subject, value in figures.items()),
            ours="—",
            verdict=NOT_COMPARABLE,
            reason=_(
                "no snapshot: no ecosystem snapshot under results/ecosystem/ to compare with "
                "(`ecosystem collect --out results/ecosystem` makes one)"
            ),
            conditions=(_("an ecosystem snapshot"),),
        )
        for section, claim, figures, form in groups
    ]
