"""The Machines page sets every configuration two or more machines ran side by side, and a site builds from several
results roots (the published records and a user's own) without copying them."""

from __future__ import annotations

import os
from pathlib import Path

import gen_records
import pytest

from fwbench.cliargs import EXIT_USAGE, UsageError
from fwbench.records import write_record
from generator.build import handoff
from generator.build.render import build_pages
from generator.cli import main
from generator.records.load import load_roots
from generator.records.machines import widest_isa

REPO = Path(__file__).resolve().parents[2]
H200, CPU = "nvidia-h200", "cpu-amd-epyc-2t-3d8bd5"


def sections(page: str) -> dict[str, str]:
    """A page's ``## `` sections: heading -> body."""
    parts = page.split("\n## ")[1:]
    return {part.split("\n", 1)[0]: part.split("\n", 1)[1] for part in parts}


@pytest.fixture(scope="module")
def committed_page() -> str:
    return build_pages(load_roots([REPO / "results"]))["results/machines.md"]


def test_the_h200_and_the_cpu_machines_share_a_table_for_the_configurations_they_share(committed_page):
    shared = sections(committed_page)
    both = [title for title, body in shared.items() if f"#machine-{H200}" in body and f"#machine-{CPU}" in body]
    assert "JAX · compiled · strict FP32 (TF32 off) · batch 256 · synthetic" in both
    table = shared["JAX · compiled · strict FP32 (TF32 off) · batch 256 · synthetic"]
    rows = [line for line in table.splitlines() if line.startswith("| [")]
    assert rows[0].startswith("| [NVIDIA H200 (GPU)]") and "8,192" in rows[0]  # the fastest mean first
    runs = len(list((REPO / "results" / "runs" / CPU).glob("jax-compiled-synthetic-bs256-seed0-*.json")))
    assert runs >= 2 and f"n={runs}" in next(row for row in rows if CPU in row)  # every committed run of it


def test_a_configuration_one_machine_ran_has_no_table(committed_page):
    assert all("eager" not in title for title in sections(committed_page))  # only the H200 ran eager


def test_each_machine_s_provenance_is_one_click_away(committed_page):
    for machine in (H200, CPU):
        assert f"{{ #machine-{machine} }}" in committed_page
    assert "580.159.04" in sections(committed_page)["Provenance"]  # the H200's driver


def test_rows_of_one_machine_in_other_settings_say_what_their_records_differ_in(committed_page):
    table = sections(committed_page)["JAX · compiled · strict FP32 (TF32 off) · batch 32 · synthetic"]
    (line,) = [
        line for line in table.splitlines() if line.startswith("- AMD EPYC (CPU, 2 threads, AVX2, fingerprint 846125)")
    ]
    # the versions profile's two older rows, then the quick profile's (fastest mean first), as their records say
    assert "profile: versions, versions, quick" in line and "timing protocol: 1, 1, 2" in line
    assert "fwbench.run" not in line  # the records' format is no fact of the setting
    assert "day measured: 2026-11-30, 2026-11-30, 2026-12-02" in line
    assert "steps per epoch" not in line  # 8 steps of 32 in each: no difference is named that the records lack
    assert not [row for row in table.splitlines() if row.startswith("- ") and "3d8bd5" in row]  # one row there


def test_the_page_names_no_faster_machine(committed_page):
    assert "faster" not in committed_page and "ahead" not in committed_page


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


def test_a_machine_that_built_the_site_with_no_run_is_named_and_the_site_is_built(tmp_path, capsys):
    published = gen_records.write_results(tmp_path / "published")
    site = tmp_path / "site"
    assert main(["build", "--results", str(published), "--site-dir", str(site), "--this-machine", "cpu-lab-7"]) == 0
    assert (
        f"generator build: --this-machine cpu-lab-7: no run record of that machine under {published}, so the home "
        "page answers for no machine first"
    ) in capsys.readouterr().err
    assert "The machine that built this site" not in (site / "index.html").read_text()


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
    answer = (site / "index.html").read_text().split('class="fw-answer"')[1].split("</div>")[0]
    # the user's own machine, labelled, but not first: only PyTorch ran there, so it has no verdict to give
    cpus = answer.split("<p>")[1]
    assert cpus.startswith("<strong>CPUs:</strong> On the Test CPU")
    own = cpus.index("<strong>The machine that built this site:</strong> On the ")
    assert own > cpus.index("On the Test CPU") and "nothing to compare yet" in cpus[own:]
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
