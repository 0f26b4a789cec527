"""The appendix: the claims page grouped by section with shared reasons said once and verdicts as icons; the
reproduce page with commands from the repository root and no invented address."""

from __future__ import annotations

import subprocess

import gen_records
from one_page import page_alone

from fwbench.records import write_record
from generator.records.load import load_results
from generator.site.claims import scope_table, section_of
from generator.verdicts.claims import CONTRADICTED, NOT_COMPARABLE, Claim
from generator.views.repository import origin_url, portable_command, repository_url


def test_claims_are_grouped_by_section_with_icons_not_emoji(results_dir):
    page = page_alone(load_results(results_dir), "appendix/claims.md")
    headings = [line for line in page.splitlines() if line.startswith("## §")]
    assert headings[:3] == [
        "## §1 Who is faster { #claims-1 }",
        "## §2.1 Hardware { #claims-2-1 }",
        "## §2.2 Software versions and test setup { #claims-2-2 }",
    ]  # one anchor in every language
    assert ":material-close-circle:{ .fw-bad } contradicted" in page
    assert not any(emoji in page for emoji in ("✅", "❌", "〰", "➖"))
    assert section_of(Claim("2.1–2.2", "", "", "", "", "")) == "2.1"


def test_a_reason_shared_by_every_row_is_said_once():
    rows = [
        Claim(
            "3.1",
            f"row {i}",
            "1 s",
            "2 s",
            NOT_COMPARABLE,
            ("a CPU, not a GPU", "only older records", *extra),
            ("GPU",),
        )
        for i, extra in enumerate(((), (), ("not run",)))
    ]
    table = scope_table("m", rows)
    assert table.shared == "a CPU, not a GPU; only older records" and table.checked == "(checked: GPU)"
    assert table.notes == ["not run"]
    verdicts = [row[3] for row in table.grid.rows]
    assert verdicts[0].endswith("not comparable</span>") and verdicts[2].endswith("<sup>1</sup></span>")
    single = scope_table("m", [Claim("3.1", "x", "1", "2", CONTRADICTED, ("why",), ("GPU",))])
    assert single.shared is None and single.checked is None and single.notes == ["why (checked: GPU)"]


def test_recorded_commands_read_from_the_repository_root():
    argv = [
        "/home/someone/fwbench/runners/cli.py",
        "run",
        "--framework",
        "jax",
        "--out",
        "/tmp/tuned",
        "--data-dir",
        "/home/someone/fwbench/data",
        "--no-progress",
    ]
    assert portable_command(argv) == ["runners", "run", "--framework", "jax", "--data-dir", "data", "--no-progress"]
    assert portable_command(["/opt/venv/bin/runners", "matrix", "/elsewhere/x.json"]) == [
        "runners",
        "matrix",
        "…/x.json",
    ]


def test_the_reproduce_page_names_no_address_it_does_not_know(tmp_path):
    record = gen_records.run("torch", 32)
    record["command"] = ["/srv/checkout/runners/cli.py", "run", "--out", "/scratch/out"]
    write_record(tmp_path / "runs" / gen_records.CPU_MACHINE / "r.json", record)
    page = page_alone(load_results(tmp_path), "appendix/reproduce.md", repo_root=tmp_path)
    assert "/srv" not in page and "/scratch" not in page and "- `runners run`" in page
    assert "names no public address" in page and "from `https://OWNER.github.io/REPO/`, clone" in page
    assert (
        page.split("## Get the code", 1)[1]
        .lstrip()
        .startswith("```bash\ngit clone https://github.com/OWNER/REPO fwbench && cd fwbench\n```")
    )
    named = page_alone(load_results(tmp_path), "appendix/reproduce.md", repo_url="https://example.org/fwbench")
    assert (
        named.split("## Get the code", 1)[1]
        .lstrip()
        .startswith("```bash\ngit clone https://example.org/fwbench fwbench")
    )
    assert "OWNER" not in named


def test_the_address_comes_from_the_config_else_the_origin_remote(tmp_path):
    assert repository_url("https://example.org/x", tmp_path) == "https://example.org/x"
    assert origin_url(tmp_path) is None  # not a checkout
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    subprocess.run(
        ["git", "-C", str(tmp_path), "remote", "add", "origin", "https://user:token@example.org/r.git"], check=True
    )
    assert repository_url(None, tmp_path) == "https://example.org/r.git"  # credentials never shown


def test_an_origin_that_is_a_local_folder_is_no_address(tmp_path):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    subprocess.run(["git", "-C", str(tmp_path), "remote", "add", "origin", "/work/main"], check=True)
    assert origin_url(tmp_path) is None  # a clone of a path on the build machine, as CI's checkout is
