"""The Machines page sets every configuration two or more machines ran side by side, and a site builds from several
results roots (the published records and a user's own) without copying them."""

from __future__ import annotations

import os
from pathlib import Path

import gen_records
import pytest
from one_page import page_alone

from fwbench.cliargs import EXIT_USAGE, UsageError
from fwbench.records import write_record
from generator import cli
from generator.build import handoff
from generator.cli import main
from generator.records.load import load_roots
from generator.records.machines import widest_isa

H200, CPU = "nvidia-h200", gen_records.CPU_MACHINE
CPU_LABEL = "Test CPU @ 2.0GHz (CPU, 2 threads, AVX2, fingerprint 1a2b3c)"


def sections(page: str) -> dict[str, str]:
    """A page's ``## `` sections: heading -> body."""
    parts = page.split("\n## ")[1:]
    return {part.split("\n", 1)[0]: part.split("\n", 1)[1] for part in parts}


def measured(framework, batch_size, seed, machine, seconds, *, mode="compiled", profile="quick", day="2026-12-02"):
    """A run of ``profile`` on ``day``; the versions profile's runs under timing protocol 1, as it then recorded."""
    record = gen_records.run(framework, batch_size, seed, machine_id=machine, seconds=seconds, mode=mode)
    record["record_id"] += f"-{profile}"
    record["config"]["profile"] = profile
    record["protocol"] = 1 if profile == "versions" else 2
    record["started_at"], record["finished_at"] = f"{day}T06:00:00.000Z", f"{day}T06:01:00.000Z"
    return record


@pytest.fixture(scope="module")
def machines_page(tmp_path_factory) -> str:
    """An H200 and a CPU that both ran JAX at batch 256 (twice each) and at 32 (the CPU in two profiles), and an
    eager run only the H200 made."""
    records = [
        measured("jax", 256, seed, machine, seconds)
        for seed in (0, 1)
        for machine, seconds in ((H200, 1.0), (CPU, 30.0 + seed))
    ]
    records += [measured("torch", 32, 0, H200, 2.0, mode="eager"), measured("jax", 32, 0, H200, 1.0)]
    records += [measured("jax", 32, 0, CPU, 9.0)]
    records += [measured("jax", 32, seed, CPU, 10.0 + seed, profile="versions", day="2026-11-30") for seed in (0, 1)]
    root = tmp_path_factory.mktemp("machines")
    for record in records:
        write_record(root / "runs" / record["hardware"]["machine_id"] / f"{record['record_id']}.json", record)
    return page_alone(load_roots([root]), "results/machines.md")


def test_the_h200_and_the_cpu_machines_share_a_table_for_the_configurations_they_share(machines_page):
    table = sections(machines_page)["JAX · compiled · strict FP32 (TF32 off) · batch 256 · synthetic"]
    rows = [line for line in table.splitlines() if line.startswith("| [")]
    assert (
        rows[0].startswith(f"| [NVIDIA H200 (GPU)](#machine-{H200})") and "| 512.0 (sd\u00a00.0)<br>" in rows[0]
    )  # fastest first
    assert rows[1].startswith(f"| [{CPU_LABEL}](#machine-{CPU})") and "n=2" in rows[1]  # every run of it
    assert len(rows) == 2


def test_a_configuration_one_machine_ran_has_no_table(machines_page):
    assert all("eager" not in title for title in sections(machines_page))  # only the H200 ran eager


def test_each_machine_s_provenance_is_one_click_away(machines_page):
    for machine in (H200, CPU):
        assert f"{{ #machine-{machine} }}" in machines_page
    assert "535.129.03" in sections(machines_page)["Provenance"]  # the H200's driver


def test_rows_of_one_machine_in_other_settings_say_what_their_records_differ_in(machines_page):
    table = sections(machines_page)["JAX · compiled · strict FP32 (TF32 off) · batch 32 · synthetic"]
    (line,) = [line for line in table.splitlines() if line.startswith("- ")]
    # the quick profile's row (the faster mean), then the versions profile's, as their records say
    assert line.startswith(f"- {CPU_LABEL}: its rows are not one setting;")
    assert "profile: quick, versions" in line and "timing protocol: 2, 1" in line
    assert "fwbench.run" not in line  # the records' format is no fact of the setting
    assert "day measured: 2026-12-02, 2026-11-30" in line
    assert "steps per epoch" not in line  # 16 steps of 32 in each: no difference is named that the records lack


def test_the_page_names_no_faster_machine(machines_page):
    tables = machines_page.split("\n## ", 1)[1]  # the legend above them may speak of runs that drifted faster
    assert "faster" not in tables and "ahead" not in tables


def write_own(root: Path, machine: str = "cpu-own-cpu-4t-9f8e7d") -> Path:
    """A user's own results root: two runs of one machine."""
    for seed in range(2):
        record = gen_records.run("torch", 32, seed, machine_id=machine, seconds=5.0 + seed)
        write_record(root / "runs" / machine / f"{record['record_id']}.json", record)
    return root


def test_two_roots_load_as_one_and_a_machine_in_both_is_an_error_naming_both(tmp_path):
    published = gen_records.write_results(tmp_path / "published")
    own = write_own(tmp_path / "own")
    results = load_roots([published, own])
    assert "cpu-own-cpu-4t-9f8e7d" in results.machines and gen_records.CPU_MACHINE in results.machines
    assert {item.name_under(published) for item in results.runs if item.root == own} == {
        f"runs/cpu-own-cpu-4t-9f8e7d/{p.name}" for p in (own / "runs" / "cpu-own-cpu-4t-9f8e7d").iterdir()
    }
    clash = write_own(tmp_path / "clash", gen_records.CPU_MACHINE)
    with pytest.raises(
        UsageError, match=f"machine {gen_records.CPU_MACHINE} has records in both {published} and {clash}"
    ):
        load_roots([published, clash])
    with pytest.raises(UsageError, match="given twice"):
        load_roots([published, published])


def test_a_machine_that_built_the_site_with_no_run_is_named_and_the_site_is_built(tmp_path, capsys, monkeypatch):
    published = gen_records.write_results(tmp_path / "published")
    built: list[tuple] = []  # ``build_site``'s arguments: test_generator_build_takes_two_roots runs a real one
    monkeypatch.setattr(cli, "build_site", lambda *args: built.append(args))
    argv = ["build", "--results", str(published), "--site-dir", str(tmp_path / "site"), "--this-machine", "cpu-lab-7"]
    assert main(argv) == 0
    assert (
        f"generator build: --this-machine cpu-lab-7: no run record of that machine under {published}, so the home "
        "page answers for no machine first"
    ) in capsys.readouterr().err
    ((results, _site, _frameworks, _url, this_machine),) = built
    assert this_machine == "cpu-lab-7"
    assert "On this machine" not in page_alone(results, "index.md", this_machine=this_machine)


def test_mkdocs_serve_takes_the_roots_and_the_machine_that_builds_from_the_environment(tmp_path, monkeypatch):
    published = gen_records.write_results(tmp_path / "published")
    own = write_own(tmp_path / "own")
    monkeypatch.setenv(handoff.RESULTS_ENV, os.pathsep.join([str(published), str(own)]))
    monkeypatch.setenv(handoff.THIS_MACHINE_ENV, "cpu-own-cpu-4t-9f8e7d")  # as make serve sets it
    given = handoff.from_environment(tmp_path)
    assert given.this_machine == "cpu-own-cpu-4t-9f8e7d" and "cpu-own-cpu-4t-9f8e7d" in given.results.machines


def test_generator_build_takes_two_roots(tmp_path, capsys):
    published = gen_records.write_results(tmp_path / "published")
    own = write_own(tmp_path / "own")
    site = tmp_path / "site"
    roots = ["--results", str(published), "--results", str(own)]
    assert main(["build", *roots, "--site-dir", str(site), "--this-machine", "cpu-own-cpu-4t-9f8e7d"]) == 0
    page = (site / "results" / "machines.html").read_text()
    assert "machine-cpu-own-cpu-4t-9f8e7d" in page and f"machine-{gen_records.CPU_MACHINE}" in page
    assert (site / "zh" / "results" / "machines.html").exists()
    home = (site / "index.html").read_text()
    own, cpus = [part.split("</div>")[0] for part in home.split('<div class="fw-answer">')[1:]]
    # the user's own machine first, labelled, though only PyTorch ran there: it says why it has no verdict to give
    assert "<strong>On this machine</strong> · " in own and "Nothing to compare yet" in own
    assert "<strong>CPUs</strong> · Test CPU" in cpus
    chinese = (site / "zh" / "index.html").read_text().split('<div class="fw-answer">')[1]
    assert "<strong>在这台机器上</strong> · " in chinese
    assert "this site" not in capsys.readouterr().err
    clash = write_own(tmp_path / "clash", gen_records.CPU_MACHINE)
    assert main(["build", "--results", str(published), "--results", str(clash), "--site-dir", str(site)]) == EXIT_USAGE
    assert f"has records in both {published} and {clash}" in capsys.readouterr().err


@pytest.mark.parametrize(
    "flags, name",
    [
        (["amx_bf16", "avx", "avx2", "avx512f"], "AMX"),
        (["avx", "avx2", "avx512_bf16", "avx512f", "fma"], "AVX-512"),
        (["avx", "avx2", "fma"], "AVX2"),
        (["fma"], None),
    ],
)
def test_two_cpus_of_one_name_are_told_apart_by_their_widest_vector_extension(flags, name):
    assert widest_isa({"isa": flags}) == name
    assert widest_isa(None) is None  # an older record without a fingerprint keeps the title without it
