"""Runs made alone in their sitting (``fwbench.sittings``): a framework measured on another day than the others of
its row is shown, marked ◇ lone, and never judged, in both languages; once a run of another framework is made beside
it, its runs count. Records are built as ``runners matrix`` writes them (``runners.record.ok_record``)."""

from __future__ import annotations

import dataclasses
import importlib.util
from pathlib import Path

import gen_records

from fwbench.records import write_record
from generator.build.render import build_pages
from generator.records.load import load_results
from runners.profiles import RunConfig, expand

REPO = Path(__file__).resolve().parents[2]
QUICK = expand("quick", device="cpu", version_of=gen_records.VERSIONS.get)


def at_32(framework: str) -> RunConfig:
    """The quick profile's fp32 configuration of ``framework`` at batch 32."""
    return next(c for c in QUICK if c.batch_size == 32 and c.precision == "fp32" and c.framework == framework)


def runs(framework: str, rate: float, day: int, repeats: range) -> list[dict]:
    """``framework``'s runs at ``rate`` images/s on 2026-12-``day``, a few minutes apart, one per repeat."""
    made = []
    for repeat in repeats:
        config = dataclasses.replace(at_32(framework), repeat=repeat)
        finished = f"2026-12-{day:02d}T10:{2 * repeat + 1:02d}:00.000Z"
        measured = gen_records.one_epoch(config, rate)
        made.append(gen_records.as_recorded(config, measured, ["runners", "matrix"], finished_at=finished))
    return made


def pages(root: Path, records: list[dict], language: str = "en") -> dict[str, str]:
    for record in records:
        write_record(root / "runs" / gen_records.CPU_MACHINE / f"{record['record_id']}.json", record)
    return build_pages(load_results(root), language=language)


def answer_of(home: str) -> str:
    return home.split('<div class="fw-answer" markdown>', 1)[1].split("</div>", 1)[0]


def test_a_framework_measured_on_another_day_is_marked_lone_and_never_judged_until_a_run_is_made_beside_it(tmp_path):
    side_by_side = runs("torch", 30.0, 1, range(3)) + runs("tensorflow", 20.0, 1, range(3))
    days_later = runs("jax", 60.0, 3, range(3))  # the fastest figure, but nothing ran beside it
    built = pages(tmp_path, side_by_side + days_later)
    assert "PyTorch is fastest at batch 32, beyond the noise" in answer_of(built["index.md"])
    assert "3 lone runs (◇): made in a sitting where no other framework of their row ran" in built["index.md"]
    speed = built["results/speed.md"]
    assert '<span title="lone run: no other framework of its row ran in its sitting">◇</span>' in speed
    assert "3 lone runs" in speed and "less than 1 h apart" in speed
    assert "runs less than 1 h apart make a sitting" in " ".join(built["method.md"].split())
    chinese = pages(tmp_path, [], language="zh")
    assert "3 次孤立运行（◇）" in chinese["index.md"] and "◇" in chinese["results/speed.md"]

    assert "unequal shares" not in speed  # JAX's day holds no other framework: its runs are lone, not pooled

    beside = runs("torch", 30.0, 3, range(3, 4))  # a PyTorch run on JAX's day: that sitting now compares them
    built = pages(tmp_path, beside)
    assert "JAX is fastest at batch 32, beyond the noise" in answer_of(built["index.md"])
    assert "lone run" not in built["index.md"] and "◇</span>" not in built["results/speed.md"]


def test_a_row_pooled_from_sittings_in_unequal_shares_says_so_with_its_runs_per_sitting(tmp_path):
    """PyTorch and TensorFlow three runs each on the first day; two days later JAX three and PyTorch one beside it:
    every run is judged, but PyTorch's figure pools both days, TensorFlow's the first and JAX's the second."""
    first_day = runs("torch", 30.0, 1, range(3)) + runs("tensorflow", 20.0, 1, range(3))
    built = pages(tmp_path, first_day + runs("torch", 24.0, 3, range(3, 4)) + runs("jax", 60.0, 3, range(3)))
    speed = " ".join(built["results/speed.md"].split())
    assert "1 row from sittings in unequal shares" in speed
    assert "- batch 32: PyTorch 3 + 1, TensorFlow 3 + 0, JAX 0 + 3" in built["results/speed.md"]
    assert "most for a framework measured mostly in one of them" in speed
    chinese = pages(tmp_path, [], language="zh")["results/speed.md"]
    assert "1 行的运行分布在比例不均的多个测量时段中" in chinese and "批大小 32: PyTorch 3 + 1" in chinese

    # the same two days in equal shares: PyTorch and TensorFlow three runs each, then two each
    again = runs("torch", 24.0, 3, range(3, 5)) + runs("tensorflow", 16.0, 3, range(3, 5))
    assert "unequal shares" not in pages(tmp_path / "equal", first_day + again)["results/speed.md"]


def test_the_drift_benchmark_sets_each_sitting_of_a_row_beside_the_first_and_names_unequal_shares(tmp_path, capsys):
    spec = importlib.util.spec_from_file_location("sitting_drift", REPO / "benchmarks" / "sitting_drift.py")
    benchmark = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(benchmark)
    side_by_side = runs("torch", 30.0, 1, range(3)) + runs("tensorflow", 20.0, 1, range(3))
    pages(tmp_path, side_by_side)
    assert benchmark.main([str(tmp_path)]) == 0
    assert capsys.readouterr().out == "1 row: 1 in one sitting, 0 in several\n"
    # two days later, JAX with one PyTorch run beside it, a fifth slower than on the first day
    pages(tmp_path, runs("torch", 24.0, 3, range(3, 4)) + runs("jax", 60.0, 3, range(3)))
    assert benchmark.main([str(tmp_path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].endswith(" · compiled · bs 32: 2 sittings, 47.9 h apart")
    assert lines[1:4] == [
        "  torch 2.14.1       3 × 30.0 | 1 × 24.0  →  0.80 × its first sitting's",
        "  tensorflow 2.21.0  3 × 20.0 | —",
        "  jax 0.10.2         — | 3 × 60.0",
    ]
    assert lines[4].startswith("  runs per sitting: torch 2.14.1 3+1; tensorflow 2.21.0 3+0; jax 0.10.2 0+3: unequal")
    assert lines[5] == (
        "1 row: 0 in one sitting, 1 in several; a framework's later sitting against its first: 0.80–0.80 ×"
    )
    empty = tmp_path / "empty"
    empty.mkdir()
    assert benchmark.main([str(empty)]) == 1
    assert f"no run records under {empty / 'runs'}" in capsys.readouterr().err
