"""The rules the home, speed, memory and Which to choose pages keep: one column rule on every page, a
split probe score said to be split, a busy cold compile shown as busy, compile-inclusive figures never pooling cold
and warm runs, start-up judged on warm compiles, a bf16 table beside what its CPU's fingerprint lists, what the GPU
records hold where they give no choice, no empty NVML table on a CPU, and the Chinese wording of these pages."""

from __future__ import annotations

import csv
import io
from itertools import takewhile
from pathlib import Path

import gen_records
import probe_records
import pytest
from one_page import page_alone, pages_undrawn

from fwbench.records import write_record
from generator.records.load import load_results
from runners.probes.catalog import ProbeSpec
from runners.probes.record import build_record

MIB = 2**20


def _write(root: Path, records: list[dict]):
    """The results tree of ``records``, each under its machine, loaded as the site reads it."""
    for record in records:
        machine = record["hardware"]["machine_id"] if record.get("hardware") else gen_records.CPU_MACHINE
        write_record(root / "runs" / machine / f"{record['record_id']}.json", record)
    return load_results(root)


def _run(framework: str, seed: int, *, warm: bool, compile_seconds: float, host_mib: float, **options) -> dict:
    """One run as ``runners run`` records it: cold (a configuration's first run, empty compiler caches) or warm (a
    repeat, the caches the first left), with its compile time and whole-run host peak."""
    record = gen_records.run(framework, 32, seed, compile_seconds=compile_seconds, **options)
    record["timing"]["compile_cache"] = "warm" if warm else "cold"
    record["memory"]["host_peak_rss_bytes"] = int(host_mib * MIB)
    record["memory"]["host_children_peak_rss_bytes"] = int((345 if framework == "torch" and not warm else 0) * MIB)
    return record


def _repeats(framework: str, cold: tuple[float, float], warm: list[tuple[float, float]], **options) -> list[dict]:
    """A configuration's cold first run (compile seconds, host MiB) and its warm repeats."""
    first = _run(framework, 0, warm=False, compile_seconds=cold[0], host_mib=cold[1], **options)
    repeats = [
        _run(framework, seed, warm=True, compile_seconds=seconds, host_mib=host, **options)
        for seed, (seconds, host) in enumerate(warm, start=1)
    ]
    return [first, *repeats]


@pytest.fixture(scope="module")
def cached_pages(tmp_path_factory) -> dict[str, dict[str, str]]:
    """Pages from a CPU whose first runs compile cold and carry the compiler's workers (PyTorch 345 MiB of them),
    and whose three warm repeats each are tight: pooled, the memory figures would be within noise."""
    records = [
        *_repeats("torch", (40.0, 2000), [(3.0, 700), (3.1, 702), (3.2, 704)], seconds=10.0),
        *_repeats("tensorflow", (6.0, 1900), [(2.0, 600), (2.05, 601), (2.1, 602)], seconds=12.0),
        *_repeats("jax", (4.0, 2100), [(2.5, 800), (2.55, 801), (2.6, 802)], seconds=20.0),
    ]
    results = _write(tmp_path_factory.mktemp("cached"), records)
    shared: dict = {}
    return {code: pages_undrawn(results, language=code, shared=shared) for code in ("en", "zh")}


def _rows(page: str, start: str) -> list[str]:
    """The rows (header and rule left out) of the first table after ``start``, no-break spaces read as spaces."""
    lines = page[page.index(start) :].replace("\u00a0", " ").splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("| "))
    return list(takewhile(lambda line: line.startswith("| "), lines[first:]))[2:]


def _choice(choose: str, scenario: str) -> str:
    (row,) = [row.strip() for row in choose.splitlines() if row.startswith("    | [") and scenario in row]
    return row


def test_memory_figures_split_cold_and_warm_runs_and_say_so(cached_pages):
    memory = cached_pages["en"]["results/memory.md"]
    assert "**Host peak RSS**" not in memory  # no pooled table
    (warm,) = _rows(memory, "**Host peak RSS, warm caches**")
    (cold,) = _rows(memory, "**Host peak RSS, cold caches**")
    n1, n3 = "<br><small>n=1</small>", "<br><small>n=3</small>"
    assert warm == f"| 32 | 702 ± 5{n3} | 601 ± 2{n3} | 801 ± 2{n3} |"
    assert cold == f"| 32 | 2,000{n1} | 1,900{n1} | 2,100{n1} |"
    (children,) = _rows(memory, "**Host peak RSS of child processes, warm caches**")
    assert children.startswith(f"| 32 | 0 ± 0{n3} |")  # PyTorch's 345 MiB of workers: cold
    (children,) = _rows(memory, "**Host peak RSS of child processes, cold caches**")
    assert children.startswith(f"| 32 | 345{n1} | 0{n1} |")
    assert memory.index("warm caches**") < memory.index("cold caches**")
    assert "the two never pool: each figure has a table per state, warm first" in memory


def test_the_choose_page_judges_memory_and_start_up_on_warm_caches_with_the_cold_figures_beside(cached_pages):
    choose = cached_pages["en"]["choose.md"]
    memory = _choice(choose, "tight memory (host peak RSS at batch 32, warm caches)")
    assert "| **TensorFlow, in one sitting** | **TensorFlow** is leanest at 601 MiB ± 2 (95 % CI, n=3)" in memory
    assert "; cold caches: TensorFlow at 1,900 MiB (n=1), PyTorch at 2,000 MiB (n=1) and JAX at 2,100 MiB" in memory
    start_up = _choice(choose, "short start-up (compile time at batch 32, warm caches)")
    favoured = "| **TensorFlow, in one sitting** | **TensorFlow** is quickest to compile at 2.1 s ± 0.1 (95 % CI, n=3)"
    assert favoured in start_up
    # every framework measured, PyTorch's 40 s cold compile included
    assert "; cold caches: JAX at 4.0 s (n=1), TensorFlow at 6.0 s (n=1) and PyTorch at 40.0 s (n=1) |" in start_up
    assert "Start-up and memory are judged with warm compiler caches" in choose
    chinese = cached_pages["zh"]["choose.md"]
    assert "批大小 32 时的主机峰值 RSS，热缓存" in chinese and "冷缓存：TensorFlow 为 1,900 MiB（n=1）" in chinese


def test_the_verdicts_page_labels_its_compile_times_cold(cached_pages):
    home = cached_pages["en"]["results/verdicts.md"]
    compile_time = "**Compile time** with cold caches: the first step minus the same step run again in each"
    assert compile_time in home
    (row,) = _rows(home, "**Compile time** with cold caches")
    n1 = "<br><small>n=1</small>"
    assert row == f"| 32 | 40.0 s{n1} | 6.0 s{n1} | 4.0 s{n1} |"
    assert "**编译时间**（冷缓存）" in cached_pages["zh"]["results/verdicts.md"]


def test_a_cold_compile_from_a_busy_run_alone_is_shown_marked_busy(tmp_path):
    cold = _run("jax", 0, warm=False, compile_seconds=8.3, host_mib=700, busy=True)
    warm = [_run("jax", seed, warm=True, compile_seconds=1.8, host_mib=600) for seed in (1, 2, 3)]
    speed = page_alone(_write(tmp_path, [cold, *warm]), "results/speed.md")
    (row,) = _rows(speed, "**Compile time, cold caches**")
    assert row == '| 32 | 8.3 s<br><small>n=1 · <span title="busy-flagged run">⚑</span></small> |'
    (row,) = _rows(speed, "**Compile time, warm caches**")
    assert row == "| 32 | 1.8 ± 0.0 s<br><small>n=3</small> |"  # the busy run was not one of them


def test_the_verdicts_page_gives_no_column_to_a_framework_with_no_run(tmp_path):
    records = [gen_records.run(fw, 32, seed) for fw in ("torch", "jax") for seed in range(3)]
    home = page_alone(_write(tmp_path, records), "results/verdicts.md")
    assert "| batch | PyTorch | JAX | verdict |" in home
    assert "not measured on this machine" not in home and "TensorFlow: no run on this machine" in home


def _bf16(record: dict, isa: list[str]) -> dict:
    """``record`` as a bf16 run on a CPU whose fingerprint lists ``isa``."""
    record["config"]["precision"] = record["precision"]["policy"] = "bf16"
    record["precision"]["compute_dtype"] = "bfloat16"
    record["hardware"]["fingerprint"]["isa"] = isa
    return record


@pytest.mark.parametrize(("isa", "listed"), [(["avx", "avx2", "fma"], False), (["avx2", "avx512_bf16"], True)])
def test_a_bf16_table_says_when_its_cpu_lists_no_bf16_instructions(tmp_path, isa, listed):
    records = [
        _bf16(gen_records.run(fw, 32, seed, seconds=seconds + 0.01 * seed), isa)
        for fw, seconds in (("torch", 100.0), ("tensorflow", 10.0))
        for seed in range(3)
    ]
    results = _write(tmp_path, records)
    pages = {path: page_alone(results, path) for path in ("results/verdicts.md", "results/speed.md", "choose.md")}
    sentence = "This CPU lists no bf16 instructions (avx512_bf16, amx_bf16) in its fingerprint."
    for page in ("results/verdicts.md", "results/speed.md"):
        assert (sentence in pages[page]) is not listed, page
    row = _choice(pages["choose.md"], "fast training at small batches")
    assert row.startswith("| [fast training at small batches (batch 32) on ")
    assert "| **TensorFlow, in one sitting** |" in row
    assert ("; this CPU lists no bf16 instructions (avx512_bf16, amx_bf16) in its fingerprint |" in row) is not listed


def _gpu(framework: str, seed: int, older: bool) -> dict:
    return gen_records.run(framework, 32, seed, machine_id=gen_records.GPU_MACHINE, older=older)


def test_the_choose_page_says_what_the_gpu_records_hold_where_they_give_no_row(tmp_path):
    cpu = [gen_records.run(fw, 32, seed, seconds=s) for fw, s in (("torch", 10.0), ("jax", 12.0)) for seed in range(3)]
    only_cpu = page_alone(_write(tmp_path / "cpu", cpu), "choose.md")
    assert '!!! info "Training on a GPU"' in only_cpu and "No run record is from a GPU" in only_cpu
    choose = page_alone(_write(tmp_path / "older", [*cpu, _gpu("torch", 0, True), _gpu("jax", 0, True)]), "choose.md")
    assert "No row here is about GPU training: every row above is a CPU's" in choose
    item = "- NVIDIA GeForce RTX 4090 (GPU): n = 1 per configuration; older records, shown but never judged"
    assert f"    {item}\n" in choose
    chinese = page_alone(load_results(tmp_path / "older"), "choose.md", language="zh")
    assert "- NVIDIA GeForce RTX 4090（GPU）：每个配置 n = 1；旧版记录，只展示、不作判定" in chinese
    judged = [_gpu(fw, seed, False) for fw in ("torch", "jax") for seed in range(3)]
    choose = page_alone(_write(tmp_path / "judged", [*cpu, *judged]), "choose.md")
    assert "Training on a GPU" not in choose and "on NVIDIA GeForce RTX 4090 (GPU), synthetic](" in choose


def test_no_nvml_table_on_a_cpu_and_one_where_a_gpu_run_recorded_its_phases(tmp_path):
    cpu = [gen_records.run(fw, 32, seed) for fw in ("torch", "jax") for seed in range(3)]
    gpu = [gen_records.run(fw, 32, machine_id=gen_records.GPU_MACHINE, nvml=3 << 30) for fw in ("torch", "jax")]
    memory = page_alone(_write(tmp_path, [*cpu, *gpu]), "results/memory.md")
    cpu_part, gpu_part = memory.split("### NVIDIA GeForce RTX 4090 (GPU)")  # the CPU's table first, by machine id
    assert "NVML peak by phase" not in cpu_part and "| — |" not in cpu_part
    assert "**NVML peak by phase, cold caches** (MiB, compiled mode)" in gpu_part


def test_a_choose_page_calls_a_split_probe_score_split(tmp_path):
    vague, shapes = "Incompatible shapes", "mat1 and mat2 shapes cannot be multiplied (8x128 and 64x10)"
    messages = {
        ("torch", "dense_shape"): vague,
        ("tensorflow", "dense_shape"): vague,
        ("jax", "dense_shape"): shapes,  # JAX leads without the silently cast probes
        ("torch", "dtype"): "mat1 and mat2 must have the same dtype, but got Double and Float",
        ("tensorflow", "dtype"): None,
        ("jax", "dtype"): None,  # PyTorch leads with them
    }
    for (framework, bug), message in messages.items():
        capture = probe_records.error(message) if message else probe_records.COMPUTED_IN_FLOAT32
        spec = ProbeSpec(framework, bug, "eager", None)
        record = build_record(spec, capture, machine_id=gen_records.CPU_MACHINE, **probe_records.PROVENANCE)
        write_record(tmp_path / "probes" / gen_records.CPU_MACHINE / f"{record['record_id']}.json", record)
    results = load_results(tmp_path, strict=True)
    rows = {}
    for code, split in (("en", "split"), ("zh", "两种计分结论不一")):
        choose = page_alone(results, "choose.md", language=code)
        (rows[code],) = [
            r.strip() for r in choose.splitlines() if r.startswith("    | [") and "devex/debugging.md" in r
        ]
        assert rows[code].split(" | ")[1] == split, rows[code]
    assert (
        "first score): JAX 50%, PyTorch 17% and TensorFlow 17%; with every probe (2 probes each): PyTorch 33%, JAX 25%"
        in rows["en"]
    )
    assert "**" not in rows["en"]  # no one favoured


def test_the_chinese_wording_of_the_home_verdicts_and_memory_pages(cached_pages):
    home, memory = cached_pages["zh"]["index.md"], cached_pages["zh"]["results/memory.md"]
    assert "记录和文章自身的数字揭示了文章没有提到的几点：" in cached_pages["zh"]["results/verdicts.md"]
    answer = home.split('<div class="fw-answer" markdown>', 1)[1].split("</div>", 1)[0]
    assert "**CPU** · Test CPU @ 2.0GHz（CPU，2 线程，AVX2，指纹 1a2b3c）：" in answer
    assert "批大小 32 时为 " in answer and "at batch" not in answer
    assert memory.startswith("# 3.2 内存占用\n")


def test_the_configurations_csv_keeps_cold_and_warm_figures_apart(cached_pages):
    rows = {row["framework"]: row for row in csv.DictReader(io.StringIO(cached_pages["en"]["data/configurations.csv"]))}
    torch = rows["torch"]
    assert (torch["compile_seconds_n"], torch["compile_seconds_median"]) == ("1", "40.0")
    assert (torch["warm_compile_seconds_n"], torch["warm_compile_seconds_median"]) == ("3", "3.1")
    mib = 1024 * 1024
    assert float(torch["host_peak_rss_bytes_cold_median"]) == 2000 * mib
    assert float(torch["host_peak_rss_bytes_warm_median"]) == 702 * mib and torch["host_peak_rss_bytes_warm_n"] == "3"
    assert "host_peak_rss_bytes_median" not in torch  # no pooled column


def test_a_warm_compile_within_the_step_noise_is_named_beside_the_start_up_lead(tmp_path):
    records = [
        *_repeats("torch", (40.0, 2000), [(0.0, 700)] * 3, seconds=10.0),  # warm: nothing left to compile
        *_repeats("tensorflow", (6.0, 1900), [(2.0, 600), (2.05, 601), (2.1, 602)], seconds=12.0),
        *_repeats("jax", (4.0, 2100), [(2.5, 800), (2.55, 801), (2.6, 802)], seconds=20.0),
    ]
    choose = page_alone(_write(tmp_path, records), "choose.md")
    start_up = _choice(choose, "short start-up (compile time at batch 32, warm caches)")
    assert "**TensorFlow** is quickest to compile" in start_up
    assert "; below the step-time noise: PyTorch; cold caches:" in start_up  # measured, not left out unsaid
