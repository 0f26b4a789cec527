"""What ``make site`` runs to benchmark (``runners benchmark-script``), as a shell script: on an NVIDIA machine the CUDA
environments (``runners envs build --device gpu``) and the quick matrix on the GPU through them; on a TPU VM JAX's
TPU build and torchax installed into this interpreter and the quick matrix on the TPU (JAX and PyTorch via torchax);
elsewhere the quick matrix on the CPU in this interpreter. Each command's failure is said and passed over: a failed
configuration is a record too, and the site is built all the same. On the GPU the matrix runs the frameworks whose
environment built (an interpreter is there), so one framework without a CUDA build for this driver leaves the
others' answer standing.
"""

from __future__ import annotations

import shlex
import time
from pathlib import Path

from fwbench.frameworks import measured_on
from fwbench.timestamps import utc_iso_seconds
from runners.envs import gpu as envs_gpu
from runners.envs.build import interpreter
from runners.measure.provenance import hardware_for, machine_id
from runners.workloads import DEFAULT_WORKLOAD, WORKLOADS

MATRIX_FAILED = "runners matrix: some configurations failed; their records say why"
TPU_SETUP_FAILED = (
    "uv pip install .[tpu]: JAX's TPU build or torchax did not install (why: above); the matrix runs anyway"
)
#: what a TPU VM installs into the interpreter (pyproject.toml's extra), with the pins of the committed records
TPU_SETUP = ["uv", "pip", "install", "--quiet", "--constraint", "constraints.txt", "-e", ".[tpu]"]
BUILD_FAILED = "runners envs build: an environment failed to build (why: above); the GPU matrix runs the others"
NONE_BUILT = "runners envs build: no CUDA environment was built: nothing runs on the GPU"
#: a matrix this close to its deadline when its turn comes starts no run: it is not started (its own start-up would
#: take some of it, and it refuses a deadline already past)
LAST_SECONDS = 60
DEADLINE_PASSED = (
    f"runners matrix: not started, less than {LAST_SECONDS} s were left before its deadline (what ran before it took "
    "the time: raise SITE_MINUTES)"
)


def script_line(command: list[str], failed: str) -> str:
    """One line of the script: ``command``, and ``failed`` echoed when it fails."""
    return f"{shlex.join(command)} || echo {shlex.quote(failed)}"


def deadline_guarded(end: float | None, line: str) -> str:
    """``line`` run only while the clock is ``LAST_SECONDS`` or more before ``end`` (Unix seconds; None: always),
    else ``DEADLINE_PASSED`` echoed: the set-up and the CUDA builds before a matrix can use up its time."""
    if end is None:
        return line
    latest = int(end) - LAST_SECONDS
    return f'if [ "$(date +%s)" -le {latest} ]; then {line}; else echo {shlex.quote(DEADLINE_PASSED)}; fi'


def workloads_line(workloads: tuple[str, ...]) -> str:
    """The script's comment naming the workloads it runs and how to add the others (``make site`` says which)."""
    others = [w for w in WORKLOADS if w not in workloads]
    line = f"# workloads: {', '.join(workloads)}"
    if others:
        line += f"; not run: {', '.join(others)} (make site SITE_WORKLOADS={','.join([*workloads, *others])})"
    return line


def shared_deadlines(deadline: float, now: float, count: int) -> list[float]:
    """``count`` matrices' deadlines (Unix seconds), one after another, sharing the time from ``now`` to
    ``deadline`` equally: each ends by its share, and one that ends early leaves its time to the next."""
    left = max(0.0, deadline - now)
    return [now + left * (k + 1) / count for k in range(count)]


def machine_id_of(gpu: envs_gpu.Gpu | None) -> str:
    """The machine id the plan's matrices write under on a machine with ``gpu``: the GPU's as NVML names it (a
    faked one's from its name alone), else this CPU's; what ``make site`` gives ``generator build --this-machine``."""
    if gpu is None:
        return hardware_for("cpu")["machine_id"]
    here = hardware_for("gpu")
    if here["device_kind"] == "gpu" and here["device_name"] == gpu.name:
        return here["machine_id"]
    return machine_id({"device_kind": "gpu", "device_name": gpu.name, "device_count": 1})


def plan(
    gpu: envs_gpu.Gpu | None,
    out: Path,
    tpu: str | None = None,
    profile: str = "quick",
    budget: float | None = None,
    workloads: tuple[str, ...] = (DEFAULT_WORKLOAD,),
    deadline: float | None = None,
) -> list[str]:
    """The script's lines for a machine with ``gpu`` (None: no NVIDIA GPU) or, without one, the TPU chip named
    ``tpu`` (None: none), the records going to ``out``: one matrix
    per workload (``profile``'s variant for it, ``--workload``), each within ``budget`` minutes (None: no budget)
    and, given a ``deadline`` (Unix seconds), by its share of the time until then (``shared_deadlines``)."""
    ends = shared_deadlines(deadline, time.time(), len(workloads)) if deadline is not None else [None] * len(workloads)
    matrices = []
    for name, end in zip(workloads, ends, strict=True):
        matrix = ["runners", "matrix", "--profile", profile, "--out", str(out)]
        matrix += [] if name == DEFAULT_WORKLOAD else ["--workload", name]
        matrix += ["--budget", f"{budget:g}"] if budget else []
        matrices.append(matrix + (["--deadline", utc_iso_seconds(end)] if end is not None else []))
    if gpu is None and tpu is not None:
        return [
            f"# {tpu}: the matrix on the TPU, JAX and PyTorch via torchax in this interpreter (TensorFlow is not "
            "measured on a TPU)",
            workloads_line(workloads),
            script_line([*TPU_SETUP[:3], "--python", "python", *TPU_SETUP[3:]], TPU_SETUP_FAILED),
            *(
                deadline_guarded(end, script_line([*matrix, "--device", "tpu"], MATRIX_FAILED))
                for matrix, end in zip(matrices, ends, strict=True)
            ),
        ]
    if gpu is None:
        return [
            "# NVML sees no NVIDIA GPU: the matrix on the CPU, the three frameworks in this interpreter",
            workloads_line(workloads),
            *(
                deadline_guarded(end, script_line(matrix, MATRIX_FAILED))
                for matrix, end in zip(matrices, ends, strict=True)
            ),
        ]
    lines = [
        f"# {gpu}: the matrix on the GPU, each framework in its CUDA environment (those that built)",
        workloads_line(workloads),
        script_line(["runners", "envs", "build", "--device", "gpu"], BUILD_FAILED),
        "frameworks=''; set --",
    ]
    for name in measured_on("gpu"):
        python = shlex.quote(str(interpreter(envs_gpu.env_path(name, envs_gpu.installed_version(name)))))
        built = f'frameworks="${{frameworks:+$frameworks,}}{name}"'  # a comma-separated list, built in sh
        lines.append(f'test -x {python} && {built} && set -- "$@" --python {name}={python}')
    for matrix, end in zip(matrices, ends, strict=True):
        run = script_line([*matrix, "--device", "gpu"], MATRIX_FAILED)
        run = deadline_guarded(end, run.replace(" || ", ' --frameworks "$frameworks" "$@" || ', 1))
        lines.append(f'if [ -n "$frameworks" ]; then {run}; else echo {shlex.quote(NONE_BUILT)}; fi')
    return lines
