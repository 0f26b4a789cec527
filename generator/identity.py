"""What identifies a configuration: its machine, its setting, the framework at its version, the mode and the
batch size. Runs that share all of these are repeats (seeds) of one configuration."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import Any

from fwbench.frameworks import FRAMEWORKS, TRAINING_MODES
from fwbench.tuning import tuning_of
from generator.i18n import _, ngettext

#: the profile that measures one configuration on several releases of each framework: its tables compare versions
#: (the Versions page), never frameworks, so no other results page shows them
VERSIONS_PROFILE = "versions"


def version_key(version: str) -> tuple:
    """Sort key of a version string: its numbers in order (``2.10.0`` after ``2.9.1``), the text as a tie-break."""
    return tuple(int(n) for n in re.findall(r"\d+", version)), version


def release(version: str | None) -> str | None:
    """The public release of a version: ``2.2.1+cu121`` -> ``2.2.1``."""
    return version.split("+", 1)[0] if version else None


@dataclass(frozen=True, order=True)
class Setting:
    """What must match for runs to share a table: same profile, data, requested training-set size, epochs,
    precision and tuning environment (empty when out of the box).

    The size is ``config.train_images`` (the request), never the images trained per epoch, which drop-last
    makes differ between batch sizes. Older records lack it: they are keyed on ``images_per_epoch`` instead
    and ``older`` keeps them in tables of their own.
    """

    profile: str
    dataset: str
    train_images: int
    epochs: int
    precision: str
    tuning: str = ""  # "NAME=value; …" of the record's config.tuning_environment
    older: bool = False

    @property
    def label(self) -> str:
        """Human-readable one-liner, e.g. ``quick · synthetic · 256 training images · 1 epoch · float32``."""
        epochs = ngettext("{n} epoch", "{n} epochs", self.epochs).format(n=self.epochs)
        images = (_("{n:,} images/epoch (older records)") if self.older else _("{n:,} training images")).format(
            n=self.train_images
        )
        parts = (self.profile, self.dataset, images, epochs, self.precision)
        return " · ".join(parts + ((_("tuned: {variables}").format(variables=self.tuning),) if self.tuning else ()))

    @property
    def slug(self) -> str:
        """File-name-safe id of the setting."""
        text = f"{self.profile}-{self.dataset}-{self.train_images}-{self.epochs}e-{self.precision}"
        slug = re.sub(r"[^a-z0-9.]+", "-", text.lower()).strip("-")  # "float32 (TF32 off)" → "float32-tf32-off"
        slug += "-older" if self.older else ""
        return slug + (f"-tuned-{hashlib.sha256(self.tuning.encode()).hexdigest()[:8]}" if self.tuning else "")


def setting_of(record: dict[str, Any]) -> Setting:
    """The Setting a run record belongs to."""
    config = record["config"]
    older = config.get("train_images") is None  # an upgraded /1 record: only the trained count is known
    images = config["images_per_epoch"] if older else config["train_images"]
    return Setting(
        config["profile"], config["dataset"], images, config["epochs"], config["precision"], tuning_of(record), older
    )


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
