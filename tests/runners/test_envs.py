"""Environments per framework version: which set a version builds, how a failed build ends (one line, nothing
left behind), how a finished one is found, and how ``--versions`` is read."""

import json
import stat
import sys
import textwrap

import pytest

from fwbench.cliargs import EXIT_FAILURE, EXIT_OK, EXIT_USAGE, UsageError
from runners.cli import main as runners_main
from runners.envs import build as env_build
from runners.envs import gpu as envs_gpu
from runners.envs import versions as envs
from runners.envs.matrix import cuda_interpreters
from runners.envs.versions import parse_versions
from runners.executors.local import LocalExecutor
from runners.matrix.order import interleaved_order
from runners.measure import profiles


@pytest.fixture
def envs_dir(tmp_path, monkeypatch):
    monkeypatch.setenv(envs.ENVS_DIR_ENV, str(tmp_path / "envs"))
    return tmp_path / "envs"


def test_the_article_set_is_pinned_with_the_companions_that_ran_the_model():
    spec = envs.version_set("jax", envs.article_version("jax"))
    assert spec.pinned and spec.version == "0.4.26" and spec.as_of
    assert {"jax==0.4.26", "jaxlib==0.4.26", "flax==0.8.4"} <= set(spec.packages)
    assert envs.version_set("tensorflow", "2.15.0").overrides == ("keras==3.3.3",)


def test_another_release_takes_the_template_resolved_as_of_its_date():
    later = envs.version_set("jax", "0.6.2")  # released 2025-06-17; resolve_days 60
    assert not later.pinned
    assert later.packages == ("jax==0.6.2", "jaxlib==0.6.2", "flax", "optax")
    assert later.as_of == "2025-08-16"
    assert "numpy<2" in envs.version_set("jax", "0.4.30").packages  # before 0.4.31, no NumPy 2
    assert later.name == f"jax-0.6.2-py{envs.python_tag()}"


def test_tensorflows_x86_only_cpu_build_becomes_its_one_build_on_arm(monkeypatch):
    spec = envs.version_set("tensorflow", "2.15.0")
    assert "tensorflow-cpu==2.15.0" in spec.packages
    for machine in ("x86_64", "AMD64"):
        monkeypatch.setattr(env_build.platform, "machine", lambda machine=machine: machine)
        assert "tensorflow-cpu==2.15.0" in envs.requirements(spec)
    monkeypatch.setattr(env_build.platform, "machine", lambda: "arm64")
    arm = envs.requirements(spec)
    assert "tensorflow==2.15.0" in arm and not any(line.startswith("tensorflow-cpu") for line in arm)
    assert envs.for_this_machine("keras==3.3.3", "aarch64") == "keras==3.3.3"
    assert envs.for_this_machine("tensorflow-cpu>=2.16; python_version>'3.9'", "aarch64") == (
        "tensorflow>=2.16; python_version>'3.9'"
    )


def test_an_unknown_version_names_itself_and_what_is_known():
    with pytest.raises(envs.EnvError, match=r"^jax 9\.9\.9: unknown version; version_sets.json knows 0\.4\.26, "):
        envs.version_set("jax", "9.9.9")


def test_a_version_that_cannot_run_says_why(monkeypatch):
    data = json.loads(envs.VERSION_SETS_FILE.read_text())
    data["frameworks"]["torch"]["cannot_run"]["2.3.0"] = "no torch.compile for Python 3.11"
    monkeypatch.setattr(envs, "version_sets", lambda: data)
    with pytest.raises(envs.EnvError, match="torch 2.3.0: cannot run the shared model: no torch.compile"):
        envs.version_set("torch", "2.3.0")
    assert {"framework": "torch", "version": "2.3.0", "status": "cannot run"}.items() <= next(
        row for row in envs.listing() if row["version"] == "2.3.0"
    ).items()


# uv's resolver error, hand-written in the shape uv 0.4-0.13 prints it (a cross, then the reason after "╰─▶")
UV_NO_WHEEL = textwrap.dedent("""\
      × No solution found when resolving dependencies:
      ╰─▶ Because jaxlib==0.4.26 has no wheels with a matching Python ABI tag (e.g. `cp313`) and you require
          jaxlib==0.4.26, we can conclude that your requirements are unsatisfiable.
""")


def test_uv_reason_is_the_explanation_on_one_line():
    reason = env_build.uv_reason(UV_NO_WHEEL)
    assert reason.startswith("Because jaxlib==0.4.26 has no wheels with a matching Python ABI tag")
    assert "\n" not in reason and reason.endswith("unsatisfiable.")
    assert env_build.uv_reason("error: something\n\nlast words\n") == "last words"


def fake_uv(tmp_path, *, fails_for: str | None) -> str:
    """A stand-in for uv: ``venv`` makes a directory whose bin/python runs this interpreter, ``pip install`` fails
    (printing UV_NO_WHEEL) when its arguments match the shell pattern ``fails_for`` and does nothing otherwise,
    ``pip freeze`` prints one line, ``pip compile`` resolves nothing."""
    script, error = tmp_path / "uv", tmp_path / "uv-error.txt"
    error.write_text(UV_NO_WHEEL)
    failing = f'case "$*" in {fails_for}) cat {error} >&2; exit 1;; esac' if fails_for else "exit 0"
    script.write_text(
        textwrap.dedent(f"""\
        #!/bin/sh
        case "$1 $2" in
          venv*) for last; do :; done; mkdir -p "$last/bin"
                 printf '#!/bin/sh\\nexec {sys.executable} "$@"\\n' > "$last/bin/python"; chmod +x "$last/bin/python";;
          "pip install") {failing};;
          "pip freeze") echo "jax==0.0";;
        esac
        """)
    )
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return str(script)


def installed_jax_set(monkeypatch) -> str:
    """Make the data file pin the installed JAX version, so that a fake environment running this interpreter holds
    the requested version."""
    from runners.measure.provenance import framework_version

    version = framework_version("jax")
    data = json.loads(envs.VERSION_SETS_FILE.read_text())
    data["frameworks"]["jax"]["pinned"][version] = {"packages": [f"jax=={version}"], "as_of": "2026-11-01"}
    monkeypatch.setattr(envs, "version_sets", lambda: data)
    return version


def test_a_failed_build_says_why_in_one_line_and_leaves_nothing(tmp_path, envs_dir, monkeypatch):
    monkeypatch.setattr(env_build, "uv_binary", lambda: fake_uv(tmp_path, fails_for="*"))
    with pytest.raises(envs.EnvError) as failure:
        envs.build("jax", "0.4.26", log=lambda line: None)
    assert str(failure.value).startswith("jax 0.4.26: Because jaxlib==0.4.26 has no wheels")
    assert "\n" not in str(failure.value)
    assert list(envs_dir.iterdir()) == [], "no half-built environment stays behind"
    assert envs.built("jax", "0.4.26") is None


def test_a_build_whose_framework_is_another_version_is_refused(tmp_path, envs_dir, monkeypatch):
    monkeypatch.setattr(env_build, "uv_binary", lambda: fake_uv(tmp_path, fails_for=None))
    with pytest.raises(envs.EnvError, match=r"jax 0\.4\.26: built, but it holds jax \d"):
        envs.build("jax", "0.4.26", log=lambda line: None)  # the fake environment runs today's JAX
    assert list(envs_dir.iterdir()) == []


def test_a_failed_cuda_build_is_one_line_and_the_others_still_build(tmp_path, envs_dir, monkeypatch, capsys):
    monkeypatch.setattr(env_build, "uv_binary", lambda: fake_uv(tmp_path, fails_for="*tensorflow*"))
    monkeypatch.setattr(envs_gpu, "detect", lambda: envs_gpu.Gpu("NVIDIA H200", (13, 0)))
    code = runners_main(["envs", "build", "--device", "gpu"])
    printed = capsys.readouterr()
    assert code == EXIT_FAILURE
    version = envs_gpu.installed_version("tensorflow")
    assert printed.err.splitlines() == [
        f"runners envs build: tensorflow {version} (CUDA): " + env_build.uv_reason(UV_NO_WHEEL)
    ]
    built = sorted(p.name for p in envs_dir.iterdir())
    assert built == [envs_gpu.env_path(name, envs_gpu.installed_version(name)).name for name in ("jax", "torch")]
    assert envs_gpu.built("tensorflow") is None and envs_gpu.built("torch") is not None
    marker = json.loads((envs_gpu.built("jax").parent.parent / env_build.MARKER).read_text())
    assert marker["device"] == "gpu" and f"jax[cuda13]=={envs_gpu.installed_version('jax')}" in marker["requirements"]
    # a GPU matrix finds them (no --python needed); a CPU one keeps this interpreter
    assert set(cuda_interpreters("gpu", on_ray=False)) == {"jax", "torch"}
    assert cuda_interpreters("cpu", on_ray=False) == {} and cuda_interpreters("gpu", on_ray=True) == {}
    executor = LocalExecutor(cuda=cuda_interpreters("gpu", on_ray=False))
    assert (
        executor.python_for("torch") == str(envs_gpu.built("torch"))
        and executor.python_for("tensorflow") == sys.executable
    )


@pytest.mark.slow
def test_a_build_lands_complete_and_is_found_again(tmp_path, envs_dir, monkeypatch):
    version = installed_jax_set(monkeypatch)
    monkeypatch.setattr(env_build, "uv_binary", lambda: fake_uv(tmp_path, fails_for=None))
    python = envs.build("jax", version, log=lambda line: None)
    assert python == env_build.interpreter(envs.env_path("jax", version)) and envs.built("jax", version) == python
    assert [p.name for p in envs_dir.iterdir()] == [f"jax-{version}-py{envs.python_tag()}"]
    marker = json.loads((envs.env_path("jax", version) / envs.MARKER).read_text())
    assert marker["version"] == version and marker["installed"] == ["jax==0.0"] and marker["build_seconds"] >= 0
    row = next(r for r in envs.listing() if r["version"] == version)
    assert row["status"] == "built"
    # a set that changed since: the environment counts as not built, and a build replaces it
    envs.version_sets()["frameworks"]["jax"]["pinned"][version]["packages"].append("optax")
    assert envs.built("jax", version) is None
    assert envs.remove("jax", version) and not envs.env_path("jax", version).exists()


def test_versions_values_are_read_per_framework():
    assert parse_versions(["jax=0.4.26,installed", "torch=article", "jax=0.4.26"]) == {
        "jax": ["0.4.26", "installed"],
        "torch": ["article"],
    }
    for bad in ("jax", "mxnet=1.0", "jax="):
        with pytest.raises(UsageError, match=f"--versions {bad!r}: expected FRAMEWORK=V1,V2"):
            parse_versions([bad])


def test_resolve_runs_the_installed_version_here_and_others_in_environments():
    assert envs.resolve("jax", ["article", "installed", "0.4.26"], "0.10.2") == [("0.4.26", True), ("0.10.2", False)]
    assert envs.resolve("jax", ["0.10.2"], "0.10.2") == [("0.10.2", False)]
    with pytest.raises(envs.EnvError, match="jax 1.2.3: unknown version"):
        envs.resolve("jax", ["1.2.3"], "0.10.2")


def test_matrix_with_an_unknown_version_exits_2_before_any_run(tmp_path, envs_dir, capsys):
    out = tmp_path / "runs"
    code = runners_main(["matrix", "--profile", "smoke", "--versions", "jax=9.9.9", "--out", str(out)])
    assert code == EXIT_USAGE
    assert capsys.readouterr().err.strip().splitlines() == [
        "runners matrix: error: --versions: jax 9.9.9: unknown version; version_sets.json knows "
        + ", ".join(envs.releases("jax"))
    ]
    assert not out.exists() and not envs_dir.exists()


def test_matrix_versions_refuse_ray(tmp_path, capsys):
    pytest.importorskip("ray")
    code = runners_main(["matrix", "--executor", "ray", "--versions", "jax=0.4.26", "--out", str(tmp_path)])
    assert code == EXIT_USAGE and "--versions: only with the local executor" in capsys.readouterr().err


def test_each_version_is_a_configuration_of_its_own_and_takes_turns():
    configs = profiles.expand(
        "versions", versions={"jax": ["0.4.26", "0.10.2"], "torch": ["2.2.1", "2.14.1"]}, frameworks=["jax", "torch"]
    )
    assert len(configs) == 8 and len({c.record_id for c in configs}) == 8
    order = interleaved_order(configs)
    first_round = [(c.framework, c.framework_version) for c in order[:4]]
    assert sorted(first_round) == [("jax", "0.10.2"), ("jax", "0.4.26"), ("torch", "2.14.1"), ("torch", "2.2.1")]
    assert {c.batch_size for c in order[:4]} == {32}


def test_a_version_runs_in_its_environment(tmp_path):
    executor = LocalExecutor(interpreters={("jax", "0.4.26"): "/envs/jax-0.4.26/bin/python"})
    (old,) = profiles.expand("smoke", versions={"jax": ["0.4.26"]}, frameworks=["jax"])
    (today,) = profiles.expand("smoke", frameworks=["jax"])
    assert executor.command(old, None, tmp_path)[0] == "/envs/jax-0.4.26/bin/python"
    assert executor.command(today, None, tmp_path)[0] == executor.python_for("jax")


def test_remove_takes_a_versions_probe_environment_too(envs_dir, capsys):
    both = [envs.env_path("tensorflow", "2.15.0", variant) for variant in ("", envs.PROBE)]
    for path in both:
        (path / "bin").mkdir(parents=True)
    assert runners_main(["envs", "remove", "tensorflow=2.15.0"]) == EXIT_OK
    assert capsys.readouterr().out.splitlines() == [f"removed {path}" for path in both]
    assert not any(path.exists() for path in both)
    assert envs.remove("tensorflow", "2.15.0") == []
