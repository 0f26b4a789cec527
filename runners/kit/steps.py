"""The kit's steps, each through a ``KitCall`` (its child processes, log and deadline): ``runners env``, the forward
probes, the matrices (``PLAN``'s parts, or a plan's entries) with the newest record of each configuration they ran,
and ``generator build``."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import numpy as np

from fwbench.records import RecordError, read_record
from runners.executors.local import LocalExecutor
from runners.kit.call import KitCall
from runners.kit.carried import REPO, site_missing
from runners.kit.checks import NOT_REACHED, SITE, STATUS, Capture, Check, check_verdicts
from runners.kit.plan import ENTRY_MIN_S, PLAN, Step, entry_command, expected_configs, step_frameworks
from runners.matrix.store import run_paths
from runners.measure.profiles import RunConfig
from runners.measure.record import SCHEMA as RUN_SCHEMA
from runners.measure.run import framework_environment

ENV_TIMEOUT_S = 60.0
CAPTURE_TIMEOUT_S = 180.0
#: a plan entry's line where the deadline left it no time
NO_TIME = "no time left for it: the kit again on this machine goes on"


def env_step(call: KitCall) -> dict | None:
    """``runners env`` as JSON (also saved as env.json); None when it failed."""
    call.say("== runners env")
    command = [sys.executable, "-m", "runners.cli", "env"]
    try:  # not through KitCall.child: a warning on stderr must not end up in the JSON
        done = subprocess.run(
            command,
            cwd=REPO,
            env=call.env,
            capture_output=True,
            text=True,
            timeout=min(ENV_TIMEOUT_S, max(1.0, call.left())),
        )
        env = json.loads(done.stdout)
    except subprocess.TimeoutExpired:
        call.say(f"runners env: no answer within {ENV_TIMEOUT_S:.0f} s")
        return None
    except json.JSONDecodeError:
        call.say(f"runners env failed (exit {done.returncode}):\n{done.stderr[-3000:]}")
        return None
    call.say(done.stdout.rstrip())
    (call.out / "env.json").write_text(done.stdout)
    return env


def capture_step(call: KitCall, frameworks: list[str], device: str, executor: LocalExecutor) -> dict[str, Capture]:
    """Each framework's forward probe in a fresh process of the interpreter that runs its configurations:
    {framework: (logits, device and NVML info) or why it failed}."""
    call.say(f"== float32 forward pass on the {device} (parity, and whether NVML sees the process)")
    captures: dict[str, Capture] = {}
    with tempfile.TemporaryDirectory(prefix="accelerator-kit-") as tmp:
        for name in frameworks:
            out = Path(tmp) / f"{name}.npz"
            env = {**call.env, **framework_environment(device, str(Path(tmp) / f"cache-{name}"))}
            command = [
                executor.python_for(name),
                "-m",
                "runners.kit.forward_probe",
                name,
                "--device",
                device,
                "--out",
                str(out),
            ]
            code, output = call.child(command, min(CAPTURE_TIMEOUT_S, call.left(call.reserve)), env)
            if code == 0:
                with np.load(out) as arrays:
                    captures[name] = (dict(arrays), json.loads(out.with_suffix(".json").read_text()))
            else:
                last = (output.strip().splitlines() or ["no output"])[-1][:300]
                captures[name] = f"{name} probe failed ({'timeout' if code is None else f'exit {code}'}): {last}"
    return captures


def matrix_step(call: KitCall, step: Step, frameworks: list[str], device: str) -> None:
    """``runners matrix`` over ``step``'s profile, narrowed by its flags, for ``frameworks``: each configuration
    ``step.repeats`` times, within the budget."""
    command = [
        sys.executable,
        "-m",
        "runners.cli",
        "matrix",
        "--profile",
        step.profile,
        "--frameworks",
        ",".join(frameworks),
        "--out",
        str(call.runs),
        "--device",
        device,
        "--no-progress",
        "--timeout",
        f"{max(1.0, call.left(call.reserve)):.0f}",
        # the matrix starts no run that would end past the kit's time
        "--repeats",
        str(step.repeats),
        "--budget",
        f"{max(1.0, call.left(call.reserve)) / 60:.2f}",
    ]
    for flag, values in (("--batch-sizes", step.batch_sizes), ("--modes", step.modes)):
        command += [flag, ",".join(map(str, values))] if values else []
    command += ["--precision", step.precision] if step.precision else []
    call.child(command, call.left(call.reserve))


def find_record(runs: Path, config: RunConfig, since: datetime | None = None) -> dict | str:
    """The newest record of any run of ``config`` (first run or repeat) under ``runs`` (any machine folder), or why
    there is none: a later sitting numbers its runs after the earlier ones' (``runners.matrix.store``). With
    ``since``, a record that started before it was not made by this call, and is reported as such, never checked."""
    machines = [folder for folder in runs.iterdir() if folder.is_dir()] if runs.is_dir() else []
    paths = sorted((p for folder in machines for p in run_paths(config, folder)), key=lambda p: p.stat().st_mtime)
    if not paths:
        return NOT_REACHED
    try:
        record = read_record(paths[-1], kind=RUN_SCHEMA)
    except RecordError as exc:
        return str(exc)
    if since is not None and datetime.fromisoformat(record["started_at"]) < since:
        return f"not measured by this call: its newest record started {record['started_at']}, before it"
    return record


def site_step(call: KitCall) -> Check:
    """``generator build`` over the results folder, into OUT/site; skipped, with one line, where MkDocs is missing."""
    call.say("== generator build")
    missing = site_missing()
    if missing:
        why = f"skipped: {', '.join(missing)} not importable and no carried folder provides it (make gpu-kit)"
        call.say(f"accelerator_kit: no site: {why}")
        return Check(SITE, "generator build", None, why)
    command = [
        sys.executable,
        "-m",
        "generator.cli",
        "build",
        "--results",
        str(call.runs.parent),
        "--site-dir",
        str(call.out / "site"),
    ]
    code, output = call.child(command, call.left())  # the time kept back for it; past it the packing's would go
    built = code == 0 and (call.out / "site" / "index.html").is_file()
    return Check(
        SITE,
        "generator build",
        built,
        f"{call.out / 'site'}" if built else (output.strip().splitlines() or ["no output"])[-1][:300],
    )


@dataclass
class Matrices:
    """What the kit's matrices left to check: each configuration's newest record (or why there is none), the config
    ids whose missing record is not applicable (time may leave them unrun), those of the batch-size scaling, and the
    checks of whole matrices (their verdicts; an entry with no time left)."""

    runs: list[tuple[RunConfig, dict | str]] = field(default_factory=list)
    optional: set[str] = field(default_factory=set)
    scaling: set[str] = field(default_factory=set)
    checks: list[Check] = field(default_factory=list)


def run_parts(call: KitCall, parts: list[str], present: list[str], device: str, executor: LocalExecutor) -> Matrices:
    """``PLAN``'s steps of ``parts``, in order, for the frameworks ``present`` on ``device`` (as asked: auto too)."""
    found = Matrices()
    for step in (step for step in PLAN if step.part in parts):
        names = step_frameworks(step, present)
        call.say(
            f"== runners matrix --profile {step.profile}"
            + (f" --precision {step.precision}" if step.precision else "")
            + (f" --repeats {step.repeats}" if step.repeats > 1 else "")
        )
        if not names:
            continue
        matrix_step(call, step, names, device)
        configs = expected_configs(step, names, device, executor.framework_version)
        if step.repeats > 1:  # its first runs are quick's, checked run by run there; here its comparisons
            found.checks += check_verdicts(configs, call.runs, step.repeats)
            continue
        found.runs += [(c, find_record(call.runs, c, call.started)) for c in configs]
        found.optional |= {c.config_id for c in configs} if step.optional else set()
        found.scaling |= {c.config_id for c in configs} if step.part == "quick" else set()
    return found


def run_plan(
    call: KitCall, plan: list[tuple[list[str], list[RunConfig], int]], device: str, repeats: int | str
) -> Matrices:
    """The plan's matrices (each entry's arguments, configurations and verdict rounds: ``entry_configs``) in order,
    each in what is left of the kit's one deadline, less the site's reserve; an entry with less than
    ``ENTRY_MIN_S`` left does not start. Time may leave any configuration unrun, so none is required."""
    found = Matrices()
    for arguments, configs, rounds in plan:
        entry = " ".join(arguments)
        if call.left(call.reserve) < ENTRY_MIN_S:
            call.say(f"accelerator_kit: no time left for: {entry}")
            found.checks.append(Check(STATUS, entry, None, NO_TIME))
            continue
        call.say(f"== runners matrix {entry}")
        call.child(entry_command(arguments, device, repeats, call.deadline_iso(call.reserve), call.runs), call.left())
        found.runs += [(c, find_record(call.runs, c, call.started)) for c in configs]
        found.optional |= {c.config_id for c in configs}
        found.checks += check_verdicts(configs, call.runs, rounds) if rounds > 1 else []
    return found
