"""`runners matrix --repeats` and `--budget`: auto repeats run again only the undecided comparisons, up to the cap;
a fixed count runs everything; a budget stop keeps every record and a rerun goes on; repeats are warm, named
``…-r<k>.json`` and pooled as runs of one configuration; ``--dry-run`` writes nothing. Children are faked: each
"run" is a record built through ``runners.measure.record.ok_record``, as the runner writes it."""

from __future__ import annotations

import dataclasses
import datetime
import json
from pathlib import Path

import pytest

from benchmarks import budget_estimate
from fwbench.records import read_record, write_record
from fwbench.sittings import Start
from generator.records.aggregate import summarise
from generator.records.load import Loaded
from runners import cli
from runners.executors.boundary import Finished, Started, Target
from runners.executors.local import COMPILE_CACHE_ENV, LocalExecutor, compile_cache_dir
from runners.matrix import budget, plan_preview
from runners.matrix import driver as matrix
from runners.matrix.budget import Budget
from runners.matrix.comparisons import comparisons
from runners.matrix.figures import DECIDES
from runners.matrix.order import at_ends, in_round, interleaved_order
from runners.matrix.outcome import Outcome
from runners.matrix.repeats import Repeats
from runners.matrix.summary import closing_lines, summary_table
from runners.measure import machine_load, profile_loading, profiles, provenance, run
from runners.measure.compile_cache import FILLED_BY
from runners.measure.record import Measured, ok_record, record_path

REPO = Path(__file__).resolve().parents[2]
MACHINE = "m"
QUIET = {"load_avg_1m": 0.1, "load_avg_5m": 0.1, "other_cpu_percent": 1.0, "cpu_count": 2}
BUSY = {**QUIET, "other_cpu_percent": 90.0}
SOFTWARE = {
    "python": "3.11.7",
    "os": "Linux 6.8.0 (x86_64)",
    "packages": {"torch": "2.4.1"},
    "git_commit": "0" * 40,
    "git_dirty": False,
    "fwbench_version": "0.1.0",
}
VERSIONS = {"torch": "2.4.1", "tensorflow": "2.17.0", "jax": "0.4.31"}
#: the relative spread of a run's images/s around its framework's rate, by repeat: every framework's alike, the
#: machine's drift from round to round, which a round's ratio cancels
TIGHT = (0.0, 0.01, -0.01, 0.005, -0.005)
#: a spread each framework has its own of (``Runs``'s spread by framework): the ratios of a round move by ±10 %
NOISY = {"torch": (0.0, 0.05, -0.05, 0.02, -0.02), "jax": (0.0, -0.05, 0.05, -0.02, 0.02)}


def order_of(*frameworks: str, batch_sizes=(32,)) -> list[profiles.RunConfig]:
    configs = profiles.expand(
        "smoke", version_of=VERSIONS.get, frameworks=list(frameworks), batch_sizes=list(batch_sizes)
    )
    return interleaved_order(configs)


def ran(
    config: profiles.RunConfig,
    rate: float,
    seconds: float = 60.0,
    load: dict | None = None,
    compile_seconds: float | None = None,
    host_bytes: int = 1 << 30,
    nvml_bytes: int | None = None,
    started: str = "2026-12-01T10:00:00",
) -> dict:
    """The record of ``config`` at ``rate`` images/s, started at ``started`` (UTC) and taking ``seconds``, compiling
    ``compile_seconds`` (default: an epoch's time) and peaking at ``host_bytes`` of host memory, as ``runners run``
    writes it: a repeat finds warm compile caches, as the local executor gives it."""
    steps = config.epoch_train_images // config.batch_size
    epoch = steps * config.batch_size / rate
    windows = run.window_sizes(steps)
    measured = Measured(
        first_step_seconds=(epoch if compile_seconds is None else compile_seconds) + epoch / steps,
        epoch_seconds=[epoch],
        window_step_seconds=[epoch / steps] * len(windows),
        window_steps=windows,
        epochs=[{"epoch": 1, "train_loss": 2.0, "train_accuracy": 0.1, "test_loss": 2.0, "test_accuracy": 0.1}],
        framework_memory={"allocator_peak_bytes": None, "allocator_reserved_bytes": None},
        nvml_peak_bytes=nvml_bytes,
        host_self_peak_bytes=host_bytes,
        host_children_peak_bytes=0,
        data_bytes=1 << 20,
        load=load or machine_load.load_section(QUIET, QUIET, 0.0),
        compile_cache="warm" if config.repeat else "cold",
    )
    hardware = {**provenance.hardware_for("cpu"), "machine_id": MACHINE}
    start = datetime.datetime.fromisoformat(started)
    finished = start + datetime.timedelta(seconds=int(seconds))
    command = ["runners/cli.py", "run", "--config-json", config.to_json()]  # as the local executor starts it
    return ok_record(
        config,
        hardware,
        f"{start.isoformat()}.000Z",
        f"{finished.isoformat()}.000Z",
        measured,
        software=SOFTWARE,
        command=command,
    )


class Runs:
    """A fake executor: each job becomes an ok record at its framework's rate for its batch size, spread by repeat
    (``spread``: alike for every framework, or by framework, TIGHT for one not named); a run takes ``seconds`` on the
    budget's clock (``seconds``, or by batch size), and its record says it ``started`` then (UTC)."""

    name = "fake"

    def __init__(
        self,
        rates: dict[tuple[str, int], float],
        spread=TIGHT,
        seconds: float | dict[int, float] = 60.0,
        clock=None,
        compiles: dict[str, float] | None = None,
        memory: dict[str, int] | None = None,
        busy=lambda config: False,
        started: str = "2026-12-01T10:00:00",
    ):
        self.rates, self.spread, self.seconds, self.clock = rates, spread, seconds, clock
        self.compiles, self.memory = compiles or {}, memory or {}  # by framework, spread by repeat as the rates are
        self.busy = busy  # which runs find the machine busy
        self.started = started
        self.jobs = []

    def execute(self, jobs):
        for job in jobs:
            self.jobs.append(job)
            yield Started(job, "")
            config = job.config
            spreads = self.spread.get(config.framework, TIGHT) if isinstance(self.spread, dict) else self.spread
            spread = 1 + spreads[config.repeat % len(spreads)]  # a run past the cap: past the spreads
            rate = self.rates[config.framework, config.batch_size] * spread
            compiled = self.compiles.get(config.framework)
            figures = {"compile_seconds": compiled * spread if compiled else None}
            figures |= (
                {"host_bytes": int(self.memory[config.framework] * spread)} if config.framework in self.memory else {}
            )
            if self.busy(config):
                figures["load"] = machine_load.load_section(BUSY, BUSY, 0.0)
            seconds = self.seconds[config.batch_size] if isinstance(self.seconds, dict) else self.seconds
            if self.clock:
                self.clock.now += seconds
            record = ran(config, rate, seconds, started=self.started, **figures)
            yield Finished(job, record, "", seconds)

    def ran(self) -> list[str]:
        return [job.config.label for job in self.jobs]


class Clock:
    now = 0.0


@pytest.fixture
def clock(monkeypatch):
    """The budget's clock, moved on by the fake executor."""
    fake = Clock()
    monkeypatch.setattr(budget.time, "monotonic", lambda: fake.now)
    return fake


#: when the tests' matrices begin: a minute before their records (``ran``'s default start), on a boot of their own
MATRIX_START = datetime.datetime.fromisoformat("2026-12-01T09:59:00+00:00")


@pytest.fixture(autouse=True)
def matrix_start(monkeypatch):
    """Every matrix and dry run here begins at ``MATRIX_START`` (returned, to be moved), where the records say."""
    start = {"at": MATRIX_START}
    for module in (matrix, plan_preview):
        monkeypatch.setattr(module, "start_here", lambda target: Start(start["at"]))
    return start


def run_repeats(out: Path, order, executor, repeats: Repeats, minutes: float | None = None) -> Outcome:
    target = Target((MACHINE,), {})
    return matrix.run_matrix([(target, order)], out, executor, progress=False, repeats=repeats, budget=Budget(minutes))


AUTO = Repeats(5, auto=True)
#: what a line adds to a decision resting on the matrix's sitting alone
ONE_SITTING = "in this sitting; replicate on another boot or machine"
EVERY_FIGURE = tuple(DECIDES)


def strip_repeat(labels: list[str]) -> list[str]:
    return [label.split(" r")[0] for label in labels]


def test_auto_runs_again_only_the_undecided_comparisons(tmp_path, capsys):
    order = order_of("torch", "tensorflow", "jax", batch_sizes=(32, 64))
    rates = {("torch", 32): 100, ("tensorflow", 32): 50, ("jax", 32): 20}  # bs 32: decided once n = 3
    rates |= {("torch", 64): 100, ("jax", 64): 100, ("tensorflow", 64): 10}  # bs 64: torch and jax never decided
    # PyTorch's first run at 32 finds the machine busy: round 0 pairs nothing there, so bs 32 decides in round 3
    executor = Runs(
        rates,
        spread=NOISY,
        busy=lambda config: (config.framework, config.batch_size, config.repeat) == ("torch", 32, 0),
    )
    outcome = run_repeats(tmp_path, order, executor, AUTO)
    labels = executor.ran()
    # each end's rounds back to back (bs 32 first: as cheap as bs 64 by the profile's guess, and the smaller), every
    # configuration, each round's frameworks shifted by one: a Latin square
    bs32, bs64 = order[:3], order[3:]
    for round_index in (0, 1, 2):
        assert strip_repeat(labels[3 * round_index : 3 * round_index + 3]) == [
            config.label for config in in_round(bs32, round_index)
        ]
        assert strip_repeat(labels[11 + 3 * round_index : 14 + 3 * round_index]) == [
            config.label for config in in_round(bs64, round_index)
        ]
    # round 3 comes back to bs 32's order of round 0: JAX's repeat is planned last, and PyTorch's and TensorFlow's
    # fourth runs decide bs 32 before it
    assert strip_repeat(labels[9:11]) == ["torch/compiled bs32 seed0", "tensorflow/compiled bs32 seed0"]
    decided = f"bs 32: PyTorch ahead of TensorFlow 2.01× (1.81–2.22×) at n = 3 {ONE_SITTING}"
    assert f"jax/compiled bs32 seed0 r3: not run, its comparison is decided ({decided})" in capsys.readouterr().err
    # the runs after it are told their places without a gap
    assert [job.position for job in executor.jobs[9:12]] == [(10, 12), (11, 12), (12, 14)]
    later = labels[20:]  # rounds 3 and 4 at bs 64: torch and jax only (TensorFlow's pair with the leader is decided)
    assert later == [
        "torch/compiled bs64 seed0 r3",
        "jax/compiled bs64 seed0 r3",
        "jax/compiled bs64 seed0 r4",
        "torch/compiled bs64 seed0 r4",
    ]
    assert outcome.stop.reason == "cap reached"
    assert closing_lines(outcome)[1:] == [
        decided,
        "bs 64: undecided at n = 5, JAX ÷ PyTorch 1.00× (0.91–1.10×) (cap)",
    ]
    assert closing_lines(outcome)[0] == "stopped: cap reached: 5 paired rounds in the sitting, or 10 runs in it"


def test_a_matrix_started_another_sitting_runs_again_after_the_earlier_repeats_until_it_decides(tmp_path, matrix_start):
    order = order_of("torch", "jax")
    rates = {("torch", 32): 100, ("jax", 32): 50}
    run_repeats(tmp_path, order, Runs(rates), AUTO)  # decided at n = 3: repeats 0 to 2, at 10:00

    def preview_at(start: str) -> list[str]:
        matrix_start["at"] = datetime.datetime.fromisoformat(start)
        return plan_preview.preview(Target((MACHINE,), {}), order, tmp_path, AUTO, Budget(None), [])

    new_sitting = "  a new sitting: the earlier one (2026-12-01) decided 1 of 1 comparisons; this one runs again, "
    new_sitting += "from repeat 3, until its own rounds decide"
    soon = preview_at("2026-12-01T10:11:00+00:00")  # ten minutes after the last finish: the same sitting
    assert new_sitting not in soon and any("decided by this machine's records already" in line for line in soon)
    assert all(row.split()[3:6] == ["3", "of", "5"] for row in soon[2].splitlines()[2:])
    later = preview_at("2026-12-01T12:01:00+00:00")  # two hours after
    assert new_sitting in later and not any("decided by this machine's records already" in line for line in later)
    # three paired rounds at the least, as many as the limit at the most, all in the new sitting
    assert "  then ≈ 6.0 min to ≈ 10.0 min more for 6 to 10 repeats" in " ".join(later)
    # the table counts each configuration's runs in the new sitting (none yet), not the earlier sitting's first run
    assert "runs in this sitting" in later[2] and all(
        row.split()[3:6] == ["0", "of", "5"] for row in later[2].splitlines()[2:]
    )
    assert "estimate: first round: its 2 runs were made in an earlier sitting; this one's rounds are repeats" in later

    executor = Runs(rates, started="2026-12-01T12:02:00")
    outcome = run_repeats(tmp_path, order, executor, AUTO)
    assert executor.ran() == [f"{config.label} r{repeat}" for repeat in (3, 4, 5) for config in in_round(order, repeat)]
    # the two sittings ran on this machine's one boot, parted by a pause alone: they agree, and do not replicate
    assert closing_lines(outcome)[1] == (
        "bs 32: PyTorch ahead of JAX 2.00× (2.00–2.00×) at n = 3 in this sitting; 2 sittings agree after a pause on "
        "one boot; replicate on another boot or machine"
    )


def test_a_fixed_count_started_another_sitting_makes_its_runs_after_the_earlier_repeats(tmp_path, matrix_start):
    order = order_of("torch", "jax")
    rates = {("torch", 32): 100, ("jax", 32): 50}
    run_repeats(tmp_path, order, Runs(rates), Repeats(3))  # repeats 0 to 2, at 10:00
    again = Runs(rates)
    run_repeats(tmp_path, order, again, Repeats(3))  # the same sitting: resumed, nothing made
    assert again.ran() == []
    matrix_start["at"] = datetime.datetime.fromisoformat("2026-12-01T12:01:00+00:00")  # two hours after
    later = Runs(rates, started="2026-12-01T12:02:00")
    run_repeats(tmp_path, order, later, Repeats(3))
    assert later.ran() == [f"{config.label} r{repeat}" for repeat in (3, 4, 5) for config in in_round(order, repeat)]


def test_a_third_framework_that_overlaps_the_leader_runs_again_too():
    order = order_of("torch", "tensorflow", "jax")
    spread = {"torch": (0.0, 0.05, -0.05), "tensorflow": (0.0, -0.05, 0.05), "jax": (0.0, -0.05, 0.05)}

    def three_rounds(rates: dict[str, float]) -> dict[str, list[dict]]:
        return {
            c.config_id: [
                ran(dataclasses.replace(c, repeat=r), rates[c.framework] * (1 + d))
                for r, d in enumerate(spread[c.framework])
            ]
            for c in order
        }

    (comparison,) = comparisons(order, three_rounds({"torch": 100, "tensorflow": 99, "jax": 50}), cap=5)
    assert [c.name for c in comparison.ranked] == ["PyTorch", "TensorFlow", "JAX"] and not comparison.decided
    assert {c.framework for c in comparison.to_run_again()} == {"torch", "tensorflow"}  # JAX is decided: not again
    (comparison,) = comparisons(order, three_rounds({"torch": 100, "tensorflow": 99, "jax": 98}), cap=5)
    assert {c.framework for c in comparison.to_run_again()} == {"torch", "tensorflow", "jax"}


def test_auto_stops_after_the_round_in_which_the_pair_decides(tmp_path):
    executor = Runs({("torch", 32): 100, ("jax", 32): 50})
    outcome = run_repeats(tmp_path, order_of("torch", "jax"), executor, AUTO)
    assert len(executor.jobs) == 6 and outcome.stop.reason == "all decided"
    assert closing_lines(outcome)[-1] == (f"bs 32: PyTorch ahead of JAX 2.00× (2.00–2.00×) at n = 3 {ONE_SITTING}")
    assert [r.config.repeat for r in outcome.results] == [0, 0, 1, 1, 2, 2]


def test_a_pair_about_equal_in_its_sitting_is_decided_too(tmp_path):
    executor = Runs({("torch", 32): 100, ("jax", 32): 101})  # every round's ratio 1.01: inside the 5 % band
    outcome = run_repeats(tmp_path, order_of("torch", "jax"), executor, AUTO)
    assert len(executor.jobs) == 6 and outcome.stop.reason == "all decided"
    assert closing_lines(outcome)[-1] == (
        f"bs 32: JAX and PyTorch about equal (within 5 %), 1.01× (1.01–1.01×) at n = 3 {ONE_SITTING}"
    )


def test_an_undecided_pair_runs_another_round_both_of_it_until_the_cap(tmp_path):
    executor = Runs({("torch", 32): 100, ("jax", 32): 100}, spread=NOISY)  # ratios 1, 1.11, 0.90, 1.04, 0.96
    outcome = run_repeats(tmp_path, order_of("torch", "jax"), executor, AUTO)
    # each round the other goes first (a Latin square over two frameworks)
    assert [(r.config.framework, r.config.repeat) for r in outcome.results] == [
        (framework, repeat) for repeat in range(AUTO.runs) for framework in ("torch", "jax")[:: 1 - 2 * (repeat % 2)]
    ]
    assert outcome.stop.reason == "cap reached"
    assert closing_lines(outcome)[-1] == "bs 32: undecided at n = 5, PyTorch ÷ JAX 1.00× (0.91–1.10×) (cap)"


def test_busy_runs_are_not_judged_but_run_again_and_a_framework_alone_is_never_repeated(tmp_path):
    order = order_of("torch", "jax")
    record = ran(order[0], 100.0, load=machine_load.load_section(BUSY, BUSY, 0.0))
    path = record_path(tmp_path, MACHINE, order[0])
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(record))
    executor = Runs({("torch", 32): 100, ("jax", 32): 50})
    outcome = run_repeats(tmp_path, order, executor, AUTO)
    assert outcome.results[0].note == "done before (resumed)"  # an ok record, busy or not, is done
    # the busy run pairs with nothing: round 0 is not among the three paired rounds, so both run a fourth time
    assert closing_lines(outcome)[-1] == (f"bs 32: PyTorch ahead of JAX 2.00× (2.00–2.00×) at n = 3 {ONE_SITTING}")
    assert [r.config.repeat for r in outcome.results] == [0, 0, 1, 1, 2, 2, 3, 3]

    alone = Runs({("torch", 32): 100})
    outcome = run_repeats(tmp_path / "alone", order_of("torch"), alone, AUTO)
    assert len(alone.jobs) == 1 and outcome.stop.reason == "nothing to compare"
    assert closing_lines(outcome)[-1] == "bs 32: only PyTorch ran ok, nothing to compare"


def test_busy_runs_do_not_use_up_the_cap_and_twice_the_cap_in_all_stops_a_machine_always_busy(tmp_path, capsys):
    order = order_of("torch", "jax")
    rates = {("torch", 32): 100, ("jax", 32): 50}
    # PyTorch's first three runs find the machine busy: rounds 0 to 2 do not pair
    executor = Runs(rates, busy=lambda config: config.framework == "torch" and config.repeat < 3)
    outcome = run_repeats(tmp_path, order, executor, AUTO)
    # each busy run's line says so as it ends, and the summary's note too
    err = capsys.readouterr().err
    assert "torch/compiled bs32 seed0: ok in 60 s; the machine was busy (other processes took 90 % of the CPUs" in err
    assert "shown, not judged" in summary_table(outcome.results).splitlines()[2]
    assert executor.ran()[-2:] == ["jax/compiled bs32 seed0 r5", "torch/compiled bs32 seed0 r5"]  # the third pair
    assert outcome.stop.reason == "all decided"
    assert closing_lines(outcome)[-1] == (f"bs 32: PyTorch ahead of JAX 2.00× (2.00–2.00×) at n = 3 {ONE_SITTING}")

    always = Runs(rates, busy=lambda config: config.framework == "torch")
    outcome = run_repeats(tmp_path / "always", order, always, AUTO)
    # JAX runs beside it, pairing nothing, until one has the runs in all it may have: JAX, first in the last round
    assert strip_repeat(always.ran()).count("jax/compiled bs32 seed0") == AUTO.limit == 10
    assert strip_repeat(always.ran()).count("torch/compiled bs32 seed0") == AUTO.limit - 1
    assert "torch/compiled bs32 seed0 r9: not run, its comparison is at the cap or limit" in capsys.readouterr().err
    assert closing_lines(outcome) == [
        "stopped: cap reached: 5 paired rounds in the sitting, or 10 runs in it",
        "bs 32: undecided at n = 0; no run of PyTorch counts in this sitting yet, 9 on a busy machine (cap)",
    ]


def test_a_matrix_resumed_on_another_day_decides_in_its_own_sitting(tmp_path):
    order = order_of("torch", "jax")
    rates = {"torch": 100, "jax": 50}
    stored_days_ago(tmp_path, order, rates, runs=2)  # two rounds the day before: too few to decide
    executor, outcome = resumed_today(tmp_path, order, rates)
    # today's sitting starts from n = 0: rounds 2 to 4 decide it, the day before's rounds are not among them
    assert executor.ran() == [f"{config.label} r{repeat}" for repeat in (2, 3, 4) for config in in_round(order, repeat)]
    assert closing_lines(outcome)[-1] == (f"bs 32: PyTorch ahead of JAX 2.00× (2.00–2.00×) at n = 3 {ONE_SITTING}")


def test_the_line_says_whether_earlier_sittings_decided_the_same():
    order = order_of("torch", "jax")

    def rounds(day: str, repeats: range, rates: dict[str, float], boot: str | None = None) -> dict[str, list[dict]]:
        made = {
            c.config_id: [ran(dataclasses.replace(c, repeat=r), rates[c.framework], started=day) for r in repeats]
            for c in order
        }
        for record in (r for records in made.values() for r in records):
            record["hardware"]["boot_id"] = boot
        return made

    def line(*days: dict[str, list[dict]]) -> str:
        runs = {c.config_id: [r for day in days for r in day[c.config_id]] for c in order}
        (comparison,) = comparisons(order, runs, cap=5)
        return comparison.line("cap")

    before = rounds("2026-11-28T10:00:00", range(3), {"torch": 100, "jax": 50}, boot="before")
    today = rounds("2026-12-01T10:00:00", range(3, 6), {"torch": 100, "jax": 50}, boot="today")
    assert line(before, today) == (
        "bs 32: PyTorch ahead of JAX 2.00× (2.00–2.00×) at n = 3 in this sitting; replicated in 2 sittings"
    )
    # another sitting between them that decided nothing is counted beside them
    spread = {c.config_id: (0.0, 0.2, -0.2) if c.framework == "torch" else (0.0, -0.2, 0.2) for c in order}
    between = rounds("2026-11-30T10:00:00", range(6, 9), {"torch": 100, "jax": 100}, boot="between")
    for config_id, records in between.items():
        for record, change in zip(records, spread[config_id], strict=True):
            record["timing"]["images_per_second"] *= 1 + change
    assert line(before, between, today).endswith("at n = 3 in this sitting; replicated in 2 of 3 sittings; 1 undecided")
    # the same two days on one boot (a machine that stayed up): a pause alone parted them
    same_boot = [
        rounds(day, repeats, {"torch": 100, "jax": 50}, boot="up")
        for day, repeats in (("2026-11-28T10:00:00", range(3)), ("2026-12-01T10:00:00", range(3, 6)))
    ]
    assert line(*same_boot).endswith(
        "at n = 3 in this sitting; 2 sittings agree after a pause on one boot; replicate on another boot or machine"
    )
    reversed_today = rounds("2026-12-01T10:00:00", range(3, 6), {"torch": 50, "jax": 100})
    assert line(before, reversed_today) == (
        "bs 32: JAX ahead of PyTorch 2.00× (2.00–2.00×) at n = 3 in this sitting; earlier sittings decided otherwise"
    )
    # ten minutes later: one sitting, unless the machine booted again in between
    soon = rounds("2026-11-28T10:10:00", range(3, 6), {"torch": 100, "jax": 50})
    assert line(before, soon).endswith("at n = 6 in this sitting; replicate on another boot or machine")
    first_boot = rounds("2026-11-28T10:00:00", range(3), {"torch": 100, "jax": 50}, boot="first")
    second_boot = rounds("2026-11-28T10:10:00", range(3, 6), {"torch": 100, "jax": 50}, boot="second")
    assert line(first_boot, second_boot).endswith("at n = 3 in this sitting; replicated in 2 sittings")


def test_a_framework_measured_on_another_day_has_no_figure_in_this_sitting_and_runs_again_beside_the_leader(tmp_path):
    order = order_of("torch", "tensorflow", "jax")
    rates = {"torch": 100, "tensorflow": 50, "jax": 120}
    stored_days_ago(tmp_path, order[2:], rates, runs=3)  # JAX, faster, but measured days before the others
    executor, outcome = resumed_today(tmp_path, order, rates)
    (comparison,) = outcome.comparisons[0][1]
    assert comparison.ranked[0].name == "JAX" and comparison.decided
    assert closing_lines(outcome)[-1].startswith("bs 32: JAX ahead of PyTorch 1.20× (1.20–1.20×) at n = 3")


def stored_days_ago(out: Path, configs, rates: dict[str, float], runs: int, spread=TIGHT) -> None:
    """Write ``runs`` records of each of ``configs`` under ``out`` as a matrix wrote them days before today's runs,
    at its framework's rate spread by repeat."""
    for config in configs:
        for repeat in range(runs):
            done = dataclasses.replace(config, repeat=repeat)
            path = record_path(out, MACHINE, done)
            path.parent.mkdir(parents=True, exist_ok=True)
            rate = rates[config.framework] * (1 + spread[repeat])
            write_record(path, ran(done, rate, started="2026-11-28T10:00:00"))


def resumed_today(out: Path, order, rates: dict[str, float]) -> tuple[Runs, Outcome]:
    """The fake executor and the outcome of an auto matrix of ``order`` at batch 32 over the records under ``out``,
    each framework at its rate."""
    executor = Runs({(framework, 32): rate for framework, rate in rates.items()})
    return executor, run_repeats(out, order, executor, AUTO)


def test_a_fixed_count_runs_every_configuration_that_often(tmp_path):
    executor = Runs({("torch", 32): 100, ("jax", 32): 50})
    outcome = run_repeats(tmp_path, order_of("torch", "jax"), executor, Repeats(4))
    assert len(executor.jobs) == 8 and outcome.stop.reason == "repeats done"
    assert closing_lines(outcome) == [
        "stopped: repeats done: 4 runs of each configuration",
        f"bs 32: PyTorch ahead of JAX 2.00× (2.00–2.00×) at n = 4 {ONE_SITTING}",
    ]
    once = run_repeats(tmp_path / "once", order_of("torch", "jax"), Runs({("torch", 32): 1, ("jax", 32): 2}), Repeats())
    assert closing_lines(once)[-1] == "bs 32: undecided at n = 1 (repeats 1)"


def test_a_budget_stop_keeps_every_record_and_a_rerun_goes_on(tmp_path, clock, capsys):
    order = order_of("torch", "jax")
    rates = {("torch", 32): 100, ("jax", 32): 50}
    stopped = run_repeats(tmp_path, order, Runs(rates, clock=clock), AUTO, minutes=3.5)
    assert stopped.stop.reason == "budget spent" and len(stopped.results) == 3  # 30 s guesses, then 60 s records
    assert closing_lines(stopped) == [
        "stopped: budget spent: the next run would end past the 3.5-minute budget; run the same command again to go on",
        "bs 32: undecided at n = 1 (budget)",
    ]
    kept = sorted(p.name for p in (tmp_path / MACHINE).iterdir())
    assert len(kept) == 3 and sum(name.endswith("-r1.json") for name in kept) == 1

    again = Runs(rates, clock=clock)
    resumed = run_repeats(tmp_path, order, again, AUTO)
    assert [r.note for r in resumed.results][:3] == ["done before (resumed)"] * 3
    assert [job.config.label for job in again.jobs] == [
        "torch/compiled bs32 seed0 r1",  # round 1 ran JAX first, and the budget stopped it before PyTorch
        "torch/compiled bs32 seed0 r2",
        "jax/compiled bs32 seed0 r2",
    ]
    assert resumed.stop.reason == "all decided" and len(list((tmp_path / MACHINE).iterdir())) == 6


def test_a_configuration_not_run_here_yet_is_expected_from_its_nearest_batch_size_with_its_steps_rescaled():
    order = order_of("torch", "jax", batch_sizes=(16, 32, 256))
    torch16, torch32, torch256 = (c for c in order if c.framework == "torch")
    record = ran(torch32, rate=2.0, seconds=60.0)  # 64 images: 32 s timed, a 16 s step
    runs = {torch32.config_id: [record], torch16.config_id: [ran(torch16, rate=1.0, seconds=600.0)]}
    others = budget.other_sizes(torch256, order, runs)
    assert [config.batch_size for config, _ in others] == [16, 32]  # the same framework's other sizes alone
    seconds, source = budget.expected_seconds(torch256, False, [], others)
    timed, step = record["timing"]["epoch_seconds_each"][0], record["timing"]["step_seconds_median"]
    assert torch256.epoch_train_images == 4 * torch32.epoch_train_images
    assert seconds == pytest.approx(60.0 + timed * 3 + step * 7) and source == "this machine's records at batch 32"
    assert budget.expected_seconds(torch256, False, [record]) == (60.0, "this machine's records")  # its own first
    jax256 = next(c for c in order if c.framework == "jax" and c.batch_size == 256)
    assert budget.expected_seconds(jax256, False, [], budget.other_sizes(jax256, order, runs)) == (
        30.0,
        "the profile's guess",
    )


#: the wall clock's zero in the deadline tests: 2026-12-02 14:00:00 UTC
TWO_PM = datetime.datetime(2026, 12, 2, 14, tzinfo=datetime.timezone.utc).timestamp()


@pytest.fixture
def wall_clock(clock, monkeypatch):
    """The deadline's clock (``time.time``), on the budget's: 14:00 UTC when the matrix starts."""
    monkeypatch.setattr(budget.time, "time", lambda: TWO_PM + clock.now)
    return clock


def test_a_deadline_stops_the_matrix_as_a_budget_does_and_the_nearer_limit_is_named(tmp_path, wall_clock):
    order, rates = order_of("torch", "jax"), {("torch", 32): 100, ("jax", 32): 50}
    target = Target((MACHINE,), {})

    def stopped(out: Path, limits: Budget) -> Outcome:
        executor = Runs(rates, clock=wall_clock)
        return matrix.run_matrix([(target, order)], out, executor, progress=False, repeats=AUTO, budget=limits)

    by_deadline = stopped(tmp_path / "deadline", Budget(deadline=TWO_PM + 210))  # 3.5 minutes from the start
    assert by_deadline.stop.reason == "budget spent" and len(by_deadline.results) == 3  # as the 3.5-minute budget
    assert closing_lines(by_deadline)[0] == (
        "stopped: budget spent: the next run would end past the deadline 14:03:30 UTC; run the same command "
        "again to go on"
    )
    # both given: the nearer one stops the matrix and is the one named
    start = TWO_PM + wall_clock.now
    nearer_minutes = stopped(tmp_path / "minutes", Budget(minutes=3.5, deadline=start + 600))
    assert "past the 3.5-minute budget;" in closing_lines(nearer_minutes)[0] and len(nearer_minutes.results) == 3
    start = TWO_PM + wall_clock.now
    nearer_deadline = stopped(tmp_path / "both", Budget(minutes=10, deadline=start + 90))
    # three rounds of two runs guessed at 30 s each do not fit in 90 s: bs 32 is not started, the deadline named
    assert "past the deadline" in closing_lines(nearer_deadline)[0] and nearer_deadline.results == []
    assert closing_lines(nearer_deadline)[1] == "bs 32: not started: 3 rounds need ≈ 3 min, 1.5 min left"
    passed = stopped(tmp_path / "passed", Budget(deadline=TWO_PM + wall_clock.now - 1))
    assert passed.results == [] and not (tmp_path / "passed").exists()


def test_the_dry_run_counts_a_deadline_from_now(wall_clock):
    steps = [("the first runs", [60.0, 60.0, 60.0]), ("their repeats", [30.0, 30.0])]
    wall_clock.now = 0.0
    assert plan_preview.budget_line(Budget(deadline=TWO_PM + 150), steps) == (
        "budget: until 14:02:30 UTC (2.5 min from now); it has room for 2 of the first runs (3) (run again to go on)"
    )
    assert plan_preview.budget_line(Budget(minutes=6, deadline=TWO_PM + 600), steps, "more after") == (
        "budget: 6 min, until 14:10:00 UTC (10.0 min from now); it has room for the first runs (3), their "
        "repeats (2); more after"
    )


def test_a_budget_does_not_start_a_large_batch_its_smaller_ones_say_has_no_room(tmp_path, clock, capsys):
    order = order_of("torch", batch_sizes=(32, 256))
    executor = Runs({("torch", 32): 2.0, ("torch", 256): 2.0}, clock=clock)
    outcome = run_repeats(tmp_path, order, executor, Repeats(1), minutes=3)  # the guess, 30 s, would have started it
    assert executor.ran() == ["torch/compiled bs32 seed0"] and outcome.stop.reason == "budget spent"
    # the dry run's estimate says the same, from this machine's record at batch 32 (of the installed torch)
    (first,) = profiles.expand("smoke", frameworks=["torch"])
    path = record_path(tmp_path / "here", provenance.hardware_for(first.device)["machine_id"], first)
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(ran(first, 2.0)))
    argv = ["matrix", "--profile", "smoke", "--frameworks", "torch", "--batch-sizes", "32,256", "--dry-run"]
    assert cli.main([*argv, "--out", str(tmp_path / "here")]) == 0
    (row,) = [line for line in capsys.readouterr().out.splitlines() if line.startswith("torch/compiled bs256")]
    assert row.rstrip().endswith("this machine's records at batch 32")


def test_the_estimate_benchmark_sets_each_first_run_beside_what_the_budget_expected_of_it(tmp_path, capsys):
    order = order_of("torch", batch_sizes=(32, 64, 256))
    for config in order:  # 16 images/s: batch 32's epoch takes 4 s, its step 2 s; every run 60 s
        write_record(record_path(tmp_path, MACHINE, config), ran(config, 16.0))
    repeat = dataclasses.replace(order[1], repeat=1)
    write_record(record_path(tmp_path, MACHINE, repeat), ran(repeat, 16.0, seconds=600.0))  # a repeat: not counted
    assert budget_estimate.main([str(tmp_path), "--profile", "smoke"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].endswith("bs64: expected 62 s (this machine's records at batch 32), ran 60 s  →  1.03 ×")
    # batch 256 from batch 32: 60 s + the epoch 4 s × (4 times the images - 1) + the step 2 s × (8 times - 1)
    assert lines[1].endswith("bs256: expected 86 s (this machine's records at batch 32), ran 60 s  →  1.43 ×")
    assert lines[2] == f"{MACHINE}: 1.03–1.43 × over 2 first runs"
    single = tmp_path / "single"  # one batch size: nothing to expect it from
    write_record(record_path(single, MACHINE, order[0]), ran(order[0], 16.0))
    assert budget_estimate.main([str(single), "--profile", "smoke"]) == 1


def test_a_first_run_empties_the_compile_cache_that_its_repeats_reuse(tmp_path, monkeypatch):
    args_file = tmp_path / "args"
    python = tmp_path / "fake-python"
    python.write_text(f'#!/usr/bin/env bash\necho "$@" > {args_file}\ntouch "${{@: -1}}/entry"\nexit 1\n')
    python.chmod(0o755)
    monkeypatch.setenv(COMPILE_CACHE_ENV, str(tmp_path / "caches"))
    (config,) = order_of("jax")
    machine_id = provenance.hardware_for(config.device)["machine_id"]
    cache = tmp_path / "caches" / machine_id / config.config_id
    cache.mkdir(parents=True)
    (cache / "stale").write_text("left by an earlier matrix")
    executor = LocalExecutor(pythons={"jax": str(python)})
    executor.run(config, (1, 1))
    assert args_file.read_text().split()[-2:] == ["--compile-cache", str(cache)]
    assert sorted(p.name for p in cache.iterdir()) == ["entry", FILLED_BY]  # emptied, then filled by the run
    executor.run(dataclasses.replace(config, repeat=1), (2, 2))
    assert args_file.read_text().split()[-2:] == ["--compile-cache", str(cache)]
    assert sorted(p.name for p in cache.iterdir()) == ["entry", FILLED_BY]  # a repeat keeps what the first run left
    (cache / "left").write_text("by the repeat before")
    LocalExecutor(pythons={"jax": str(python)}).run(dataclasses.replace(config, repeat=2), (3, 3))
    assert sorted(p.name for p in cache.iterdir()) == ["entry", FILLED_BY, "left"], "a later matrix's repeat keeps it"


def test_each_configuration_has_a_compile_cache_of_its_own(tmp_path, monkeypatch):
    """bf16 and fp32 (or tuned and plain) runs of one framework, mode and batch size never share a cache: the first
    run of one would empty the other's, and a repeat of one would find the other's code."""
    monkeypatch.setenv(COMPILE_CACHE_ENV, str(tmp_path))
    (config,) = order_of("torch")
    others = [dataclasses.replace(config, precision="bf16"), dataclasses.replace(config, tuning=(("XLA_FLAGS", "x"),))]
    caches = {compile_cache_dir(c, "machine") for c in (config, *others)}
    assert len(caches) == 3 and compile_cache_dir(dataclasses.replace(config, repeat=1), "machine") in caches


def test_repeats_have_files_of_their_own_and_pool_as_runs_of_one_configuration(tmp_path):
    (config,) = order_of("torch")
    again = dataclasses.replace(config, repeat=2)
    assert config.record_id == config.config_id == again.config_id  # the first run keeps today's name
    assert again.record_id == f"{config.config_id}-r2" and again.label == "torch/compiled bs32 seed0 r2"
    assert profiles.RunConfig.from_json(again.to_json()) == again
    executor = Runs({("torch", 32): 100, ("jax", 32): 50})
    run_repeats(tmp_path, order_of("torch", "jax"), executor, Repeats(3))
    paths = sorted((tmp_path / MACHINE).glob("torch-*.json"), key=lambda p: (len(p.name), p.name))
    assert [p.name for p in paths] == [f"{config.config_id}{suffix}.json" for suffix in ("", "-r1", "-r2")]
    records = [read_record(p) for p in paths]
    assert [r["config"]["repeat"] for r in records] == [0, 1, 2] and {r["config"]["seed"] for r in records} == {0}
    (summary,) = summarise([Loaded(p, r) for p, r in zip(paths, records, strict=True)])
    assert summary.n_ok == 3


def test_dry_run_prints_the_plan_and_an_estimate_and_writes_nothing(tmp_path, capsys):
    out = tmp_path / "runs"
    assert cli.main(["matrix", "--profile", "smoke", "--frameworks", "torch", "--dry-run", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert not out.exists()
    assert "repeats: 1 run of each configuration" in printed and "environments to build first: none" in printed
    assert "estimate: first round ≈ 0.5 min (1 of 1 runs to make, 1 of them at the profile's guess" in printed
    (config,) = profiles.expand("smoke", frameworks=["torch"])
    path = record_path(out, provenance.hardware_for(config.device)["machine_id"], config)
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(ran(config, 100.0, seconds=90.0)))
    argv = ["matrix", "--profile", "smoke", "--frameworks", "torch", "--repeats", "3", "--dry-run", "--budget", "1"]
    assert cli.main([*argv, "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert (
        "1 of 3" in printed and "this machine's records" in printed and "then ≈ 3.0 min more for 2 repeats" in printed
    )
    assert sorted(p.name for p in out.rglob("*")) == sorted([path.parent.name, path.name])
    # the budget's room in the order the runs are made: the end batch sizes' first runs and repeats come first
    fresh = ["matrix", "--profile", "quick", "--dry-run", "--budget", "12.5", "--out", str(tmp_path / "fresh")]
    assert cli.main(fresh) == 0
    assert (
        "budget: 12.5 min; it has room for the first runs at the end batch sizes (6), 7 of their repeats to n = 3 "
        "(13) (run again to go on)"  # the profile's guess, 55 s a run: 13 runs in 750 s; bf16 at 32 is not an end;
    ) in capsys.readouterr().out  # 13: bs 32's 3 + 2; bs 256's 6 + 2, its start-up and memory count warm runs alone


def test_the_dry_run_counts_no_repeat_of_a_comparison_the_records_here_decided(tmp_path, capsys):
    def three_runs_each(out: Path, rates: dict[str, float], spread: float) -> None:
        for config in profiles.expand("smoke", frameworks=list(rates)):
            for repeat in range(3):
                again = dataclasses.replace(config, repeat=repeat)
                rate = rates[config.framework] * (
                    1 + spread * TIGHT[repeat] * (1 if config.framework == "torch" else -1)
                )
                write_record(
                    record_path(out, provenance.hardware_for(config.device)["machine_id"], again), ran(again, rate)
                )

    argv = ["matrix", "--profile", "smoke", "--frameworks", "torch,jax", "--repeats", "auto", "--dry-run"]
    three_runs_each(tmp_path / "apart", {"torch": 100.0, "jax": 50.0}, spread=1.0)
    assert cli.main([*argv, "--budget", "5", "--out", str(tmp_path / "apart")]) == 0
    printed = capsys.readouterr().out
    assert "1 of 1 comparisons are decided by this machine's records already" in printed
    assert "then ≈" not in printed and "budget: 5 min; nothing is left to make\n" in printed
    three_runs_each(tmp_path / "overlapping", {"torch": 100.0, "jax": 100.0}, spread=20.0)  # 80–120 images/s each
    assert cli.main([*argv, "--budget", "5", "--out", str(tmp_path / "overlapping")]) == 0
    printed = capsys.readouterr().out
    assert "comparisons are decided" not in printed and "more for 0 to 4 repeats" in printed


def test_the_fewest_repeats_take_every_competitor_to_n_2_and_the_two_cheapest_to_n_3():
    # n = 2 decides nothing, so no repeat is skipped before it; the third's last one is when the others are apart
    assert plan_preview.fewest_repeats([{1: 10.0, 2: 10.0}, {1: 50.0, 2: 50.0}, {1: 30.0, 2: 30.0}]) == [
        10.0,
        50.0,
        30.0,
        10.0,
        30.0,
    ]
    assert plan_preview.fewest_repeats([{1: 10.0, 2: 10.0}, {}, {2: 30.0}]) == [10.0, 10.0]  # one at n = 3 already
    assert plan_preview.fewest_repeats([{1: 10.0, 2: 10.0}]) == []  # nothing to compare
    # a warm figure does not count the cold first run: every competitor to repeat 2, the two cheapest to repeat 3
    warm = [{1: 10.0, 2: 10.0, 3: 10.0}, {1: 50.0, 2: 50.0, 3: 50.0}, {1: 30.0, 2: 30.0, 3: 30.0}]
    assert plan_preview.fewest_repeats(warm, cold_counts=False) == [10.0, 10.0, 50.0, 50.0, 30.0, 30.0, 10.0, 30.0]


@pytest.mark.parametrize(
    "flag, value",
    [
        ("--repeats", "0"),
        ("--repeats", "often"),
        ("--budget", "0"),
        ("--budget", "soon"),
        ("--deadline", "15:00"),  # no date, no zone
        ("--deadline", "2026-12-02T15:00:00"),  # no zone: whose 15:00?
    ],
)
def test_bad_repeats_and_budget_are_usage_errors(tmp_path, capsys, flag, value):
    out = tmp_path / "out"
    with pytest.raises(SystemExit) as exit_info:
        raise SystemExit(cli.main(["matrix", "--profile", "smoke", flag, value, "--out", str(out)]))
    assert exit_info.value.code == 2 and not out.exists()
    (line,) = capsys.readouterr().err.strip().splitlines()[-1:]
    assert flag in line and repr(value) in line


def test_quick_repeats_automatically_and_the_others_once():
    assert matrix_repeats("quick") == Repeats(5, auto=True, decides=EVERY_FIGURE)
    assert matrix_repeats("article") == matrix_repeats("versions") == Repeats(1, decides=EVERY_FIGURE)
    # throughput alone: the GPT's page gives no start-up or memory verdict, and smoke only checks that runs run
    assert matrix_repeats("quick-gpt") == Repeats(5, auto=True)
    assert matrix_repeats("smoke") == Repeats(1) and matrix_repeats("smoke", "auto") == Repeats(5, auto=True)


def matrix_repeats(name: str, given: str | None = None) -> Repeats:
    from runners.matrix.repeats import repeats_of

    return repeats_of(profile_loading.profile(name), given)


def test_dry_run_names_the_environments_it_would_build_and_builds_none(tmp_path, monkeypatch, capsys):
    from runners.envs import versions as envs

    monkeypatch.setenv(envs.ENVS_DIR_ENV, str(tmp_path / "envs"))
    argv = ["matrix", "--profile", "smoke", "--versions", "jax=article,installed", "--dry-run"]
    assert cli.main([*argv, "--out", str(tmp_path / "runs")]) == 0
    article = envs.article_version("jax")
    assert f"environments to build first: jax {article} in {envs.env_path('jax', article)}\n" in capsys.readouterr().out
    assert list(tmp_path.iterdir()) == []


def test_repeats_run_the_end_batch_sizes_first_so_a_budget_decides_them_first(tmp_path, clock):
    order = order_of("torch", "jax", batch_sizes=(16, 32, 64))
    rates = {(fw, bs): 100 for fw in ("torch", "jax") for bs in (16, 32, 64)}  # never apart: every round repeats
    executor = Runs(rates, spread=(0.0, 0.05, -0.05, 0.02, -0.02))
    run_repeats(tmp_path / "all", order, executor, Repeats(3, auto=True))
    assert [config.batch_size for config in order] == [16, 16, 32, 32, 64, 64]
    # the ends' first runs and every round of them (repeats 1 and 2), then the middle's first runs and rounds
    ran = [(job.config.batch_size, job.config.repeat) for job in executor.jobs]
    assert ran == [
        (16, 0),
        (16, 0),
        (16, 1),
        (16, 1),
        (16, 2),
        (16, 2),
        (64, 0),
        (64, 0),
        (64, 1),
        (64, 1),
        (64, 2),
        (64, 2),
        (32, 0),
        (32, 0),
        (32, 1),
        (32, 1),
        (32, 2),
        (32, 2),
    ]

    rates = {("torch", bs): 100 for bs in (16, 32, 64)} | {("jax", bs): 50 for bs in (16, 32, 64)}  # apart at n = 3
    executor = Runs(rates, clock=clock)
    outcome = run_repeats(tmp_path / "budget", order, executor, AUTO, minutes=16.5)  # 16 runs of 60 s
    assert outcome.stop.reason == "budget spent" and len(executor.jobs) == 16
    assert closing_lines(outcome)[1:] == [
        f"bs 16: PyTorch ahead of JAX 2.00× (2.00–2.00×) at n = 3 {ONE_SITTING}",
        "bs 32: undecided at n = 2 (budget)",
        f"bs 64: PyTorch ahead of JAX 2.00× (2.00–2.00×) at n = 3 {ONE_SITTING}",
    ]
    # shorter: the ends are decided before the middle's first runs, which the budget leaves for a later matrix
    outcome = run_repeats(
        tmp_path / "short", order, Runs(rates, clock=clock), AUTO, minutes=12.1
    )  # 12 runs; a 13th, expected from batch 16's 60 s runs, has no room
    assert closing_lines(outcome)[1:] == [
        f"bs 16: PyTorch ahead of JAX 2.00× (2.00–2.00×) at n = 3 {ONE_SITTING}",
        "bs 32: not run yet (budget)",
        f"bs 64: PyTorch ahead of JAX 2.00× (2.00–2.00×) at n = 3 {ONE_SITTING}",
    ]


def test_the_end_cheaper_here_is_decided_first_and_one_that_cannot_reach_n_3_is_not_started(
    tmp_path, clock, matrix_start, capsys
):
    order = order_of("torch", "jax", batch_sizes=(32, 256))
    rates = {(fw, bs): 100 if fw == "torch" else 50 for fw in ("torch", "jax") for bs in (32, 256)}
    seconds = {32: 300.0, 256: 60.0}  # as on a GPU, where batch 32's many small steps take longest
    run_repeats(tmp_path, order, Runs(rates, seconds=seconds), Repeats(1))  # an earlier sitting: each run once
    matrix_start["at"] = datetime.datetime.fromisoformat("2026-12-01T12:01:00+00:00")  # two hours after
    executor = Runs(rates, seconds=seconds, clock=clock, started="2026-12-01T12:02:00")
    outcome = run_repeats(tmp_path, order, executor, AUTO, minutes=10)  # room for 6 runs of 60 s, not 6 of 300 s
    bs256 = [config for config in order if config.batch_size == 256]
    # bs 256 first: three warm rounds of 60-s runs decide it, back to back and rotated
    assert executor.ran() == [f"{c.label} r{repeat}" for repeat in (1, 2, 3) for c in in_round(bs256, repeat)]
    not_started = "bs 32: not started: 3 rounds need ≈ 30 min, 4 min left"
    assert not_started in capsys.readouterr().err.splitlines()
    assert closing_lines(outcome) == [
        "stopped: budget spent: the next run would end past the 10-minute budget; run the same command again to go on",
        not_started,
        "bs 256: PyTorch ahead of JAX 2.00× (2.00–2.00×) at n = 3 in this sitting; replicate on another boot or "
        "machine",
    ]


def test_the_dry_run_and_the_matrix_say_how_long_until_the_ends_are_decided_here(tmp_path, clock, capsys):
    order = order_of("torch", "jax", batch_sizes=(32, 256))
    rates = {(fw, bs): 100 if fw == "torch" else 50 for fw in ("torch", "jax") for bs in (32, 256)}
    run_repeats(tmp_path, order, Runs(rates, seconds={32: 60.0, 256: 300.0}), Repeats(1))  # round 0: n = 1 each
    target = Target((MACHINE,), {})

    def ends(budget: Budget) -> str:
        (line,) = [line for line in plan_preview.preview(target, order, tmp_path, AUTO, budget, []) if "ends" in line]
        return line

    # before any run here, the seconds are the profile's guess, and the line says so
    (guessed,) = [
        line for line in plan_preview.preview(target, order, tmp_path / "none", AUTO, Budget(), []) if "ends" in line
    ]
    assert guessed.count("rounds ≈") == 2 and guessed.count("(the profile's guess)") == 2
    # two more rounds each, warm runs expected as long as the first ones here (none warm yet)
    assert ends(Budget()) == "both ends decided in ≈ 24 min: bs 32 2 rounds ≈ 4 min, bs 256 2 rounds ≈ 20 min"
    short = "ends: bs 32 2 rounds ≈ 4 min; left undecided: bs 256 needs 2 rounds ≈ 20 min; 6 min left after bs 32"
    assert ends(Budget(10)) == short
    capsys.readouterr()
    run_repeats(tmp_path, order, Runs(rates, seconds={32: 60.0, 256: 300.0}, clock=clock), AUTO, minutes=10)
    err = capsys.readouterr().err.splitlines()
    assert err[0] == short  # the matrix says so before its first run
    assert "bs 256: not started: 2 rounds need ≈ 20 min, 6 min left" in err


def test_an_extra_precision_is_not_an_end_and_runs_after_the_ends_are_decided(tmp_path):
    configs = profiles.expand("quick", version_of=VERSIONS.get, frameworks=["torch", "jax"], device="cpu")
    order = interleaved_order(configs)
    at_end = at_ends(order)
    assert {(c.batch_size, c.precision) for c in order if at_end(c)} == {(32, "fp32"), (256, "fp32")}
    wider = [*order, dataclasses.replace(order[0], precision="bf16", batch_size=512)]  # an extra beyond the main's
    assert {(c.batch_size, c.precision) for c in wider if at_ends(wider)(c)} == {(32, "fp32"), (256, "fp32")}
    rates = {(fw, bs): 100 if fw == "torch" else 50 for fw in ("torch", "jax") for bs in (32, 64, 128, 256)}
    executor = Runs(rates)
    run_repeats(tmp_path, order, executor, AUTO)
    made = [(job.config.batch_size, job.config.precision, job.config.repeat) for job in executor.jobs]
    ends = [(bs, p, r) for bs, p, r in made if (bs, p) in {(32, "fp32"), (256, "fp32")}]
    assert made[: len(ends)] == ends and len(ends) == 12  # both ends to n = 3 before anything else
    assert made[len(ends)] == (32, "bf16", 0)


def test_every_record_says_what_its_matrix_planned(tmp_path):
    order = order_of("torch", "jax", batch_sizes=(32, 64))
    run_repeats(tmp_path, order, Runs({(fw, bs): 100 for fw in ("torch", "jax") for bs in (32, 64)}), Repeats(2))
    paths = sorted((tmp_path / MACHINE).glob("*.json"))
    assert len(paths) == 8
    plans = [read_record(path)["matrix"]["planned"] for path in paths]  # read_record validates against the schema
    assert all(plan == plans[0] for plan in plans)
    assert [(p["config_id"], p["framework"], p["batch_size"], p["precision"]) for p in plans[0]] == [
        (c.config_id, c.framework, c.batch_size, "fp32") for c in order
    ]


def test_start_up_and_memory_run_the_largest_batch_again_until_its_warm_runs_decide_them(tmp_path, capsys):
    order = order_of("torch", "jax", batch_sizes=(32, 64))
    rates = {(fw, bs): rate for fw, rate in (("torch", 100), ("jax", 50)) for bs in (32, 64)}
    compiles, memory = {"torch": 2.0, "jax": 1.0}, {"torch": 3 << 29, "jax": 1 << 30}
    executor = Runs(rates, compiles=compiles, memory=memory)
    outcome = run_repeats(tmp_path, order, executor, Repeats(5, auto=True, decides=EVERY_FIGURE))
    # three runs decide throughput at both sizes, but the first run compiled cold and counts for neither start-up nor
    # memory: the largest batch runs a fourth time, so that each framework has three warm runs
    assert sorted(r.config.label for r in outcome.results[12:]) == [
        "jax/compiled bs64 seed0 r3",
        "torch/compiled bs64 seed0 r3",
    ]
    assert outcome.stop.reason == "all decided"
    assert closing_lines(outcome)[1:] == [
        f"bs 32: PyTorch ahead of JAX 2.00× (2.00–2.00×) at n = 3 {ONE_SITTING}",
        f"bs 64: PyTorch ahead of JAX 2.00× (2.00–2.00×) at n = 4 {ONE_SITTING}",
        # lower is better: JAX's compile time is half PyTorch's, its memory peak two thirds
        f"bs 64 warm compile_seconds: JAX ahead of PyTorch 2.00× (2.00–2.00×) at n = 3 {ONE_SITTING}",
        f"bs 64 warm host_peak_rss_bytes: JAX ahead of PyTorch 1.50× (1.50–1.50×) at n = 3 {ONE_SITTING}",
    ]
    # the dry run of a matrix whose records decided throughput alone counts the largest batch's repeats still due
    repeats = Repeats(5, auto=True, decides=EVERY_FIGURE)
    for config in order:
        for r in range(3):
            again = dataclasses.replace(config, repeat=r)
            record = ran(again, rates[config.framework, config.batch_size], compile_seconds=compiles[config.framework])
            write_record(record_path(tmp_path / "dry", MACHINE, again), record)
    lines = plan_preview.preview(Target((MACHINE,), {}), order, tmp_path / "dry", repeats, Budget(None), [])
    printed = "\n".join(lines)
    assert (
        "2 of 4 comparisons are decided by this machine's records already: the 2 configurations whose every " in printed
    )
    assert "more for 2 to 4 repeats" in printed  # bs 64's, r3 and r4 of each


def test_a_warm_figure_counts_warm_runs_only_and_leaves_out_a_framework_with_none_above_the_noise():
    order = order_of("torch", "tensorflow", "jax")
    repeats = range(4)
    compiles = {"torch": 3.0, "tensorflow": 4.0, "jax": 0.0}  # JAX's warm compile within its steps' noise
    runs = {
        c.config_id: [
            ran(
                dataclasses.replace(c, repeat=r),
                100.0 * (1 + TIGHT[r]),
                compile_seconds=40.0 if r == 0 else compiles[c.framework] * (1 + TIGHT[r]),
                nvml_bytes=None if c.framework == "tensorflow" else (2 << 30) + r,
            )
            for r in repeats
        ]
        for c in order
    }
    throughput, start_up, memory = comparisons(order, runs, cap=5, decides=EVERY_FIGURE)
    assert {c.name for c in throughput.ranked} == {"PyTorch", "TensorFlow", "JAX"}  # JAX's throughput still counts
    # the cold first run's 40 s is not among the warm ones; JAX has nothing a run would add, so it is not in it
    assert [(c.name, c.n, round(c.stats.mean, 1)) for c in start_up.ranked] == [
        ("PyTorch", 3, 3.0),
        ("TensorFlow", 3, 4.0),
    ]
    assert start_up.decided and start_up.line("") == (
        f"bs 32 warm compile_seconds: PyTorch ahead of TensorFlow 1.33× (1.33–1.33×) at n = 3 {ONE_SITTING}"
    )
    # the driver's view of the GPU process where two frameworks carry it, as the choose page reads it first
    assert memory.figure.name == "warm nvml_process_peak_bytes" and [c.name for c in memory.ranked] == [
        "PyTorch",
        "JAX",
    ]
    alone = comparisons([c for c in order if c.framework != "tensorflow"], runs, cap=5, decides=EVERY_FIGURE)[1]
    assert alone.line("") == "bs 32 warm compile_seconds: only PyTorch has a figure, nothing to compare"
    assert not alone.to_run_again()
    # after the first round, no warm run counts yet: the line says so of each framework
    first_runs = {config_id: records[:1] for config_id, records in runs.items()}
    start_up = comparisons(order[:2], first_runs, cap=5, decides=EVERY_FIGURE)[1]
    assert start_up.line("budget") == (
        "bs 32 warm compile_seconds: undecided at n = 0; no run of PyTorch counts in this sitting yet, no warm run; "
        "no run of TensorFlow counts in this sitting yet, no warm run (budget)"
    )


@pytest.mark.parametrize("decides", [["memory"], ["throughput", "speed"], ["throughput", "memory", "memory"]])
def test_a_profile_that_decides_an_unknown_figure_is_refused_naming_the_field(decides):
    from runners.matrix.repeats import repeats_of

    with pytest.raises(ValueError, match=r"^decides: expected throughput, then any of start-up, memory, got"):
        repeats_of({"repeats": "auto", "max_repeats": 5, "decides": decides})


def test_after_a_trainer_change_round_0_measures_the_new_trainer_and_keeps_the_older_run(tmp_path, capsys):
    order = order_of("torch", "jax")
    out = tmp_path / "runs"
    older = {"digest": "0123456789ab", "modules": ["runners.frameworks.jax.resnet18"]}
    for config in order:  # the first round, made before; JAX's by another trainer
        record = ran(config, 100.0) | ({"harness": older} if config.framework == "jax" else {})
        write_record(record_path(out, MACHINE, config), record)
    executor = Runs({("torch", 32): 100, ("jax", 32): 50})
    run_repeats(out, order, executor, Repeats())
    # round 0: JAX's new trainer makes its first run, numbered after the older one's; round 1: PyTorch's repeat
    assert executor.ran() == ["jax/compiled bs32 seed0 r1", "torch/compiled bs32 seed0 r1"]
    err = capsys.readouterr().err
    assert "torch/compiled bs32 seed0: done before (resumed)" in err and "jax/compiled bs32 seed0:" not in err
    jax = next(config for config in order if config.framework == "jax")
    assert read_record(record_path(out, MACHINE, jax))["harness"] == older  # the older run stays
