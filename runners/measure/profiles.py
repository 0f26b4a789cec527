"""The run configurations a benchmark profile expands to (``expand``): each one ``RunConfig``, whose hash names its
record. The profiles themselves are read by ``profile_loading``; their per-device fields resolved by
``profile_devices``."""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import json
from collections.abc import Callable
from dataclasses import asdict, dataclass

from fwbench.frameworks import framework, measured_on
from fwbench.records import epoch_train_images
from fwbench.tuning import tuning_environment
from runners.frameworks.precision import REFERENCE_PRECISION
from runners.frameworks.trainer import check_precision
from runners.measure import provenance
from runners.measure.profile_devices import PHYSICAL_DEVICES, data_sizes, precision_plan, resolve_device
from runners.measure.profile_fit import refuse_too_large
from runners.measure.profile_loading import profile
from runners.measure.protocol import TIMING_PROTOCOL
from runners.workloads import DEFAULT_WORKLOAD, WORKLOADS, Workload, workload

#: every workload's data sets (``--dataset``); a configuration's must be its workload's (``RunConfig``)
DATASETS = tuple(dict.fromkeys(d for w in WORKLOADS.values() for d in w.datasets))


@dataclass(frozen=True)
class RunConfig:
    """Everything that defines one benchmark run; its hash names the record."""

    framework: str
    framework_version: str | None  # of the interpreter that runs it (None: not installed there)
    mode: str
    batch_size: int
    seed: int
    profile: str
    dataset: str
    epochs: int
    train_images: int  # requested; the epoch trains the whole batches among them (drop-last)
    test_images: int
    device: str = "auto"
    tuning: tuple[tuple[str, str], ...] = ()  # (variable, value) from fwbench.tuning.tuning_environment()
    sized_for: str | None = None  # "cpu"/"gpu"/"tpu": which of a device-sized profile's sizes these are
    repeat: int = 0  # 0-based: which run of this configuration (``runners matrix --repeats``); not in its identity
    precision: str = "fp32"  # the precision policy asked for (runners.frameworks.precision.PRECISION_POLICIES)
    #: the fewest steps an epoch trains: a batch size whose train_images give fewer trains this many batches
    #: (``epoch_train_images``), so that the clock never times one or two steps, which would time the sync
    min_timed_steps: int = 1
    #: what is trained (``runners.workloads``); ``train_images`` and ``test_images`` count its samples (images, or
    #: the GPT's token sequences)
    workload: str = DEFAULT_WORKLOAD
    #: the timing protocol it is measured under, hashed into its id; None for a record made before ids hashed it
    #: (``generator check`` replays those)
    timing_protocol: int | None = TIMING_PROTOCOL
    size: str | None = None  # the workload's named size (the GPT's ``arch.SIZES``); None: its default
    attention: str | None = None  # its attention path (``runners.workloads.gpt.attention``); None: the precision's

    def __post_init__(self) -> None:
        check_precision(self.precision)
        spec = self.spec
        spec.check_precision(self.precision)
        spec.check_attention(self.attention, self.framework)
        if self.dataset not in spec.datasets:
            raise ValueError(f"dataset {self.dataset!r}: {spec.name} trains on {', '.join(spec.datasets)}")

    @property
    def spec(self) -> Workload:
        """The workload at this configuration's size: what the run trains, counts and records."""
        return workload(self.workload).at(self.size)

    @property
    def config_id(self) -> str:
        """``<framework>-<mode>-<dataset>-bs<batch>-seed<seed>-<hash>``, the hash over every field that defines
        the run, the framework's version and the timing protocol included: runs of two versions, or measured under two
        protocols, never resume or replace each other (an earlier protocol's records stay beside the new ones). The
        same for every repeat of the configuration."""
        fields = asdict(self)
        if self.timing_protocol is None:
            del fields["timing_protocol"]
        del fields["sized_for"]  # follows from the sizes and the device, which are hashed
        del fields["repeat"]  # a repeat is the same configuration again
        if not self.tuning:  # out-of-the-box runs hash as they did before tuning was recorded
            del fields["tuning"]
        if self.precision == REFERENCE_PRECISION:  # and float32 runs as they did before the policy was a field
            del fields["precision"]
        if self.min_timed_steps == 1:  # and runs of a size taken as given as they did before the field
            del fields["min_timed_steps"]
        if self.workload == DEFAULT_WORKLOAD:  # and ResNet-18's as they did before the workload was a field
            del fields["workload"]
        spec = self.spec  # and the default size, and the precision's attention path, as before either was a field
        if spec.model_name == workload(self.workload).model_name:
            del fields["size"]
        if self.attention in (None, spec.attention_path(None, self.precision)):
            del fields["attention"]
        digest = hashlib.sha256(json.dumps(fields, sort_keys=True).encode()).hexdigest()[:8]
        return f"{self.framework}-{self.mode}-{self.dataset}-bs{self.batch_size}-seed{self.seed}-{digest}"

    @property
    def epoch_train_images(self) -> int:
        """The training images the run loads: ``train_images``, raised to ``min_timed_steps`` whole batches."""
        return epoch_train_images(self.train_images, self.min_timed_steps, self.batch_size)

    @property
    def record_id(self) -> str:
        """The record's id and file stem: ``config_id``, with ``-r<repeat>`` after it for a repeat (none for the
        first run, so that records made before repeats keep their names and resume)."""
        return self.config_id + (f"-r{self.repeat}" if self.repeat else "")

    def to_json(self) -> str:
        """The configuration as one line of JSON: the one form in which it reaches the process that runs it
        (``runners run --config-json``), so that the process runs exactly this configuration."""
        return json.dumps(asdict(self), separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> RunConfig:
        """The configuration ``to_json`` wrote; ValueError naming a field that is missing, unknown or of the wrong
        type."""
        values = json.loads(text)
        if not isinstance(values, dict):
            raise ValueError(f"expected a JSON object of RunConfig's fields, got {type(values).__name__}")
        fields = {f.name: f for f in dataclasses.fields(cls)}
        unknown = sorted(values.keys() - fields.keys())
        missing = [name for name, f in fields.items() if f.default is dataclasses.MISSING and name not in values]
        if unknown or missing:
            raise ValueError(f"unknown field {unknown[0]!r}" if unknown else f"missing field {missing[0]!r}")
        tuning = values.get("tuning", [])
        if not (
            isinstance(tuning, list)
            and all(isinstance(p, list) and len(p) == 2 and all(isinstance(x, str) for x in p) for p in tuning)
        ):
            raise ValueError(f"tuning: expected [variable, value] pairs, got {tuning!r}")
        config = cls(**{**values, "tuning": tuple(tuple(pair) for pair in tuning)})
        for name, f in fields.items():
            kinds = JSON_KINDS.get(f.type, object)
            value = getattr(config, name)
            if isinstance(value, bool) or not isinstance(value, kinds):
                raise ValueError(f"{name}: expected {f.type}, got {value!r}")
        return config

    @property
    def label(self) -> str:
        """``torch/compiled bs32 seed0``, with the precision after the batch size unless it is fp32 (``bs32 bf16``),
        `` r1`` after it for a repeat, and the workload before it unless it is ResNet-18 (``gpt torch/compiled …``)."""
        return f"{self._workload_label}{self.framework}/{self.mode} bs{self.batch_size}{self._precision_label} " + (
            f"seed{self.seed}{self._repeat_label}"
        )

    @property
    def versioned_label(self) -> str:
        """The label with the framework's version, for a matrix that runs several versions of one framework."""
        return (
            f"{self._workload_label}{self.framework} {self.framework_version}/{self.mode} "
            f"bs{self.batch_size}{self._precision_label} seed{self.seed}{self._repeat_label}"
        )

    @property
    def _workload_label(self) -> str:
        return "" if self.workload == DEFAULT_WORKLOAD else f"{self.workload} "

    @property
    def _precision_label(self) -> str:
        return "" if self.precision == REFERENCE_PRECISION else f" {self.precision}"

    @property
    def _repeat_label(self) -> str:
        return f" r{self.repeat}" if self.repeat else ""


#: the Python type each annotation of RunConfig's fields stands for in its JSON (``RunConfig.from_json``)
JSON_KINDS = {"str": str, "int": int, "str | None": (str, type(None))}


def given_overrides(overrides: dict) -> dict:
    """The overrides that were given: those whose value is not None."""
    return {k: v for k, v in overrides.items() if v is not None}


def expand(
    name: str,
    version_of: Callable[[str], str | None] = provenance.framework_version,
    versions: dict[str, list[str | None]] | None = None,
    **overrides,
) -> list[RunConfig]:
    """The profile's configurations (framework × mode × precision and batch size (``precision_plan``) × seed) after
    overrides.

    Overrides with value None are ignored; a profile without ``frameworks`` means all of them. Modes a framework
    does not train in (JAX has no eager) are left out. A device-sized profile (quick) takes the sizes of the
    requested device (``data_sizes``); its ``min_timed_steps`` raises them per batch size
    (``RunConfig.epoch_train_images``) unless a ``--train-images`` flag changed them. ``version_of(framework)``
    is the framework's version in the interpreter that will run it (default: this one), part of the configuration;
    ``versions`` lists several versions of a framework instead (``runners matrix --versions``), each a
    configuration of its own. Tuning variables set in the environment (``XLA_FLAGS``, Inductor settings, thread
    counts) become part of every configuration, so a tuned run never resumes, replaces or averages with an
    out-of-the-box one. A profile too large for the device is refused in one line (``profile_fit``).
    """
    chosen = given_overrides(overrides)
    device = resolve_device(chosen.get("device", "auto"))
    refuse_too_large(name, profile(name), device, PHYSICAL_DEVICES)
    spec = {"frameworks": measured_on(device), **profile(name), **chosen}
    train_images, test_images, sized_for = data_sizes(profile(name), chosen)
    size_as_profiled = "train_images" not in chosen or sized_for is not None  # else a flag changed it: as given
    tuning = tuple(tuning_environment().items())
    listed = {key: (versions or {}).get(key) or [version_of(key)] for key in spec["frameworks"]}
    configs = []
    runs = [(policy, batch) for policy, sizes in precision_plan(profile(name), chosen).items() for batch in sizes]
    for key, mode, (precision, batch), seed in itertools.product(
        spec["frameworks"], spec["modes"], runs, spec["seeds"]
    ):
        if mode not in framework(key).training_modes:
            continue
        configs.extend(
            RunConfig(
                framework=key,
                framework_version=version,
                mode=mode,
                batch_size=batch,
                seed=seed,
                profile=name,
                dataset=spec["dataset"],
                epochs=spec["epochs"],
                train_images=train_images,
                test_images=test_images,
                device=spec.get("device", "auto"),
                tuning=tuning,
                sized_for=sized_for,
                precision=precision,
                min_timed_steps=spec.get("min_timed_steps", 1) if size_as_profiled else 1,
                workload=spec.get("workload", DEFAULT_WORKLOAD),
                size=spec.get("size"),
                attention=spec.get("attention"),
            )
            for version in listed[key]
        )
    return configs
