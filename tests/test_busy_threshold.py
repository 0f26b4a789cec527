"""The busy threshold from the data (benchmarks/busy_threshold.py): on run records made through runners.measure.record,
a slowdown planted above a share of other work is found at that share."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import pytest

from fwbench.records import write_record
from generator.records.load import load_results
from runners.measure import machine_load
from runners.measure.profiles import RunConfig, expand

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests" / "generator"))
import gen_records  # noqa: E402

from benchmarks import busy_threshold  # noqa: E402

#: six configurations: three frameworks at two batch sizes
CONFIGS = [
    c
    for c in expand("quick", device="cpu", version_of=gen_records.VERSIONS.get)
    if c.precision == "fp32" and c.batch_size in (32, 64)
]
#: other work across each configuration's runs, percent of one core's worth: one run in each of the script's bins
CORE_SHARES = (0.5, 1.5, 2.5, 3.5, 5.0, 7.0, 10.0, 16.0, 25.0)
PLANTED_SLOWDOWN = 0.10


def record(config: RunConfig, repeat: int, core_share: float, rate: float) -> dict:
    """A run of ``config`` at ``rate`` images/s while other work took ``core_share`` % of one of the test CPU's two
    cores across its clock, as ``runners run`` records it."""
    config = dataclasses.replace(config, repeat=repeat)
    machine_share = core_share / 2
    during = {
        "samples": 20,
        "interval_seconds": 0.5,
        "mean_other_cpu_percent": machine_share,
        "peak_other_cpu_percent": machine_share,
    }
    load = machine_load.load_section(gen_records.QUIET, gen_records.QUIET, 0.0, during)
    return gen_records.as_recorded(config, gen_records.one_epoch(config, rate, load=load), ["runners", "matrix"])


def write_runs(root: Path, slowed_from: float | None) -> Path:
    """Every configuration's runs at CORE_SHARES, PLANTED_SLOWDOWN slower from the share ``slowed_from`` up (None:
    never), with ±0.2 % run-to-run noise; and one configuration of a single run, which nothing can be compared
    with. Returns the results root."""
    runs = root / "runs" / gen_records.CPU_MACHINE
    for index, config in enumerate(CONFIGS):
        for repeat, share in enumerate(CORE_SHARES):
            noise = 1 + 0.002 * ((repeat + index) % 3 - 1)
            slowed = slowed_from is not None and share >= slowed_from
            rate = 100.0 * (1 + index / 10) * noise * (1 - PLANTED_SLOWDOWN if slowed else 1)
            made = record(config, repeat, share, rate)
            write_record(runs / f"{made['record_id']}.json", made)
    single = next(c for c in expand("quick", device="cpu", version_of=gen_records.VERSIONS.get) if c.batch_size == 256)
    made = record(single, 0, 30.0, 50.0)
    write_record(runs / f"{made['record_id']}.json", made)
    return root


def bins_of(root: Path) -> list:
    return busy_threshold.share_bins(busy_threshold.loaded_runs(load_results(root).runs))


@pytest.mark.parametrize("slowed_from", [3.0, 6.0, 12.0])
def test_a_slowdown_planted_above_a_share_sets_the_threshold_at_that_share(tmp_path, slowed_from):
    runs = busy_threshold.loaded_runs(load_results(write_runs(tmp_path, slowed_from)).runs)
    assert len(runs) == len(CONFIGS) * len(CORE_SHARES)  # the single run's configuration is left out
    bins = busy_threshold.share_bins(runs)
    assert [b.slower for b in bins] == [b.low >= slowed_from for b in bins]
    assert busy_threshold.busy_threshold(bins) == slowed_from


def test_a_bin_a_fraction_of_a_percent_slower_is_not_measurably_slower():
    # every run a steady 0.4 % slower than the reference: above 0, but below the 1 % a verdict could notice
    steady = busy_threshold.ShareBin(4.0, 6.0, (0.004,) * 8)
    assert steady.interval == (0.004, 0.004) and steady.slower is False
    assert busy_threshold.ShareBin(4.0, 6.0, (0.004,) * 7 + (0.03,)).slower is True


def test_without_a_slower_bin_the_data_set_no_threshold_and_the_script_says_so(tmp_path, capsys):
    root = write_runs(tmp_path, slowed_from=None)
    assert busy_threshold.busy_threshold(bins_of(root)) is None
    assert busy_threshold.main([str(root)]) == 1
    assert capsys.readouterr().err.startswith("the data set no threshold")


def test_the_script_prints_the_table_and_the_threshold_in_the_busy_rules_terms(tmp_path, capsys):
    assert busy_threshold.main([str(write_runs(tmp_path, slowed_from=6.0))]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "54 runs of 6 configurations; slowdown against each one's quietest half"
    assert lines[-1] == "threshold: 6 % of one core's worth (BUSY_CORE_SHARE = 0.06): 3 % of a 2-CPU machine"
    rows = lines[3:-1]  # below the table's header and its rule
    assert [row.split()[0] for row in rows] == ["0–1", "1–2", "2–3", "3–4", "4–6", "6–8", "8–12", "12–20", "20+"]
    assert [row.endswith("not slower") for row in rows] == [True] * 5 + [False] * 4


def test_no_runs_to_compare_is_one_line_naming_the_folder_and_exit_1(tmp_path, capsys):
    (tmp_path / "runs").mkdir()
    assert busy_threshold.main([str(tmp_path)]) == 1
    assert (
        capsys.readouterr().err
        == f"no CPU runs with a clock sample, two or more of a configuration, under {tmp_path / 'runs'}\n"
    )


@pytest.mark.parametrize("n, ranks", [(5, None), (6, (0, 5)), (20, (5, 14)), (50, (17, 32))])
def test_the_median_interval_takes_the_order_statistics_that_cover_it_95_percent_of_the_time(n, ranks):
    values = [float(v) for v in range(n)]
    assert busy_threshold.median_interval(values[::-1]) == (
        None if ranks is None else (values[ranks[0]], values[ranks[1]])
    )


def test_the_busy_rule_uses_the_figure_the_site_states():
    stated = f"more than {machine_load.BUSY_CORE_SHARE * 100:g} % of one core's worth"
    for source in ("generator/templates/_macros.md.j2", "generator/data/comparability.json", "docs/design.md"):
        assert stated in (REPO / source).read_text(encoding="utf-8"), source
