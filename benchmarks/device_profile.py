"""Where a loop's step spends its device time: JAX's profiler traces a round of steps, and the trace's device ops
are summed by XLA's category of each (``convolution fusion``, ``loop fusion``, ``data formatting`` for layout
copies and transposes, …), per step. ``benchmarks/idiomatic_loop.py --profile DIR`` traces each loop it checks this
way and prints where fwbench's trainer spends more than each reference loop: the chip's own account, where
``tpu_compiled_step.py`` has only the compiler's estimate.

The trace is the profiler's Chrome-trace file (``plugins/profile/<run>/<host>.trace.json.gz``): its device
processes (``/device:TPU:0``) hold a thread ``XLA Ops`` of one event per op executed, whose ``args.hlo_category``
names the category, and a thread ``XLA Modules`` of one event per program executed (a step). A CPU's trace has no
device ops: there the profile finds none and says so.
"""

from __future__ import annotations

import gzip
import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path

#: the device threads of a trace: each op executed, and each program executed (one a step)
OPS, MODULES = "XLA Ops", "XLA Modules"


def traced(directory: Path, run: Callable[[], object]) -> Path:
    """The trace file of ``run()`` under JAX's profiler, written below ``directory``."""
    import jax

    with jax.profiler.trace(str(directory)):
        run()
    traces = sorted(directory.glob("plugins/profile/*/*.trace.json.gz"))
    if not traces:
        raise FileNotFoundError(f"{directory}: the profiler wrote no trace.json.gz")
    return traces[-1]


def device_time(trace: Path) -> dict:
    """The device time of a trace: ``steps`` (programs executed), ``milliseconds`` (their total) and
    ``categories`` (op category → milliseconds over all steps)."""
    with gzip.open(trace, "rt") as stream:
        events = json.load(stream)["traceEvents"]
    devices = {e["pid"] for e in events if e.get("name") == "process_name" and "/device:" in e["args"]["name"]}
    threads = {
        (e["pid"], e["tid"]): e["args"]["name"]
        for e in events
        if e.get("name") == "thread_name" and e["pid"] in devices
    }
    categories: Counter = Counter()
    steps, total = 0, 0.0
    for event in events:
        thread = threads.get((event.get("pid"), event.get("tid")))
        if event.get("ph") != "X" or thread is None:
            continue
        if thread == OPS:
            categories[event["args"].get("hlo_category", "?")] += event["dur"] / 1000
        elif thread == MODULES:
            steps += 1
            total += event["dur"] / 1000
    return {"steps": steps, "milliseconds": total, "categories": dict(categories)}


def per_step(found: dict) -> dict[str, float]:
    """Milliseconds a step by category (empty where the trace held no step)."""
    steps = found["steps"]
    return {category: ms / steps for category, ms in found["categories"].items()} if steps else {}


def report(label: str, found: dict, count: int = 6) -> str:
    """One loop's device time a step and its largest categories."""
    if not found["steps"]:
        return f"{label}: no device ops in the trace (a CPU's trace has none)"
    categories = sorted(per_step(found).items(), key=lambda item: -item[1])[:count]
    parts = ", ".join(f"{category} {ms:.3f}" for category, ms in categories)
    return f"{label}: {found['milliseconds'] / found['steps']:.3f} ms a step on the device; {parts}"


def largest_gaps(mine: dict[str, float], theirs: dict[str, float], count: int) -> list[tuple[str, float]]:
    """The ``count`` keys of either whose values differ most (mine − theirs; a key one lacks counts 0 there), with
    the difference: also how ``tpu_compiled_step`` ranks its kernel groups' estimates."""
    gaps = {key: mine.get(key, 0.0) - theirs.get(key, 0.0) for key in {*mine, *theirs}}
    return sorted(gaps.items(), key=lambda item: -abs(item[1]))[:count]


def differences(trainer: dict, reference: dict, count: int = 4) -> list[str]:
    """The categories where the trainer's step spends most more (or less) than the reference's, in ms a step."""
    return [
        f"{gap:+.3f} ms {category}" for category, gap in largest_gaps(per_step(trainer), per_step(reference), count)
    ]
