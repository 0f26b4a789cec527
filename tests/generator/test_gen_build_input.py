"""`generator build`'s input: a bad flag is one line naming it and its value, exit 2, before any record is read or
anything written; the lines of a good build count in the singular where there is one and say how to open the site
it wrote. The site itself is not built here (``build_site`` stubbed): test_gen_site.py builds one."""

from __future__ import annotations

from pathlib import Path

import bisect_records
import gen_records
import pytest

from fwbench.cliargs import EXIT_USAGE
from fwbench.records import write_record
from generator import cli
from generator.cli import main

REPO = Path(__file__).resolve().parents[2]


def usage_error(argv: list[str], capsys) -> str:
    """The one line a usage error prints (argparse's own exit or ``main``'s), nothing on stdout."""
    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code
    captured = capsys.readouterr()
    assert code == EXIT_USAGE and not captured.out
    (line,) = captured.err.splitlines()
    return line


def build(results: Path, site: Path, *flags: str) -> list[str]:
    """``generator build``'s arguments for ``results`` into ``site``, with ``flags``."""
    return ["build", "--results", str(results), "--site-dir", str(site), *flags]


@pytest.fixture
def built(monkeypatch) -> list[tuple]:
    """The arguments of each ``build_site`` call, which makes nothing."""
    calls: list[tuple] = []
    monkeypatch.setattr(cli, "build_site", lambda *args: calls.append(args))
    return calls


@pytest.mark.parametrize("made", [False, True], ids=["missing", "without-the-files"])
def test_a_source_root_without_the_implementations_is_a_usage_error(results_dir, tmp_path, capsys, built, made):
    """Otherwise the code-size page says "missing" for every file."""
    root = tmp_path / "repository"
    if made:
        (root / "runners" / "frameworks").mkdir(parents=True)  # the trainers' folder, but empty
    site = tmp_path / "site"
    line = usage_error(build(results_dir, site, "--source-root", str(root)), capsys)
    assert line.startswith("generator build: error: ") and "--source-root" in line and str(root) in line
    if made:  # each file named where it should lie, the model's and the training step's folders alike
        assert "runners/frameworks/torch/resnet18_model.py" in line and "runners/frameworks/torch/resnet18.py" in line
    else:
        assert "no such directory" in line
    assert not site.exists() and not built


def test_the_repository_is_accepted_as_the_source_root(results_dir, tmp_path, built):
    assert main(build(results_dir, tmp_path / "site", "--source-root", str(REPO))) == 0
    assert built[0][2] == REPO


@pytest.mark.parametrize(
    "url",
    ["notaurl", "example.org/fwbench/", "ftp://example.org/", "https://", "http://[::1", "http://example.org:port/"],
)
def test_a_site_url_that_is_no_http_url_with_a_host_is_a_usage_error(results_dir, tmp_path, capsys, built, url):
    """mkdocs refused it only after every record was read, in two lines of its own."""
    site = tmp_path / "site"
    line = usage_error(build(results_dir, site, "--site-url", url), capsys)
    assert line == (
        f"generator build: error: --site-url {url!r}: not an http or https URL with a host "
        "(e.g. https://OWNER.github.io/REPO/)"
    )
    assert not site.exists() and not built


def test_a_site_url_from_the_environment_is_checked_and_named_as_such(
    results_dir, tmp_path, capsys, built, monkeypatch
):
    monkeypatch.setenv(cli.SITE_URL_ENV, "notaurl")
    line = usage_error(build(results_dir, tmp_path / "site"), capsys)
    assert f"${cli.SITE_URL_ENV} 'notaurl': not an http or https URL" in line
    monkeypatch.setenv(cli.SITE_URL_ENV, "https://example.org/fwbench")
    assert main(build(results_dir, tmp_path / "site")) == 0
    assert built[0][3] == "https://example.org/fwbench"


def one_of_each(root: Path) -> Path:
    """A results tree of one run, one probe, one ecosystem snapshot and one bisect report with its runs."""
    run = gen_records.run()
    write_record(root / "runs" / gen_records.CPU_MACHINE / f"{run['record_id']}.json", run)
    probe = gen_records.probe()
    write_record(root / "probes" / gen_records.CPU_MACHINE / f"{probe['record_id']}.json", probe)
    write_record(root / "ecosystem" / "2026-11-30.json", gen_records.snapshot())
    bisect_records.write_bisect(root)
    return root


def test_the_counts_are_singular_for_one_and_the_site_is_opened_from_where_it_was_written(tmp_path, capsys, built):
    results, site = one_of_each(tmp_path / "results"), tmp_path / "site"
    behind = len(list((results / "bisect").rglob("runs/*.json")))
    assert main(build(results, site)) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == (
        f"generator build: 1 run, 1 probe, 1 ecosystem snapshot, 1 bisect report ({behind} runs behind them), 0 skipped"
    )
    # `make serve` renders the repository's results/ live: not this site
    assert out[-1].endswith(f"Open {site.resolve() / 'index.html'} in a browser.") and "make serve" not in out[-1]


def test_make_serve_is_named_only_for_the_repository_s_results_built_into_its_site(tmp_path, monkeypatch):
    monkeypatch.chdir(REPO)
    assert cli.make_serve_shows([Path("results")], Path("site"))
    assert cli.make_serve_shows([REPO / "results"], REPO / "site")
    assert not cli.make_serve_shows([Path("results")], tmp_path / "site")
    assert not cli.make_serve_shows([Path("results"), tmp_path], Path("site"))
    monkeypatch.chdir(tmp_path)
    assert not cli.make_serve_shows([Path("results")], Path("site"))
