"""The release bisect finds the first release worse beyond the noise, confirms it with repeated runs, skips what
cannot be measured, and says "no drop" or "inconclusive" where the runs cannot carry more. Measurements are
injected: a fake ``measure`` with the metric of each release given by the test."""

import itertools

import pytest

from fwbench.records import write_record
from runners.bisect.cli import check_flags
from runners.bisect.releases import ReleaseRunner
from runners.bisect.report import build_report, reproduce_commands
from runners.bisect.search import Sample, bisect
from runners.cli import build_parser
from runners.cli import main as runners_main

RELEASES = [f"0.{minor}.0" for minor in range(1, 12)]  # 11 releases


class FakeReleases:
    """``measure`` over made-up values: ``value_of(release, run index)``; None: that release cannot be measured."""

    def __init__(self, value_of):
        self.value_of, self.samples, self.calls = value_of, {}, []

    def measure(self, release: str, wanted: int) -> list:
        self.calls.append((release, wanted))
        have = self.samples.setdefault(release, [])
        while len(have) < wanted:
            value = self.value_of(release, len(have))
            if value is None:
                return []
            have.append(Sample(value, f"{release}-{len(have)}", "ok", None, {}))
        return have


def step_at(first_slow: str, fast: float = 26.0, slow: float = 9.0, jitter=(0.0, 0.4, -0.3)):
    def value(release, run):
        base = slow if RELEASES.index(release) >= RELEASES.index(first_slow) else fast
        return base + jitter[run % len(jitter)]

    return value


@pytest.mark.parametrize("first_slow", ["0.2.0", "0.7.0", "0.11.0"])
def test_the_first_slow_release_is_found_and_confirmed_with_repeats(first_slow):
    fake = FakeReleases(step_at(first_slow))
    result = bisect(RELEASES, fake.measure, threshold=0.25, repeats=3, higher_is_better=True)
    last_good = RELEASES[RELEASES.index(first_slow) - 1]
    assert (result["status"], result["first_bad"], result["last_good"]) == ("found", first_slow, last_good)
    assert len(fake.samples[first_slow]) == 3 and len(fake.samples[last_good]) == 3
    assert result["drop"] == pytest.approx(1 - 9.0 / 26.0, abs=0.02)
    assert result["message"].startswith(f"{first_slow} is the first release worse than its predecessor {last_good}")
    assert len(fake.samples) <= 2 + 4, "the ends and about log2(11) releases between them"
    assert {len(samples) for samples in fake.samples.values()} == {3}


def test_a_release_that_cannot_be_measured_is_skipped():
    value = step_at("0.7.0")
    fake = FakeReleases(lambda release, run: None if release == "0.6.0" else value(release, run))
    result = bisect(RELEASES, fake.measure, threshold=0.25, repeats=3, higher_is_better=True)
    assert result["status"] == "found" and result["first_bad"] == "0.7.0" and result["last_good"] == "0.5.0"
    assert result["skipped"] == ["0.6.0"]


def test_no_drop_when_the_newest_is_not_worse_beyond_the_threshold():
    fake = FakeReleases(step_at("0.7.0", fast=26.0, slow=22.0))  # 15 % slower: under 25 %
    result = bisect(RELEASES, fake.measure, threshold=0.25, repeats=3, higher_is_better=True)
    assert result["status"] == "no_drop" and result["first_bad"] is None
    assert fake.calls == [("0.1.0", 3), ("0.11.0", 3)], "nothing between the ends is run"


def test_no_drop_when_the_runs_overlap():
    noisy = itertools.cycle([26.0, 8.0, 26.0])
    fake = FakeReleases(lambda release, run: next(noisy) if release == "0.1.0" else 9.0 + run)
    result = bisect(RELEASES, fake.measure, threshold=0.25, repeats=3, higher_is_better=True)
    assert result["status"] == "no_drop", "a slow run among the old ones: the sets overlap"


def test_a_drop_spread_over_releases_is_inconclusive():
    fake = FakeReleases(lambda release, run: 30.0 - 2.0 * RELEASES.index(release) + (0.5 if run % 2 else -0.5))
    result = bisect(RELEASES, fake.measure, threshold=0.25, repeats=3, higher_is_better=True)
    assert result["status"] == "inconclusive" and "spread over several releases" in result["message"]


def test_lower_is_better_for_seconds():
    fake = FakeReleases(lambda release, run: 10.0 if RELEASES.index(release) < 4 else 30.0 + run)
    result = bisect(RELEASES, fake.measure, threshold=0.25, repeats=3, higher_is_better=False)
    assert (result["status"], result["first_bad"]) == ("found", "0.5.0")


def test_bad_flags_are_usage_errors_naming_the_flag(capsys):
    assert runners_main(["bisect", "--framework", "jax", "--releases", "0.4.26"]) == 2
    assert "runners bisect: error: --releases: give at least two releases" in capsys.readouterr().err
    assert runners_main(["bisect", "--framework", "jax", "--releases", "0.4.26,9.9"]) == 2
    assert "--releases: 9.9 is not a release version_sets.json knows" in capsys.readouterr().err
    assert runners_main(["bisect", "--framework", "jax", "--threshold", "1.5"]) == 2
    assert "--threshold 1.5: must lie between 0 and 1" in capsys.readouterr().err


def test_a_report_validates_and_names_the_commands_that_reproduce_it(tmp_path):
    fake = FakeReleases(step_at("0.7.0"))
    result = bisect(RELEASES, fake.measure, threshold=0.25, repeats=3, higher_is_better=True)
    args = build_parser().parse_args(["bisect", "--framework", "jax"])
    check_flags(args)
    commands = reproduce_commands(args, result)
    assert commands.splitlines()[0] == "runners envs build jax=0.6.0,0.7.0"
    assert "--versions jax=0.6.0,0.7.0 --batch-sizes 32 --seeds 0,1,2" in commands
    runner = ReleaseRunner(args, tmp_path)
    runner.samples = fake.samples
    hardware = {"machine_id": "cpu-test-2t-0000"}
    report = build_report(args, runner, result, hardware, "2026-11-30T10:00:00.000Z", ["python"])
    assert report["config"]["batch_size"] == 32 and report["config"]["device"] == "cpu"
    assert report["workaround"] is None and report["result"]["first_bad"] == "0.7.0"
    write_record(tmp_path / "report.json", report)  # validates against fwbench.bisect/1
