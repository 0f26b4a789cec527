"""What a reader needs on the page it reads: the home page's answer first, machines named CPU or GPU, a missing
framework said to be missing, MFU with its peak, versions written as people write them, the ecosystem pages'
unverified figures said to be so, and no path of the machine that built the site."""

from __future__ import annotations

import re
from pathlib import Path

import gen_records
from one_page import page_alone, pages_undrawn

from fwbench.records import write_record
from generator.i18n import language
from generator.records.load import load_results
from generator.views.ecosystem import metric_text
from generator.views.gpu_stack import cuda_version, cudnn_version
from generator.views.repository import portable_paths
from runners.measure.profiles import expand

GPU = "nvidia-h200"
H200_PEAK = 67e12
#: absolute paths of a build machine that no page may show
MACHINE_PATHS = re.compile(r"(?<![\w.:/~-])/(?:root|work|tmp|home|Users)/")


def _gpu_run(framework: str, batch_size: int, mfu: float | None = None) -> dict:
    record = gen_records.run(framework, batch_size, machine_id=GPU)
    if mfu is not None:
        record["mfu"] = {
            "value": mfu,
            "peak_flops_per_second": H200_PEAK,
            "basis": "3 × forward FLOPs per image × images/s ÷ the device's peak float32 FLOP/s",
        }
    return record


def _results(tmp_path: Path, records: list[dict]):
    for record in records:
        machine = record["hardware"]["machine_id"] if record.get("hardware") else gen_records.CPU_MACHINE
        write_record(tmp_path / "runs" / machine / f"{record['record_id']}.json", record)
    return load_results(tmp_path)


def answers(home: str) -> list[str]:
    """The home page's answer paragraphs, in order."""
    return [part.split("</div>", 1)[0].strip() for part in home.split('<div class="fw-answer" markdown>')[1:]]


def test_the_home_page_answers_first_a_paragraph_per_device_class_gpus_first(tmp_path):
    results = _results(
        tmp_path,
        [_gpu_run("torch", 32), _gpu_run("jax", 32), gen_records.run("torch", 32), gen_records.run("jax", 32)],
    )
    home = page_alone(results, "index.md")
    gpus, cpus = answers(home)
    assert home.index("fw-answer") < home.index("fwbench re-runs")
    assert gpus.startswith("**GPUs** · NVIDIA H200 (GPU): ") and cpus.startswith("**CPUs** · Test CPU @ 2.0GHz (CPU")
    assert "No framework is ahead yet: 1 undecided between PyTorch and JAX (n = 1)." in gpus
    assert "ahead of" not in gpus + cpus and "disagree" not in gpus + cpus  # one run each: nothing decided
    assert gpus.endswith("TensorFlow has no run there yet.")  # who was not measured, once per class, at its end
    verdicts = page_alone(results, "results/verdicts.md")
    assert "TensorFlow: no run on this machine, so the tables have no column for it" in verdicts  # and none has one
    assert "### NVIDIA H200 (GPU) · " in verdicts and "One run per configuration" in verdicts
    chinese = answers(page_alone(results, "index.md", language="zh"))
    assert chinese[0].startswith("**GPU** · NVIDIA H200（GPU）：") and "TensorFlow 在这里还没有运行。" in chinese[0]


def test_the_machine_that_built_the_site_answers_first_where_it_decides_a_lead(tmp_path):
    faster = [gen_records.run("torch", 32, seed, seconds=5.0 + 0.01 * seed) for seed in range(3)]
    slower = [gen_records.run("jax", 32, seed, seconds=10.0 + 0.01 * seed) for seed in range(3)]
    results = _results(tmp_path, [_gpu_run("torch", 32), _gpu_run("jax", 32), *faster, *slower])
    built = pages_undrawn(results, this_machine=gen_records.CPU_MACHINE)
    first, second = answers(built["index.md"])
    assert first.startswith("**On this machine** · Test CPU @ 2.0GHz (CPU, 2 threads, AVX2, fingerprint 1a2b3c): ")
    assert "PyTorch ahead of JAX 2.00× (1.99–2.00×) at batch 32, in one sitting." in first, first
    assert second.startswith("**GPUs** · NVIDIA H200 (GPU)")
    verdicts = built["results/verdicts.md"]
    assert verdicts.index("### Test CPU @ 2.0GHz (CPU, ") < verdicts.index(
        "### NVIDIA H200 (GPU) · "
    )  # its table first
    mine = "Test CPU @ 2.0GHz (CPU, 2 threads, AVX2, fingerprint 1a2b3c): the machine that built this site"
    assert f"### {mine} (`{gen_records.CPU_MACHINE}`)" in built["results/machines.md"]  # beside the published ones
    assert f"| [{mine}](#machine-{gen_records.CPU_MACHINE}) |" in built["results/machines.md"]
    published = pages_undrawn(results)
    assert "built this site" not in published["index.md"] + published["results/machines.md"]  # names no machine
    chinese = page_alone(results, "index.md", language="zh", this_machine=gen_records.CPU_MACHINE)
    assert answers(chinese)[0].startswith("**在这台机器上** · ") and "PyTorch 领先 JAX 2.00×" in chinese


def test_the_machine_that_built_the_site_answers_first_with_what_its_undecided_ends_need(tmp_path):
    quick = expand("quick", device="cpu", version_of=gen_records.VERSIONS.get)
    plan = [c for c in quick if c.precision == "fp32" and c.batch_size in (32, 256)]
    rates = (("torch", 100.0), ("tensorflow", 50.0))
    own = [run for framework, rate in rates for run in gen_records.matrix_runs(framework, [rate], plan=plan)]
    results = _results(tmp_path, [_gpu_run("torch", 32), _gpu_run("jax", 32), *own])
    first, second = answers(pages_undrawn(results, this_machine=gen_records.CPU_MACHINE)["index.md"])
    assert first.startswith(
        "**On this machine** · Test CPU @ 2.0GHz (CPU, 2 threads, AVX2, fingerprint 1a2b3c): at batch 32 undecided at "
        "n = 1: `make site` needs ≈ 4 min for 2 more paired rounds (n = 3); batch 256 not run in this sitting: `make "
        "site` needs ≈ 9 min for the 3 paired rounds a verdict needs. "
    ), first  # each run's time from its records; batch 256's from batch 32's, rescaled
    assert second.startswith("**GPUs** · NVIDIA H200 (GPU)")  # the builder first, though it decides nothing yet
    chinese = answers(page_alone(results, "index.md", language="zh", this_machine=gen_records.CPU_MACHINE))
    assert chinese[0].startswith("**在这台机器上** · ") and "批大小 32 未定（n = 1）：`make site` 约需 " in chinese[0]
    assert "；批大小 256 在本测量时段未运行：`make site` 约需 9 分钟完成判定所需的 3 个配对回合。" in chinese[0]
    assert chinese[1].startswith("**GPU** · NVIDIA H200（GPU）")


def test_a_machine_with_two_precisions_is_answered_by_what_tells_its_comparisons_apart(tmp_path):
    quick = expand("quick", device="cpu", version_of=gen_records.VERSIONS.get)
    runs = [
        gen_records.as_recorded(config, gen_records.one_epoch(config, 30.0), ["runners", "matrix"])
        for config in quick
        if config.batch_size == 32
    ]
    assert {run["config"]["precision"] for run in runs} == {"fp32", "bf16"}
    (cpus,) = answers(page_alone(_results(tmp_path, runs), "index.md"))
    assert cpus.startswith("**CPUs** · Test CPU @ 2.0GHz (CPU, 2 threads, AVX2, fingerprint 1a2b3c): ")
    assert "in compiled mode at batch 32, in strict FP32 (TF32 off) and bfloat16." in cpus
    assert "quick" not in cpus and "training images" not in cpus  # the words both tables share: their headings'


def test_mfu_names_its_peak_and_precision_and_spells_itself_out(tmp_path):
    speed = page_alone(_results(tmp_path, [_gpu_run("torch", 32, mfu=0.442), _gpu_run("jax", 32)]), "results/speed.md")
    assert "model FLOPs utilisation" in speed
    assert "MFU 44.2% of the NVIDIA H200's dense FP32 peak, 67 TFLOP/s (strict FP32 (TF32 off), n=1)" in speed


def test_gpu_library_versions_read_as_people_write_them():
    assert cuda_version("13000") == "13.0" and cuda_version(12020) == "12.2" and cuda_version("12.2") == "12.2"
    assert cudnn_version("91900") == "9.19.0" and cudnn_version("8907") == "8.9.7" and cudnn_version(None) is None


def test_restricted_star_growth_and_a_missing_figure_say_not_measured():
    restricted = {"status": "not_collected", "value": None, "reason": "restricted by GitHub since July 2026: …"}
    assert metric_text(restricted, "stars_gained_in_window") == (
        "not measured: GitHub restricts stargazer data since July 2026"
    )
    with language("zh"):
        assert metric_text(None, "stars_gained_in_window") == "未测量"


def test_ecosystem_pages_without_a_snapshot_keep_commands_and_field_names_for_the_maintainers(tmp_path):
    pages = pages_undrawn(_results(tmp_path, [gen_records.run("torch", 32)]))
    for path in ("beyond/community.md", "beyond/maintenance.md"):
        assert "**unverified**" in pages[path], path
        assert "ecosystem collect" not in pages[path] and "total_questions" not in pages[path], path
    assert "ecosystem collect --out results/ecosystem" in pages["appendix/reproduce.md"]


def test_recorded_paths_are_made_portable():
    traceback = 'File "/work/x/.venv/lib/python3.11/site-packages/keras/ops.py", /tmp/fwm/runners/probes/t.py'
    assert portable_paths(traceback) == 'File "…/site-packages/keras/ops.py", runners/probes/t.py'
    assert portable_paths("--out /tmp/vresults/bisect2 https://example.org/a/b img/s") == (
        "--out …/bisect2 https://example.org/a/b img/s"
    )


def test_no_page_shows_a_path_of_the_build_machine(built_site):
    root = str(Path(__file__).resolve().parents[2])
    for page in built_site.rglob("*.html"):
        html = page.read_text(encoding="utf-8")
        found = MACHINE_PATHS.search(html)
        assert root not in html and not found, f"{page.relative_to(built_site)}: {found and found.group(0)}"
