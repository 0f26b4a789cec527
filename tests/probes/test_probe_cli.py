"""``runners probes`` filters, usage errors and the summary table (no framework is run here)."""

import pytest

from runners.cli import build_parser, main
from runners.probes.catalog import ProbeSpec
from runners.probes.cli import selected_specs, summary_table
from runners.probes.record import build_record

BAD_INPUT = [
    ("--frameworks", "mxnet"),
    ("--framework", "mxnet"),
    ("--bug", "shape"),
    ("--mode", "eager,jit"),
    ("--tooling", "yes"),
    ("--timeout", "-1"),
    ("--timeout", "0"),
    ("--versions", "latest"),
    ("--versions", "torch=0.0.1"),
    ("--versions", "mxnet=1.0"),
]


def exit_code(argv: list[str]) -> int:
    """``runners`` with ``argv``: the code main returns, or the one argparse exits with."""
    try:
        return main(argv)
    except SystemExit as exit_info:
        return exit_info.code


@pytest.mark.parametrize(("flag", "value"), BAD_INPUT)
def test_bad_input_names_the_flag_exits_2_and_writes_nothing(tmp_path, capsys, flag, value):
    out = tmp_path / "probes"
    assert exit_code(["probes", "--out", str(out), flag, value, "--no-progress"]) == 2
    last = capsys.readouterr().err.splitlines()[-1]
    said = f"runners probes: error: {flag}" if flag == "--versions" else f"runners probes: error: argument {flag}:"
    assert last.startswith(said) and value.split(",")[-1].split("=")[-1] in last
    assert not out.exists()


def test_an_unwritable_out_is_a_usage_error(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    assert exit_code(["probes", "--out", str(blocker / "probes")]) == 2
    assert capsys.readouterr().err.startswith("runners probes: error: --out: cannot write to ")


@pytest.mark.parametrize(
    "argv",
    [
        ["--frameworks", "jax,torch", "--bug", "nan", "--mode", "compiled", "--tooling", "on"],
        ["--framework", "jax", "--framework", "torch", "--bug", "nan", "--mode", "compiled", "--tooling", "on"],
    ],
)
def test_filters_select_probes_and_the_old_spelling_still_works_with_a_note(capsys, argv):
    args = build_parser().parse_args(["probes", *argv])
    assert [s.record_id for s in selected_specs(args)] == [
        "nan-torch-compiled-tooling-on",
        "nan-jax-compiled-tooling-on",
    ]
    note = "runners probes: note: --framework is now spelled --frameworks"
    assert (note in capsys.readouterr().err) is ("--framework" in argv)


def test_summary_table_has_a_row_per_record():
    provenance = dict(
        machine_id="m", software={"python": "3", "os": "x", "packages": {}}, started_at="t0", finished_at="t1"
    )
    silent = {
        "outcome": "no_error",
        "result": "loss=nan",
        "frames": [],
        "exit_code": 0,
        "stderr_tail": None,
        "wall_seconds": 1.0,
        "warnings": [],
        "framework_version": "0.1",
    }
    hung = {"outcome": "timeout", "exit_code": -9, "stderr_tail": None, "wall_seconds": 120.0}
    records = [
        build_record(ProbeSpec("jax", "nan", "compiled", False), silent, **provenance),
        build_record(ProbeSpec("torch", "dtype", "eager"), hung, **provenance),
    ]
    lines = summary_table(records).splitlines()
    assert lines[0].split()[:6] == ["bug", "framework", "version", "mode", "tooling", "outcome"]
    assert lines[2].split()[:6] == ["nan", "jax", "0.1", "compiled", "no", "no_error"]
    assert lines[3].split()[:6] == ["dtype", "torch", "-", "eager", "-", "timeout"]
    assert lines[3].split()[-1] == "0/6"
