"""``runners kit``: the accelerator kit's command: its flags, and the kit's steps in order, ending in its table
(``accelerator_kit.txt``) and the same as JSON (``accelerator_kit.json``). Exit 0 when no check failed, else 1; 2 for
a plan entry the matrix would refuse, before anything runs."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from dataclasses import asdict
from pathlib import Path

from fwbench.cliargs import UsageError, add_frameworks_flag, csv_of, examples, future_moment, positive_float
from fwbench.frameworks import framework, measured_on
from runners.executors.local import LocalExecutor
from runners.kit.call import KitCall
from runners.kit.carried import REPO, carried_folder, kit_paths, missing_modules
from runners.kit.checks import PARITY, Check, env_checks, measured_check, not_applicable, parity_checks, run_checks
from runners.kit.plan import (
    DEFAULT_PARTS,
    PARTS,
    PLAN_REPEATS,
    TPU_PLAN,
    VERDICT_RUNS,
    entry_configs,
    plan_entries,
)
from runners.kit.report import RUN_HEADER, report, run_row
from runners.kit.steps import capture_step, env_step, run_parts, run_plan, site_step
from runners.matrix.repeats import repeats_value
from runners.measure.profile_devices import DEVICES, resolve_device

DEFAULT_BUDGET_S = 450.0  # within the 8 minutes on one GPU, the site and the packing included
PEAKS_FILE = REPO / "runners" / "measure" / "device_peaks.json"

DESCRIPTION = (
    "Prove fwbench's code paths on a borrowed GPU or TPU and bring back its records, verdicts and site, in one "
    "offline call of a few minutes (RUNNING.md, 'Accelerator kit'). Steps, each in its own process as the benchmark "
    "runs them: runners env; on a GPU or CPU a float32 forward pass of every framework present on the device "
    "(parity, and whether NVML sees the process); then the matrices: on a GPU or CPU the parts of --profiles, on a "
    "TPU or with --plan the plan's entries, all under one deadline (no run starts that would end past it; an entry "
    "without a minute left is a 'no time left for:' line, and the kit again on the same machine goes on). Then the "
    "cross-checks and generator build over the results folder. A check fails the kit (exit 1): a run not ok or not "
    "on the device asked for; compile time not > 0 or a steady step not faster than the first; on a GPU a null NVML "
    "process peak without a reason, an allocator peak above the NVML peak, images/s at batch 256 not above batch 32, "
    "forward logits further apart than float32 allows; on a GPU or TPU a null MFU or one outside (0, 1), or no "
    "device_peaks.json entry under the device's name; a comparison of a repeated matrix still undecided when the "
    "time is spent. Checks that do not apply on the device read 'not applicable'; frameworks not importable are "
    "skipped, with the reason; where MkDocs is missing the site is skipped with one line. Where jsonschema or MkDocs "
    "is missing, the carried folder of make gpu-kit (build/gpu-kit, or $FWBENCH_KIT_DIR) goes on the path of the "
    "kit's children; runners/kit/accelerator_kit.sh is the one call of a borrowed machine around the kit (the "
    "installs on a TPU, a clean worktree, the packing)."
)


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``runners kit`` to the ``runners`` parser."""
    parser = sub.add_parser(
        "kit",
        help="the accelerator kit: prove the code paths on a borrowed GPU or TPU, with its records and site",
        description=DESCRIPTION,
        **examples(
            "runners kit --out /tmp/accelerator-kit   # a GPU's parts, or a TPU's plan, within 450 s",
            "runners kit --out /tmp/accelerator-kit --device cpu --profiles smoke --frameworks jax",
            "runners kit --out /tmp/kit --plan='--profile quick --batch-sizes 256;--profile quick-gpt' --repeats 6",
            "runners kit --out /tmp/kit --results results --deadline 2026-12-06T05:10:00Z",
        ),
    )
    parser.add_argument("--out", type=Path, required=True, help="where the site, table, env.json and log go")
    parser.add_argument(
        "--results",
        type=Path,
        help="the results folder whose runs/ the records go to, and the site is built from (default OUT/results)",
    )
    parser.add_argument(
        "--device",
        choices=DEVICES,
        default="auto",
        help="auto: the GPU when NVML sees one, else the TPU when this process can open one, else the CPU",
    )
    parser.add_argument(
        "--profiles",
        type=csv_of(str, PARTS),
        default=list(DEFAULT_PARTS),
        metavar="A,B",
        help=f"parts to run on a GPU or CPU without --plan, from {','.join(PARTS)} (default "
        f"{','.join(DEFAULT_PARTS)}; quick: batch 32 and 256, compiled and eager, once each; precisions: bf16 and "
        "fp32 of PyTorch and JAX on the quick profile; transformer: the GPT's quick-gpt profile, PyTorch and JAX; "
        f"verdicts: quick's configurations again until each has {VERDICT_RUNS} runs, so that each comparison is "
        "decided; smoke: the smoke profile, for a CPU)",
    )
    parser.add_argument(
        "--plan",
        metavar="'ARGS;ARGS'",
        help="the matrices to run instead of the parts: `runners matrix` arguments, entries separated by ';', run in "
        f"order under one deadline (default on a TPU: '{TPU_PLAN}'); give it as --plan='--profile quick;...'",
    )
    parser.add_argument(
        "--repeats",
        type=repeats_value,
        default=PLAN_REPEATS,
        metavar="N|auto",
        help=f"rounds of each plan entry's matrix, or auto (as runners matrix takes it); an entry's own --repeats wins "
        f"(default {PLAN_REPEATS})",
    )
    add_frameworks_flag(parser)
    when = parser.add_mutually_exclusive_group()
    when.add_argument(
        "--budget",
        type=positive_float,
        default=DEFAULT_BUDGET_S,
        metavar="SECONDS",
        help="wall-clock budget of the whole kit; what would start after it is reported as not run "
        f"(default {DEFAULT_BUDGET_S:.0f})",
    )
    when.add_argument(
        "--deadline",
        type=future_moment,
        metavar="TIME",
        help="the kit's end instead of --budget (ISO 8601 with its zone: 2026-12-06T05:10:00Z)",
    )
    parser.set_defaults(func=cmd_kit)


def cmd_kit(args: argparse.Namespace) -> int:
    """All the steps; exit 0 when no check failed, else 1 (UsageError: a plan entry the matrix would refuse)."""
    device = resolve_device(args.device)
    executor = LocalExecutor()
    plan_text = args.plan or (TPU_PLAN if device == "tpu" else "")
    try:
        plan = [
            (a, *entry_configs(a, device, args.repeats, executor.framework_version)) for a in plan_entries(plan_text)
        ]
    except UsageError as exc:
        raise UsageError(f"--plan: {exc}") from None
    budget = args.deadline - time.time() if args.deadline else args.budget
    carried = kit_paths(carried_folder(), missing_modules())  # for MkDocs here: jsonschema is imported by now
    sys.path[:0] = carried
    call = KitCall(args.out.resolve(), budget, args.results and args.results.resolve(), tuple(carried))
    call.say(
        f"accelerator_kit: device {device} ({args.device}), "
        + (f"plan {plan_text!r}, repeats {args.repeats}" if plan else f"profiles {','.join(args.profiles)}")
        + f", budget {budget:.0f} s, python {sys.executable}, carried {os.pathsep.join(carried) or 'none'}"
    )
    env = env_step(call)
    peaks = json.loads(PEAKS_FILE.read_text())

    wanted = args.frameworks or list(measured_on(device))
    skipped = {
        name: f"{framework(name).import_name} is not importable by {executor.python_for(name)}"
        for name in wanted
        if not executor.available(name)
    }
    present = [name for name in wanted if name not in skipped]
    for name, why in skipped.items():
        call.say(f"skipped: {name} ({why})")

    if device == "tpu":  # one process at a time holds the chip, and float32 is not a TPU's matmul precision
        captures, parity_found, parity_rows = {}, [Check(PARITY, "—", None, not_applicable(device))], []
    else:
        captures = capture_step(call, present, device, executor)
        parity_found, parity_rows = parity_checks(captures)
    found = (
        run_plan(call, plan, device, args.repeats)
        if plan
        else run_parts(call, args.profiles, present, args.device, executor)
    )

    reasons = {name: c[1]["nvml_reason"] for name, c in captures.items() if not isinstance(c, str)}
    checks = [
        *env_checks(env, device, peaks),
        measured_check(found.runs),
        *run_checks(found.runs, device, peaks, reasons, frozenset(found.optional), frozenset(found.scaling)),
        *parity_found,
        *found.checks,
        site_step(call),
    ]
    text = report(found.runs, parity_rows, checks, skipped, device)
    call.say("\n" + text)
    (call.out / "accelerator_kit.txt").write_text(text + "\n")
    summary = {
        "device": device,
        "env": env,
        "skipped": skipped,
        "parity": parity_rows,
        "checks": [asdict(c) | {"outcome": c.outcome} for c in checks],
        "runs": [dict(zip(RUN_HEADER, run_row(c, r), strict=True)) for c, r in found.runs],
    }
    (call.out / "accelerator_kit.json").write_text(json.dumps(summary, indent=2) + "\n")
    call.say(f"records in {call.runs}, site in {call.out / 'site'}, log {call.log_file.name}")
    return 1 if any(c.ok is False for c in checks) else 0
