"""The GPT at GPT-2 small's shape as a size of the same workload: a profile names the size and the attention path,
its configurations carry both (today's keep their ids), a CPU refuses it in one line, and a run of its logic at a
small size writes a record of that size."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys

import numpy as np
import pytest

from fwbench.cliargs import EXIT_USAGE
from fwbench.records import read_record
from runners.cli import main as runners_main
from runners.measure.profiles import expand
from runners.measure.provenance import REPO_ROOT
from runners.workloads import workload
from runners.workloads.gpt import arch, data

#: GPT-2 small with its head tied: the "124M" of GPT-2's paper
GPT2_SMALL_PARAMS = 124_439_808


def test_gpt2_small_is_124m_parameters_and_its_flops_count_attention():
    spec = workload("gpt").at("gpt2-small")
    assert spec.model_name == "gpt-gpt2-small" and spec.arch_config() == arch.GPT2_SMALL
    assert spec.trainable_params() == arch.trainable_param_count(arch.GPT2_SMALL) == GPT2_SMALL_PARAMS
    # 2·N (N without the position embedding, a lookup) + 4·L·T·d, attention's two matmuls over the full context
    assert spec.flops_per_sample() == 2 * (GPT2_SMALL_PARAMS - 1024 * 768) + 4 * 12 * 1024 * 768 == 285_055_488
    assert spec.samples_per() == 1024  # tokens per sequence: tokens/s = sequences/s × this
    default = workload("gpt").at("bytes-6x384")
    assert (default.model_name, default.flops_per_sample(), default.samples_per()) == ("gpt-bytes-6x384", 23851008, 256)
    assert workload("gpt").flops_per_sample() == default.flops_per_sample()
    with pytest.raises(ValueError, match="size 'gpt3': gpt has bytes-6x384, gpt2-small, gpt2-tiny"):
        workload("gpt").at("gpt3")
    with pytest.raises(ValueError, match="size 'gpt2-small': resnet18 has one size only"):
        workload("resnet18").at("gpt2-small")


def test_a_vocabulary_beyond_bytes_reads_the_grammar_a_word_per_token_across_the_whole_vocabulary():
    grammar = data.load(data.NAME, None, 6, 2, config=arch.GPT2_TINY)
    assert grammar.train.shape == (6, 129) and grammar.train.dtype == np.int32
    assert np.array_equal(grammar.train, data.load(data.NAME, None, 6, 2, config=arch.GPT2_TINY).train)
    ids = data.word_ids(arch.GPT2_VOCAB)
    assert set(np.unique(grammar.train)) <= set(ids.values()) and max(ids.values()) > arch.GPT2_VOCAB // 2
    words = {i: word for word, i in ids.items()}
    text = data.token_stream(31).tobytes().decode()  # the byte model's stream, as it was
    assert text == "The cats wait. The cats follow "
    assert " ".join(words[int(i)] for i in grammar.train[0, :7]) == text.replace(".", " .").strip()


def test_scale_gpt_runs_gpt2_small_with_fused_attention_in_bf16_and_default_at_three_batch_sizes():
    configs = expand("scale-gpt", device="tpu", version_of=lambda _f: "x")
    assert {c.framework for c in configs} == {"jax", "torchax"}
    assert {(c.precision, c.batch_size) for c in configs} == {(p, b) for p in ("bf16", "default") for b in (4, 8, 16)}
    assert {(c.size, c.attention, c.spec.attention_path(c.attention, c.precision)) for c in configs} == {
        ("gpt2-small", "fused", "fused")
    }
    assert {(c.epoch_train_images, c.test_images, c.workload, c.dataset) for c in configs} == {
        (512, 2, "gpt", "grammar")
    }
    options = configs[0].spec.trainer_options(configs[0].attention, configs[0].precision)
    assert options == {"config": arch.GPT2_SMALL, "attention": "fused"}
    assert {c.framework for c in expand("scale-gpt", device="gpu", version_of=lambda _f: "x")} == {
        "torch",
        "tensorflow",
        "jax",
    }


def test_the_default_size_and_attention_keep_todays_ids_and_the_precision_chooses_the_attention():
    (today,) = expand("quick-gpt", frameworks=["jax"], device="cpu", version_of=lambda _f: "0.10.2")
    assert (today.size, today.attention) == (None, None)
    assert today.record_id == "jax-compiled-grammar-bs8-seed0-9214bbbd"  # the id it had before sizes and paths
    assert today.spec.attention_path(today.attention, "fp32") == "written-out"
    assert today.spec.attention_path(today.attention, "default") == "fused"
    # the default size or the precision's own path, named, is the same configuration; another is another
    same = (dataclasses.replace(today, size="bytes-6x384"), dataclasses.replace(today, attention="written-out"))
    assert {c.record_id for c in same} == {today.record_id}
    other = (dataclasses.replace(today, size="gpt2-tiny"), dataclasses.replace(today, attention="fused"))
    assert today.record_id not in {c.record_id for c in other}
    with pytest.raises(ValueError, match="attention 'pallas-flash': only jax builds it, not torchax"):
        dataclasses.replace(today, framework="torchax", attention="pallas-flash")
    with pytest.raises(ValueError, match="attention 'flash2': choose from written-out, fused, pallas-flash"):
        dataclasses.replace(today, attention="flash2")
    (resnet,) = expand("smoke", frameworks=["jax"], device="cpu")
    with pytest.raises(ValueError, match="attention 'fused': resnet18 has no attention"):
        dataclasses.replace(resnet, attention="fused")


@pytest.mark.parametrize("command", ["run", "matrix"])
def test_a_cpu_refuses_scale_gpt_in_one_line_naming_the_profile_and_the_device(command, tmp_path, capsys):
    framework = ["--framework", "jax"] if command == "run" else []
    argv = [command, *framework, "--profile", "scale-gpt", "--device", "cpu", "--dry-run", "--out", str(tmp_path)]
    with pytest.raises(SystemExit) as exit_info:
        raise SystemExit(runners_main(argv))
    printed = capsys.readouterr()
    assert exit_info.value.code == EXIT_USAGE and not printed.out
    assert printed.err.splitlines() == [
        f"runners {command}: error: --profile scale-gpt: too large for a CPU, the device this run would use "
        "(gpt-gpt2-small, 124,439,808 parameters); run it on a GPU or TPU"
    ]


@pytest.fixture(scope="module")
def small_scale_record(tmp_path_factory) -> dict:
    """A scale-gpt configuration of JAX in bf16 with its size overridden to ``gpt2-tiny`` (GPT-2's vocabulary, 2
    small layers, 128 tokens) and its data to two steps, as ``runners run --config-json`` records it on the CPU."""
    (config,) = expand("scale-gpt", frameworks=["jax"], device="tpu", batch_sizes=[8], precision="bf16")
    small = dataclasses.replace(
        config, size="gpt2-tiny", device="cpu", train_images=16, test_images=4, min_timed_steps=1
    )
    out = tmp_path_factory.mktemp("runs")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "runners.cli",
            "run",
            "--config-json",
            small.to_json(),
            "--out",
            str(out),
            "--quiet-wait",
            "0",
        ],
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    (path,) = out.rglob("*.json")
    return read_record(path)


@pytest.mark.slow
def test_a_scale_gpt_run_at_a_small_size_trains_the_size_asked_for_with_the_fused_attention(small_scale_record):
    record = small_scale_record
    assert record["status"] == "ok" and record["config"]["profile"] == "scale-gpt"
    flags = record["precision"]["flags"]
    assert flags["attention"] == "jax.nn.dot_product_attention(is_causal=True, implementation=None)"
    assert (flags["flax.nnx.Linear.dtype"], flags["flax.nnx.Param.dtype"]) == ("bfloat16", "float32")
    first = record["training"]["first_losses"][0]
    assert first == pytest.approx(np.log(arch.GPT2_VOCAB), rel=0.02)  # GPT-2's vocabulary, not the bytes' ln 256


@pytest.mark.slow
def test_a_scale_gpt_record_states_the_size_its_tokens_and_its_attention(small_scale_record):
    record = small_scale_record
    spec = workload("gpt").at("gpt2-tiny")
    assert record["model"]["name"] == "gpt-gpt2-tiny"
    assert record["model"]["sizes"] == dataclasses.asdict(arch.GPT2_TINY)
    assert (record["model"]["trainable_params"], record["model"]["flops_per_token"]) == (
        spec.trainable_params(),
        spec.flops_per_sample(),
    )
    tokens = record["config"]["steps_per_epoch"] * 8 * 128
    assert record["timing"]["tokens_per_second"] == pytest.approx(tokens / record["timing"]["epoch_seconds"])
    assert (record["config"]["size"], record["config"]["attention"]) == ("gpt2-tiny", "fused")


@pytest.mark.slow
def test_generator_check_replays_a_scale_gpt_record_with_its_size_and_attention(small_scale_record, tmp_path):
    from generator.records.check import check_paths

    path = tmp_path / "runs" / small_scale_record["hardware"]["machine_id"] / f"{small_scale_record['record_id']}.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(small_scale_record))
    report = check_paths([tmp_path], None)
    assert report.failure_lines() == [] and report.files == [path]
