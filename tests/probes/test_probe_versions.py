"""``runners probes --versions``: which interpreter probes each version, and the article's own install for
TensorFlow 2.15 (Keras 2.15), apart from the Keras-3 set that training needs. Nothing is built here."""

from pathlib import Path

import pytest

from fwbench.cliargs import UsageError
from runners.envs import versions as envs
from runners.measure import provenance
from runners.probes.catalog import ProbeSpec, all_specs
from runners.probes.cli import run_probes
from runners.probes.versions import Interpreter, build_interpreters, check_versions, requested_versions

FRAMEWORKS = ("torch", "tensorflow", "jax")


def test_the_tensorflow_probe_set_is_the_articles_install_with_its_own_keras():
    probe = envs.version_set("tensorflow", "2.15.0", envs.PROBE)
    training = envs.version_set("tensorflow", "2.15.0")
    assert probe.packages == ("tensorflow-cpu==2.15.0", "numpy<2") and probe.overrides == ()
    assert "keras==3.3.3" in training.packages and training.variant == ""
    assert probe.name.startswith("tensorflow-2.15.0-probe-py") and probe.name != training.name
    assert envs.env_path("tensorflow", "2.15.0", envs.PROBE).name == probe.name


def test_a_set_without_probe_packages_probes_in_its_training_environment():
    assert envs.version_set("torch", "2.2.1", envs.PROBE) == envs.version_set("torch", "2.2.1")


def test_article_and_installed_name_every_framework_selected_and_a_release_one():
    assert requested_versions(None, FRAMEWORKS) == {name: ["installed"] for name in FRAMEWORKS}
    assert requested_versions(["article"], ("jax",)) == {"jax": ["article"]}
    assert requested_versions(["article", "torch=2.3.0,2.2.1"], ("torch",)) == {"torch": ["article", "2.3.0", "2.2.1"]}
    assert requested_versions(["jax=0.4.26"], ("torch",)) == {}  # a framework not selected


def test_other_versions_are_built_as_probe_environments_and_keep_apart_from_todays(monkeypatch):
    built = []

    def fake_build(name, version, log, variant):
        built.append((name, version, variant))
        return Path(f"/envs/{name}-{version}-{variant}-py3.11/bin/python")

    checked = check_versions({"tensorflow": ["article", "installed"]})
    versions, where = build_interpreters(checked, build=fake_build)
    installed = provenance.framework_version("tensorflow")
    assert built == [("tensorflow", "2.15.0", envs.PROBE)] and installed != "2.15.0"
    assert versions == {"tensorflow": ["2.15.0", None]}
    assert where["tensorflow", "2.15.0"].environment == "tensorflow-2.15.0-probe-py3.11"
    assert where["tensorflow", None].python is None
    ids = [s.record_id for s in all_specs(frameworks=("tensorflow",), bugs=("dense_shape",), versions=versions)]
    assert ids == [
        "dense_shape-tensorflow-2.15.0-eager",
        "dense_shape-tensorflow-2.15.0-compiled",
        "dense_shape-tensorflow-eager",
        "dense_shape-tensorflow-compiled",
    ]


def test_an_unknown_version_is_refused_before_anything_is_built():
    with pytest.raises(UsageError, match=r"^--versions: jax 0\.0\.1: unknown version"):
        check_versions({"torch": ["article"], "jax": ["0.0.1"]})


def test_a_probe_of_another_version_runs_in_its_interpreter_and_says_so(tmp_path, monkeypatch):
    seen = []

    def fake_child(processes, spec, python):
        seen.append(python)
        return {
            "outcome": "crash",
            "exit_code": 1,
            "stderr_tail": None,
            "wall_seconds": 0.1,
            "python": "3.11.7",
            "packages": {"tensorflow-cpu": "2.15.0", "keras": "2.15.0"},
        }

    monkeypatch.setattr("runners.probes.cli.ProbeProcesses.run", fake_child)
    where = {("tensorflow", "2.15.0"): Interpreter("/envs/tf/bin/python", "tensorflow-2.15.0-probe-py3.11")}
    (record,) = run_probes(
        [ProbeSpec("tensorflow", "dense_shape", "eager", version="2.15.0")],
        tmp_path,
        progress=False,
        interpreters=where,
    )
    assert seen == ["/envs/tf/bin/python"]
    assert record["environment"] == "tensorflow-2.15.0-probe-py3.11"
    assert record["framework"]["version"] == "2.15.0"  # the child's distributions, not this interpreter's
    assert record["software"]["packages"] == {"tensorflow-cpu": "2.15.0", "keras": "2.15.0"}
    assert (tmp_path / record["machine_id"] / "dense_shape-tensorflow-2.15.0-eager.json").is_file()
