"""Run one probe in this process and print what happened as one JSON line.

Usage: ``python -m runners.probes.child --framework torch --bug dense_shape --mode eager --tooling off``

``runners probes`` runs its probes in forks of a warm process instead (runners/probes/zygote.py), which imports
the program as ``import_program`` does here and runs each probe with ``run_probe``; this entry point runs one
probe in a fresh interpreter (where fork is not used, and by hand).

Everything the framework prints goes to stderr (stdout is redirected there before the framework is
imported); the only thing on the original stdout is the line ``RESULT_PREFIX + json``.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import platform
import sys
import time
import traceback
import warnings
from types import ModuleType

from fwbench.frameworks import FRAMEWORKS
from fwbench.installed import package_versions
from runners.measure.provenance import KEY_PACKAGES
from runners.probes.catalog import BUGS, MODES, program_module

RESULT_PREFIX = "FWBENCH_PROBE_RESULT "
#: warnings kept per probe; a probe that warns in a loop must not flood the record
MAX_WARNINGS = 20


def exception_chain(exc: BaseException) -> list[BaseException]:
    """``exc`` and the exceptions it was raised from or during, oldest first (as Python prints them)."""
    chain, seen = [], set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        chain.append(exc)
        exc = exc.__cause__ or (None if exc.__suppress_context__ else exc.__context__)
    return chain[::-1]


def qualified_name(cls: type) -> str:
    """``RuntimeError`` for built-ins, ``module.Class`` otherwise."""
    return cls.__qualname__ if cls.__module__ == "builtins" else f"{cls.__module__}.{cls.__qualname__}"


def describe_exception(exc: BaseException) -> dict:
    """Type, message, the traceback as Python prints it, and its frames as [file, line] pairs."""
    frames = [
        [frame.filename, frame.lineno]
        for link in exception_chain(exc)
        for frame in traceback.extract_tb(link.__traceback__)
    ]
    return {
        "exception_type": qualified_name(type(exc)),
        "message": str(exc),
        "traceback": "".join(traceback.format_exception(exc)),
        "frames": frames,
    }


#: the head's declared input width in the dense_shape probe (the body emits HIDDEN = 128)
WRONG_HEAD_IN = 64


def import_program(module: str) -> tuple[ModuleType, float]:
    """The probe program ``module`` (catalog.program_module), imported, and the seconds its import took: the
    framework's own import."""
    started = time.perf_counter()
    program = importlib.import_module(module)
    return program, time.perf_counter() - started


def run_probe(program: ModuleType, import_seconds: float, bug: str, compiled: bool, tooling: bool) -> dict:
    """Run one probe of the imported ``program`` (``import_seconds``: its import's) and describe the outcome."""
    if tooling:
        program.enable_nan_tooling()
    result: dict = {
        "framework_version": program.VERSION,
        "import_seconds": round(import_seconds, 3),
        # this interpreter's, which may be another version's environment than the parent's
        "python": platform.python_version(),
        "packages": package_versions(KEY_PACKAGES),
    }
    with warnings.catch_warnings(record=True) as caught:
        started = time.perf_counter()
        try:
            model = program.Net(head_in=WRONG_HEAD_IN) if bug == "dense_shape" else program.Net()
            outcome = program.train_step(model, program.LOSSES[bug], *program.batch(), compiled)
        except Exception as exc:  # the whole point: whatever the framework raises is the finding
            result.update(
                outcome="error",
                seconds_to_error=round(time.perf_counter() - started, 4),
                result=None,
                **describe_exception(exc),
            )
        else:
            result.update(
                outcome="no_error",
                seconds_to_error=None,
                result=outcome,
                exception_type=None,
                message=None,
                traceback=None,
                frames=[],
            )
    result["warnings"] = [
        warnings.formatwarning(w.message, w.category, w.filename, w.lineno) for w in caught[:MAX_WARNINGS]
    ]
    return result


def main(argv: list[str] | None = None) -> int:
    """Entry point: parse the probe, keep stdout clean for the result line, run it and print the line."""
    parser = argparse.ArgumentParser(prog="python -m runners.probes.child", description=__doc__.splitlines()[0])
    parser.add_argument("--framework", required=True, choices=FRAMEWORKS)
    parser.add_argument("--bug", required=True, choices=BUGS)
    parser.add_argument("--mode", required=True, choices=MODES)
    parser.add_argument("--tooling", default="off", choices=("on", "off"))
    args = parser.parse_args(argv)
    result_fd = os.dup(1)
    os.dup2(2, 1)  # framework chatter on stdout (C++ or Python) lands in stderr
    sys.stdout = sys.stderr
    program, import_seconds = import_program(program_module(args.framework))
    result = run_probe(program, import_seconds, args.bug, args.mode == "compiled", args.tooling == "on")
    with os.fdopen(result_fd, "w", encoding="utf-8") as out:
        out.write(RESULT_PREFIX + json.dumps(result) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
