"""A TPU v5e's compiled training step, without a TPU: the compiler's estimate of each kernel's cycles and the
program's memory, for fwbench's trainer beside the loops it is checked against (``idiomatic_loop.LOOPS``).

libtpu compiles for a TPU topology on any x86-64 machine (``jax.experimental.topologies``), so what a trainer change
does to the compiled program, and whether a batch fits, can be seen before device time is spent. Each loop is built on
the CPU as ``idiomatic_loop`` builds it; its first step is stopped at its ``jax.jit`` call, whose arguments (shapes,
dtypes) are then compiled for one v5e chip. For each loop it prints the kernels the chip would run, the sum of their
``estimated_cycles`` (XLA's TPU cost model, in each kernel's backend config), the bytes XLA expects the step to access,
and the device memory the step needs (its arguments, outputs not donated, and temporaries) against the chip's (from a
committed v5e record). Then the kernel groups where the trainer's estimate differs most from each reference's.

The estimates are XLA's cost model, not a measurement, and on the v5e they did not rank steps whose speeds were
within 20 %: against the chip's bf16 ratios, JAX's trainer before its float32 batch norm ÷ Flax linen at batch 256
was estimated 0.825 (measured 0.955), the same trainer ÷ the Flax NNX loop 1.036 (measured 0.989), and torchax's
trainer ÷ a reference running fwbench's batch norm at batch 64 1.178 (measured 0.919). Read them for what a program
holds (layout copies, reductions not fused, the kernel groups that differ) and let the harness check on the chip
(``idiomatic_loop.py --device tpu``) give the ratio. The memory figure is the compiler's own buffer assignment: a
step that does not fit would fail to load.

    pip install libtpu        # the build jax[tpu] names for this JAX
    python benchmarks/tpu_compiled_step.py --framework torchax --precision bf16 --batch-size 64
    python benchmarks/tpu_compiled_step.py --workload gpt --size gpt2-small --framework jax --batch-size 4,8,16
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import os
import re
import sys
from collections import Counter
from pathlib import Path

# run as `python benchmarks/tpu_compiled_step.py`: the repository's packages come first
sys.path[:0] = [str(Path(__file__).resolve().parents[1])]

from benchmarks import device_profile, idiomatic_loop  # noqa: E402
from fwbench.cliargs import csv_of, positive_int  # noqa: E402
from runners.frameworks.precision import PRECISION_POLICIES  # noqa: E402
from runners.workloads import workload  # noqa: E402

#: the chip the program is compiled for, as ``jax.experimental.topologies`` names a one-chip v5e
TOPOLOGY = {"topology_name": "v5e:1x1", "chip_config_name": "default", "chips_per_host_bounds": (1, 1, 1)}
#: the device name a v5e's records carry, whose ``hardware.device_memory_bytes`` is the chip's memory
DEVICE_NAME = "TPU v5 lite"
RESULTS = Path(__file__).resolve().parent.parent / "results" / "runs"
#: one kernel of a compiled module's text: its name, result type and opcode, and its backend config's estimate
KERNEL = re.compile(r'^\s*(?:ROOT )?%(\S+) = (.+?) ([a-z][\w-]*)\(.*"estimated_cycles":"(\d+)"', re.MULTILINE)
#: where an argument's root name ends in an ``op_name`` that names an argument (``params['fc.weight']``)
ARGUMENT_ROOT = re.compile(r"[.\[]")
#: the words of a kernel's ``op_name`` that name what it computes: the framework's operator and any jvp/transpose
OP_WORD = re.compile(r"(transpose|jvp)\(|(aten::[\w.]+)|([a-z_]+)$")


class Stopped(Exception):
    """Raised in place of a step's ``jax.jit`` call once its arguments are held."""


class HeldCall:
    """A jitted function that runs as usual until ``armed``, then holds its call's arguments and raises ``Stopped``."""

    def __init__(self, jitted):
        self.jitted, self.armed, self.arguments = jitted, False, None

    def __call__(self, *args, **kwargs):
        if not self.armed:
            return self.jitted(*args, **kwargs)
        self.arguments = (args, kwargs)
        raise Stopped

    def __getattr__(self, name):
        return getattr(self.jitted, name)


@contextlib.contextmanager
def held_jit_calls():
    """Within the block every ``jax.jit`` made returns a ``HeldCall``; yields the list they are added to."""
    import jax

    made, plain = [], jax.jit

    def jit(fun=None, **options):
        if fun is None:
            return lambda f: jit(f, **options)
        made.append(HeldCall(plain(fun, **options)))
        return made[-1]

    jax.jit = jit
    try:
        yield made
    finally:
        jax.jit = plain


def held_step(spec, framework: str, variant: str, precision: str, batch_size: int):
    """(the jitted step, its arguments) of one loop, built on the CPU and stopped at its first step's call."""
    inputs, targets = idiomatic_loop.batches(spec, batch_size, 1)
    sized = {"config": spec.arch_config()} if spec.sizes else {}
    with held_jit_calls() as made:
        step, _ = idiomatic_loop.LOOPS[spec.name][framework][variant](
            inputs, targets, "compiled", precision=precision, device="cpu", **sized
        )
        called = first_call(made, lambda: step(0))
    return called.jitted, called.arguments


def first_call(made: list[HeldCall], call) -> HeldCall:
    """The jitted function of ``made`` that ``call`` calls first, holding its arguments; every one of ``made`` runs
    as usual afterwards (those a library made at its import, optax's, run inside the step's trace)."""
    for held in made:
        held.armed = True
    try:
        with contextlib.suppress(Stopped):
            call()
    finally:
        for held in made:
            held.armed = False
    (called,) = [held for held in made if held.arguments is not None]
    return called


def compiled_for_tpu(jitted, arguments, device):
    """``jitted`` lowered for ``arguments``' shapes and dtypes on ``device`` (a topology's TPU) and compiled; inside
    torchax's environment where torchax is loaded (its tensors trace only there)."""
    import jax
    from jax.sharding import SingleDeviceSharding

    placed = SingleDeviceSharding(device)
    args, kwargs = jax.tree_util.tree_map(
        lambda a: jax.ShapeDtypeStruct(a.shape, a.dtype, sharding=placed) if hasattr(a, "dtype") else a, arguments
    )
    environment = sys.modules["torchax"].default_env() if "torchax" in sys.modules else contextlib.nullcontext()
    with environment:
        return jitted.lower(*args, **kwargs).compile()


def kernels(hlo_text: str) -> list[dict]:
    """Each kernel of a TPU-compiled module: name, result type, opcode, estimated cycles, and its group
    (``kernel_group``)."""
    found = []
    for match in KERNEL.finditer(hlo_text):
        name, result, opcode, cycles = match.groups()
        line = hlo_text[match.start() : hlo_text.find("\n", match.start())]
        kind = re.search(r"kind=(k\w+)", line)
        op_name = re.search(r'op_name="([^"]*)"', line)
        found.append(
            {
                "name": name,
                "result": result,
                "cycles": int(cycles),
                "group": kernel_group(kind.group(1) if kind else opcode, op_name.group(1) if op_name else ""),
            }
        )
    return found


def kernel_group(kind: str, op_name: str) -> str:
    """A kernel's group: its fusion kind or opcode, backward or not, and the last operator its ``op_name`` names, a
    PyTorch one where there is one (``kOutput backward aten::convolution``, ``kLoop forward reduce_sum``); a kernel
    named by an argument (a layout copy of a parameter or of the optimizer's state) is grouped by that argument's
    root (``copy of params``)."""
    if op_name and not op_name.startswith("jit("):
        return f"{kind} of {ARGUMENT_ROOT.split(op_name, maxsplit=1)[0]}"
    words = [next(filter(None, m.groups())) for m in OP_WORD.finditer(op_name.split("/", 1)[-1])]
    direction = "backward" if "transpose" in words else "forward"
    operators = [w for w in words if w.startswith("aten::")] or [w for w in words if w not in ("transpose", "jvp")]
    return f"{kind} {direction} {operators[-1] if operators else '—'}"


def profile(compiled) -> dict:
    """Kernels, estimated cycles, XLA's bytes accessed and the device memory a compiled step needs."""
    found = kernels(compiled.as_text())
    memory = compiled.memory_analysis()
    needed = memory.argument_size_in_bytes + memory.output_size_in_bytes - memory.alias_size_in_bytes
    groups: Counter = Counter()
    for kernel in found:
        groups[kernel["group"]] += kernel["cycles"]
    return {
        "kernels": len(found),
        "estimated_cycles": sum(kernel["cycles"] for kernel in found),
        "bytes_accessed": compiled.cost_analysis().get("bytes accessed"),
        "memory_bytes": needed + memory.temp_size_in_bytes,
        "groups": dict(groups),
    }


def chip_memory(results: Path = RESULTS) -> int | None:
    """The v5e's memory in bytes, from a committed record of one (None: no record here)."""
    for path in sorted(results.glob("tpu-*/*.json")):
        hardware = json.loads(path.read_text()).get("hardware") or {}
        if hardware.get("device_name") == DEVICE_NAME and hardware.get("device_memory_bytes"):
            return hardware["device_memory_bytes"]
    return None


def report(label: str, found: dict, memory: int | None) -> str:
    """One loop's line: kernels, estimated Mcycles, GB read and written, GiB needed and whether the chip holds it."""
    fits = "" if memory is None else ("  fits" if found["memory_bytes"] <= memory else "  DOES NOT FIT")
    return (
        f"{label:<34}{found['kernels']:>8}{found['estimated_cycles'] / 1e6:>12.3f}"
        f"{(found['bytes_accessed'] or 0) / 1e9:>10.2f}{found['memory_bytes'] / 2**30:>10.2f}{fits}"
    )


def differences(trainer: dict, reference: dict, count: int) -> list[str]:
    """The ``count`` kernel groups whose estimated cycles differ most between the trainer and a reference."""
    gaps = device_profile.largest_gaps(trainer["groups"], reference["groups"], count)
    return [f"  {gap / 1e3:>+10.1f}k cycles  {group}" for group, gap in gaps]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog=Path(__file__).name,
        description=__doc__.split("\n\n")[0],
        epilog="needs libtpu; examples:\n" + __doc__.rstrip().rsplit("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--workload", choices=sorted(idiomatic_loop.LOOPS), default="resnet18", help="(default resnet18)"
    )
    parser.add_argument("--size", help="the GPT's named size (default: the workload's own)")
    parser.add_argument(
        "--framework", choices=idiomatic_loop.ONE_PROCESS_FRAMEWORKS, default="jax", help="whose loops (default jax)"
    )
    parser.add_argument(
        "--precision", choices=tuple(PRECISION_POLICIES), default="bf16", help="precision policy (default bf16)"
    )
    parser.add_argument("--batch-size", type=csv_of(positive_int), default=[256], metavar="N,…", help="(default 256)")
    parser.add_argument(
        "--differences", type=positive_int, default=8, help="kernel groups to list per reference (default 8)"
    )
    args = parser.parse_args(argv)
    try:
        spec = workload(args.workload).at(args.size)
    except ValueError as exc:
        parser.error(f"--size: {exc}")
    if importlib.util.find_spec("libtpu") is None:
        parser.exit(2, f"{parser.prog}: libtpu is not installed (pip install libtpu): it compiles for the TPU\n")
    os.environ["JAX_PLATFORMS"] = "cpu"  # the loops build on the CPU; the topology's TPU is only compiled for
    from jax.experimental import topologies

    (device,) = topologies.get_topology_desc(platform="tpu", num_slices=1, **TOPOLOGY).devices
    memory = chip_memory()
    print(
        f"{'loop':<34}{'kernels':>8}{'Mcycles':>12}{'GB r+w':>10}{'GiB':>10}  (chip: {device.device_kind}"
        f"{'' if memory is None else f', {memory / 2**30:.2f} GiB'})"
    )
    for batch_size in args.batch_size:
        found = {}
        for variant in idiomatic_loop.LOOPS[spec.name][args.framework]:
            label = f"{args.framework} {variant} {args.precision} batch {batch_size}"
            try:
                found[variant] = profile(
                    compiled_for_tpu(*held_step(spec, args.framework, variant, args.precision, batch_size), device)
                )
            except Exception as exc:  # a program that does not compile (out of memory) is a finding, not a crash
                print(f"{label:<34}  not compiled: {type(exc).__name__}: {(str(exc).splitlines() or [''])[0][:200]}")
                continue
            print(report(label, found[variant], memory), flush=True)
        trainer = found.get(idiomatic_loop.TRAINER)
        for variant, reference in found.items():
            if trainer is None or variant == idiomatic_loop.TRAINER:
                continue
            ratio = reference["estimated_cycles"] / trainer["estimated_cycles"]
            print(f"trainer ÷ {variant}, estimated: {ratio:.3f}; where they differ most:")
            print("\n".join(differences(trainer, reference, args.differences)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
