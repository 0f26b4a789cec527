"""``runners probes`` filters, usage errors and the summary table (no framework is run here)."""

import pytest

from fwbench.records import write_record
from runners.cli import build_parser, main
from runners.measure import provenance
from runners.probes import cli as probes_cli
from runners.probes.catalog import ProbeSpec
from runners.probes.cli import run_probes, selected_specs, summary_table
from runners.probes.record import build_record

BAD_INPUT = [
    ("--frameworks", "mxnet"),
    ("--framework", "mxnet"),
    ("--bug", "shape"),
    ("--mode", "eager,jit"),
    ("--tooling", "yes"),
    ("--timeout", "-1"),
    ("--timeout", "0"),
    ("--timeout", "nan"),
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


def test_a_probe_whose_record_is_up_to_date_is_kept_unless_forced_of_another_release_or_shared_cache(
    tmp_path, monkeypatch
):
    software = provenance.software_info()
    monkeypatch.setattr(probes_cli.provenance, "hardware_info", lambda: {"machine_id": "m"})
    monkeypatch.setattr(probes_cli.provenance, "software_info", lambda: software)
    spec = ProbeSpec("jax", "nan", "compiled", False)
    silent = {"outcome": "no_error", "result": "loss=nan", "frames": [], "exit_code": 0, "stderr_tail": None}
    silent |= {"wall_seconds": 1.0, "warnings": [], "framework_version": software["packages"]["jax"]}
    silent |= {"compile_cache": "cold"}
    ran = []
    monkeypatch.setattr(probes_cli.ProbeProcesses, "run", lambda self, spec, python: ran.append(spec) or silent)

    def recorded(software: dict, started_at: str, capture: dict = silent) -> None:
        record = build_record(
            spec, capture, machine_id="m", software=software, started_at=started_at, finished_at=started_at
        )
        write_record(tmp_path / "m" / f"{spec.record_id}.json", record)

    recorded(software, "2026-12-01T10:00:00.000Z")
    (kept,) = run_probes([spec], tmp_path, progress=False)
    assert ran == [] and kept["started_at"] == "2026-12-01T10:00:00.000Z"
    (again,) = run_probes([spec], tmp_path, progress=False, force=True)
    assert ran == [spec] and again["started_at"] != kept["started_at"]
    older = {**software, "packages": {**software["packages"], "jax": "0.4.26", "jaxlib": "0.4.26"}}
    recorded(older, "2026-12-01T09:00:00.000Z")  # made with another release: run again
    run_probes([spec], tmp_path, progress=False)
    assert ran == [spec, spec]
    shared = {key: value for key, value in silent.items() if key != "compile_cache"}
    recorded(software, "2026-12-01T08:00:00.000Z", shared)  # an older record, compiled into the shared cache
    (rerun,) = run_probes([spec], tmp_path, progress=False)
    assert ran == [spec, spec, spec] and rerun["compile_cache"] == "cold"


def test_tooling_with_bugs_that_have_none_is_a_usage_error(tmp_path, capsys):
    """--tooling filters the NaN bug's probes (NaN checks on or off); the other bugs have no tooling to turn on."""
    out = tmp_path / "probes"
    assert exit_code(["probes", "--out", str(out), "--tooling", "on", "--bug", "dtype"]) == 2
    assert capsys.readouterr().err.splitlines() == [
        "runners probes: error: --tooling on: only the nan bug's probes run with NaN tooling on or off; "
        "--bug dtype selects none of them"
    ]
    assert not out.exists()
    args = build_parser().parse_args(["probes", "--bug", "dtype,nan", "--tooling", "on", "--frameworks", "torch"])
    assert [s.record_id for s in selected_specs(args)] == [
        "dtype-torch-eager",
        "dtype-torch-compiled",
        "nan-torch-eager-tooling-on",
        "nan-torch-compiled-tooling-on",
    ]
