"""`generator answer`: the README's answer table, from the records and the home page's own verdicts."""

from __future__ import annotations

import json
from pathlib import Path

import gen_records
import pytest

from fwbench.records import write_record
from generator.cli import main


def answer(capsys: pytest.CaptureFixture[str], results: Path) -> list[str]:
    assert main(["answer", "--results", str(results)]) == 0
    return capsys.readouterr().out.splitlines()


def test_one_row_per_machine_and_precision_with_the_verdict_per_batch(results_dir, capsys):
    lines = answer(capsys, results_dir)
    assert lines[0].startswith("Made by `generator answer` on ")
    assert "from the 19 run records" in lines[0]  # 18 ok and 1 failed; the invalid file is skipped
    header, _rule, *rows = lines[2:]
    assert header == "| machine | precision | batch 32 | batch 64 | batch 128 |"
    assert len(rows) == 1
    # JAX's epochs are the shortest (9 s against 10 and 12), three seeds each, 0.1 s apart, made in one sitting:
    # decided there, 10/9 = 1.11 times PyTorch's throughput, and said to rest on one sitting
    assert rows[0].startswith("| Test CPU @ 2.0GHz (CPU, 2 threads, AVX2, fingerprint 1a2b3c) | strict FP32")
    cells = rows[0].split(" | ")[2:]
    assert [cell.split(" (")[0] for cell in cells[:2]] == ["JAX ahead, 1.11×"] * 2  # one statement each
    assert all(cell.endswith("×), in one sitting") for cell in cells[:2])
    assert cells[2] == "nothing to compare |"


def test_gpus_come_first(results_dir, capsys):
    gpu = results_dir / "runs" / gen_records.GPU_MACHINE
    for framework in ("torch", "jax"):
        record = gen_records.run(framework, 32, machine_id=gen_records.GPU_MACHINE)
        write_record(gpu / f"{record['record_id']}.json", record)
    rows = answer(capsys, results_dir)[4:]
    assert rows[0].startswith("| NVIDIA GeForce RTX 4090 (GPU) |")
    assert "undecided at n = 1" in rows[0]
    assert rows[1].startswith("| Test CPU")


def test_no_records_names_the_command(tmp_path, capsys):
    (tmp_path / "runs").mkdir()
    assert answer(capsys, tmp_path) == [
        "No run records yet: `runners matrix --profile quick --out results/runs` makes them."
    ]


def test_a_table_measured_again_under_a_newer_protocol_is_answered_once(results_dir, capsys):
    runs = results_dir / "runs" / gen_records.CPU_MACHINE
    for path in sorted(runs.glob("*.json")):
        record = json.loads(path.read_text())
        if record.get("protocol") == 2:
            again = {**record, "protocol": 3, "record_id": f"{record['record_id']}-p3"}
            write_record(runs / f"{again['record_id']}.json", again)
    rows = answer(capsys, results_dir)[4:]
    assert len(rows) == 1 and "not judged" not in rows[0]  # the protocol-2 table judges nothing: the site shows it
    assert rows[0].startswith("| Test CPU @ 2.0GHz") and "×), in one sitting |" in rows[0]
