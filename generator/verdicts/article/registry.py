"""The article's ecosystem statements of sections 4.3 and 6.3 that are not figures: judged where the snapshot's PyPI
figures bear on them (whether each framework still releases), "not checkable here" with the reason where they do
not (who backs a framework, old code on today's releases, mobile deployment, the libraries around each framework).

The statements are the article's prose in fwbench's words; the verdicts and what fwbench shows beside them come from
the snapshot alone.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from fwbench.frameworks import label
from generator.i18n import N_
from generator.message import Joined, Message, Text, labelled
from generator.records import ecosystem as eco
from generator.verdicts.claims import CONFIRMED, CONTRADICTED, NOT_COMPARABLE, Claim

#: a framework whose latest final release is older than this, at the snapshot's date, has stopped releasing
RELEASE_WINDOW_DAYS = 365
#: framework -> who the article says stands behind it (6.3), in fwbench's words
BACKING = {
    "torch": N_("Meta's continued investment"),
    "tensorflow": N_("Google's full support"),
    "jax": N_("started by Google, now an independent community"),
}
#: the 4.3 and 6.3 statements no figure of the snapshot bears on: (section, topic, statement, why not checkable here,
#: what would check it)
UNCHECKABLE = (
    (
        "4.3",
        N_("the tools around each framework"),
        N_(
            "Hugging Face Transformers, TorchVision, Lightning and FSDP for PyTorch; TensorBoard, TFX and TensorRT for "
            "TensorFlow; Oryx, Elegy and Equinox for JAX"
        ),
        N_(
            "the snapshot covers each framework's own packages and accelerator builds on PyPI, not these libraries; "
            "the 4.3 toolchains table names each need's documented tool with its source"
        ),
        N_("the libraries' own figures"),
    ),
    (
        "4.3",
        N_("deploying a model to a phone"),
        N_(
            "PyTorch through TorchScript and its mobile optimizer, TensorFlow through TensorFlow Lite, "
            "JAX through ONNX and then TensorFlow Lite"
        ),
        N_("fwbench exports and deploys no model; the 4.3 toolchains table gives each documented route, unmeasured"),
        N_("a measured deployment"),
    ),
    (
        "6.3",
        N_("old code on today's releases"),
        N_(
            "TensorFlow 1.x code still runs, PyTorch 0.4 code mostly has to be rewritten, JAX 0.2 code may not even "
            "find its API names"
        ),
        N_(
            "fwbench runs no code written for those releases; how often an upgrade changed a result or an error "
            "message among the releases it did run is on the 6.3 page"
        ),
        N_("old code run on today's releases"),
    ),
)


def _latest(snapshot: dict[str, Any], framework: str) -> tuple[dict[str, Any], int] | None:
    """The framework's own package's metrics (the package named as the framework) and the days from its latest
    final release to the snapshot; None when the snapshot has no such release date."""
    metrics = eco.registry_packages(snapshot).get(framework)
    released = eco.ok_value(metrics, "current_release_date") if metrics else None
    if released is None:
        return None
    return metrics, (date.fromisoformat(snapshot["date"]) - date.fromisoformat(released)).days


def _releases_per_year(snapshot: dict[str, Any], metrics: dict[str, Any]) -> Text:
    """``2022 20, 2023 9, …``: the package's final releases per year (a year not collected left out)."""
    years = [(year, eco.ok_value(metrics, f"releases_{year}")) for year in eco.release_years(snapshot)]
    return Joined(tuple(f"{year} {count}" for year, count in years if count is not None))


def _backing_claim(framework: str, snapshot: dict[str, Any] | None) -> Claim:
    """Who backs the framework (6.3): not checkable, but whether it still releases is, from PyPI."""
    found = _latest(snapshot, framework) if snapshot else None
    statement = Message(N_("{framework}: still maintained"), {"framework": label(framework)})
    conditions = (Message(N_("a final release on PyPI within {days} days"), {"days": RELEASE_WINDOW_DAYS}),)
    if found is None:
        why = N_("no release date of the package in the snapshot") if snapshot else N_("no ecosystem snapshot")
        return Claim("6.3", statement, Message(BACKING[framework]), "—", NOT_COMPARABLE, (Message(why),), conditions)
    metrics, days = found
    releasing = days <= RELEASE_WINDOW_DAYS
    ours = Message(
        N_(
            "latest release {version} on {day} ({days} days before the snapshot); final releases per year, the last "
            "up to the snapshot: {years}"
        ),
        {
            "version": eco.ok_value(metrics, "current_version"),
            "day": eco.ok_value(metrics, "current_release_date"),
            "days": days,
            "years": _releases_per_year(snapshot, metrics),
        },
    )
    reason = (
        Message(
            N_("it still releases: a final release within a year of the snapshot of {date}")
            if releasing
            else N_("no final release within a year of the snapshot of {date}"),
            {"date": snapshot["date"]},
        ),
        Message(N_("PyPI shows whether releases continue, not who pays for them or what comes in five years")),
    )
    verdict = CONFIRMED if releasing else CONTRADICTED
    return Claim("6.3", statement, Message(BACKING[framework]), ours, verdict, reason, conditions)


def _edge_claim(snapshot: dict[str, Any] | None, frameworks: tuple[str, ...]) -> Claim:
    """4.3's TensorFlow strength at the edge: PyPI's Linux aarch64 wheels beside it, not a verdict."""
    aarch64 = "linux_aarch64"
    coverage = {fw: eco.platform_coverage(snapshot, fw) for fw in frameworks} if snapshot else {}
    ours: Text = Joined(
        tuple(
            f"{label(fw)} {'✓' if covered[aarch64] else '✗'}" for fw, covered in coverage.items() if covered is not None
        )
    )
    return Claim(
        "4.3",
        Message(N_("TensorFlow: deployment to mobile and edge devices")),
        Message(N_("deep experience, more than the others")),
        labelled(Message(eco.PLATFORM_WORDS[aarch64]), ours) if ours.items else "—",
        NOT_COMPARABLE,
        (
            Message(
                N_(
                    "PyPI's wheels are for desktops and servers; mobile and edge runtimes are not distributed there, "
                    "and fwbench deploys no model: the wheels for Linux aarch64 (the boards many edge devices run) "
                    "show where each framework installs, not how well it deploys"
                )
            ),
        ),
        (Message(N_("a measured deployment")),),
    )


def registry_claims(snapshot: dict[str, Any] | None, frameworks: tuple[str, ...]) -> list[Claim]:
    """The article's ecosystem statements of 4.3 and 6.3 for ``frameworks`` (the article's), judged from the
    snapshot's PyPI part where it bears on them; without a snapshot, each says why it is not judged."""
    rows = [_edge_claim(snapshot, frameworks)]
    rows += [_backing_claim(fw, snapshot) for fw in frameworks if fw in BACKING]
    rows += [
        Claim(section, Message(topic), Message(statement), "—", NOT_COMPARABLE, (Message(why),), (Message(needs),))
        for section, topic, statement, why, needs in UNCHECKABLE
    ]
    return rows
