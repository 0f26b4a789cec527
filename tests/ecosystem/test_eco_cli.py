"""The `ecosystem` command end to end: collect (mocked APIs, offline), show, usage errors, no secrets."""

from __future__ import annotations

import functools
import json
import logging
import re
import time

import pytest
import responses
from eco_mocks import (
    GH,
    REPOS,
    SE,
    SECRET_KEY,
    SECRET_TOKEN,
    SMALL_STACKS,
    add_github,
    add_pypi_json,
    add_pypistats,
    add_stackexchange,
    body,
    fake_uv,
    fixed_clock,
    network_error,
)

from ecosystem import cli, github_client, pypi_registry
from ecosystem.collect import collect
from fwbench.records import read_record


@pytest.fixture
def online(monkeypatch, tmp_path_factory):
    """Every host reachable, the fixed test clock, a fake uv, small stacks, no request pacing, no real sleeping."""
    uv = fake_uv(tmp_path_factory.mktemp("uv"))
    monkeypatch.setattr(
        cli, "collect", functools.partial(collect, is_reachable=lambda host: True, clock=fixed_clock, uv=uv)
    )
    monkeypatch.setattr(pypi_registry, "STACKS", SMALL_STACKS)
    monkeypatch.setattr(github_client, "REQUEST_PACE_S", 0.0)
    monkeypatch.setattr(time, "sleep", lambda seconds: None)


def mock_all_apis(rsps: responses.RequestsMock) -> None:
    add_stackexchange(rsps)
    for repo in REPOS:
        add_github(rsps, repo)
    rsps.get("https://pypistats.org/api/packages/torch/recent", json={"error": "busy"}, status=429)
    add_pypistats(rsps)  # torch: 429 first, then this
    add_pypi_json(rsps)


@responses.activate
def test_collect_writes_a_complete_valid_snapshot_without_secrets(online, tmp_path, monkeypatch, capsys, caplog):
    monkeypatch.setenv("GITHUB_TOKEN", SECRET_TOKEN)
    monkeypatch.setenv("STACK_EXCHANGE_KEY", SECRET_KEY)
    caplog.set_level(logging.DEBUG)
    mock_all_apis(responses.mock)
    assert cli.main(["collect", "--out", str(tmp_path), "--sample", "5", "--no-progress"]) == 0
    record = read_record(tmp_path / "2025-06-01.json", kind="fwbench.ecosystem/1")
    assert record["complete"]
    assert record["authenticated"] == {"stackoverflow": True, "github": True, "pypistats": False, "pypi": False}
    assert set(record["sources"]) == {
        "stackoverflow",
        "github",
        "pypistats",
        "pypi",
        "pypi_accelerators",
        "pypi_stacks",
    }
    assert record["sources"]["pypistats"]["torch"]["downloads_last_month"]["value"] == 45000000
    assert "conda" in record["sources"]["pypistats"]["torch"]["downloads_last_month"]["method"]["caveat"]
    assert record["sources"]["pypi"]["torch"]["current_version"]["value"] == "2.5.0"
    assert record["sources"]["github"]["jax-ml/jax"]["stars_gained_in_window"]["value"] == 365 * 3
    out = capsys.readouterr()
    assert "wrote" in out.out
    for secret in (SECRET_TOKEN, SECRET_KEY):
        assert secret not in (tmp_path / "2025-06-01.json").read_text()
        assert secret not in out.out + out.err + caplog.text
    assert any(SECRET_TOKEN in c.request.headers.get("Authorization", "") for c in responses.calls)


@responses.activate
def test_failures_and_exceptions_never_carry_secrets(online, tmp_path, monkeypatch, capsys, caplog):
    monkeypatch.setenv("GITHUB_TOKEN", SECRET_TOKEN)
    monkeypatch.setenv("STACK_EXCHANGE_KEY", SECRET_KEY)
    caplog.set_level(logging.DEBUG)
    responses.get(f"{SE}/sites/", json=body("se_sites.json"))  # the rest is refused: errors quote the URL
    responses.get(f"{GH}/repos/pytorch/pytorch", json={"message": "Bad credentials"}, status=401)
    assert cli.main(["collect", "--out", str(tmp_path), "--sources", "stackoverflow", "--no-progress"]) == 1
    assert cli.main(["collect", "--out", str(tmp_path), "--sources", "github", "--no-progress"]) == 1
    out = capsys.readouterr()
    assert "failed" in out.err and "Bad credentials" in out.err
    files = "".join(p.read_text() for p in tmp_path.glob("*.json"))
    for secret in (SECRET_TOKEN, SECRET_KEY):
        assert secret not in out.out + out.err + caplog.text + files


def test_offline_fails_fast_and_writes_nothing(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(cli, "collect", functools.partial(collect, is_reachable=lambda host: False))
    assert cli.main(["collect", "--out", str(tmp_path / "eco"), "--no-progress"]) == 1
    err = capsys.readouterr().err
    assert "offline: cannot reach api.stackexchange.com, api.github.com, pypistats.org, pypi.org" in err
    assert not (tmp_path / "eco").exists()


@responses.activate
def test_unreachable_source_is_recorded_as_failed_and_the_rest_collected(tmp_path, monkeypatch, capsys):
    only_pypi = functools.partial(collect, is_reachable=lambda host: host == "pypistats.org", clock=fixed_clock)
    monkeypatch.setattr(cli, "collect", only_pypi)
    add_pypistats(responses.mock)
    assert cli.main(["collect", "--out", str(tmp_path), "--no-progress"]) == 1
    record = read_record(tmp_path / "2025-06-01.json")
    assert not record["complete"]
    assert record["sources"]["pypistats"]["jax"]["downloads_last_month"]["status"] == "ok"
    stars = record["sources"]["github"]["google/flax"]["stars"]
    assert stars["reason"] == "not attempted: cannot reach api.github.com (port 443) from where this snapshot was made"
    unreached = [m for part in ("github", "pypi") for s in record["sources"][part].values() for m in s.values()]
    assert unreached and all(m["status"] == "failed" and m["value"] is None for m in unreached)  # never zero
    assert all("cannot reach pypi.org" in m["reason"] for m in record["sources"]["pypi"]["torch"].values())


@responses.activate
def test_stack_overflow_timing_out_still_writes_the_github_and_pypi_figures(online, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("GITHUB_TOKEN", SECRET_TOKEN)
    responses.get(f"{SE}/sites/", json=body("se_sites.json"))
    responses.get(re.compile(rf"{re.escape(SE)}/(?!sites/).*"), body=network_error("net_read_timeout.json"))
    for repo in REPOS:
        add_github(responses.mock, repo)
    add_pypistats(responses.mock)
    add_pypi_json(responses.mock)
    assert cli.main(["collect", "--out", str(tmp_path), "--no-progress"]) == 1  # partial
    record = read_record(tmp_path / "2025-06-01.json", kind="fwbench.ecosystem/1")
    assert not record["complete"]
    assert {m["status"] for subject in record["sources"]["github"].values() for m in subject.values()} == {"ok"}
    assert record["sources"]["pypistats"]["jax"]["downloads_last_month"]["value"] == 45000000
    failed = {f["source"] for f in record["failures"]}
    assert failed == {"stackoverflow"}
    reason = record["sources"]["stackoverflow"]["jax"]["total_questions"]["reason"]
    assert "ReadTimeout" in reason and "failed 3 times" in reason
    assert "failed stackoverflow" in capsys.readouterr().err


@responses.activate
def test_frameworks_choose_the_subjects(online, tmp_path):
    add_pypistats(responses.mock)
    argv = ["collect", "--frameworks", "jax", "--sources", "pypistats", "--out", str(tmp_path), "--no-progress"]
    assert cli.main(argv) == 0
    record = read_record(tmp_path / "2025-06-01.json")
    assert list(record["sources"]) == ["pypistats"] and list(record["sources"]["pypistats"]) == ["jax", "flax"]


@pytest.mark.parametrize(
    "argv, flag",
    [
        (["collect", "--window-days", "0"], "--window-days"),
        (["collect", "--sample", "many"], "--sample"),
        (["collect", "--sources", "reddit"], "--sources"),
        (["collect", "--sources", "pypi,pypi"], "--sources"),
        (["collect", "--frameworks", "jax,mxnet"], "--frameworks"),
        (["collect", "--max-wait", "-1"], "--max-wait"),
        (["show", "--out", "/dev/null"], "--out"),  # exists, and is no directory
    ],
)
def test_usage_errors_exit_2_naming_the_flag(argv, flag, capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(argv)
    assert exc.value.code == 2 and f"argument {flag}" in capsys.readouterr().err


def test_an_out_that_cannot_be_written_is_a_usage_error_before_any_request(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    with responses.RequestsMock() as rsps:  # any request would fail the test: none is registered
        assert cli.main(["collect", "--out", str(blocker / "eco"), "--no-progress"]) == 2
        assert not rsps.calls
    assert capsys.readouterr().err.startswith(
        f"ecosystem collect: error: --out {blocker / 'eco'}: not a directory ({blocker})"
    )


@pytest.mark.parametrize("command", ["collect", "show"])
def test_help_of_each_subcommand_has_an_example_and_the_exit_status(command, capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main([command, "--help"])
    text = capsys.readouterr().out
    assert exc.value.code == 0 and f"ecosystem {command} --out results/ecosystem" in text and "exit status" in text
    if command == "collect":
        assert "GITHUB_TOKEN" in text and "STACK_EXCHANGE_KEY" in text and "--frameworks" in text


def _write(tmp_path, day: str, stars: int, latest: str) -> None:
    method = {"endpoint": "https://api.github.com/repos/google/flax"}
    metric = {"status": "ok", "reason": None, "method": method, "collected_at": f"{day}T10:00:00Z"}
    record = {
        "schema": "fwbench.ecosystem/1",
        "collected_at": f"{day}T10:00:00Z",
        "date": day,
        "window_days": 365,
        "complete": True,
        "authenticated": {"github": False},
        "failures": [],
        "sources": {
            "github": {
                "google/flax": {"stars": dict(metric, value=stars), "latest_release_date": dict(metric, value=latest)}
            }
        },
    }
    (tmp_path / f"{day}.json").write_text(json.dumps(record))


def test_show_prints_the_latest_snapshot_and_the_change(tmp_path, capsys):
    _write(tmp_path, "2025-05-01", 6000, "2025-04-01")
    _write(tmp_path, "2025-06-01", 6250, "2025-05-20")
    assert cli.main(["show", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "Ecosystem snapshot 2025-06-01 (complete; 2 metrics collected" in out
    assert "change since 2025-05-01" in out
    stars_row = next(line for line in out.splitlines() if " stars " in line)
    assert "6,250" in stars_row and "+250" in stars_row
    assert "was 2025-04-01" in next(line for line in out.splitlines() if "latest_release_date" in line)


def test_show_in_a_fresh_clone_says_there_is_no_snapshot_yet_and_how_to_make_one(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)  # no results/ecosystem directory, as in a fresh clone
    assert cli.main(["show"]) == 1
    out = capsys.readouterr()
    assert out.out == ""
    assert out.err == (
        "ecosystem: no snapshot yet in results/ecosystem; make one with `ecosystem collect --out results/ecosystem`\n"
    )


def test_show_without_snapshots_or_with_a_bad_one(tmp_path, capsys):
    assert cli.main(["show", "--out", str(tmp_path)]) == 1
    assert capsys.readouterr().err.startswith(f"ecosystem: no snapshot yet in {tmp_path}; make one with")
    (tmp_path / "2025-06-01.json").write_text('{"schema": "fwbench.ecosystem/1"}')
    assert cli.main(["show", "--out", str(tmp_path)]) == 1
    assert "2025-06-01.json: field '(top level)'" in capsys.readouterr().err
