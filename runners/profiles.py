"""Benchmark profiles, stored as data in ``profiles.json``, and the run configurations they expand to."""

from __future__ import annotations

import hashlib
import itertools
import json
from dataclasses import asdict, dataclass
from functools import cache
from pathlib import Path

from runners import provenance
from runners.frameworks import MODES

DATASETS = ("cifar10", "synthetic")
DEVICES = ("auto", "cpu", "gpu")
#: full data-set sizes, used when a profile says null
FULL_SIZES = {"cifar10": (50_000, 10_000), "synthetic": (50_000, 10_000)}


@dataclass(frozen=True)
class RunConfig:
    """Everything that defines one benchmark run; its hash names the record."""

    framework: str
    mode: str
    batch_size: int
    seed: int
    profile: str
    dataset: str
    epochs: int
    train_images: int
    test_images: int
    device: str = "auto"
    tuning: tuple[tuple[str, str], ...] = ()  # (variable, value) from provenance.tuning_environment()

    @property
    def record_id(self) -> str:
        fields = asdict(self)
        if not self.tuning:  # out-of-the-box runs hash as they did before tuning was recorded
            del fields["tuning"]
        digest = hashlib.sha256(json.dumps(fields, sort_keys=True).encode()).hexdigest()[:8]
        return f"{self.framework}-{self.mode}-{self.dataset}-bs{self.batch_size}-seed{self.seed}-{digest}"

    @property
    def label(self) -> str:
        return f"{self.framework}/{self.mode} bs{self.batch_size} seed{self.seed}"


@cache
def load_profiles() -> dict[str, dict]:
    """All profiles by name."""
    raw = json.loads(Path(__file__).with_name("profiles.json").read_text())
    return {name: spec for name, spec in raw.items() if not name.startswith("_")}


def profile(name: str) -> dict:
    """One profile; ValueError naming the profile when unknown."""
    profiles = load_profiles()
    if name not in profiles:
        raise ValueError(f"--profile: unknown profile {name!r}; choose from {', '.join(profiles)}")
    return profiles[name]


def expand(name: str, **overrides) -> list[RunConfig]:
    """The profile's configurations (framework × mode × batch size × seed) after overrides.

    Overrides with value None are ignored. Modes a framework lacks (JAX has no eager) are left out. Tuning
    variables set in the environment (``XLA_FLAGS``, Inductor settings, thread counts) become part of every
    configuration, so a tuned run never resumes, replaces or averages with an out-of-the-box one.
    """
    spec = {**profile(name), **{k: v for k, v in overrides.items() if v is not None}}
    full_train, full_test = FULL_SIZES[spec["dataset"]]
    tuning = tuple(provenance.tuning_environment().items())
    configs = []
    for framework, mode, batch, seed in itertools.product(spec["frameworks"], spec["modes"], spec["batch_sizes"],
                                                          spec["seeds"]):
        if mode not in MODES[framework]:
            continue
        configs.append(RunConfig(framework=framework, mode=mode, batch_size=batch, seed=seed, profile=name,
                                 dataset=spec["dataset"], epochs=spec["epochs"],
                                 train_images=spec["train_images"] or full_train,
                                 test_images=spec["test_images"] or full_test,
                                 device=spec.get("device", "auto"), tuning=tuning))
    return configs
