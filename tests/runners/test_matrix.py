"""`runners matrix` and `runners run` for real: smoke runs of all three frameworks, a second run given their compile
caches compiling warm, resume after SIGKILL, failures turned into records, and usage errors that write nothing."""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from fwbench.frameworks import FRAMEWORKS
from fwbench.records import read_record, validate
from runners import cli
from runners.envs import interpreters
from runners.envs.interpreters import Installation
from runners.executors.boundary import Finished, Started, Target
from runners.executors.local import COMPILE_CACHE_ENV, LocalExecutor
from runners.matrix import driver as matrix
from runners.matrix import plan_preview, store
from runners.matrix.order import interleaved_order, order_line
from runners.matrix.repeats import Repeats
from runners.measure import compile_cache, math_backend, profiles, provenance, run
from runners.measure.output_lock import LOCK_FILE
from runners.measure.protocol import TIMING_PROTOCOL
from runners.measure.record import RUN_ORDER_SCHEME, record_path
from runners.workloads.resnet18.dataset import DataError

RUNNERS = [sys.executable, "-m", "runners.cli"]
#: each trainer's precision flags under the fp32 policy, as its framework reports them on a CPU
PRECISION_FLAGS = {
    "torch": {
        "torch.backends.cudnn.allow_tf32": False,
        "torch.backends.cuda.matmul.allow_tf32": False,
        "torch.get_float32_matmul_precision": "highest",
        "torch.is_autocast_enabled": False,
        "torch.get_autocast_dtype": None,
        "torch.nn.Parameter.dtype": "float32",
    },
    "tensorflow": {
        "tf.config.experimental.tensor_float_32_execution_enabled": False,
        "keras.Model.dtype_policy": "float32",
        "keras.layers.Conv2D.dtype_policy.compute_dtype": "float32",
        "keras.layers.Conv2D.dtype_policy.variable_dtype": "float32",
        "keras.config.floatx": "float32",
    },
    "jax": {"jax_default_matmul_precision": "highest", "flax.nnx.Conv.dtype": None, "flax.nnx.Param.dtype": "float32"},
}
NO_GPU_PHASE = {"allocator_peak_bytes": None, "nvml_peak_bytes": None}


def runners(*args: str, timeout: float = 900, env_extra: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*RUNNERS, *args], capture_output=True, text=True, timeout=timeout, env={**os.environ, **(env_extra or {})}
    )


def records_in(out: Path) -> dict[str, dict]:
    return {p.stem: read_record(p) for p in sorted(out.glob("*/*.json"))}


def fake_python(tmp_path: Path, body: str) -> Path:
    """An 'interpreter' that passes the framework check but behaves as ``body`` when asked to run."""
    script = tmp_path / "fake-python"
    script.write_text(f'#!/usr/bin/env bash\nif [ "$1" = -c ]; then exit 0; fi\n{body}\n')
    script.chmod(0o755)
    return script


def assert_torch_records_its_math_backend(record: dict) -> None:
    """A real PyTorch run's record carries this PyTorch's math backend and the libraries its process loaded
    (``runners.measure.math_backend``; its parsing is tested in test_math_backend.py)."""
    import torch

    backend = record["software"]["math_backend"]
    assert backend["torch"] == math_backend.torch_backend(torch)
    assert backend["torch"]["blas"] is not None  # every PyTorch wheel names its BLAS
    assert any("gomp" in name for name in backend["loaded_libraries"])  # PyTorch's OpenMP, loaded by the run


@dataclass(frozen=True)
class SmokeMatrix:
    """A finished smoke matrix: its process, its records by file stem, and the folder its runs' compile caches are in
    (its ``COMPILE_CACHE_ENV``)."""

    result: subprocess.CompletedProcess
    records: dict[str, dict]
    caches: Path

    def record_of(self, framework: str) -> dict:
        return next(r for r in self.records.values() if r["framework"]["name"] == framework)


#: smaller than the smoke profile (batch 32, 64 images): what a run costs here is its framework's start-up and compile,
#: which the sizes leave as they are (the batch is ``runners matrix --batch-sizes``, ``runners run --batch-size``)
SMALL_SIZES = ("--train-images", "16", "--test-images", "16")
SMALL_BATCH = "8"


@pytest.fixture(scope="module")
def smoke_matrix(tmp_path_factory) -> SmokeMatrix:
    """One ``runners matrix --profile smoke`` of all three frameworks, for the tests that read its output, its records
    and the compile caches its runs left (cold compiles, PyTorch's above all, are the dearest steps of the suite)."""
    root = tmp_path_factory.mktemp("smoke")
    # caches of its own: another process's smoke run of the same configuration would warm the shared one
    caches = root / "caches"
    out = root / "runs"
    result = runners(
        *("matrix", "--profile", "smoke", "--batch-sizes", SMALL_BATCH, *SMALL_SIZES),
        *("--out", str(out), "--no-progress"),
        env_extra={COMPILE_CACHE_ENV: str(caches)},
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return SmokeMatrix(result, records_in(out), caches)


@pytest.mark.slow
def test_smoke_profile_runs_all_three_frameworks(smoke_matrix):
    result, found = smoke_matrix.result, smoke_matrix.records
    assert sorted(r["framework"]["name"] for r in found.values()) == ["jax", "tensorflow", "torch"]
    for record in found.values():
        assert record["status"] == "ok"
        assert record["model"]["trainable_params"] == 11_173_962
        timing, memory = record["timing"], record["memory"]
        for key in ("compile_seconds", "epoch_seconds", "images_per_second", "step_seconds_median", "step_seconds_p90"):
            assert timing[key] > 0, key
        assert memory["host_peak_rss_bytes"] > 0 and memory["data_bytes"] > 0
        assert memory["nvml_process_peak_bytes"] is None  # no GPU here: unknown, never 0
        assert record["hardware"]["cpu_threads"] >= 1 and record["software"]["packages"]["numpy"]
        assert record["mfu"]["value"] is None  # CPU peak unknown: no guess
        assert 0 <= record["accuracy"]["final_test_accuracy"] <= 1
        # fwbench.run/3: the precision read back from each framework, memory by phase, the load across the clock
        assert record["protocol"] == TIMING_PROTOCOL and record["precision"]["policy"] == "fp32"
        assert record["precision"]["flags"] == PRECISION_FLAGS[record["framework"]["name"]]
        assert memory["phases"] == {"first_step": NO_GPU_PHASE, "timed": NO_GPU_PHASE}
        assert memory["allocator_peak_bytes"] is None and memory["allocator_reserved_bytes"] is None
        assert "summed PSS" in memory["host_peak_basis"] and timing["compile_cache"] == "cold"
        # the venv's frameworks were installed with their bytecode (uv --compile-bytecode), whatever the run writes
        assert record["software"]["bytecode"] == {
            "written": not sys.flags.dont_write_bytecode,
            "framework_had_bytecode": True,
        }
        assert timing["article_epoch_seconds"] > timing["epoch_seconds"]
        assert set(record["load"]["during_clock"]) == {
            "samples",
            "interval_seconds",
            "mean_other_cpu_percent",
            "peak_other_cpu_percent",
        }
        print(record["framework"]["name"], json.dumps({"precision": record["precision"], "load": record["load"]}))
    assert_torch_records_its_math_backend(next(r for r in found.values() if r["framework"]["name"] == "torch"))
    assert "3 ok, 0 failed" in result.stdout
    assert result.stdout.startswith(f"order ({RUN_ORDER_SCHEME}): 1 torch")
    places = sorted((r["config"]["run_order"]["position"], r["framework"]["name"]) for r in found.values())
    assert places == [(1, "torch"), (2, "tensorflow"), (3, "jax")]
    assert "time of the runs made now: " in result.stdout and "timed epochs" in result.stdout


def precompiled_headers(cache: Path) -> dict[Path, int]:
    """Inductor's precompiled C++ headers in ``cache``'s temporary folder, with the time each was written."""
    headers = (cache / compile_cache.TEMPORARY).glob("torchinductor_*/precompiled_headers/*.gch")
    return {path: path.stat().st_mtime_ns for path in headers}


@pytest.mark.slow
@pytest.mark.parametrize("framework, folder", [("torch", "inductor"), ("jax", "jax"), ("tensorflow", "tensorflow")])
def test_a_second_run_with_the_same_cache_compiles_warm(smoke_matrix, tmp_path, framework, folder):
    """The smoke matrix's run of ``framework`` compiled cold into its configuration's cache; ``runners run
    --compile-cache`` of the same configuration, given that directory, compiles warm (PyTorch; JAX and TensorFlow,
    whose cache settings are read on import). The cache's rules are tested in test_compile_cache.py."""
    cold = smoke_matrix.record_of(framework)
    cache = Path(cold["command"][cold["command"].index("--compile-cache") + 1])  # the one the matrix gave the run
    assert cache.is_relative_to(smoke_matrix.caches)
    entries = [path for path in cache.rglob("*") if path.is_file()]
    headers_after_cold = precompiled_headers(cache)
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    done = runners(
        *("run", "--framework", framework, "--batch-size", SMALL_BATCH, *SMALL_SIZES, "--no-progress"),
        *("--compile-cache", str(cache), "--out", str(tmp_path)),
        env_extra={"TMPDIR": str(temporary)},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    warm = read_record(done.stdout.strip())
    assert warm["record_id"] == cold["record_id"], "the same configuration as the matrix's run"
    cold_s, warm_s = cold["timing"]["compile_seconds"], warm["timing"]["compile_seconds"]
    print(
        f"{framework} smoke compile: cold {cold_s:.2f} s, warm {warm_s:.2f} s (warm / cold {warm_s / cold_s:.2f}), "
        f"{len(entries)} cache files after the first run"
    )
    assert cold["timing"]["compile_cache"] == "cold" and warm["timing"]["compile_cache"] == "warm"
    assert entries and any(path.is_relative_to(cache / folder) for path in entries)
    # the run ends without atexit handlers (runners/cli.py), where TensorFlow's autograph deletes its files
    assert not any(temporary.iterdir()), "the run's temporary files are gone"
    if framework == "torch":  # Inductor's precompiled header, in the cache's temporary folder, is not built again
        assert headers_after_cold, "the cold run built its header in the cache's temporary folder"
        assert precompiled_headers(cache) == headers_after_cold, "the warm run found the header the cold run built"


@pytest.mark.slow
def test_sigkilled_matrix_resumes_without_redoing_finished_runs(tmp_path):
    args = [
        *RUNNERS,
        "matrix",
        "--profile",
        "smoke",
        "--frameworks",
        "torch",
        "--modes",
        "eager",  # no compile, small batches, the quickest import: runs of seconds; the matrix is what is tested
        "--batch-sizes",
        "8,16",
        "--train-images",
        "16",
        "--test-images",
        "8",
        "--out",
        str(tmp_path),
        "--no-progress",
    ]
    matrix = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    deadline = time.monotonic() + 600
    while not list(tmp_path.glob("*/*.json")) and time.monotonic() < deadline:
        time.sleep(0.2)
    os.killpg(matrix.pid, signal.SIGKILL)  # the matrix and the run in flight, mid-configuration
    matrix.wait()
    first = records_in(tmp_path)
    assert len(first) == 1, "exactly the finished configuration has a record"
    (path,) = tmp_path.glob("*/*.json")
    # the output folder's lock file stays where its holder was killed, for the next matrix to take over
    left = [p for p in tmp_path.rglob("*") if p.is_file() and p.suffix != ".json" and p.name != LOCK_FILE]
    assert not left, "no temporary files left"
    mtime = path.stat().st_mtime_ns

    result = subprocess.run(args, capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "done before (resumed)" in result.stdout
    assert path.stat().st_mtime_ns == mtime, "the finished configuration was not run again"
    assert [r["status"] for r in records_in(tmp_path).values()] == ["ok", "ok"]


@pytest.mark.slow
def test_crashing_and_hanging_configurations_become_records_and_the_matrix_goes_on(tmp_path):
    crash = fake_python(tmp_path, 'echo "Fatal Python error: Segmentation fault" >&2; kill -SEGV $$')
    out = tmp_path / "runs"
    result = runners(
        "matrix",
        "--profile",
        "smoke",
        "--frameworks",
        "torch,tensorflow",
        "--modes",
        "eager",  # no compile: the real run is seconds
        "--train-images",
        "32",
        "--test-images",
        "16",
        "--python",
        f"torch={crash}",
        "--out",
        str(out),
        "--no-progress",
    )
    assert result.returncode == 1  # a failed configuration makes the exit status non-zero
    found = {r["framework"]["name"]: r for r in records_in(out).values()}
    assert found["torch"]["config"]["run_order"]["position"] == 1
    assert found["tensorflow"]["status"] == "ok", "the matrix went on after the crash"
    failure = found["torch"]["failure"]
    assert found["torch"]["status"] == "error" and failure["exit_code"] == -signal.SIGSEGV
    assert "Segmentation fault" in failure["stderr_tail"] and "signal 11" in failure["message"]

    hang = fake_python(tmp_path, "sleep 60")
    result = runners(
        "matrix",
        "--profile",
        "smoke",
        "--frameworks",
        "jax",
        "--python",
        f"jax={hang}",
        "--timeout",
        "2",
        "--out",
        str(out),
        "--no-progress",
    )
    timed_out = [r for r in records_in(out).values() if r["status"] == "timeout"]
    assert len(timed_out) == 1 and "2 s" in timed_out[0]["failure"]["message"]
    validate(timed_out[0])


def test_framework_missing_from_an_interpreter_is_skipped_not_a_crash(tmp_path):
    bare = fake_python(tmp_path, "exit 1")
    bare.write_text("#!/usr/bin/env bash\nexit 3\n")  # find_spec fails: framework not installed
    result = runners(
        "matrix",
        "--profile",
        "smoke",
        "--frameworks",
        "torch",
        "--python",
        f"torch={bare}",
        "--out",
        str(tmp_path / "runs"),
        "--no-progress",
    )
    assert result.returncode == 0
    assert f"torch is not installed in {bare}" in result.stderr
    assert "1 skipped" in result.stdout and not list((tmp_path / "runs").glob("*/*.json"))


@pytest.mark.parametrize(
    "args, flag",
    [
        (["run", "--framework", "mxnet"], "--framework"),
        (["run", "--framework", "torch", "--mode", "lazy"], "--mode"),
        (["run", "--framework", "torch", "--batch-size", "0"], "--batch-size"),
        (["run", "--framework", "torch", "--batch-size", "x"], "--batch-size"),
        (["run", "--framework", "torch", "--profile", "huge"], "--profile"),
        (["run", "--framework", "jax", "--mode", "eager"], "--mode"),
        (["matrix", "--batch-sizes", "32,-1"], "--batch-sizes"),
        (["matrix", "--frameworks", "torch,caffe"], "--frameworks"),
        (["matrix", "--python", "torch"], "--python"),
        (["matrix", "--timeout", "0"], "--timeout"),
        (["matrix", "--modes", "lazy"], "--modes"),
    ],
)
def test_usage_errors_name_the_flag_exit_2_and_write_nothing(tmp_path, args, flag, capsys):
    out = tmp_path / "out"
    with pytest.raises(SystemExit) as exit_info:
        code = cli.main([*args, "--out", str(out)])
        raise SystemExit(code)
    assert exit_info.value.code == 2
    assert flag in capsys.readouterr().err
    assert not out.exists() or not any(out.rglob("*"))


@pytest.mark.parametrize(
    "args",
    [
        ["run", "--framework", "torch"],
        ["run", "--framework", "torch", "--dry-run"],
        ["matrix", "--profile", "smoke"],
        ["matrix", "--dry-run"],
    ],
)
def test_device_gpu_where_nvml_sees_no_gpu_is_a_usage_error_before_any_run(monkeypatch, tmp_path, args, capsys):
    """Every framework would fail to find a GPU, each run writing a failed record into this machine's results."""
    monkeypatch.setattr(provenance, "nvidia_info", lambda: None)
    out = tmp_path / "out"
    assert cli.main([*args, "--device", "gpu", "--out", str(out)]) == 2
    assert capsys.readouterr().err.splitlines() == [
        f"runners {args[0]}: error: --device gpu: NVML sees no NVIDIA GPU on this machine"
    ]
    assert not out.exists()


def test_unwritable_output_directory_is_a_usage_error(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    assert cli.main(["run", "--framework", "torch", "--out", str(blocker / "runs")]) == 2
    assert "--out" in capsys.readouterr().err


def test_framework_not_installed_is_a_usage_error(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    assert cli.main(["run", "--framework", "tensorflow", "--out", str(tmp_path)]) == 2
    assert "--framework tensorflow: not installed" in capsys.readouterr().err
    assert not any(tmp_path.iterdir())


def test_data_that_cannot_be_had_is_a_failure_not_a_usage_error(monkeypatch, tmp_path, capsys):
    def no_data(*args, **kwargs):
        raise DataError("could not download CIFAR-10")

    monkeypatch.setattr(run, "measure_or_fail", no_data)
    assert cli.main(["run", "--framework", "jax", "--out", str(tmp_path)]) == 1
    assert capsys.readouterr().err == "runners run: error: could not download CIFAR-10\n"


@pytest.mark.parametrize("command", ["run", "matrix", "env", "probes"])
def test_every_subcommand_helps_with_examples(capsys, command):
    with pytest.raises(SystemExit) as exit_info:
        cli.main([command, "--help"])
    assert exit_info.value.code == 0
    help_text = capsys.readouterr().out
    examples = help_text[help_text.index("\nexamples:\n") :].splitlines()[2:]
    assert examples and all(line.startswith(f"  runners {command}") for line in examples)


def test_an_interpreter_is_asked_once_for_its_framework_and_version(tmp_path):
    asked = tmp_path / "asked"
    python = fake_python(tmp_path, "exit 1")
    python.write_text(f'#!/usr/bin/env bash\necho "${{@: -2}}" >> {asked}\necho 9.9.9\n')  # module, distribution
    executor = LocalExecutor(pythons={"jax": str(python)})
    configs = profiles.expand("smoke", version_of=executor.framework_version, frameworks=["jax"])
    assert executor.installation("jax") == Installation(True, "9.9.9") and executor.available("jax")
    assert {c.framework_version for c in configs} == {"9.9.9"}
    assert asked.read_text().splitlines() == ["flax.nnx jax"]


def test_the_version_query_finds_or_imports_and_says_why_not(tmp_path):
    broken = fake_python(tmp_path, "exit 1")
    broken.write_text('#!/usr/bin/env bash\necho "ImportError: libfoo.so.1" >&2; exit 1\n')
    found = interpreters.installation(str(broken), "jax", imports=True)
    assert found == Installation(False, None, "ImportError: libfoo.so.1")
    assert interpreters.installation(str(tmp_path / "none"), "jax").error  # no interpreter: why, not a crash
    here = interpreters.installation(sys.executable, "torch", imports=True)
    assert here == Installation(True, provenance.framework_version("torch"))


def test_the_matrix_asks_for_the_version_the_run_will_record():
    executor = LocalExecutor()  # this interpreter, asked as if it were another one
    for name in FRAMEWORKS:
        assert executor.framework_version(name) == provenance.framework_version(name), name


def test_a_record_of_another_framework_version_is_not_resumed(monkeypatch, tmp_path):
    (config,) = profiles.expand("smoke", version_of={"jax": "0.4.26"}.get, frameworks=["jax"])
    path = record_path(tmp_path, provenance.hardware_for(config.device)["machine_id"], config)
    path.parent.mkdir(parents=True)
    path.write_text("{}")
    found = {"status": "ok", "framework": {"name": "jax", "version": "0.4.26", "mode": "compiled"}}
    monkeypatch.setattr(store, "stored_record", lambda path, kind: found if path.is_file() else None)
    machines = ["another-machine", provenance.hardware_for(config.device)["machine_id"]]
    assert store.completed(config, tmp_path, machines) is found
    found["framework"]["version"] = "0.10.2"
    assert store.completed(config, tmp_path, machines) is None


def test_profiles_expand_and_name_records_stably():
    quick = profiles.expand("quick")
    assert len(quick) == 15 and {c.batch_size for c in quick} == {32, 64, 128, 256}  # 12 fp32, 3 bf16 at 32
    assert {c.mode for c in profiles.expand("article")} == {"compiled", "eager"}
    assert not [c for c in profiles.expand("article") if c.framework == "jax" and c.mode == "eager"]
    again = profiles.expand("quick")
    assert [c.record_id for c in quick] == [c.record_id for c in again]
    assert profiles.expand("quick", epochs=2)[0].record_id != quick[0].record_id


def test_env_prints_provenance_json():
    result = runners("env", env_extra={"XLA_FLAGS": "--xla_cpu_enable_fast_math=false"})
    info = json.loads(result.stdout)
    assert info["tuning_environment"]["XLA_FLAGS"] == "--xla_cpu_enable_fast_math=false"
    assert info["hardware"]["machine_id"] and info["hardware"]["cpu_threads"] >= 1
    assert set(info["software"]) >= {"python", "os", "packages", "git_commit"}


def labels(configs: list[profiles.RunConfig]) -> list[str]:
    return [f"{c.framework} {c.mode} {c.batch_size} {c.seed}" for c in configs]


def test_interleaved_order_is_round_robin_over_frameworks_rotated_per_batch_size():
    quick = profiles.expand("quick")
    order = interleaved_order(quick)
    assert sorted(labels(order)) == sorted(labels(quick))
    assert [(c.batch_size, c.framework) for c in order] == [
        (32, "torch"),
        (32, "tensorflow"),
        (32, "jax"),
        (32, "torch"),  # the bf16 round at 32, after the fp32 one
        (32, "tensorflow"),
        (32, "jax"),
        (64, "tensorflow"),
        (64, "jax"),
        (64, "torch"),
        (128, "jax"),
        (128, "torch"),
        (128, "tensorflow"),
        (256, "torch"),
        (256, "tensorflow"),
        (256, "jax"),
    ]
    # the line gives the first runs as the matrix makes them: the ends' (fp32 at 32 and 256) before the others'
    assert order_line(order) == (
        f"order (batch 32 and 256 first, their repeats next, then the others; {RUN_ORDER_SCHEME}): "
        "1 torch/compiled bs32 seed0, 2 tensorflow/compiled bs32 seed0, 3 jax/compiled bs32 seed0, "
        "4 torch/compiled bs256 seed0, 5 tensorflow/compiled bs256 seed0, 6 jax/compiled bs256 seed0, "
        "7 torch/compiled bs32 bf16 seed0, 8 tensorflow/compiled bs32 bf16 seed0, 9 jax/compiled bs32 bf16 seed0, "
        "10 tensorflow/compiled bs64 seed0, 11 jax/compiled bs64 seed0, 12 torch/compiled bs64 seed0, "
        "13 jax/compiled bs128 seed0, 14 torch/compiled bs128 seed0, 15 tensorflow/compiled bs128 seed0"
    )
    assert order_line(order[:3]).startswith(f"order ({RUN_ORDER_SCHEME}): 1 torch/compiled bs32 seed0, ")


def test_interleaved_order_gives_every_framework_a_turn_per_seed_and_mode():
    order = interleaved_order(profiles.expand("article"))
    assert len(order) == 4 * 5 * (3 + 2)  # JAX has no eager mode
    assert labels(order[:6]) == [
        "torch compiled 32 0",
        "tensorflow compiled 32 0",
        "jax compiled 32 0",
        "torch eager 32 0",
        "tensorflow eager 32 0",
        "torch compiled 32 1",
    ]
    assert labels(order[25:28]) == ["tensorflow compiled 64 0", "jax compiled 64 0", "torch compiled 64 0"]
    assert [c.batch_size for c in order] == sorted(c.batch_size for c in order)  # batch sizes one after another


class FakeExecutor:
    """Records what it was asked to run, one at a time; every run is ok."""

    name = "fake"

    def __init__(self):
        self.calls = []

    def execute(self, jobs):
        for job in jobs:
            self.calls.append((job.config.label, job.position))
            yield Started(job, "")
            record = {"status": "ok", "record_id": job.config.record_id, "hardware": {"machine_id": "m"}}
            yield Finished(job, record, "", 0.0)


def test_each_round_shifts_the_first_framework_so_that_over_three_rounds_each_holds_each_place_once(
    monkeypatch, tmp_path
):
    order = interleaved_order(profiles.expand("smoke"))  # PyTorch, TensorFlow, JAX at batch 32
    monkeypatch.setattr(matrix, "write_record", lambda path, record: None)
    executor = FakeExecutor()
    matrix.run_matrix([(Target(("m",), {}), order)], tmp_path, executor, progress=False, repeats=Repeats(3))
    rounds = [[label.split("/")[0] for label, _position in executor.calls[k : k + 3]] for k in (0, 3, 6)]
    assert rounds == [["torch", "tensorflow", "jax"], ["tensorflow", "jax", "torch"], ["jax", "torch", "tensorflow"]]
    for framework in ("torch", "tensorflow", "jax"):  # a Latin square: first once, second once, last once
        assert sorted(round_.index(framework) for round_ in rounds) == [0, 1, 2]


def test_run_matrix_passes_positions_in_the_full_order_also_when_resuming(monkeypatch, tmp_path, capsys):
    order = interleaved_order(profiles.expand("quick", batch_sizes=[32, 64]))
    resumed = order[0]
    monkeypatch.setattr(matrix, "completed", lambda config, out, ids: {"status": "ok"} if config == resumed else None)
    monkeypatch.setattr(matrix, "of_current_trainer", lambda record: True)  # the resumed run is this trainer's
    monkeypatch.setattr(matrix, "write_record", lambda path, record: None)
    executor = FakeExecutor()
    target = Target(("m",), {"tensorflow": "tensorflow is not installed in /fake/python"})
    results = matrix.run_matrix([(target, order)], tmp_path, executor, progress=True).results
    # each end is made as a part of its own (the cheaper first): the places count the runs planned so far
    assert executor.calls == [
        ("jax/compiled bs32 seed0", (3, 3)),
        ("jax/compiled bs64 seed0", (5, 6)),
        ("torch/compiled bs64 seed0", (6, 6)),
    ]
    assert [r.note for r in results] == ["done before (resumed)", "not installed", "", "not installed", "", ""]
    err = capsys.readouterr().err  # not a terminal: one plain line per configuration, no bar
    assert "\r" not in err
    ends, *lines = err.splitlines()
    assert ends.startswith("both ends decided in ≈")  # said before the first run
    assert lines == [
        "[1/3] torch/compiled bs32 seed0: done before (resumed)",
        "[2/3] tensorflow/compiled bs32 seed0: skipped, tensorflow is not installed in /fake/python",
        "[3/3] jax/compiled bs32 seed0: ok in 0 s",
        "[4/6] tensorflow/compiled bs64 seed0: skipped, tensorflow is not installed in /fake/python",
        "[5/6] jax/compiled bs64 seed0: ok in 0 s",
        "[6/6] torch/compiled bs64 seed0: ok in 0 s",
    ]


def test_the_run_is_told_its_place_in_the_order(tmp_path):
    args_file = tmp_path / "args"
    python = fake_python(tmp_path, f'echo "$@" > {args_file}; exit 1')
    (config,) = profiles.expand("smoke", frameworks=["jax"])
    record = LocalExecutor(pythons={"jax": str(python)}).run(config, position=(3, 12))
    assert "--run-position 3/12" in args_file.read_text()
    assert record["status"] == "error" and "exit code 1" in record["failure"]["message"]
    assert record["config"]["run_order"]["position"] == 3  # also on the record the matrix writes for the run
    assert record["command"][:4] == [str(python), "-m", "runners.cli", "run"]  # what failed: the run's command


@pytest.mark.parametrize(
    "args, said",
    [
        (["--frameworks", "torch,torch"], "argument --frameworks: torch given twice"),
        (["--frameworks", "torch,pytorch"], "argument --frameworks: torch given twice (as torch and pytorch)"),
        (["--batch-sizes", "32,32"], "argument --batch-sizes: 32 given twice"),
        (["--seeds", "0,0"], "argument --seeds: 0 given twice"),
        (["--modes", "compiled,compiled"], "argument --modes: compiled given twice"),
        (["--budget", "nan"], "argument --budget: expected a positive number, got 'nan'"),
        (["--timeout", "inf"], "argument --timeout: expected a positive number, got 'inf'"),
        (["--deadline", "2020-01-01T00:00:00Z"], "argument --deadline: 2020-01-01T00:00:00Z is in the past (now "),
    ],
)
def test_a_value_that_plans_the_same_runs_twice_or_no_limit_is_a_usage_error(tmp_path, args, said, capsys):
    out = tmp_path / "runs"
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["matrix", "--dry-run", *args, "--out", str(out)])
    (line,) = capsys.readouterr().err.splitlines()
    assert exit_info.value.code == 2 and line.startswith(f"runners matrix: error: {said}")
    assert not out.exists()


def test_the_estimate_reads_naturally_when_nothing_is_left_to_make():
    assert plan_preview.estimate_line(0.0, 0, 15, 0) == "estimate: first round: nothing to make (all 15 runs done)"
    assert plan_preview.estimate_line(90.0, 1, 3, 0) == "estimate: first round ≈ 1.5 min (1 of 3 runs to make)"
    assert plan_preview.estimate_line(90.0, 2, 3, 1) == (
        "estimate: first round ≈ 1.5 min (2 of 3 runs to make, 1 of them at the profile's guess: no record of them "
        "on this machine)"
    )


def test_the_list_flags_state_their_defaults(capsys):
    with pytest.raises(SystemExit):
        cli.main(["matrix", "--help"])
    shown = " ".join(capsys.readouterr().out.split())
    batch_sizes = "cpu: 32,64,128,256; gpu: 32,64,128,256; tpu: 64,256,1024"  # quick's are per device
    for flag, quick in (("--modes", "compiled"), ("--batch-sizes", batch_sizes), ("--seeds", "0")):
        assert f"(default: the profile's; quick: {quick})" in shown.split(f" {flag} A,B ")[1].split(" --")[0], flag
