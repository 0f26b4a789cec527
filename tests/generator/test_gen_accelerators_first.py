"""Every page answers for the accelerators first: the TPU's and GPUs' tables before the CPUs', the most recently
measured accelerator first (``generator.views.table_view.answer_order``)."""

from __future__ import annotations

import gen_records
from one_page import page_alone
from test_gen_tpu import TPU_TITLE, tpu_runs

from fwbench.records import write_record
from generator.records.load import load_results

GPU_TITLE = "NVIDIA GeForce RTX 4090 (GPU)"


def test_the_newest_accelerator_comes_first_then_the_others_then_the_cpus(tmp_path):
    gpu = [gen_records.run(fw, 32, machine_id=gen_records.GPU_MACHINE) for fw in ("torch", "jax")]  # before the TPU's
    cpu = [gen_records.run(fw, 32) for fw in ("torch", "tensorflow", "jax")]
    assert max(r["finished_at"] for r in gpu) < min(r["finished_at"] for r in tpu_runs())
    for record in [*cpu, *gpu, *tpu_runs()]:
        write_record(tmp_path / "runs" / record["hardware"]["machine_id"] / f"{record['record_id']}.json", record)
    results = load_results(tmp_path)
    home = page_alone(results, "index.md")
    answers = [part.split(" · ", 1)[0] for part in home.split('<div class="fw-answer" markdown>\n\n')[1:]]
    assert answers == ["**TPUs**", "**GPUs**", "**CPUs**"]
    for name in ("results/verdicts.md", "results/speed.md", "results/memory.md"):
        headings = [part.split("\n", 1)[0] for part in page_alone(results, name).split("\n### ")[1:]]
        kinds = ["tpu" if h.startswith(TPU_TITLE) else "gpu" if h.startswith(GPU_TITLE) else "cpu" for h in headings]
        assert kinds == sorted(kinds, key=["tpu", "gpu", "cpu"].index) and {"tpu", "gpu", "cpu"} <= set(kinds), name
