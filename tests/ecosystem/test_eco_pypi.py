"""The PyPI source (`ecosystem collect --sources pypi`) end to end against stored answers of PyPI's JSON API, in the
shape documented at https://docs.pypi.org/api/json/ (fixtures ``pypi_json_*.json``), with a fake uv: cadence, support
windows, platforms, vulnerabilities, stacks; a malformed or partial answer names the package and field and writes
nothing."""

from __future__ import annotations

import functools
import json
import time
from datetime import datetime, timezone

import pytest
import responses
from eco_mocks import SMALL_STACKS, add_pypi_json, fake_uv, fixed_clock, pypi_body

from ecosystem import cli, pypi_figures, pypi_registry
from ecosystem.collect import collect
from ecosystem.pypi_api import File
from fwbench.records import read_record

DAY = "2025-06-01"  # the test clock's day
MIB_800 = 800_000_000  # a fixture wheel for Linux x86-64
PURE_WHEEL = 16_000


@pytest.fixture
def offline_pypi(monkeypatch, tmp_path_factory):
    """pypi.org reachable through the stored answers, small stacks, the fixed clock, no real sleeping; returns a
    function that installs a fake uv (its pins, or pins per first requirement)."""
    monkeypatch.setattr(pypi_registry, "STACKS", SMALL_STACKS)
    monkeypatch.setattr(time, "sleep", lambda seconds: None)

    def use_uv(**kwargs):
        uv = fake_uv(tmp_path_factory.mktemp("uv"), **kwargs)
        online = functools.partial(collect, is_reachable=lambda host: host == "pypi.org", clock=fixed_clock, uv=uv)
        monkeypatch.setattr(cli, "collect", online)

    use_uv()
    return use_uv


def run(out, *frameworks: str) -> int:
    argv = ["collect", "--sources", "pypi", "--out", str(out), "--no-progress"]
    return cli.main(argv + (["--frameworks", ",".join(frameworks)] if frameworks else []))


def values(metrics: dict) -> dict:
    return {name: m["value"] for name, m in metrics.items()}


@responses.activate
def test_a_project_with_cpython_wheels(offline_pypi, tmp_path):
    add_pypi_json(responses.mock)
    assert run(tmp_path, "torch") == 0
    record = read_record(tmp_path / f"{DAY}.json", kind="fwbench.ecosystem/1")
    torch = record["sources"]["pypi"]["torch"]
    got = values(torch)
    assert (got["current_version"], got["current_release_date"], got["requires_python"]) == (
        "2.5.0",
        "2024-10-17",
        ">=3.11",
    )
    assert got["oldest_python"] == "3.12"  # what the current release's wheels serve, not requires_python
    # final releases by first upload: 2.3.1 (every file yanked) and 2.6.0rc1 (a pre-release) do not count
    assert [got[f"releases_{y}"] for y in (2022, 2023, 2024, 2025)] == [1, 2, 4, 0]
    assert torch["releases_2021"]["status"] == "not_collected"  # PyPI holds nothing of it before 2022-10-28
    assert "before 2022-10-28" in torch["releases_2021"]["reason"]
    assert got["median_days_between_minor_releases"] == 104.5  # gaps 138, 203, 118, 85, 91, 85
    assert got["yanked_releases"] == 1 and torch["yanked_releases"]["method"]["yanked"] == ["2.3.1"]
    # days from each CPython's 3.x.0 release to the first wheel for it
    assert (got["python_lag_days_cp312"], got["python_lag_days_cp313"]) == (120, 10)
    assert got["first_wheel_cp313"] == "2024-10-17"
    # CPython 3.11 came out on 2022-10-24, before the oldest file PyPI holds (2022-10-28): its first wheel may be gone
    assert "came out first" in torch["python_lag_days_cp311"]["reason"]
    assert torch["first_wheel_cp311"]["status"] == "not_collected"
    assert torch["first_wheel_cp314"]["reason"] == "no release has a wheel for CPython 3.14 yet"
    assert [
        got[f"wheels_{p}"] for p in ("linux_x86_64", "linux_aarch64", "macos_arm64", "macos_x86_64", "windows")
    ] == [
        2,
        2,
        2,
        0,
        2,
    ]
    assert got["vulnerabilities"] == 1  # the withdrawn advisory is left out
    assert got["vulnerability_ids"] == "PYSEC-0000-1 (fixed in 2.6.0)"
    assert torch["current_version"]["method"]["endpoint"] == "https://pypi.org/pypi/torch/json"


@responses.activate
def test_stacks_weigh_the_wheels_the_target_installs_and_measure_the_cpu_set_here(offline_pypi, tmp_path):
    add_pypi_json(responses.mock)
    assert run(tmp_path, "torch") == 0
    record = read_record(tmp_path / f"{DAY}.json")
    cpu, gpu = (record["sources"]["pypi_stacks"][f"torch {d}"] for d in ("cpu", "gpu"))
    # torch and nvidia-cudnn-cu12 at their cp312 manylinux x86-64 wheel, filelock at its pure wheel (not the sdist)
    assert values(cpu)["download_bytes"] == 2 * MIB_800 + PURE_WHEEL
    assert values(cpu)["distributions"] == 3
    assert "--python-platform x86_64-manylinux_2_28" in cpu["download_bytes"]["method"]["command"]
    assert sorted(w[0] for w in cpu["download_bytes"]["method"]["wheels"])[0].endswith("manylinux_2_28_x86_64.whl")
    installed = cpu["installed_bytes"]
    assert installed["status"] == "ok" and installed["value"] > 0
    assert {"requests", "urllib3", "idna"} <= set(installed["method"]["installed_versions"])
    assert gpu["installed_bytes"]["status"] == "not_collected"
    cuda = record["sources"]["pypi_accelerators"]["nvidia-cudnn-cu12 2.5.0"]
    assert values(cuda)["wheels_linux_x86_64"] == 2 and values(cuda)["wheels_macos_x86_64"] == 0


@responses.activate
def test_pure_python_packages_have_no_support_window(offline_pypi, tmp_path):
    add_pypi_json(responses.mock)
    assert run(tmp_path, "jax") == 0
    flax = read_record(tmp_path / f"{DAY}.json")["sources"]["pypi"]["flax"]
    assert flax["first_wheel_cp312"]["status"] == "not_collected"
    assert flax["first_wheel_cp312"]["reason"].startswith("pure-Python wheels")
    assert flax["oldest_python"]["value"] == ">=3.9" and flax["oldest_python"]["method"]["from"] == "requires_python"
    assert {flax[f"wheels_{p}"]["value"] for p in ("linux_x86_64", "macos_x86_64", "windows")} == {1}


def _without(*path: str | int):
    """An answer for torch with the field at ``path`` (keys and list indexes) removed."""

    def answer(project: str) -> dict:
        data = pypi_body(project)
        if project == "torch":
            *parents, last = path
            node = data
            for key in parents:
                node = node[key]
            del node[last]
        return data

    return answer


@pytest.mark.parametrize(
    "answer, message",
    [
        (_without("releases", "2.5.0", 0, "size"), "pypi torch: the answer lacks field 'releases.2.5.0[0].size'"),
        (_without("vulnerabilities"), "pypi torch: the answer lacks field 'vulnerabilities'"),
        (_without("info", "version"), "pypi torch: the answer lacks field 'info.version'"),
        (
            lambda p: {**pypi_body(p), "releases": []} if p == "torch" else pypi_body(p),
            "pypi torch: field 'releases' is list, not as documented",
        ),
    ],
)
@responses.activate
def test_a_malformed_or_partial_answer_names_the_package_and_field_and_writes_nothing(
    offline_pypi, tmp_path, capsys, answer, message
):
    earlier = tmp_path / "2025-05-31.json"
    earlier.write_text(json.dumps({"kept": True}))
    add_pypi_json(responses.mock, answer)
    assert run(tmp_path, "torch") == 1
    assert capsys.readouterr().err == f"ecosystem: {message}; nothing was written\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["2025-05-31.json"]
    assert json.loads(earlier.read_text()) == {"kept": True}


@responses.activate
def test_a_resolved_version_missing_from_the_answer_is_a_partial_answer(offline_pypi, tmp_path, capsys):
    offline_pypi(pins=("torch==9.9.9",))
    add_pypi_json(responses.mock)
    assert run(tmp_path, "torch") == 1
    assert "pypi torch: the answer lacks field 'releases.9.9.9'" in capsys.readouterr().err
    assert not list(tmp_path.iterdir())


@responses.activate
def test_an_answer_that_is_not_json_names_the_package(offline_pypi, tmp_path, capsys):
    responses.get("https://pypi.org/pypi/torch/json", body="<html>maintenance</html>")
    assert run(tmp_path, "torch") == 1
    err = capsys.readouterr().err
    assert (
        err.startswith("ecosystem: pypi https://pypi.org/pypi/torch/json: malformed JSON")
        and "nothing was written" in err
    )
    assert not list(tmp_path.iterdir())


@responses.activate
def test_a_missing_project_fails_its_own_figures_only(offline_pypi, tmp_path, capsys):
    responses.get("https://pypi.org/pypi/libtpu/json", json={"message": "Not Found"}, status=404)
    add_pypi_json(responses.mock)
    assert run(tmp_path, "jax") == 1  # partial, but written
    record = read_record(tmp_path / f"{DAY}.json")
    assert {f["subject"] for f in record["failures"]} == {"libtpu"}
    assert "HTTP 404" in record["sources"]["pypi_accelerators"]["libtpu"]["version"]["reason"]
    assert record["sources"]["pypi"]["jaxlib"]["current_version"]["status"] == "ok"
    assert "failed pypi_accelerators libtpu" in capsys.readouterr().err


def _file(name: str) -> File:
    return File(name, 1, datetime(2025, 1, 1, tzinfo=timezone.utc), False)


def test_wheel_tags_stable_abi_free_threaded_builds_and_universal_macos_wheels():
    stable = pypi_figures.wheel_tags("pkg-1.0-cp310-abi3-manylinux_2_17_x86_64.manylinux2014_x86_64.whl")
    assert [pypi_figures.serves_python(stable, m) for m in (9, 10, 14)] == [False, True, True]
    free_threaded = pypi_figures.wheel_tags("pkg-1.0-cp314-cp314t-win_amd64.whl")
    assert not pypi_figures.serves_python(free_threaded, 14)  # a free-threaded build is another interpreter
    assert pypi_figures.wheel_tags("pkg-1.0.tar.gz") is None
    files = tuple(map(_file, ("pkg-1.0-cp312-cp312-macosx_10_13_universal2.whl", "pkg-1.0-py3-none-any.whl")))
    assert pypi_figures.platform_wheels(files) == {
        "linux_x86_64": 1,
        "linux_aarch64": 1,
        "macos_arm64": 2,
        "macos_x86_64": 2,
        "windows": 1,
    }
    assert pypi_figures.oldest_python((_file("pkg-1.0-cp311-abi3-win_amd64.whl"),)) == 11
