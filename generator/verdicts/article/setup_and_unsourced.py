"""The article's setup and unsourced figures checked, and with them the rows of its remaining figures gathered in
its order: its setup, its 4.1 error messages, its 4.2 line counts, its unsourced share.

Each row is a ``generator.verdicts.claims.Claim`` whose verdict is computed from the figures transcribed in
``data/article_figures.json`` and, where records can speak to them, from the run and probe records. Run
records flagged busy or older (``flags.flags_of``) are listed but never enter a verdict. Setup rows
(versions, GPU stack, data set, seeds) are confirmed when judgeable records were made under the article's
condition and not comparable when they were not: they say how far fwbench's figures are like-for-like,
not whether the article's machine was as described; the seeds' row comes from ``seeds``. The 4.1 rows (messages
and tracebacks) come from ``probes``, the 4.2 rows from ``snippets``. Section 6's Stack Overflow and GitHub figures
are checked against a snapshot by ``ecosystem``; without one, its gap rows, listed here, say why not.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from fwbench.frameworks import label
from generator.i18n import N_
from generator.message import OR, Joined, Message, Text, labelled, parts
from generator.records.flags import FLAGGED_RUNS, flags_of
from generator.records.identity import RESNET18, release, workload_of
from generator.records.load import Loaded, Results
from generator.verdicts.article import article_frameworks, judgeable_runs, left_out_reason
from generator.verdicts.article.ecosystem import ecosystem_gap_claims
from generator.verdicts.article.probes import message_claims, traceback_claims
from generator.verdicts.article.seeds import seed_spread_claim
from generator.verdicts.article.snippets import code_size_claims
from generator.verdicts.claims import CONFIRMED, NOT_COMPARABLE, Claim, own_figures_verdict

#: the claims page's heading for these rows
SCOPE = N_("The article's remaining figures")


def article_claims(article: dict[str, Any], results: Results) -> list[Claim]:
    """Every row of this module for the loaded ``results``, in the article's order; the run rows from the runs of the
    article's ResNet-18 alone (the transformer's are never checked against the article)."""
    runs = [r for r in results.runs if workload_of(r.record) == RESNET18]
    return [
        gpu_mentions_claim(article),
        gpu_stack_claim(article, runs),
        versions_claim(article, runs, results.probes),
        dataset_claim(article, runs),
        seed_spread_claim(article, runs),
        *message_claims(article, results.probes),
        *traceback_claims(article, results.probes),
        *code_size_claims(article),
        *unsourced_claims(article),
        *ecosystem_gap_claims(article, results.latest_snapshot()),
    ]


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
        claim=Message(N_("the GPU the figures are about")),
        article=Message(N_("introduction: {introduction}; setup: {setup}"), gpus),
        ours=Message(N_("the same GPU")) if same else Message(N_("two different GPUs")),
        verdict=own_figures_verdict(same),
        reason=(
            Message(N_("the article's own text"))
            if same
            else Message(
                N_(
                    "the article's own text: the introduction speaks of throughput on the reader's {introduction}, "
                    "but every figure was measured on the {setup}, and none is given for the {introduction}"
                ),
                gpus,
            ),
        ),
        conditions=(Message(N_("the article's own text")),),
    )


def gpu_stack_claim(article: dict[str, Any], runs: list[Loaded]) -> Claim:
    """The article's driver, CUDA and cuDNN beside those of the judgeable GPU runs."""
    stack = article["setup"]
    stated = _stack(stack["gpu_driver"], stack["cuda"], stack["cudnn"])
    gpu = [r for r in judgeable_runs(runs) if (r.record.get("hardware") or {}).get("device_kind") == "gpu"]
    recorded = sorted(
        {(h.get("gpu_driver"), h.get("cuda"), h.get("cudnn")) for h in (r.record["hardware"] for r in gpu)},
        key=str,
    )
    if not recorded:
        return Claim(
            section=stack["section"],
            claim=Message(N_("GPU driver, CUDA and cuDNN")),
            article=stated,
            ours=_no_gpu_run(runs),
            verdict=NOT_COMPARABLE,
            reason=(
                Message(N_("no judgeable run on a GPU recorded its driver, CUDA and cuDNN")),
                *left_out_reason(runs),
            ),
            conditions=(Message(N_("GPU software stack")),),
        )
    same = any(
        driver == stack["gpu_driver"] and _samerelease(cuda, stack["cuda"]) and _samerelease(cudnn, stack["cudnn"])
        for driver, cuda, cudnn in recorded
    )
    return Claim(
        section=stack["section"],
        claim=Message(N_("GPU driver, CUDA and cuDNN")),
        article=stated,
        ours=parts([_stack(d or "?", c or "?", n or "?") for d, c, n in recorded]),
        verdict=CONFIRMED if same else NOT_COMPARABLE,
        reason=(
            Message(N_("a judgeable GPU run used the article's stack"))
            if same
            else Message(N_("the GPU runs used another driver, CUDA or cuDNN (shown as each framework reports them)")),
            *left_out_reason(runs),
        ),
        conditions=(Message(N_("GPU software stack")),),
    )


def _no_gpu_run(runs: list[Loaded]) -> Message:
    """Why no GPU run can speak to the article's stack: GPU runs that are all flagged (``only older records on
    nvidia-h200``), or none at all, with the machines the runs were made on."""
    flagged = [
        r for r in runs if r.record["status"] == "ok" and (r.record.get("hardware") or {}).get("device_kind") == "gpu"
    ]
    if flagged:  # the caller found no judgeable one: every successful GPU run is busy or older
        flags = sorted({f for r in flagged for f in flags_of(r.record)})
        return Message(
            N_("no judgeable GPU run (only {runs} on {machines})"),
            {
                "runs": Joined(tuple(Message(FLAGGED_RUNS[f]) for f in flags), OR),
                "machines": Joined(tuple(sorted({r.machine_id for r in flagged}))),
            },
        )
    machines = sorted({r.machine_id for r in runs})
    if not machines:
        return Message(N_("no GPU run record"))
    return Message(N_("no GPU run record (runs on {machines})"), {"machines": Joined(tuple(machines))})


def _stack(driver: str, cuda: str, cudnn: str) -> Message:
    return Message(N_("driver {driver}, CUDA {cuda}, cuDNN {cudnn}"), {"driver": driver, "cuda": cuda, "cudnn": cudnn})


def _versions_text(items: list[Loaded], frameworks: tuple[str, ...]) -> Joined:
    """``PyTorch 2.2.1 / 2.14.1, JAX 0.4.26``: the versions each framework's records ran."""
    found = defaultdict(set)
    for item in items:
        found[item.record["framework"]["name"]].add(item.record["framework"]["version"])
    return Joined(
        tuple(
            Joined((label(fw), Joined(tuple(_version(v) for v in sorted(found[fw], key=str)), " / ")), " ")
            for fw in frameworks
            if fw in found
        )
    )


def _version(version: str | None) -> Text:
    return version or Message(N_("unknown"))


def versions_claim(article: dict[str, Any], runs: list[Loaded], probes: list[Loaded]) -> Claim:
    """The article's framework versions beside the versions in the records: a statement, not a speed verdict."""
    stack = article["setup"]
    stated = stack["framework_versions"]
    frameworks = article_frameworks(article)
    judged = judgeable_runs(runs) + probes
    matched = [
        fw
        for fw in frameworks
        if any(
            r.record["framework"]["name"] == fw and release(r.record["framework"]["version"]) == release(stated[fw])
            for r in judged
        )
    ]
    kinds = [
        labelled(Message(kind), _versions_text(items, frameworks))
        for kind, items in ((N_("runs"), runs), (N_("probes"), probes))
        if items
    ]
    missing = [label(fw) for fw in frameworks if fw not in matched]
    if not runs and not probes:
        reason = Message(N_("no run or probe records yet"))
    elif missing:
        reason = Message(
            N_(
                "no judgeable record ran the article's release of {frameworks}: the figures here come from other "
                "releases"
            ),
            {"frameworks": Joined(tuple(missing))},
        )
    else:
        reason = Message(N_("every framework has judgeable records at the article's release"))
    return Claim(
        section=stack["section"],
        claim=Message(N_("framework versions (a statement of versions, not a verdict on speed)")),
        article=Joined(tuple(f"{label(fw)} {stated[fw]}" for fw in frameworks)),
        ours=parts(kinds) if kinds else "—",
        verdict=CONFIRMED if not missing else NOT_COMPARABLE,
        reason=(reason, *left_out_reason(runs)),
        conditions=(Message(N_("framework versions")),),
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
        for r in judgeable_runs(runs)
        if r.record["config"]["dataset"] == data["dataset"]
    )
    whole = Message(
        N_("the {total:,} images are the whole set: {train:,} for training, {test:,} for testing"),
        {"total": data["total_images"], "train": split[0], "test": split[1]},
    )
    ours = [
        Message(
            N_("{dataset}: {train} training + {test} test images"),
            {"dataset": Message(name), "train": _count(train), "test": _count(test)},
        )
        for name, train, test in sizes
    ]
    return Claim(
        section=data["section"],
        claim=Message(N_("the data set's size")),
        article=Message(
            N_("CIFAR-10, {classes} classes, {total:,} images of {side}×{side}"),
            {"classes": data["classes"], "total": data["total_images"], "side": data["image_side"]},
        ),
        ours=parts(ours) if ours else Message(N_("no run records")),
        verdict=CONFIRMED if full else NOT_COMPARABLE,
        reason=(
            (Message(N_("{whole}, as the judgeable CIFAR-10 runs used"), {"whole": whole}),)
            if full
            else (whole, Message(N_("no judgeable run used all of CIFAR-10")))
        )
        + left_out_reason(runs),
        conditions=(Message(N_("data set")), Message(N_("training images"))),
    )


def unsourced_claims(article: dict[str, Any]) -> list[Claim]:
    """Figures the article gives without a source: listed, and why nothing can check them."""
    return [
        Claim(
            section=item["section"],
            claim=Message(item["claim"]),
            article=item["figure"],
            ours="—",
            verdict=NOT_COMPARABLE,
            reason=(Message(item["why"]),),
            conditions=(Message(N_("a source for the figure")),),
        )
        for item in article["unsourced"]
    ]
