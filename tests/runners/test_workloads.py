"""The workload as an axis: ``--workload`` chooses the profile's variant, the GPT's configurations are its own, a
bad workload or a mismatched precision or data set is refused by name, and a real GPT run writes a valid record."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys

import pytest

from fwbench.records import read_record
from generator.records.check_rules import load_references, loss_problems
from runners.matrix import site_plan
from runners.measure.profile_loading import profile_for
from runners.measure.profiles import RunConfig, expand
from runners.measure.provenance import REPO_ROOT
from runners.workloads.resnet18.reference_losses import Key


def runners(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "runners.cli", *args], capture_output=True, text=True, cwd=REPO_ROOT, check=False
    )


def test_quick_runs_resnet18_and_its_gpt_variant_is_quick_gpt():
    assert profile_for("quick", None) == "quick" and profile_for("quick", "resnet18") == "quick"
    assert profile_for("quick", "gpt") == "quick-gpt" and profile_for("smoke", "gpt") == "smoke-gpt"
    with pytest.raises(ValueError, match="profile 'article' has no gpt variant; profiles with one: smoke"):
        profile_for("article", "gpt")
    cpu = expand("quick-gpt", device="cpu")
    assert {(c.workload, c.dataset, c.batch_size, c.precision) for c in cpu} == {("gpt", "grammar", 8, "fp32")}
    gpu = expand("quick-gpt", device="gpu")
    assert {(c.batch_size, c.precision, c.epoch_train_images) for c in gpu} == {(64, "default", 4096)}
    assert [c.label for c in cpu] == [f"gpt {fw}/compiled bs8 seed0" for fw in ("torch", "tensorflow", "jax")]


def test_a_workload_is_part_of_the_identity_and_resnet18_keeps_its_ids():
    (resnet,) = expand("smoke", frameworks=["torch"], device="cpu")
    assert resnet.workload == "resnet18" and json.loads(resnet.to_json())["workload"] == "resnet18"
    gpt = dataclasses.replace(resnet, workload="gpt", dataset="grammar")
    assert gpt.config_id != resnet.config_id and gpt.config_id.startswith("torch-compiled-grammar-bs32-seed0-")
    assert RunConfig.from_json(gpt.to_json()) == gpt


def test_a_data_set_or_attention_path_the_workload_lacks_is_refused_by_name():
    (config,) = expand("smoke-gpt", frameworks=["jax"], device="cpu")
    with pytest.raises(ValueError, match="dataset 'synthetic': gpt trains on grammar"):
        dataclasses.replace(config, dataset="synthetic")
    with pytest.raises(ValueError, match="attention 'pallas-flash': only jax builds it, not torch"):
        dataclasses.replace(config, framework="torch", attention="pallas-flash")


def test_an_unknown_workload_exits_2_with_the_choices_and_a_profile_without_a_variant_names_those_with_one():
    done = runners("run", "--framework", "torch", "--workload", "bert", "--dry-run")
    assert done.returncode == 2 and "--workload: invalid choice: 'bert'" in done.stderr
    assert "resnet18" in done.stderr.splitlines()[-1] and "gpt" in done.stderr.splitlines()[-1]  # the choices
    done = runners("matrix", "--profile", "article", "--workload", "gpt", "--dry-run")
    assert done.returncode == 2
    assert "--workload gpt: profile 'article' has no gpt variant; profiles with one: smoke, quick, smoke-gpt" in (
        done.stderr
    )


def test_make_sites_plan_runs_a_matrix_per_workload_and_names_those_it_leaves_out(tmp_path):
    lines = site_plan.plan(None, tmp_path, workloads=("resnet18", "gpt"))
    assert lines[1] == "# workloads: resnet18, gpt"
    assert [line.split(" || ")[0].split()[-1] for line in lines[2:]] == [str(tmp_path), "gpt"]
    only = site_plan.plan(None, tmp_path)
    assert only[1] == "# workloads: resnet18; not run: gpt (make site SITE_WORKLOADS=resnet18,gpt)"
    done = runners("benchmark-script", "--workloads", "resnet18,bert")
    assert done.returncode == 2 and "unknown workload 'bert'; choose from resnet18, gpt" in done.stderr


@pytest.mark.slow
def test_a_real_gpt_run_writes_a_valid_record_whose_first_losses_match_the_reference(tmp_path):
    """PyTorch eager, the smoke-gpt profile (two steps of 8 sequences): the record as ``runners run`` writes it."""
    done = runners("run", "--framework", "torch", "--mode", "eager", "--workload", "gpt", "--out", str(tmp_path))
    assert done.returncode == 0, done.stderr[-2000:]
    (path,) = tmp_path.rglob("*.json")
    record = read_record(path)
    assert record["model"]["workload"] == "gpt" and record["timing"]["images_per_second"] is None
    steps = record["config"]["steps_per_epoch"]
    tokens = steps * record["config"]["batch_size"] * record["model"]["sizes"]["context"]
    assert record["timing"]["tokens_per_second"] == pytest.approx(tokens / record["timing"]["epoch_seconds"])
    assert record["accuracy"]["epochs"][0]["test_loss"] < 5.55  # below ln 256: it learned the byte frequencies
    references = load_references()
    key = Key.of(record["config"])
    reference = references.trajectories[(key.dataset, key.images, key.epochs, key.seed, key.batch_size)]
    assert loss_problems(record["training"]["first_losses"], reference, references.bounds["fp32"], "fp32") == []
