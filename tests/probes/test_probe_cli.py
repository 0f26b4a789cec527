"""``runners probes`` usage errors and the summary table (no framework is run here)."""

import pytest

from runners.cli import main
from runners.probes.catalog import ProbeSpec
from runners.probes.cli import summary_table
from runners.probes.record import build_record

BAD_INPUT = [("--framework", "pytorch"), ("--bug", "shape"), ("--mode", "eager,jit"), ("--tooling", "yes"),
             ("--timeout", "-1")]


@pytest.mark.parametrize(("flag", "value"), BAD_INPUT)
def test_bad_input_is_one_line_naming_the_flag_exit_2_nothing_written(tmp_path, capsys, flag, value):
    out = tmp_path / "probes"
    assert main(["probes", "--out", str(out), flag, value, "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"runners probes: {flag}:")
    assert not out.exists()


def test_summary_table_has_a_row_per_record():
    provenance = dict(machine_id="m", software={"python": "3", "os": "x", "packages": {}},
                      started_at="t0", finished_at="t1")
    silent = {"outcome": "no_error", "result": "loss=nan", "frames": [], "exit_code": 0, "stderr_tail": None,
              "wall_seconds": 1.0, "warnings": [], "framework_version": "0.1"}
    hung = {"outcome": "timeout", "exit_code": -9, "stderr_tail": None, "wall_seconds": 120.0}
    records = [build_record(ProbeSpec("jax", "nan", "compiled", False), silent, **provenance),
               build_record(ProbeSpec("torch", "dtype", "eager"), hung, **provenance)]
    lines = summary_table(records).splitlines()
    assert lines[0].split()[:5] == ["bug", "framework", "mode", "tooling", "outcome"]
    assert lines[2].split()[:5] == ["nan", "jax", "compiled", "no", "no_error"]
    assert lines[3].split()[:5] == ["dtype", "torch", "eager", "-", "timeout"]
    assert lines[3].split()[-1] == "0/6"
