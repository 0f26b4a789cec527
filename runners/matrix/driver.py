"""The benchmark matrix: every configuration in a fresh process, resumable, failures recorded, here or on a cluster.

The matrix (``run_matrix``) decides what runs — the profile's configurations in their order (``runners.matrix.order``),
minus those done before (``runners.matrix.store``) or whose framework is missing (``runners.matrix.survey``) — writes
every record, draws the progress and hands the results to the summary (``runners.matrix.summary``). After the first
round it runs again, round after round, what its repeats policy asks for (``runners.matrix.repeats``: the undecided
comparisons' configurations, or every one a fixed number of times), each round in the matrix's order with its frameworks
shifted by the round (``order.in_round``: a Latin square). Each end batch size (in the main precision), the cheapest
here first (``runners.matrix.end_costs``), makes its first runs and rounds back to back before the other end and before
the others' first runs; an end that cannot reach n = 3 paired rounds before the budget ends is not started; and it
starts no run that its budget (``runners.matrix.budget``) has no room for, nor an auto repeat that the runs before it
in its round made needless. Where the configurations run is an
executor's business, behind the boundary of ``runners.executors.boundary``: ``runners.executors.local`` here, one at a
time, ``runners.executors.ray`` on a Ray cluster's nodes, several at once.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import closing
from dataclasses import replace
from pathlib import Path

from tqdm import tqdm

from fwbench.progress import progress_bar
from fwbench.records import write_record
from runners.executors.boundary import Executor, Finished, Job, Started, Target
from runners.matrix.budget import Budget, expected_seconds, other_sizes
from runners.matrix.comparisons import Comparison, comparisons, due_again
from runners.matrix.end_costs import EndCost, end_costs, ends_line
from runners.matrix.order import at_ends, in_round, labeller, matrix_plan
from runners.matrix.outcome import Outcome, Result, Stop
from runners.matrix.pairs import DECISIVE
from runners.matrix.repeats import Repeats
from runners.matrix.store import completed, first_repeat, of_current_trainer, runs_here, start_here, stored_path
from runners.matrix.summary import busy_note, status_words
from runners.measure.profiles import RunConfig


def run_matrix(
    plan: list[tuple[Target, list[RunConfig]]],
    out: Path,
    executor: Executor,
    force: bool = False,
    progress: bool = True,
    repeats: Repeats | None = None,
    budget: Budget | None = None,
) -> Outcome:
    """Run every configuration of ``plan`` (one matrix per target, each in its order) not done before, through
    ``executor``, then the repeats that ``repeats`` asks for (default: none), round after round, while ``budget`` has
    room; write each record atomically under ``out``/<its machine id>, with what the matrix planned there
    (``order.matrix_plan``). The smallest and largest batch size in the main precision come first (``at_ends``),
    the one cheaper to decide here first (``end_costs``), its first runs and every round of its repeats, then the
    other end, then the other configurations alike (the middle batch sizes, an extra precision): a budget too short
    for all decides the ends, one at least; an end that cannot reach n = 3 before it ends is not started. An auto
    repeat that the runs before it in its round made needless (its comparison decided) is not made.

    A round ``r`` runs repeat ``r`` of its configurations, so a matrix run again (after a budget stop, a kill)
    resumes where it stopped: its finished runs are not made again, and every record counts in the comparisons. With
    auto repeats, a matrix that starts a new sitting numbers its rounds after the earlier sittings' repeats
    (``store.first_repeat``), and decides in that sitting alone; so does a matrix after a trainer changed, whose
    round 0 makes the new trainer's first run where the older one's stands (``Matrix.first_run``). A configuration's
    first run compiles cold; its repeats find the caches it left (``LocalExecutor.run``). Each run is told its place
    K/N among the runs of its matrix so far. One line per run goes to stderr; the bar (``progress``), naming what
    runs where, only on a terminal.
    """
    return Matrix(plan, out, executor, force, repeats or Repeats(), budget or Budget(), progress).run()


class Matrix:
    """One ``run_matrix``: its rounds, and what they share (the bar, the places given, the runs made now)."""

    def __init__(self, plan, out: Path, executor: Executor, force: bool, repeats: Repeats, budget: Budget, progress):
        self.plan, self.out, self.executor, self.force = plan, out, executor, force
        self.repeats, self.budget = repeats, budget
        self.label = labeller(config for _, order in plan for config in order)
        total = sum(len(order) for _, order in plan)
        self.bar = progress_bar(total=total, enabled=progress, desc="matrix", unit="run")
        self.placed = {target: 0 for target, _ in plan}  # runs placed so far per matrix: the next round counts on
        self.orders = dict(plan)
        self.planned = {target: matrix_plan(order) for target, order in plan}  # what each record says was planned
        self.budget_spent = False  # the budget stopped a round
        self.start = {target: start_here(target) for target, _ in plan}  # where each matrix's sitting begins
        self.not_started: dict[tuple[Target, int, str], str] = {}  # the ends with no room for n = 3, and why
        self.made: set[tuple[str, int]] = set()  # (config id, repeat) of each run this matrix made

    def run(self) -> Outcome:
        """Each end (``at_ends``), the cheapest first (``end_costs``), then the others: round 0 (their first runs),
        then their repeats, round after round, until none is asked for; until the budget stops a round. An end that
        cannot reach n = 3 paired rounds before the budget ends is not started, and its line says why."""
        results = []
        # a new sitting's rounds, a fixed count's or auto's, follow the earlier sittings' repeats (store.first_repeat)
        first = max(
            first_repeat(runs_here(order, self.out, target.machine_ids), self.start[target])
            for target, order in self.plan
        )
        ends = self.ends_now()
        cheapest_first = sorted(ends, key=lambda end: sum(cost.seconds for _, cost in ends[end]))
        for target, _order in self.plan:  # how long until the ends are decided, before anything runs
            on = f"{target.label}: " if len(self.plan) > 1 else ""
            costs = [cost for end in cheapest_first for where, cost in ends[end] if where == target]
            if line := ends_line(costs, self.budget.seconds_left()):
                tqdm.write(on + line, file=sys.stderr)
        for end in cheapest_first:
            if self.budget_spent:
                break
            now = self.ends_now()[end]  # the ends made before it tell its time better than the guess did
            if self.started(end, now):
                results += self.rounds({target: cost.config_ids for target, cost in now}, first)
        if not self.budget_spent:
            results += self.rounds(self.others(), first)
        self.bar.close()
        final = [(target, self.compared(target)) for target, _order in self.plan]
        spent = self.budget_spent or bool(self.not_started)
        return Outcome(results, final, stop_of(final, self.repeats, spent, self.budget), self.not_started)

    def ends_now(self) -> dict[tuple[int, str], list[tuple[Target, EndCost]]]:
        """What each end (batch size, precision) still needs on each target, from the records there now."""
        by_end: dict[tuple[int, str], list[tuple[Target, EndCost]]] = {}
        for target, order in self.plan:
            runs = runs_here(order, self.out, target.machine_ids)
            for cost in end_costs(order, runs, self.compared(target, runs), self.repeats, target.not_installed):
                by_end.setdefault((cost.batch_size, cost.precision), []).append((target, cost))
        return by_end

    def started(self, end: tuple[int, str], costs: list[tuple[Target, EndCost]]) -> bool:
        """Whether the budget has room for ``end`` to reach n = 3 (``costs``: on each target); if not, it is not
        started: its first runs leave the bar and its line says why."""
        left = self.budget.seconds_left()
        needed = sum(cost.seconds for _, cost in costs)
        if left is None or needed <= left:
            return True
        for target, cost in costs:
            self.not_started[(target, *end)] = why = replace(cost, seconds=needed).not_started(left)
            self.bar.total -= len(cost.config_ids)
            on = f" on {target.label}" if len(self.plan) > 1 else ""
            tqdm.write(f"{cost.name}{on}: {why}", file=sys.stderr)
        self.bar.refresh()
        return False

    def others(self) -> dict[Target, frozenset[str]]:
        """Each target's configurations that are not at the ends, by id."""
        return {
            target: frozenset(config.config_id for config in order if not at_ends(order)(config))
            for target, order in self.plan
        }

    def rounds(self, part: dict[Target, frozenset[str]], first: int) -> list[Result]:
        """Round 0 of ``part`` (each target's configurations by id), then its repeats from round ``first`` on,
        round after round, back to back, until none is asked for or the budget stops one."""
        first_round = [
            (target, [self.first_run(target, c, first) for c in order if c.config_id in part.get(target, ())])
            for target, order in self.plan
        ]
        first_round = [(target, configs) for target, configs in first_round if configs]
        if not first_round:
            return []
        results = self.round(first_round)
        for repeat in range(max(first, 1), first + self.repeats.limit):
            if self.budget_spent:
                break
            runs = {target: runs_here(order, self.out, target.machine_ids) for target, order in self.plan}
            round_plan = self.repeat_round(runs, repeat, part)
            if not round_plan:
                break
            self.bar.total += sum(len(order) for _, order in round_plan)
            self.bar.refresh()
            results += self.round(round_plan)
        return results

    def first_run(self, target: Target, config: RunConfig, first: int) -> RunConfig:
        """Round 0's run of ``config``: its first run, or, where that was an older trainer's, this trainer's first,
        numbered ``first`` (after the older trainer's runs, its record beside theirs, which stay), so that a matrix
        after a trainer change measures the new one instead of taking the old run as done."""
        if self.force or not (found := completed(config, self.out, target.machine_ids)):
            return config
        return config if of_current_trainer(found) else replace(config, repeat=first)

    def repeat_round(
        self, runs: dict[Target, dict[str, list[dict]]], repeat: int, part: dict[Target, frozenset[str]]
    ) -> list[tuple[Target, list[RunConfig]]]:
        """The plan of round ``repeat`` of ``part`` (each target's configurations by id): repeat ``repeat`` of every
        such configuration (a fixed count), or of those in the comparisons still undecided (auto), in their matrix's
        order with the frameworks shifted by the round (``in_round``); none of a framework not installed there."""
        rounds = []
        for target, order in self.plan:
            found = self.compared(target, runs[target]) if self.repeats.auto else []
            chosen = due_again(found) if self.repeats.auto else {config.config_id for config in order}
            repeats_due = [
                replace(config, repeat=repeat)
                for config in order
                if config.config_id in chosen
                and config.config_id in part.get(target, ())
                and config.framework not in target.not_installed
                and (config.config_id, repeat) not in self.made  # made in round 0 (``first_run``)
            ]
            if repeats_due:
                rounds.append((target, in_round(repeats_due, repeat)))
        return rounds

    def round(self, plan: list[tuple[Target, list[RunConfig]]]) -> list[Result]:
        """Run one round's ``plan``; its results in plan order."""
        results: dict[Job, Result | None] = {}  # in plan order: jobs are made in that order
        running: dict[Job, str] = {}

        def jobs() -> Iterator[Job]:
            for target, order in plan:
                position, self.placed[target] = self.placed[target], self.placed[target] + len(order)
                for config in order:
                    if why := self.not_needed(target, config):
                        self.placed[target] -= 1  # later runs count on without a gap
                        self.bar.total -= 1
                        self.bar.refresh()
                        tqdm.write(f"{self.label(config)}: not run, {why}", file=sys.stderr)
                        continue
                    position += 1
                    job = Job(config, (position, self.placed[target]), target)
                    if reason := target.not_installed.get(config.framework):
                        self.report_result(results, job, Result(config, None, "not installed"), f"skipped, {reason}")
                    elif existing := (None if self.force else completed(config, self.out, target.machine_ids)):
                        resumed = Result(config, existing, "done before (resumed)")
                        self.report_result(results, job, resumed, resumed.note)
                    elif not self.budget.fits(self.expected(target, config)):
                        self.budget_spent = True
                        return
                    else:
                        results[job] = None  # its place in plan order, kept until it finishes
                        yield job

        with closing(self.executor.execute(jobs())) as events:
            for event in events:
                if isinstance(event, Started):
                    running[event.job] = event.where
                else:
                    running.pop(event.job, None)
                    self.store_record(results, event)
                self.bar.set_postfix_str(
                    "; ".join(
                        self.label(job.config) + (f" on {where}" if where else "") for job, where in running.items()
                    )
                )
        return [result for result in results.values() if result]

    def not_needed(self, target: Target, config: RunConfig) -> str | None:
        """Why an auto repeat of ``config`` planned for this round need not run any more, or None: the runs made
        since the round was planned decided its comparisons in this sitting, or decided its framework's pair with
        the leader or brought it to the cap. Asked as the executor takes each job: the local executor takes
        them one at a time, so the third framework's repeat is not made once the first two decided; Ray's takes a
        round at once."""
        if not self.repeats.auto or config.repeat == 0:
            return None
        found = self.compared(target)
        if config.config_id in due_again(found):
            return None
        own = [comparison for comparison in found if config.config_id in comparison.config_ids()]
        if not own:
            return None
        if all(comparison.decided for comparison in own):
            lines = "; ".join(comparison.line(stopped="") for comparison in own)
            verdict = "decided" if all(comparison.status in DECISIVE for comparison in own) else "at the cap or limit"
            return f"its comparison{'s are' if len(own) > 1 else ' is'} {verdict} ({lines})"
        return "its pair with the leader needs no more rounds in this sitting (decided, or at the cap)"

    def compared(self, target: Target, runs: dict[str, list[dict]] | None = None) -> list[Comparison]:
        """The comparisons of ``target``'s matrix, from ``runs`` (config id → records; default: its records now)."""
        order = self.orders[target]
        runs = runs_here(order, self.out, target.machine_ids) if runs is None else runs
        return comparisons(order, runs, self.repeats.runs, self.repeats.decides, self.repeats.limit, self.start[target])

    def expected(self, target: Target, config: RunConfig) -> float:
        """Seconds a run of ``config`` is expected to take on ``target`` (a repeat: with warm caches), from the records
        its matrix has there now (of ``config``, else of its other batch sizes: those this round just made too)."""
        runs = runs_here(self.orders[target], self.out, target.machine_ids)
        others = other_sizes(config, self.orders[target], runs)
        return expected_seconds(config, config.repeat > 0, runs[config.config_id], others)[0]

    def store_record(self, results: dict[Job, Result | None], event: Finished) -> None:
        """Store a finished job's record and say how it ended."""
        job, record = event.job, event.record
        if record is not None:
            record = {**record, "matrix": self.planned[job.target]}
            write_record(stored_path(self.out, record), record)
            self.made.add((job.config.config_id, job.config.repeat))
        line = f"{status_words(record)} in {event.seconds:.0f} s" if record else f"not run, {event.note}"
        line += f"; {busy}" if record and (busy := busy_note(record)) else ""
        self.report_result(results, job, Result(job.config, record, event.note, event.where, event.seconds), line)

    def report_result(self, results: dict[Job, Result | None], job: Job, result: Result, line: str) -> None:
        """Keep a job's ``result`` in its round's ``results``, count it on the bar and print its ``line``."""
        results[job] = result
        self.bar.update()
        where = result.where or (job.target.label if len(self.plan) > 1 else "")  # which matrix, of several
        on = f" on {where}" if where else ""
        tqdm.write(f"[{job.position[0]}/{job.position[1]}] {self.label(job.config)}{on}: {line}", file=sys.stderr)


def stop_of(final: list[tuple[Target, list[Comparison]]], repeats: Repeats, budget_spent: bool, budget: Budget) -> Stop:
    """Why the matrix stopped, given its comparisons after the last run."""
    if budget_spent:
        return Stop(
            "budget spent",
            f"the next run would end past {budget.limit()}; run the same command again to go on",
            "budget",
        )
    if not repeats.auto:
        runs = f"{repeats.runs} run{'s' if repeats.runs > 1 else ''}"
        return Stop("repeats done", f"{runs} of each configuration", f"repeats {repeats.runs}")
    found = [c for _, compared in final for c in compared]
    if all(c.status is None for c in found):
        return Stop("nothing to compare", "no batch size has two frameworks that ran ok", "")
    if all(c.status is None or (c.status in DECISIVE and c.decided) for c in found):
        return Stop("all decided", "every comparison is decided in this sitting: one ahead, or about equal", "")
    return Stop("cap reached", f"{repeats.runs} paired rounds in the sitting, or {repeats.limit} runs in it", "cap")
