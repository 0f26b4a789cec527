"""What identifies a configuration: its machine, its setting (the timing protocol and the precision policy
included), the framework at its version, the mode and the batch size. Runs that share all of these are repeats
(seeds) of one configuration."""

from __future__ import annotations

import dataclasses
import hashlib
import re
from dataclasses import dataclass
from typing import Any, NamedTuple

from fwbench.frameworks import FRAMEWORKS, TRAINING_MODES
from fwbench.tuning import tuning_of
from fwbench.workload_entry import ARTICLE_WORKLOAD
from fwbench.workload_names import REGISTRY as WORKLOAD_REGISTRY
from generator.i18n import N_, _, ngettext, translate
from generator.spacing import fill

#: the profile that measures one configuration on several releases of each framework: its tables compare versions
#: (the Versions page), never frameworks, so no other results page shows them
VERSIONS_PROFILE = "versions"
#: the precision policies a record's ``config.precision`` names: each framework's default (what the article ran),
#: strict FP32 (TF32 off), bfloat16
DEFAULT_PRECISION, FP32, BF16 = "default", "fp32", "bf16"
#: what records written before the policy was a field said for a policy
LEGACY_PRECISION = {"float32 (TF32 off)": FP32}
#: a policy -> how a table's heading names it (translated where shown); any other is shown as recorded
PRECISION_WORDS = {
    FP32: N_("strict FP32 (TF32 off)"),
    DEFAULT_PRECISION: N_("each framework's default precision"),
    BF16: N_("bfloat16"),
}


class FirstStep(NamedTuple):
    """What a mode's first step costs beyond a steady step (``timing.compile_seconds``), as the pages name it
    (English, translated where shown)."""

    name: str  # in a sentence or a column header
    cold: str  # a table's title, cold compiler caches
    warm: str  # a table's title, warm caches
    with_epochs: str  # what a time to accuracy counts


COMPILE_TIME = FirstStep(
    N_("compile time"),
    N_("Compile time, cold caches"),
    N_("Compile time, warm caches"),
    N_("(seconds: compile plus training epochs, evaluation excluded)"),
)
FIRST_STEP_OVERHEAD = FirstStep(
    N_("first-step overhead"),
    N_("First-step overhead, cold caches"),
    N_("First-step overhead, warm caches"),
    N_("(seconds: first-step overhead plus training epochs, evaluation excluded)"),
)


#: the state of the compiler caches a run found (``fwbench.run_figures.warm_cache``: True, warm), as the pages name it
CACHE_WORDS = {True: N_("warm caches"), False: N_("cold caches")}


def first_step(mode: str) -> FirstStep:
    """How the pages name ``mode``'s first-step figure: a compile time in compiled mode only; eager mode compiles
    nothing, so there its first step's excess over a steady step is set-up overhead."""
    return COMPILE_TIME if mode == "compiled" else FIRST_STEP_OVERHEAD


#: the timing protocol of a record that does not say (written before the protocol had a version)
FIRST_PROTOCOL = 1
#: the article's workload, ResNet-18 on CIFAR-shaped images, and the transformer beside it (runners/workloads): a
#: record's ``model.workload`` (upgraded records say resnet18)
RESNET18, GPT = ARTICLE_WORKLOAD, "gpt"
#: a workload other than ResNet-18 -> how a heading names it (translated where shown): its folder's ``words``
#: (``generator.catalogue`` collects them for the translators)
WORKLOAD_WORDS = {name: entry.words for name, entry in WORKLOAD_REGISTRY.items() if entry.words}


def size_words(workload: str, size: str) -> str:
    """A named size of a workload by its shape, as the default size's words give it: ``GPT (12 × 768, a vocabulary
    of 50,257)``."""
    shape = WORKLOAD_REGISTRY[workload].at(size).arch_config()
    return fill(
        _("GPT ({layers} × {width}, a vocabulary of {vocab:,})"),
        layers=shape.layers,
        width=shape.width,
        vocab=shape.vocab,
    )


def version_key(version: str) -> tuple:
    """Sort key of a version string: its numbers in order (``2.10.0`` after ``2.9.1``), the text as a tie-break."""
    return tuple(int(n) for n in re.findall(r"\d+", version)), version


def precision_policy(record: dict[str, Any]) -> str:
    """The precision policy a run asked for (``config.precision``), older records' wording read as its policy."""
    asked = record["config"]["precision"]
    return LEGACY_PRECISION.get(asked, asked)


def protocol_of(record: dict[str, Any]) -> int:
    """The version of the timing protocol a run was measured under (FIRST_PROTOCOL when the record does not say)."""
    return record.get("protocol") or FIRST_PROTOCOL


def release(version: str | None) -> str | None:
    """The public release of a version: ``2.2.1+cu121`` -> ``2.2.1``."""
    return version.split("+", 1)[0] if version else None


@dataclass(frozen=True, order=True)
class Setting:
    """What must match for runs to share a table: same profile, data, requested training-set size (and the fewest
    steps per epoch that raise it per batch size), epochs, precision policy, tuning environment (empty when out of
    the box) and timing protocol: runs measured under two protocols never pool.

    The size is ``config.train_images`` (the request), never the images trained per epoch, which drop-last
    makes differ between batch sizes.
    """

    profile: str
    dataset: str
    train_images: int
    epochs: int
    precision: str
    tuning: str = ""  # "NAME=value; …" of the record's config.tuning_environment
    protocol: int = FIRST_PROTOCOL
    min_timed_steps: int = 1  # config.min_timed_steps: the batch sizes whose size gave fewer trained this many
    workload: str = RESNET18  # model.workload: runs of two workloads never share a table
    size: str = ""  # config.size, the workload's named size ("": its default): two sizes never share a table

    @property
    def is_article_workload(self) -> bool:
        """Whether its runs trained the article's ResNet-18: only those enter the article's pages and checks."""
        return self.workload == RESNET18

    @property
    def label(self) -> str:
        """Human-readable one-liner naming the precision, e.g. ``quick · synthetic · 256 training images · 1 epoch ·
        strict FP32 (TF32 off)``. The timing protocol is not named: a table of an older one than its machine's
        newest shows every figure as older (``aggregate.summarise``)."""
        epochs = fill(ngettext("{n} epoch", "{n} epochs", self.epochs), n=self.epochs)
        if self.is_article_workload:
            images = fill(_("{n:,} training images"), n=self.train_images)
        else:
            images = fill(_("{n:,} training sequences"), n=self.train_images)
        if self.min_timed_steps > 1:
            images = fill(_("{images} (at least {steps} steps per epoch)"), images=images, steps=self.min_timed_steps)
        precision = translate(PRECISION_WORDS[self.precision]) if self.precision in PRECISION_WORDS else self.precision
        parts = [self.profile, self.dataset, images, epochs, precision]
        if self.size:  # the size's shape: a table's own line states the model
            parts.insert(0, size_words(self.workload, self.size))
        elif not self.is_article_workload:
            named = WORKLOAD_WORDS.get(self.workload)
            parts.insert(0, translate(named) if named else self.workload)
        if self.tuning:
            parts.append(fill(_("tuned: {variables}"), variables=self.tuning))
        return " · ".join(parts)

    def sort_key(self) -> tuple:
        """The order tables are shown in: the fields in order, the precision policies as ``PRECISION_WORDS`` lists
        them (strict FP32, the default, bf16) rather than alphabetically, so a machine's main table comes first."""
        rank = (
            list(PRECISION_WORDS).index(self.precision) if self.precision in PRECISION_WORDS else len(PRECISION_WORDS)
        )
        fields = dataclasses.astuple(self)
        return (*fields[:4], rank, *fields[4:])

    @property
    def slug(self) -> str:
        """File-name-safe id of the setting."""
        text = f"{self.profile}-{self.dataset}-{self.train_images}-{self.epochs}e-{self.precision}"
        slug = re.sub(r"[^a-z0-9.]+", "-", text.lower()).strip("-")  # "bf16 (mixed)" → "bf16-mixed"
        slug += f"-p{self.protocol}" if self.protocol != FIRST_PROTOCOL else ""
        slug += f"-min{self.min_timed_steps}" if self.min_timed_steps > 1 else ""
        slug += "" if self.is_article_workload else f"-{self.workload}"
        slug += f"-{self.size}" if self.size else ""
        return slug + (f"-tuned-{hashlib.sha256(self.tuning.encode()).hexdigest()[:8]}" if self.tuning else "")


def setting_of(record: dict[str, Any]) -> Setting:
    """The Setting a run record belongs to."""
    config = record["config"]
    return Setting(
        config["profile"],
        config["dataset"],
        config["train_images"],
        config["epochs"],
        precision_policy(record),
        tuning_of(record),
        protocol_of(record),
        config.get("min_timed_steps", 1),
        workload_of(record),
        config.get("size") or "",
    )


def workload_of(record: dict[str, Any]) -> str:
    """What a run trained (``model.workload``): ResNet-18 where the record does not say (written before the GPT)."""
    return (record.get("model") or {}).get("workload") or RESNET18


@dataclass(frozen=True, order=True)
class Column:
    """One framework at one version in one mode: a column of a results table."""

    framework: str
    version: str
    mode: str

    def sort_key(self) -> tuple:
        """Framework order of the registry, then version, then mode (compiled first)."""
        return FRAMEWORKS.index(self.framework), version_key(self.version), TRAINING_MODES.index(self.mode)


@dataclass(frozen=True, order=True)
class ConfigKey:
    """One configuration: repeats (seeds) of it are summarised together."""

    machine_id: str
    setting: Setting
    framework: str
    version: str
    mode: str
    batch_size: int

    @property
    def column(self) -> Column:
        """The table column this configuration sits in."""
        return Column(self.framework, self.version, self.mode)
