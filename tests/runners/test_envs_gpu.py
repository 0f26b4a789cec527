"""An NVIDIA machine in one command: which CUDA build each framework's environment gets for a driver (resolved by
uv from PyPI, nothing installed), what ``make site`` runs where NVML sees a GPU and where it sees none, and the
usage error on a machine without one. A failed CUDA build is in test_envs.py, beside the stand-in uv."""

import datetime
import shlex
import stat
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from fwbench.cliargs import EXIT_OK, EXIT_USAGE
from fwbench.frameworks import measured_on
from runners.cli import main as runners_main
from runners.envs import build as env_build
from runners.envs import gpu as envs_gpu
from runners.envs import versions as envs
from runners.matrix import site_plan
from runners.measure.provenance import hardware_for

#: the frameworks fwbench measures on a GPU, each in its CUDA environment
GPU_FRAMEWORKS = measured_on("gpu")

REPOSITORY = Path(__file__).resolve().parents[2]


@pytest.fixture
def envs_dir(tmp_path, monkeypatch):
    monkeypatch.setenv(envs.ENVS_DIR_ENV, str(tmp_path / "envs"))
    return tmp_path / "envs"


def sections(printed: str) -> dict[str, list[str]]:
    """The dry run's output as {framework: its resolved packages}, by the heading line of each environment."""
    found: dict[str, list[str]] = {}
    for line in printed.splitlines():
        if not line.startswith("  "):
            packages = found.setdefault(line.split("-", 1)[0], [])
        else:
            packages.append(line.strip())
    return found


@pytest.mark.slow
def test_the_dry_run_resolves_each_frameworks_cuda_build_from_pypi(envs_dir, monkeypatch, capsys):
    """Network: uv resolves the three sets from PyPI for a Linux x86-64 machine with a CUDA 13.0 driver."""
    monkeypatch.setattr(envs_gpu, "detect", lambda: None)  # the driver named is the one planned for
    code = runners_main(["envs", "build", "--device", "gpu", "--dry-run", "--cuda-driver", "13.0"])
    printed = capsys.readouterr()
    assert code == EXIT_OK, printed.err
    resolved = sections(printed.out)
    assert list(resolved) == list(GPU_FRAMEWORKS)
    names = {name: {line.split("==")[0] for line in lines} for name, lines in resolved.items()}
    versions = {name: dict(line.split("==", 1) for line in lines) for name, lines in resolved.items()}
    # PyPI's torch wheel is the CUDA 13 build: its CUDA libraries come with it
    assert versions["torch"]["torch"] == envs_gpu.installed_version("torch")
    assert envs_gpu.cuda_major(resolved["torch"]) == 13 and "nvidia-cudnn-cu13" in names["torch"]
    # tensorflow[and-cuda], with Keras 3 and NVIDIA's CUDA 12 libraries
    assert versions["tensorflow"]["tensorflow"] == envs_gpu.installed_version("tensorflow")
    assert versions["tensorflow"]["keras"].startswith("3.") and "tensorflow-cpu" not in names["tensorflow"]
    assert {"nvidia-cudnn-cu12", "nvidia-cublas-cu12", "nvidia-cuda-runtime-cu12"} <= names["tensorflow"]
    # jax[cuda13]: the CUDA 13 plugin for a 13.0 driver, and not the CUDA 12 one
    assert {"jax-cuda13-plugin", "jax-cuda13-pjrt", "flax", "optax"} <= names["jax"]
    assert not any(name.startswith("jax-cuda12") for name in names["jax"])
    # fwbench's own needs in each, none of the cpu extra's other frameworks
    assert all({"jsonschema", "psutil", "nvidia-ml-py", "tabulate"} <= found for found in names.values())
    assert "jax" not in names["torch"] and "torch" not in names["jax"] and "tensorflow" not in names["jax"]
    assert not envs_dir.exists(), "a dry run installs nothing"


@pytest.mark.slow
def test_the_dry_run_resolves_the_cuda_builds_for_an_arm_gpu_machine(envs_dir, monkeypatch, capsys):
    """Network: the same three sets for a Linux Arm machine with an NVIDIA GPU (Grace Hopper, DGX Spark)."""
    monkeypatch.setattr(envs_gpu, "detect", lambda: None)
    code = runners_main(["envs", "build", "--device", "gpu", "--dry-run", "--cuda-driver", "13.0", "--arch", "aarch64"])
    printed = capsys.readouterr()
    assert code == EXIT_OK, printed.err
    headings = [line for line in printed.out.splitlines() if not line.startswith("  ")]
    assert all(" on aarch64: " in heading for heading in headings) and len(headings) == len(GPU_FRAMEWORKS)
    resolved = sections(printed.out)
    names = {name: {line.split("==")[0] for line in lines} for name, lines in resolved.items()}
    assert envs_gpu.cuda_major(resolved["torch"]) == 13 and "nvidia-cudnn-cu13" in names["torch"]
    assert "nvidia-cudnn-cu12" in names["tensorflow"] and "tensorflow-cpu" not in names["tensorflow"]
    assert {"jax-cuda13-plugin", "jax-cuda13-pjrt"} <= names["jax"]
    assert not envs_dir.exists(), "a dry run installs nothing"


def test_the_dry_run_resolves_for_this_machines_architecture(monkeypatch):
    for machine, arch in (("x86_64", "x86_64"), ("aarch64", "aarch64"), ("arm64", "aarch64"), ("riscv64", "x86_64")):
        monkeypatch.setattr(env_build.platform, "machine", lambda machine=machine: machine)
        assert envs_gpu.default_arch() == arch, machine


def test_an_older_driver_takes_jaxs_cuda12_plugin_and_pytorchs_own_index(monkeypatch):
    monkeypatch.setattr(envs_gpu, "resolve", lambda plan, arch: ["nvidia-cuda-runtime==13.0.96"])
    old = envs_gpu.Gpu("NVIDIA A100", (12, 4))
    assert envs_gpu.recipe("jax", old).requirements[-1].startswith("jax[cuda12]==")
    torch, packages = envs_gpu.choose("torch", old)
    assert packages is None and torch.options[-2:] == ("--torch-backend", "auto")
    torch, packages = envs_gpu.choose("torch", envs_gpu.Gpu("NVIDIA H200", (13, 0)))
    assert packages and "--torch-backend" not in torch.options
    with pytest.raises(envs.EnvError, match="jax: no CUDA plugin for a CUDA 11 driver"):
        envs_gpu.recipe("jax", envs_gpu.Gpu("NVIDIA V100", (11, 8)))


def plan_lines(capsys, *flags: str) -> list[str]:
    assert runners_main(["benchmark-script", "--out", "results/runs", *flags]) == EXIT_OK
    return capsys.readouterr().out.splitlines()


def command(line: str) -> list[str]:
    """A plan line's command, without the ``|| echo`` that says it failed or the test of the clock before it."""
    return shlex.split(line.split("; then ", 1)[-1].split(" || ")[0])


def run_plan(
    tmp_path: Path, built: tuple[str, ...], fails: bool = False, deadline: float | None = None
) -> tuple[subprocess.CompletedProcess, list]:
    """Run the GPU plan (its matrix by ``deadline``, Unix seconds) under sh with a stand-in ``runners`` (exit 1 when
    ``fails``) and an interpreter in the environments of the frameworks ``built``; the plan's output and the
    stand-in's calls (argument lists)."""
    stand_in = tmp_path / "bin" / "runners"
    stand_in.parent.mkdir(parents=True)
    calls = tmp_path / "calls"
    stand_in.write_text(f'#!/bin/sh\nprintf "%s\\n" "$*" >> {calls}\nexit {int(fails)}\n')
    stand_in.chmod(stand_in.stat().st_mode | stat.S_IEXEC)
    for name in built:
        python = envs_gpu.env_path(name, envs_gpu.installed_version(name)) / "bin" / "python"
        python.parent.mkdir(parents=True, exist_ok=True)
        python.write_text("#!/bin/sh\n")
        python.chmod(0o755)
    script = tmp_path / "plan.sh"
    gpu = envs_gpu.Gpu("NVIDIA H200", (13, 0))
    script.write_text("\n".join(site_plan.plan(gpu, tmp_path / "runs", deadline=deadline)) + "\n")
    done = subprocess.run(
        ["sh", str(script)], capture_output=True, text=True, env={"PATH": f"{stand_in.parent}:/usr/bin:/bin"}
    )
    return done, [shlex.split(line) for line in calls.read_text().splitlines()] if calls.exists() else []


def test_make_sites_plan_on_an_nvidia_machine_builds_and_runs_on_the_gpu(envs_dir, tmp_path, capsys):
    comment, *_lines = plan_lines(capsys, "--fake-gpu", "NVIDIA H200", "--cuda-driver", "13.0")
    assert comment.startswith("# NVIDIA H200 (CUDA driver 13.0)")
    done, (build, matrix) = run_plan(tmp_path, built=tuple(GPU_FRAMEWORKS))
    assert done.returncode == 0 and build == ["envs", "build", "--device", "gpu"]
    assert matrix[:3] == ["matrix", "--profile", "quick"] and "--device gpu" in " ".join(matrix)
    assert matrix[matrix.index("--frameworks") + 1] == ",".join(GPU_FRAMEWORKS)
    pythons = dict(matrix[i + 1].split("=", 1) for i, arg in enumerate(matrix) if arg == "--python")
    assert list(pythons) == list(GPU_FRAMEWORKS)
    for name, python in pythons.items():
        path = envs_gpu.env_path(name, envs_gpu.installed_version(name))
        assert python == str(path / "bin" / "python") and path.parent == envs_dir and path.name.endswith("-cuda")


def test_make_sites_plan_without_a_gpu_is_the_cpu_matrix(monkeypatch, capsys):
    monkeypatch.setattr(envs_gpu, "detect", lambda: None)
    comment, workloads, matrix = plan_lines(capsys)
    assert "no NVIDIA GPU" in comment and workloads.startswith("# workloads: resnet18; not run: gpt")
    assert command(matrix) == ["runners", "matrix", "--profile", "quick", "--out", "results/runs"]


def test_one_failed_cuda_build_leaves_the_other_frameworks_running_on_the_gpu(envs_dir, tmp_path):
    """TensorFlow has no CUDA environment (its build failed): the matrix runs PyTorch and JAX through theirs."""
    done, (_build, matrix) = run_plan(tmp_path, built=("torch", "jax"), fails=True)
    assert done.returncode == 0
    assert done.stdout.splitlines() == [site_plan.BUILD_FAILED, site_plan.MATRIX_FAILED]
    assert matrix[matrix.index("--frameworks") + 1] == "torch,jax"
    assert [arg.split("=")[0] for arg in matrix if "=" in arg] == ["torch", "jax"]


def test_a_matrix_with_its_deadline_at_hand_is_not_started_and_the_plan_says_so(envs_dir, tmp_path):
    """The CUDA builds took the time (here: less than LAST_SECONDS were left when the plan ran): the matrix would
    run nothing, or refuse a --deadline past by then, so the plan does not start it and says why; with time left it
    runs."""
    almost = time.time() + site_plan.LAST_SECONDS - 5
    done, calls = run_plan(tmp_path / "late", built=tuple(GPU_FRAMEWORKS), deadline=almost)
    assert done.returncode == 0 and done.stdout.splitlines() == [site_plan.DEADLINE_PASSED]
    assert calls == [["envs", "build", "--device", "gpu"]]
    done, (_build, matrix) = run_plan(tmp_path / "in-time", built=tuple(GPU_FRAMEWORKS), deadline=time.time() + 600)
    assert done.returncode == 0 and not done.stdout and matrix[:3] == ["matrix", "--profile", "quick"]


def test_the_plan_runs_under_sh_and_says_when_no_environment_built(envs_dir, tmp_path):
    done, calls = run_plan(tmp_path, built=(), fails=True)
    assert done.returncode == 0
    assert done.stdout.splitlines() == [site_plan.BUILD_FAILED, site_plan.NONE_BUILT]
    assert calls == [["envs", "build", "--device", "gpu"]]  # no matrix without an environment


def test_make_site_runs_the_plan_and_builds_the_site_for_the_machine_the_plan_ran_on():
    site = textwrap.dedent((REPOSITORY / "Makefile").read_text().split("\nsite:")[1].split("\n\n")[0])
    plan = "runners benchmark-script --out $(RESULTS)/runs --deadline $(SITE_DEADLINE) --workloads $(SITE_WORKLOADS)"
    assert plan in site
    assert "> $(VENV)/site-plan.sh" in site
    assert "sh -v $(VENV)/site-plan.sh" in site
    assert '--this-machine "$$($(BIN)/runners benchmark-script --machine-id)"' in site


def test_the_plan_names_the_machine_its_matrices_write_under(capsys, monkeypatch):
    monkeypatch.delenv("FWBENCH_MACHINE_ID", raising=False)
    assert plan_lines(capsys, "--machine-id", "--fake-gpu", "NVIDIA H200", "--cuda-driver", "13.0") == ["nvidia-h200"]
    assert plan_lines(capsys, "--machine-id") == [hardware_for("cpu")["machine_id"]]  # no GPU on the test machines


def test_make_site_fixes_its_deadline_when_it_starts_and_runs_the_probes_before_the_matrix():
    """``make -n`` prints the commands without running them: the plan's deadline is SITE_MINUTES from make's start,
    less SITE_BUILD_MINUTES, and the probes and the ecosystem's collection come before the plan."""
    before = time.time()
    dry = subprocess.run(
        ["make", "-n", "site", "SITE_MINUTES=10", "SITE_BUILD_MINUTES=0.5", "PYTHON=" + sys.executable],
        cwd=REPOSITORY,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    lines = [line for line in dry.splitlines() if not line.startswith("#")]
    plan = next(i for i, line in enumerate(lines) if "runners benchmark-script" in line)
    assert any("runners probes" in line for line in lines[:plan])
    assert any("ecosystem collect" in line for line in lines[:plan])
    assert any("generator build" in line for line in lines[plan:])
    words = shlex.split(lines[plan].rstrip(" \\"))  # the line goes on with its redirection on the next
    deadline = words[words.index("--deadline") + 1]
    seconds = datetime.datetime.fromisoformat(deadline).timestamp() - before
    assert 9.5 * 60 - 2 <= seconds <= 9.5 * 60 + 2


def test_the_plan_passes_the_budget_on_to_the_matrix(capsys):
    assert runners_main(["benchmark-script", "--budget", "12.5"]) == 0
    assert "runners matrix --profile quick --out results/runs --budget 12.5 " in capsys.readouterr().out


def test_the_workloads_share_the_time_to_the_deadline_and_a_bad_one_is_a_usage_error(monkeypatch, capsys):
    monkeypatch.setattr(envs_gpu, "detect", lambda: None)
    monkeypatch.setattr(site_plan.time, "time", lambda: 1_796_220_000.0)  # 2026-12-02T14:00:00Z
    *_, resnet, gpt = plan_lines(capsys, "--deadline", "2026-12-02T14:20:00Z", "--workloads", "resnet18,gpt")
    assert command(resnet)[-2:] == ["--deadline", "2026-12-02T14:10:00Z"]  # each its half; the last one the end
    assert command(gpt)[-4:] == ["--workload", "gpt", "--deadline", "2026-12-02T14:20:00Z"]
    *_, alone = plan_lines(capsys, "--deadline", "2026-12-02T15:20:00+01:00")
    assert command(alone)[-2:] == ["--deadline", "2026-12-02T14:20:00Z"]
    with pytest.raises(SystemExit) as exit_info:
        runners_main(["benchmark-script", "--deadline", "in ten minutes"])
    printed = capsys.readouterr()
    assert exit_info.value.code == EXIT_USAGE and not printed.out
    assert "argument --deadline: " in printed.err and "'in ten minutes'" in printed.err


def test_gpu_without_an_nvidia_gpu_is_a_usage_error_and_writes_nothing(envs_dir, monkeypatch, capsys):
    monkeypatch.setattr(envs_gpu, "detect", lambda: None)
    assert runners_main(["envs", "build", "--device", "gpu"]) == EXIT_USAGE
    assert capsys.readouterr().err.splitlines() == [
        "runners envs build: error: --device gpu: NVML sees no NVIDIA GPU on this machine"
    ]
    assert runners_main(["envs", "build", "--device", "gpu", "--dry-run"]) == EXIT_USAGE
    assert capsys.readouterr().err.splitlines() == [
        "runners envs build: error: --device gpu: NVML sees no NVIDIA GPU on this machine; a dry run can name a driver "
        "instead: --cuda-driver MAJOR.MINOR, e.g. 13.0"
    ]
    assert runners_main(["envs", "build", "--device", "gpu", "--cuda-driver", "13.0"]) == EXIT_USAGE
    assert "--cuda-driver: only with --dry-run" in capsys.readouterr().err
    assert runners_main(["envs", "build", "--device", "gpu", "--dry-run", "--cuda-driver", "13"]) == EXIT_USAGE
    assert "--cuda-driver '13': expected MAJOR.MINOR" in capsys.readouterr().err
    assert runners_main(["envs", "build", "--device", "gpu", "--arch", "aarch64"]) == EXIT_USAGE
    assert "--arch aarch64: only with --dry-run" in capsys.readouterr().err
    assert runners_main(["envs", "build", "--arch", "aarch64"]) == EXIT_USAGE
    assert "--arch: only with --device gpu" in capsys.readouterr().err
    assert not envs_dir.exists()


@pytest.mark.parametrize(
    "argv, line",
    [
        # a plan for a faked GPU builds CUDA environments: the name must be an NVIDIA GPU's, as NVML gives it
        (
            ["benchmark-script", "--fake-gpu", "AMD MI300", "--cuda-driver", "13.0"],
            "runners benchmark-script: error: argument --fake-gpu: 'AMD MI300': not an NVIDIA GPU as NVML names one",
        ),
        # no framework has a CUDA build for a driver older than CUDA 12: refused for all, not JAX alone
        (
            ["benchmark-script", "--fake-gpu", "Tesla T4", "--cuda-driver", "9.0"],
            "runners benchmark-script: error: --cuda-driver 9.0: no framework has a CUDA build for it (each needs CUDA "
            "12.0",
        ),
        (
            ["envs", "build", "--device", "gpu", "--dry-run", "--cuda-driver", "11.8"],
            "runners envs build: error: --cuda-driver 11.8: no framework has a CUDA build for it",
        ),
        # each action's errors are its own: one prefix, naming it
        (
            ["benchmark-script", "--fake-gpu", "NVIDIA H200"],
            "runners benchmark-script: error: --fake-gpu and --cuda-driver: both",
        ),
        (
            ["envs", "build", "mxnet=1.0"],
            "runners envs build: error: version 'mxnet=1.0': expected FRAMEWORK=V1,V2 with",
        ),
        (
            ["envs", "remove", "mxnet=1.0"],
            "runners envs remove: error: version 'mxnet=1.0': expected FRAMEWORK=V1,V2 with",
        ),
    ],
)
def test_a_bad_gpu_or_driver_is_one_line_naming_the_action_and_the_flag(envs_dir, argv, line, capsys):
    with pytest.raises(SystemExit) as exit_info:
        raise SystemExit(runners_main(argv))
    printed = capsys.readouterr()
    assert exit_info.value.code == EXIT_USAGE and not printed.out
    (said,) = printed.err.splitlines()
    assert said.startswith(line)
    assert not envs_dir.exists()
