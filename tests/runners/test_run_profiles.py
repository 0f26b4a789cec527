"""What ``runners run`` is asked to do: device-sized profiles, timing windows, ``--run-position`` and
``--quiet-wait``, a whole configuration as ``--config-json``, and a record builder that needs no framework."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import subprocess
import sys

import pytest

from fwbench.frameworks import measured_on
from runners import cli, run_cli
from runners.executors.local import LocalExecutor
from runners.measure import profile_loading, profiles, provenance, run
from runners.measure.protocol import TIMING_PROTOCOL
from runners.measure.record import RUN_ORDER_SCHEME

GPU = {"device_name": "NVIDIA GeForce RTX 4090", "device_count": 1, "gpu_driver": "550"}


@pytest.fixture
def nvml_sees(monkeypatch):
    """Make NVML see a GPU (or not) for ``device=auto``."""

    def see(gpu: dict | None) -> None:
        monkeypatch.setattr(provenance, "nvidia_info", lambda: gpu)

    return see


@pytest.mark.parametrize(
    "gpu, device, sizes",
    [
        (None, None, (256, 128, "cpu")),
        (GPU, None, (8192, 1024, "gpu")),
        (GPU, "cpu", (256, 128, "cpu")),
        (None, "gpu", (8192, 1024, "gpu")),
    ],
)
def test_quick_is_sized_for_the_requested_device(nvml_sees, gpu, device, sizes):
    nvml_sees(gpu)
    configs = profiles.expand("quick", device=device)
    train, _, sized_for = sizes
    assert {(c.train_images, c.test_images, c.sized_for) for c in configs} == {sizes}
    # the device's size, raised where it would give fewer than min_timed_steps (8) steps
    loaded = {c.batch_size: c.epoch_train_images for c in configs}
    assert loaded == {b: max(train, 8 * b) for b in (32, 64, 128, 256)}
    assert min(c.epoch_train_images // c.batch_size for c in configs) == (32 if sized_for == "gpu" else 8)


def test_a_train_images_flag_is_taken_as_given(nvml_sees):
    nvml_sees(None)
    (config,) = profiles.expand("quick", frameworks=["torch"], batch_sizes=[256], train_images=512)
    assert (config.train_images, config.epoch_train_images, config.min_timed_steps) == (512, 512, 1)


def test_flags_override_the_device_size(nvml_sees):
    nvml_sees(GPU)
    (changed,) = profiles.expand("quick", frameworks=["jax"], batch_sizes=[32], train_images=4096)
    assert (changed.train_images, changed.test_images, changed.sized_for) == (4096, 1024, None)
    # the matrix restates every size to the runs it starts: that is still the GPU's size
    (restated,) = profiles.expand("quick", frameworks=["jax"], batch_sizes=[32], train_images=8192, test_images=1024)
    assert restated.sized_for == "gpu"
    assert restated.record_id == profiles.expand("quick", frameworks=["jax"], batch_sizes=[32])[0].record_id


def test_profiles_inherit_from_their_base():
    loaded = profile_loading.load_profiles()
    assert "base" not in loaded["smoke"] and loaded["smoke"]["modes"] == loaded["quick"]["modes"]
    assert (
        loaded["smoke"]["quiet_wait_seconds"],
        loaded["quick"]["quiet_wait_seconds"],
        loaded["article"]["quiet_wait_seconds"],
    ) == (0, 120, 120)
    (article,) = profiles.expand("article", frameworks=["torch"], modes=["eager"], batch_sizes=[32], seeds=[0])
    assert (article.train_images, article.test_images, article.sized_for, article.epochs) == (50_000, 10_000, None, 5)


def test_the_framework_version_and_the_timing_protocol_are_part_of_the_configuration(nvml_sees):
    nvml_sees(None)

    def jax_config(version: str | None) -> profiles.RunConfig:
        (config,) = profiles.expand("quick", version_of={"jax": version}.get, frameworks=["jax"], batch_sizes=[32])
        return config

    config = jax_config("0.10.2")
    assert config.sized_for == "cpu" and config.framework_version == "0.10.2"
    assert config.record_id == "jax-compiled-synthetic-bs32-seed0-8c86c3d6"  # stable for the same version
    assert jax_config("0.4.26").record_id != config.record_id != jax_config(None).record_id
    assert config.timing_protocol == TIMING_PROTOCOL
    earlier = dataclasses.replace(config, timing_protocol=TIMING_PROTOCOL - 1)  # another configuration
    assert earlier.record_id != config.record_id


def test_a_profile_without_frameworks_runs_every_framework_measured_on_its_device(nvml_sees, monkeypatch):
    nvml_sees(None)
    monkeypatch.setattr(provenance, "tpu_info", lambda: None)
    assert {c.framework for c in profiles.expand("quick")} == set(measured_on("cpu")) == {"torch", "tensorflow", "jax"}
    assert {(c.framework, c.framework_version) for c in profiles.expand("quick")} == {
        (name, provenance.framework_version(name)) for name in measured_on("cpu")
    }  # this interpreter's, by default
    monkeypatch.setattr(provenance, "tpu_info", lambda: {"device_name": "TPU v5 lite", "device_count": 1})
    assert {c.framework for c in profiles.expand("quick")} == {"jax", "torchax"}  # auto: the TPU


@pytest.mark.parametrize(
    "steps, windows",
    [
        (1, [1]),
        (3, [3]),
        (4, [4]),
        (7, [7]),
        (8, [4, 4]),
        (9, [5, 4]),
        (31, [5, 5, 5, 4, 4, 4, 4]),
        (32, [4] * 8),
        (195, [25, 25, 25, 24, 24, 24, 24, 24]),
        (1562, [196, 196] + [195] * 6),
    ],
)
def test_timing_windows_hold_at_least_four_steps(steps, windows):
    assert run.window_sizes(steps) == windows and sum(windows) == steps


class CountingTrainer:
    def __init__(self):
        self.events = []

    def sync(self):
        self.events.append("sync")

    def train_step(self, x, y, lr):
        self.events.append("step")
        return 0.0, 0


def test_timed_epoch_syncs_at_the_end_of_each_window():
    trainer = CountingTrainer()
    _, step_times, outputs = run.timed_epoch(trainer, [(None, None)] * 9, [0.1] * 9)
    assert len(step_times) == 2 and len(outputs) == 9
    assert "".join("s" if e == "step" else "|" for e in trainer.events) == "|sssss|ssss|"


@pytest.mark.parametrize("value", ["0/3", "4/3", "3", "a/b", "2/0", "-1/3"])
def test_a_bad_run_position_exits_2_naming_the_flag(tmp_path, capsys, value):
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["run", "--framework", "jax", "--run-position", value, "--out", str(tmp_path / "out")])
    assert exit_info.value.code == 2
    (err,) = capsys.readouterr().err.splitlines()
    # argparse takes -1/3 for a flag, so the value never reaches the K/N parser: "expected one argument"
    assert "--run-position" in err and ("K/N" in err or value.startswith("-"))
    assert not (tmp_path / "out").exists()


def test_run_flags_reach_the_measurement(monkeypatch, tmp_path):
    seen = {}

    def fake_measure_or_fail(config, data_dir, progress, run_order, quiet_wait_s, compile_cache=None):
        seen.update(config=config, run_order=run_order, quiet_wait_s=quiet_wait_s, compile_cache=compile_cache)
        raise SystemExit(0)  # stop before a record is written

    monkeypatch.setattr(run, "measure_or_fail", fake_measure_or_fail)
    with pytest.raises(SystemExit):
        cli.main(
            [
                "run",
                "--framework",
                "jax",
                "--profile",
                "quick",
                "--device",
                "cpu",
                "--run-position",
                "3/12",
                "--out",
                str(tmp_path),
            ]
        )
    assert seen["run_order"] == {
        "position": 3,
        "total": 12,
        "scheme": RUN_ORDER_SCHEME,
    }
    assert seen["quiet_wait_s"] == 120 and seen["config"].sized_for == "cpu"
    assert seen["compile_cache"] is None  # a fresh temporary directory: a cold compile
    cache = tmp_path / "cache"
    with pytest.raises(SystemExit):
        cli.main(
            ["run", "--framework", "jax", "--quiet-wait", "0", "--compile-cache", str(cache), "--out", str(tmp_path)]
        )
    assert seen["quiet_wait_s"] == 0 and seen["run_order"] is None
    assert seen["compile_cache"] == cache and cache.is_dir()


def test_fp32_hashes_the_fields_it_did_before_the_policy_was_one_and_every_other_precision_is_its_own():
    (config,) = profiles.expand("smoke", frameworks=["jax"])
    assert config.precision == "fp32"
    unhashed = {
        k: v
        for k, v in dataclasses.asdict(config).items()
        if k not in ("sized_for", "repeat", "precision", "min_timed_steps", "workload", "size", "attention")
    }
    del unhashed["tuning"]
    unhashed["timing_protocol"] = TIMING_PROTOCOL
    digest = hashlib.sha256(json.dumps(unhashed, sort_keys=True).encode()).hexdigest()[:8]
    assert config.record_id.endswith(digest), "fp32 runs hash the fields they did before the policy was a field"
    others = [dataclasses.replace(config, precision=p) for p in ("default", "bf16")]
    assert len({c.record_id for c in (config, *others)}) == 3
    assert [c.label for c in (config, *others)] == [
        "jax/compiled bs32 seed0",
        "jax/compiled bs32 default seed0",
        "jax/compiled bs32 bf16 seed0",
    ]
    assert profiles.RunConfig.from_json(others[1].to_json()) == others[1]
    with pytest.raises(ValueError, match=r"precision 'fp16': choose from fp32, default, bf16"):
        dataclasses.replace(config, precision="fp16")
    fields = {**json.loads(config.to_json()), "precision": "float16"}
    with pytest.raises(ValueError, match=r"precision 'float16'"):
        profiles.RunConfig.from_json(json.dumps(fields))


def test_quick_runs_fp32_at_every_batch_size_on_a_cpu_and_bf16_at_batch_32_besides(nvml_sees, monkeypatch):
    nvml_sees(None)
    monkeypatch.setattr(provenance, "tpu_info", lambda: None)
    CPU = measured_on("cpu")
    plan = sorted((c.framework, c.precision, c.batch_size) for c in profiles.expand("quick"))
    assert plan == sorted([(f, "fp32", b) for f in CPU for b in (32, 64, 128, 256)] + [(f, "bf16", 32) for f in CPU])
    nvml_sees(GPU)  # on a GPU, each framework's default (the article's rule), bf16 at 32 besides
    assert {(c.precision, c.batch_size) for c in profiles.expand("quick")} == {
        *(("default", b) for b in (32, 64, 128, 256)),
        ("bf16", 32),
    }
    assert {c.precision for c in profiles.expand("article")} == {"default"}
    assert {c.precision for c in profiles.expand("smoke")} == {"fp32"}


def test_a_precision_or_batch_sizes_flag_runs_exactly_what_it_names_without_the_extra_precisions():
    one = profiles.expand("quick", device="cpu", precision="bf16")
    assert {(c.precision, c.batch_size) for c in one} == {("bf16", b) for b in (32, 64, 128, 256)}
    narrowed = profiles.expand("quick", device="cpu", batch_sizes=[32, 256])
    assert {c.precision for c in narrowed} == {"fp32"}


def test_an_unknown_precision_flag_exits_2_naming_the_choices(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["run", "--framework", "jax", "--precision", "fp16", "--out", str(tmp_path)])
    assert exit_info.value.code == 2
    assert "--precision: invalid choice: 'fp16' (choose from 'fp32', 'default', 'bf16')" in capsys.readouterr().err
    assert not any(tmp_path.iterdir())


def test_runners_run_measures_one_configuration_at_the_precision_asked_for(tmp_path):
    args = cli.build_parser().parse_args(["run", "--framework", "jax", "--profile", "quick", "--out", str(tmp_path)])
    assert run_cli.run_config(args).precision in ("fp32", "default")  # the profile's, without its extra bf16 run
    args = cli.build_parser().parse_args(["run", "--framework", "jax", "--precision", "bf16", "--out", str(tmp_path)])
    assert run_cli.run_config(args).precision == "bf16"


def test_a_configuration_survives_its_json_exactly():
    (config,) = profiles.expand("quick", frameworks=["jax"], batch_sizes=[64], device="cpu")
    tuned = dataclasses.replace(config, tuning=(("XLA_FLAGS", "--xla_cpu_enable_fast_math=false"),))
    for original in (config, tuned):
        again = profiles.RunConfig.from_json(original.to_json())
        assert again == original and again.record_id == original.record_id


@pytest.mark.parametrize(
    "change, error",
    [
        (lambda fields: fields.pop("seed"), "missing field 'seed'"),
        (lambda fields: fields.update(colour="red"), "unknown field 'colour'"),
        (lambda fields: fields.update(seed="0"), "seed: expected int"),
        (lambda fields: fields.update(batch_size=True), "batch_size: expected int"),
        (lambda fields: fields.update(tuning=[["XLA_FLAGS"]]), "tuning: expected [variable, value] pairs"),
    ],
)
def test_a_configuration_json_names_what_is_wrong(change, error):
    (config,) = profiles.expand("smoke", frameworks=["jax"])
    fields = json.loads(config.to_json())
    change(fields)
    with pytest.raises(ValueError) as failure:
        profiles.RunConfig.from_json(json.dumps(fields))
    assert error in str(failure.value)


def test_config_json_is_the_whole_configuration(monkeypatch, tmp_path, capsys):
    seen = {}

    def fake_measure_or_fail(config, data_dir, progress, run_order, quiet_wait_s, compile_cache=None):
        seen.update(config=config, quiet_wait_s=quiet_wait_s)
        raise SystemExit(0)

    monkeypatch.setattr(run, "measure_or_fail", fake_measure_or_fail)
    (config,) = profiles.expand("quick", frameworks=["jax"], batch_sizes=[64], device="cpu", seeds=[3])
    with pytest.raises(SystemExit):
        cli.main(["run", "--config-json", config.to_json(), "--out", str(tmp_path)])
    assert seen == {"config": config, "quiet_wait_s": 120}  # the profile's wait, the configuration as it came

    assert cli.main(["run", "--config-json", config.to_json(), "--seed", "0", "--out", str(tmp_path)]) == 2
    assert "--seed: not with --config-json" in capsys.readouterr().err
    other = dataclasses.replace(config, framework_version="0.0.1")
    assert cli.main(["run", "--config-json", other.to_json(), "--out", str(tmp_path)]) == 2
    assert "--config-json: jax 0.0.1" in capsys.readouterr().err  # the record would claim a version not run
    assert cli.main(["run", "--config-json", "{", "--out", str(tmp_path)]) == 2
    assert "--config-json: " in capsys.readouterr().err
    assert cli.main(["run", "--out", str(tmp_path)]) == 2
    assert "--framework: required" in capsys.readouterr().err
    assert not any(tmp_path.iterdir())


def test_the_matrix_passes_the_configuration_as_its_json(tmp_path):
    (config,) = profiles.expand("smoke", frameworks=["torch"])
    command = LocalExecutor().command(config, (2, 3), tmp_path)
    assert command[3:6] == ["run", "--config-json", config.to_json()]
    assert "--framework" not in command and "--run-position" in command


def test_the_record_builder_imports_no_framework():
    probe = (
        "import sys, runners.measure.record, runners.measure.run, fwbench.upgrade; "
        "print(sorted({'torch', 'tensorflow', 'jax', 'flax'} & set(sys.modules)))"
    )
    assert (
        subprocess.run(
            [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120
        ).stdout.strip()
        == "[]"
    )
