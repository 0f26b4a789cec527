"""One call of the kit: its output folder, where its records go, its log, its deadline, and its child processes, their
output streamed to the log and killed with their process group when the time is spent."""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

from fwbench.timestamps import utc_iso_seconds
from runners.kit.carried import REPO, site_missing

#: kept back from the runs for `generator build` where MkDocs is there (3 s for a few records on a 2-core CPU, 15 s
#: over the whole results folder)
SITE_RESERVE_S = 60.0


class KitCall:
    """One call of the kit: its output directory, where its records go (``results``'s runs/; default OUT/results), its
    log, budget and the environment its children get (the repository and the ``carried`` folders on their path);
    ``reserve``: the seconds kept back from the runs for the site (none where MkDocs is missing: no site is built)."""

    def __init__(self, out: Path, budget_s: float, results: Path | None = None, carried: tuple[str, ...] = ()):
        self.out, self.runs = out, (results or out / "results") / "runs"  # as `generator build` reads it
        self.deadline = time.monotonic() + budget_s
        self.started = datetime.now(UTC)  # records that started before it were not made by this call
        self.reserve = 0.0 if site_missing() else SITE_RESERVE_S
        self.runs.mkdir(parents=True, exist_ok=True)
        self.log_file = (out / "accelerator_kit.log").open("w", encoding="utf-8")
        self.env = {
            **os.environ,
            "PYTHONUNBUFFERED": "1",
            "PYTHONPATH": os.pathsep.join([str(REPO), *carried, *filter(None, [os.environ.get("PYTHONPATH")])]),
        }

    def say(self, text: str) -> None:
        """Print ``text`` and keep it in the log."""
        print(text, flush=True)
        self.log_file.write(text + "\n")
        self.log_file.flush()

    def left(self, reserve: float = 0.0) -> float:
        """Seconds of the budget left, less ``reserve``."""
        return self.deadline - time.monotonic() - reserve

    def deadline_iso(self, reserve: float = 0.0) -> str:
        """The end of the budget, less ``reserve``, as ``runners matrix --deadline`` takes it."""
        return utc_iso_seconds(time.time() + self.left(reserve))

    def child(self, command: list[str], timeout_s: float, env: dict | None = None) -> tuple[int | None, str]:
        """Run ``command`` from the repository root, its output streamed to the log; (exit code or None when it
        ran past ``timeout_s`` and its process group was killed, its output)."""
        self.say(f"$ {' '.join(command)}")
        if timeout_s <= 0:
            self.say("  not started: the time budget is spent")
            return None, ""
        process = subprocess.Popen(
            command,
            cwd=REPO,
            env=env or self.env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            errors="replace",
            start_new_session=True,
        )
        lines: list[str] = []

        def pump() -> None:
            for line in process.stdout:
                lines.append(line)
                self.say("  " + line.rstrip("\n"))

        reader = threading.Thread(target=pump, daemon=True)
        reader.start()
        try:
            code = process.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:  # the matrix's configurations die with it (parent-death signal, reaper)
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            code = None
            self.say(f"  killed after {timeout_s:.0f} s: the time budget is spent")
        reader.join(timeout=10)
        return code, "".join(lines)
