"""benchmarks/idiomatic_loop.py's one-process check (``--device``): the rotation of its rounds, the harness checks it
computes from them, its refusals, and a real run of every loop of JAX and PyTorch via torchax on this CPU."""

from __future__ import annotations

import json
import math
import statistics
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks import idiomatic_loop, minimal_gpt_loops
from runners.measure.harness import harness
from runners.workloads import workload
from runners.workloads.gpt import arch as gpt_arch
from runners.workloads.resnet18 import arch

REPO = Path(__file__).resolve().parent.parent
SCRIPT = REPO / "benchmarks" / "idiomatic_loop.py"

V5E = {"device_kind": "tpu", "device_name": "TPU v5 lite", "machine_id": "tpu-v5-lite-1x1"}
CPU = {"device_kind": "cpu", "device_name": "AMD EPYC", "machine_id": "cpu-amd-epyc-2t-abcdef"}
TRAINER, NNX, LINEN = ("jax", "trainer"), ("jax", "minimal"), ("jax", "linen")
ROUNDS = {TRAINER: [990.0, 1000.0, 1010.0, 1000.0], NNX: [1000.0, 1000.0, 1000.0, 1020.0], LINEN: [1100.0] * 4}
SETUP = {TRAINER: 25.0, NNX: 24.0, LINEN: 23.0}


def checks(precision: str, hardware: dict, rates: dict = ROUNDS) -> dict:
    """The checks of one setting, by reference loop."""
    setting = {"precision": precision, "batch_size": 256, "steps": 100}
    found = idiomatic_loop.checks(setting, {"rates": rates, "setup": SETUP}, hardware, {"jax": "0123456789ab"})
    return {check["reference"]: check for check in found}


def test_each_round_rotates_the_order_by_one_loop_so_every_loop_holds_every_place():
    loops = ["a", "b", "c"]
    orders = [idiomatic_loop.rotated(loops, k) for k in range(3)]
    assert orders == [["a", "b", "c"], ["b", "c", "a"], ["c", "a", "b"]]
    assert all(sorted(order[place] for order in orders) == loops for place in range(3))


def test_one_frameworks_loops_are_closed_before_the_next_frameworks_are_built():
    events = []

    class Loop:  # a loop's life as ``interleave`` sees it: built, a round at a time, closed
        def __init__(self, name):
            self.name, self.setup_seconds, self.rate = name, 1.0, 10.0 * (len(events) + 1)
            events.append(("built", name))

        def round(self):
            events.append(("round", self.name))
            return self.rate

        def close(self):
            events.append(("closed", self.name))

    names = [("jax", "trainer"), ("torchax", "trainer"), ("jax", "linen"), ("torchax", "minimal")]
    result = idiomatic_loop.one_framework_at_a_time(Loop, names, rounds=2)
    jax_done = max(i for i, (what, name) in enumerate(events) if name[0] == "jax")
    torchax_first = min(i for i, (what, name) in enumerate(events) if name[0] == "torchax")
    assert events[jax_done] == ("closed", ("jax", "linen")) and torchax_first == jax_done + 1
    assert [what for what, name in events if name == ("torchax", "minimal")] == ["built", "round", "round", "closed"]
    assert set(result["rates"]) == set(result["setup"]) == set(names)
    assert all(len(rates) == 2 for rates in result["rates"].values())


def test_a_check_per_reference_loop_names_the_trainers_harness_and_divides_by_the_precisions_peak():
    bf16, fp32 = checks("bf16", V5E), checks("fp32", V5E)
    nnx = bf16[idiomatic_loop.REFERENCES["resnet18", "jax", "minimal"]]
    linen = bf16[idiomatic_loop.REFERENCES["resnet18", "jax", "linen"]]
    assert (nnx["framework"], nnx["harness"], nnx["machine_id"], nnx["pairs"]) == (
        "jax",
        "0123456789ab",
        "tpu-v5-lite-1x1",
        4,
    )
    trainer_rate = statistics.median(ROUNDS[TRAINER])
    assert nnx["images_per_second"] == {"trainer": trainer_rate, "reference": 1000.0}
    assert nnx["mfu"]["trainer"] == pytest.approx(3 * arch.flops_per_image() * trainer_rate / 197e12)
    # strict fp32 is six bf16 passes on a TPU: its peak is a sixth, so the same speed is six times the MFU
    fp32_nnx = fp32[idiomatic_loop.REFERENCES["resnet18", "jax", "minimal"]]
    assert fp32_nnx["mfu"]["trainer"] == pytest.approx(6 * nnx["mfu"]["trainer"], rel=1e-3)
    assert linen["ratio"] == pytest.approx(trainer_rate / 1100.0) and linen["setup_seconds"]["reference"] == 23.0
    assert checks("bf16", CPU)[nnx["reference"]]["mfu"] == {"trainer": None, "reference": None}


def test_a_gpt_check_counts_tokens_names_its_size_and_takes_the_gpts_flops():
    gpt = workload("gpt").at("gpt2-small")
    setting = {"precision": "bf16", "batch_size": 8, "steps": 20}
    rates = {("jax", "trainer"): [99_000.0, 100_000.0, 101_000.0], ("jax", "minimal"): [100_000.0] * 3}
    setup = {name: 30.0 for name in rates}
    (check,) = idiomatic_loop.checks(setting, {"rates": rates, "setup": setup}, V5E, {"jax": "0123456789ab"}, gpt)
    assert (check["workload"], check["size"], check["reference"]) == (
        "gpt",
        "gpt2-small",
        idiomatic_loop.REFERENCES["gpt", "jax", "minimal"],
    )
    assert check["tokens_per_second"] == {"trainer": 100_000.0, "reference": 100_000.0}
    assert check["mfu"]["trainer"] == pytest.approx(3 * gpt.flops_per_sample() * 100_000.0 / 197e12)
    assert "100000.0 tokens/s" in idiomatic_loop.printed(check) and "jax gpt bf16 batch 8" in idiomatic_loop.printed(
        check
    )


#: each framework's minimal GPT loop, the mode it is tried in here (PyTorch eager: a cold compile would double the
#: test's time and show nothing more about the loop) and the device it is given, where it takes one
MINIMAL_GPT_LOOPS = {
    "torch": (minimal_gpt_loops.minimal_torch_gpt, "eager", {}),
    "tensorflow": (minimal_gpt_loops.minimal_keras_gpt, "compiled", {}),
    "jax": (minimal_gpt_loops.minimal_jax_gpt, "compiled", {"device": "cpu"}),
    "torchax": (minimal_gpt_loops.minimal_torchax_gpt, "compiled", {"device": "cpu"}),
}


@pytest.mark.parametrize("framework", list(MINIMAL_GPT_LOOPS))
def test_the_minimal_gpt_loops_train_their_model(framework):
    """The references learn: the loss of a batch seen again falls (a loop that trained nothing would time nothing)."""
    tokens, targets = minimal_gpt_loops.token_batches(gpt_arch.TINY, 4, 2)
    build, mode, device = MINIMAL_GPT_LOOPS[framework]
    step, sync = build(tokens, targets, mode, config=gpt_arch.TINY, **device)
    losses = [step(i % 2) for i in range(6)]
    sync()
    first, last = (float(getattr(loss, "_elem", loss)) for loss in (losses[0], losses[4]))  # a torchax tensor's array
    assert last < first


#: builds the minimal torchax loop in a process where nothing imported torchax before it
MINIMAL_TORCHAX_ALONE = """
from benchmarks import idiomatic_loop, minimal_loops
from runners.workloads import workload
images, labels = idiomatic_loop.batches(workload("resnet18"), 2, 1)
minimal_loops.minimal_torchax(images, labels, "compiled", device="cpu")
"""


def test_the_minimal_torchax_loop_builds_in_a_process_of_its_own():
    """On a PyTorch that lacks aten operators torchax names, torchax imports only through fwbench's shim: the
    reference loop makes its environment before it imports torchax, as the trainer does, so that it builds whichever
    loop a process builds first."""
    done = subprocess.run(
        [sys.executable, "-c", MINIMAL_TORCHAX_ALONE], capture_output=True, text=True, cwd=REPO, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]


def test_the_ratio_is_trainer_over_reference_with_the_rounds_interval():
    found = checks("default", V5E)[idiomatic_loop.REFERENCES["resnet18", "jax", "minimal"]]
    assert found["ratio"] == pytest.approx(statistics.median([0.99, 1.0, 1.01, 1000 / 1020]))
    low, high = found["ratio_interval"]
    mean = math.exp(statistics.fmean(math.log(r) for r in found["ratios"]))
    assert low < mean < high and high - low < 0.05
    assert "ratio 0.995, 95 % interval" in idiomatic_loop.printed(found)
    # two rounds give no interval, and the line says none
    two = checks("default", V5E, {name: r[:2] for name, r in ROUNDS.items()})
    two = two[idiomatic_loop.REFERENCES["resnet18", "jax", "minimal"]]
    assert two["ratio_interval"] is None and "interval" not in idiomatic_loop.printed(two)


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--device", "tpu", "--frameworks", "torch"], "unknown value(s) torch; choose from jax, torchax"),
        (["--device", "tpu", "--configs", "torch:eager"], "--configs is for worker processes"),
        (["--device", "tpu", "--workload", "gpt", "--size", "huge"], "--size: size 'huge': gpt has bytes-6x384"),
        (["--profile", "/tmp/anywhere"], "--profile traces the loops of one process: give --device"),
    ],
)
def test_flags_that_do_not_go_together_are_refused_in_one_line(argv, message, capsys):
    with pytest.raises(SystemExit):
        idiomatic_loop.parse_args(argv)
    assert message in capsys.readouterr().err


def test_strict_fp32_runs_last_since_it_sets_jaxs_matmul_precision_for_the_process():
    args = idiomatic_loop.parse_args(["--device", "cpu", "--precisions", "fp32,bf16,default"])
    assert args.precisions == ["bf16", "default", "fp32"]


@pytest.mark.slow
def test_the_loops_run_in_one_process_and_the_checks_come_from_their_rounds(tmp_path):
    out = tmp_path / "harness" / "checks.json"
    command = [sys.executable, str(SCRIPT), "--device", "cpu", "--frameworks", "torchax", "--precisions", "bf16"]
    command += ["--batch-sizes", "4"]
    command += ["--steps", "2", "--rounds", "3", "--min-ratio", "0.01", "--out", str(out)]
    command += ["--profile", str(tmp_path / "profile")]
    done = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    found = json.loads(out.read_text())
    assert found["command"].startswith("python benchmarks/idiomatic_loop.py --device cpu")
    by_reference = {(c["framework"], c["reference"]): c for c in found["checks"]}
    assert set(by_reference) == {("torchax", idiomatic_loop.REFERENCES["resnet18", "torchax", "minimal"])}
    for check in found["checks"]:
        assert (check["device_kind"], check["precision"], check["batch_size"], check["pairs"]) == ("cpu", "bf16", 4, 3)
        rounds = check["rounds"]
        assert min(rounds["trainer"] + rounds["reference"]) > 0
        ratios = [a / b for a, b in zip(rounds["trainer"], rounds["reference"], strict=True)]
        assert check["ratios"] == pytest.approx(ratios) and check["ratio"] == pytest.approx(statistics.median(ratios))
        assert len(check["harness"]) == 12
    assert done.stdout.count(" rounds\n") == len(found["checks"])
    # a round more of each loop under the profiler: a CPU's trace has no device ops, and the report says so
    for loop in ("torchax-trainer", "torchax-minimal"):
        assert f"profile {loop}: no device ops in the trace" in done.stdout
        assert list((tmp_path / "profile" / "resnet18-bf16-4" / loop).glob("plugins/profile/*/*.trace.json.gz"))


@pytest.mark.slow
def test_worker_processes_check_the_workload_and_precision_asked(tmp_path):
    """Without ``--device``: the GPT's trainer and nanoGPT's loop, each in a worker of its own, under bf16."""
    out = tmp_path / "checks.json"
    command = [sys.executable, str(SCRIPT), "--configs", "torch:eager", "--precisions", "bf16", "--batch-size", "2"]
    command += ["--workload", "gpt", "--steps", "1", "--pairs", "1", "--min-ratio", "0.01", "--out", str(out)]
    done = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "gpt-bytes-6x384 batch 2" in done.stdout and "tokens/s" in done.stdout and "torch:eager bf16" in done.stdout
    (check,) = json.loads(out.read_text())["checks"]
    assert (check["framework"], check["mode"], check["precision"], check["batch_size"]) == ("torch", "eager", "bf16", 2)
    assert (check["workload"], check["reference"]) == ("gpt", idiomatic_loop.REFERENCES["gpt", "torch", "minimal"])
    # the GPT trainer's own digest, not ResNet-18's
    digests = {name: harness(workload(name).trainer_module("torch"))["digest"] for name in ("gpt", "resnet18")}
    assert check["harness"] == digests["gpt"] != digests["resnet18"]
    assert min(check["rounds"]["trainer"] + check["rounds"]["reference"]) > 0
