"""The transformer beside the article: its records, as ``runners run --workload gpt`` writes them, get tables of
their own with tokens/s and verdicts, a home-page line, and never enter the article's pages or claims."""

from __future__ import annotations

import csv
import dataclasses
import io

import gen_records
import pytest
from one_page import page_alone, pages_undrawn

from fwbench.records import read_record, write_record
from generator.records import check_rules
from generator.records.aggregate import summarise, tables
from generator.records.load import load_results
from generator.verdicts.leads import leads_by_batch
from generator.views import chart_data
from runners.measure.profiles import expand
from runners.workloads.gpt.arch import SIZES

#: tokens/s of each framework's three rounds: PyTorch's ahead of the others', TensorFlow's and JAX's close
RATES = {"torch": (5000.0, 5100.0, 4950.0), "tensorflow": (4000.0, 4300.0, 3700.0), "jax": (3900.0, 4000.0, 3950.0)}


def gpt_run(
    framework: str, tokens_per_second: float, repeat: int = 0, mode: str = "compiled", size: str | None = None
) -> dict:
    """One quick-gpt run on the test CPU as ``runners run`` records it (through ``ok_record``); with ``size``, at that
    named size under the scale-gpt profile's name, as an accelerator's scale-gpt run is a setting of its own."""
    (config,) = expand(
        "quick-gpt", frameworks=[framework], modes=[mode], device="cpu", version_of=gen_records.VERSIONS.get
    )
    config = dataclasses.replace(config, repeat=repeat, **({"size": size, "profile": "scale-gpt"} if size else {}))
    context = SIZES[size or "bytes-6x384"].context  # which ok_record multiplies sequences/s by
    measured = gen_records.one_epoch(
        config,
        tokens_per_second / context,
        epochs=[{"epoch": 1, "train_loss": 4.2, "train_accuracy": 0.2, "test_loss": 3.0, "test_accuracy": 0.3}],
    )
    return gen_records.as_recorded(config, measured, ["runners", "matrix", "--workload", "gpt"])


def write(root, records):
    for record in records:
        write_record(root / "runs" / gen_records.CPU_MACHINE / f"{record['record_id']}.json", record)
    return load_results(root)


def transformer_results(tmp_path, with_resnet: bool = True):
    runs = [gpt_run(fw, rate, i) for fw, rates in RATES.items() for i, rate in enumerate(rates)]
    runs += [gen_records.run(fw, 32) for fw in ("torch", "jax")] if with_resnet else []
    return write(tmp_path, runs)


def test_a_gpt_record_counts_tokens_names_its_model_and_passes_the_checks(tmp_path):
    record = gpt_run("torch", 5000.0)
    assert record["timing"]["images_per_second"] is None
    assert abs(record["timing"]["tokens_per_second"] - 5000.0) < 1e-6
    assert record["model"]["workload"] == "gpt" and record["model"]["sizes"]["context"] == 256
    assert record["config"]["dataset"] == "grammar" and record["config"]["lr_schedule"]["peak_lr"] == 1e-3
    problems, _notes = check_rules.physical(record, check_rules.load_references())
    assert problems == []
    bad = {**record, "timing": {**record["timing"], "tokens_per_second": 9000.0}}
    (problem,) = check_rules.physical(bad, check_rules.load_references())[0]
    assert "tok/s 9000" in problem[1] and "samples per epoch" in problem[1]
    work, _ = check_rules.same_work(record, check_rules.load_references())
    assert work == []  # its parameters and FLOPs per token are the shipped reference's


def test_a_record_without_a_workload_reads_as_resnet18(tmp_path):
    record = gen_records.run("torch", 32)
    path = tmp_path / "old.json"
    write_record(path, record)
    assert "workload" not in record["model"]
    assert read_record(path)["model"]["workload"] == "resnet18"
    assert "upgraded_from" not in read_record(path)  # known from the code that wrote it: not an older record


def test_transformer_tables_have_their_own_setting_and_verdicts_by_tokens(tmp_path):
    results = transformer_results(tmp_path)
    found = tables(summarise(results.runs))
    gpt = [t for t in found if t.setting.workload == "gpt"]
    assert len(gpt) == 1 and len(found) == 2
    (table,) = gpt
    assert table.setting.label.startswith("GPT (6 × 384, bytes) · quick-gpt · grammar · 192 training sequences")
    lead = leads_by_batch(table)[8]
    assert lead.leader == "PyTorch" and lead.decided and lead.n == 3


def test_the_transformer_page_and_the_home_line_show_it_and_the_article_pages_do_not(tmp_path):
    results = transformer_results(tmp_path)
    (gpt,) = [t for t in tables(summarise(results.runs)) if t.setting.workload == "gpt"]
    assert chart_data.per_batch(gpt, lambda s: s.tokens_per_second, "tokens/s").xlabel == "batch size (sequences)"
    pages = pages_undrawn(results)
    page = pages["results/transformer.md"]
    assert "# 3.5 Beyond the article: a transformer" in page
    assert "10,844,160 trainable parameters and 23,851,008 forward FLOPs per token" in page
    # the leader, in bold, and why
    assert "**5,016.7 ±" in page and "PyTorch ahead, 1.26× (1.08–1.46×), in one sitting" in page
    assert "Test perplexity" in page and "20.09" in page  # e^3.0
    assert "(results/transformer.md)" in pages["index.md"]  # the home page points to it
    for article_page in ("results/speed.md", "results/memory.md", "results/accuracy.md", "appendix/claims.md"):
        assert "grammar" not in pages[article_page], article_page


def test_the_larger_model_comes_first_another_size_says_its_own_and_the_home_page_names_each(tmp_path):
    runs = [gpt_run(fw, rate, i) for fw, rates in RATES.items() for i, rate in enumerate(rates)]
    runs += [gpt_run(fw, rate / 10, i, size="gpt2-tiny") for fw, rates in RATES.items() for i, rate in enumerate(rates)]
    runs += [gen_records.run(fw, 32) for fw in ("torch", "jax")]  # the home page answers for ResNet-18's machines
    results = write(tmp_path, runs)
    pages = pages_undrawn(results)
    page = pages["results/transformer.md"]
    tiny = SIZES["gpt2-tiny"]
    assert page.index("· quick-gpt ·") < page.index("· scale-gpt ·")  # the byte model has more FLOPs per token
    assert "· GPT (2 × 64, a vocabulary of 50,257) · scale-gpt ·" in page  # the size's shape names its table
    assert "10,844,160 trainable parameters" in page  # the page's model is the default size's
    (here,) = [line for line in page.splitlines() if line.startswith("**The model here**")]
    assert f"({tiny.layers} layers, {tiny.width} wide, context {tiny.context:,}, vocabulary {tiny.vocab:,})" in here
    assert page.index("· scale-gpt ·") < page.index(here)  # under its own table's heading
    assert "![MFU against batch size on" not in page  # a CPU without a known peak: no MFU, no chart
    home = pages["index.md"]
    byte_line = home.index("**The transformer**, a GPT of 11M parameters (6 layers, 384 wide, context 256")
    tiny_line = home.index(f"**The transformer**, a GPT of {tiny_params(results)}M parameters ({tiny.layers} layers")
    assert byte_line < tiny_line  # the larger model first, each with its verdict
    assert "PyTorch is ahead of TensorFlow by 1.26× (1.08–1.46×) at batch 8" in home[byte_line:tiny_line]


def tiny_params(results) -> str:
    (params,) = {r.record["model"]["trainable_params"] for r in results.runs if r.record["config"].get("size")}
    return f"{params / 1e6:.0f}"


def test_an_eager_run_shows_its_first_step_overhead_not_a_compile_time(tmp_path):
    runs = [gpt_run(fw, rate, i) for fw, rates in RATES.items() for i, rate in enumerate(rates)]
    runs += [gpt_run("torch", 3000.0 + 50 * i, i, mode="eager") for i in range(3)]
    results = write(tmp_path, runs)
    page = page_alone(results, "results/transformer.md")
    assert "**Compile time, cold caches** (compiled mode)" in page
    assert "**First-step overhead, cold caches** (eager mode)" in page  # eager compiles nothing
    assert "**Compile time, cold caches** (eager mode)" not in page
    chinese = page_alone(results, "results/transformer.md", language="zh")
    assert " · quick-gpt 配置档 · 文法生成的文本 · 192 条训练序列" in chinese  # the profile and data set in Chinese too
    assert (
        "**第一步额外开销（冷缓存）**（即时执行模式）" in chinese
        and "**编译时间（冷缓存）**（即时执行模式）" not in chinese
    )


def test_without_transformer_records_the_page_says_how_to_make_them(tmp_path):
    pages = pages_undrawn(write(tmp_path, [gen_records.run("torch", 32)]))
    assert "runners matrix --workload gpt" in pages["results/transformer.md"]
    assert "(results/transformer.md)" not in pages["index.md"]


def test_the_downloads_carry_the_workload_and_tokens_per_second(tmp_path):
    files = pages_undrawn(transformer_results(tmp_path))
    rows = list(csv.DictReader(io.StringIO(files["data/configurations.csv"])))
    gpt = [r for r in rows if r["workload"] == "gpt"]
    assert {r["framework"] for r in gpt} == {"torch", "tensorflow", "jax"}
    torch = next(r for r in gpt if r["framework"] == "torch")
    assert torch["tokens_per_second_n"] == "3" and float(torch["tokens_per_second_mean"]) == pytest.approx(
        5016.67, 1e-4
    )
    assert torch["images_per_second_n"] == "0"
    assert {r["workload"] for r in rows} == {"gpt", "resnet18"}
    runs = list(csv.DictReader(io.StringIO(files["data/runs.csv"])))
    assert sum(1 for r in runs if r["tokens_per_second"]) == 9


def test_the_gpt_memory_figure_keeps_cold_and_warm_runs_apart(tmp_path):
    runs = []
    for framework, rates in RATES.items():
        for repeat, rate in enumerate(rates):
            record = gpt_run(framework, rate, repeat)
            record["timing"]["compile_cache"] = "warm" if repeat else "cold"
            record["memory"]["host_peak_rss_bytes"] = (1300 if repeat == 0 else 1200 + repeat) * 2**20
            runs.append(record)
    page = page_alone(write(tmp_path, runs), "results/transformer.md")
    warm, cold = (page.index(f"(MiB), {state} caches**") for state in ("warm", "cold"))
    assert warm < cold and "1,300<br><small>n=1</small>" in page[cold:]
    assert "1,300" not in page[warm:cold]  # the cold run's peak never in the warm figure


def test_an_issue_without_a_workaround_is_sized_by_the_setting_that_reproduces_its_cause(tmp_path, monkeypatch):
    # PyTorch's GPT out of the box and with MKL capped at its AVX2 path, as runners records them: the cap is tuning
    monkeypatch.delenv("MKL_ENABLE_INSTRUCTIONS", raising=False)
    plain = [gpt_run("torch", rate, i) for i, rate in enumerate((5000.0, 5100.0, 4950.0))]
    monkeypatch.setenv("MKL_ENABLE_INSTRUCTIONS", "AVX2")
    capped = [gpt_run("torch", rate, i) for i, rate in enumerate((3500.0, 3600.0, 3550.0))]
    assert all(record["config"]["tuning_environment"] == {"MKL_ENABLE_INSTRUCTIONS": "AVX2"} for record in capped)
    results = write(tmp_path, plain + capped)
    page = page_alone(results, "results/platform-issues.md")
    mkl = page[page.index("## PyTorch on an AMD CPU with AVX-512") :]
    size = "**1.4× slower with the setting (95 % CI 1.3–1.5×; 1 configuration, n ≥ 3 each)**"
    assert f"**Measured size.** {size}, from the run records:" in mkl
    assert "| batch | out of the box (tok/s) | with the setting (tok/s) | slower |" in mkl
    cells = (
        "8",
        "5,016.7 ±\u00a0189.7<br><small>n=3</small>",
        "3,550.0 ±\u00a0124.2<br><small>n=3</small>",
        "1.4× (95 % CI 1.3–1.5×)",
    )
    assert "| " + " | ".join(cells) + " |" in mkl
    assert f"The setting slows PyTorch beyond the noise on `{gen_records.CPU_MACHINE}`" in mkl
    assert "**Reproduced with.** `MKL_ENABLE_INSTRUCTIONS=AVX2` caps MKL" in mkl
    assert "**Workaround.** None measured yet." in mkl
    # the issue with a workaround is untouched: no run made with its variables, so nothing measured
    assert "faster with the workaround" not in page
    assert "使用该设置后慢 1.4×" in page_alone(results, "results/platform-issues.md", language="zh")
    plain_only = page_alone(write(tmp_path / "plain", plain), "results/platform-issues.md")
    unmeasured = plain_only[plain_only.index("## PyTorch on an AMD CPU with AVX-512") :]
    assert (
        "not measured yet: no machine of this kind holds runs made both out of the box and with the setting"
        in unmeasured
    )
    assert f"`{gen_records.CPU_MACHINE}`: no run made with the setting." in unmeasured
