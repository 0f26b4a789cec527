"""Command-line conventions shared by the console scripts and the benchmarks.

argparse types (the error names the bad value, argparse names the flag), the exit codes (0 ok, 1 a failure,
2 a usage error), the one ``UsageError``, ``--frameworks a,b`` for choosing frameworks, output directories that
must be writable, input directories that must exist, and an epilog of examples for ``--help``.
"""

from __future__ import annotations

import argparse
import datetime
import math
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import NoReturn

from fwbench.timestamps import utc_iso_seconds


def _number(text: str, kind: type, minimum: float, inclusive: bool, what: str):
    try:
        value = kind(text)
    except ValueError:
        value = None
    if value is None or not math.isfinite(value):  # float() reads 'nan' and 'inf', which no count or limit can be
        raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}")
    if value < minimum or (value == minimum and not inclusive):
        bound = f"at least {minimum:g}" if inclusive else f"above {minimum:g}"
        raise argparse.ArgumentTypeError(f"must be {bound}, got {text!r}")
    return value


def positive_int(text: str) -> int:
    """A whole number ≥ 1."""
    return _number(text, int, 1, True, "a positive integer")


def non_negative_int(text: str) -> int:
    """A whole number ≥ 0."""
    return _number(text, int, 0, True, "a non-negative integer")


def positive_float(text: str) -> float:
    """A finite number > 0."""
    return _number(text, float, 0, False, "a positive number")


def moment(text: str) -> float:
    """An ISO 8601 date and time with its zone (``2026-12-02T15:00:00Z``, ``…+01:00``), as Unix seconds."""
    try:
        when = datetime.datetime.fromisoformat(text)
    except ValueError:
        when = None
    if when is None or when.tzinfo is None:
        raise argparse.ArgumentTypeError(
            f"expected an ISO 8601 time with its zone (2026-12-02T15:00:00Z), got {text!r}"
        )
    return when.timestamp()


def future_moment(text: str) -> float:
    """A ``moment`` that is still to come: a deadline already past leaves nothing to do, and is a slip."""
    when = moment(text)
    if when <= time.time():
        raise argparse.ArgumentTypeError(f"{utc_iso_seconds(when)} is in the past (now {utc_iso_seconds(time.time())})")
    return when


#: exit codes shared by the three console scripts
EXIT_OK, EXIT_FAILURE, EXIT_USAGE = 0, 1, 2


class UsageError(ValueError):
    """Bad command-line input; the message names the flag. The commands print it on one line and exit 2."""


#: the namespace attribute naming the parser left with arguments it does not know: the deepest subcommand's
_UNKNOWN_TO = "_cliargs_unknown_to"


class Parser(argparse.ArgumentParser):
    """The console scripts' parser: argparse's own errors (a bad value, an unknown flag or choice) are one line
    naming the flag and the value, like a ``UsageError``'s, not a usage block of up to twenty lines that ends in
    it; an unknown flag is reported by the subcommand it was given to, whose ``--help`` lists the flags there.
    Subcommands' parsers are of the same class (``add_subparsers`` takes its parser's)."""

    def error(self, message: str) -> NoReturn:
        """Print ``PROG: error: MESSAGE`` and where the flags are listed; exit 2."""
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see `{self.prog} --help`)\n")

    def parse_known_args(self, args=None, namespace=None):
        """argparse's, noting the first parser to finish with unknown arguments: a subcommand finishes before the
        command that handed it the rest (argparse copies its namespace into the command's)."""
        parsed, extras = super().parse_known_args(args, namespace)
        if extras and not hasattr(parsed, _UNKNOWN_TO):
            setattr(parsed, _UNKNOWN_TO, self)
        return parsed, extras

    def parse_args(self, args=None, namespace=None):
        """argparse's, with unknown arguments reported by the subcommand that was given them."""
        parsed, extras = self.parse_known_args(args, namespace)
        parser = vars(parsed).pop(_UNKNOWN_TO, self)
        if extras:
            parser.error(f"unrecognized arguments: {' '.join(extras)}")
        return parsed


def csv_of(kind, allowed: tuple[str, ...] | None = None):
    """An argparse type for comma-separated values, each converted by ``kind`` and checked against ``allowed``, none
    given twice (an alias and its name count as one value)."""

    def parse(text: str) -> list:
        parts = [part.strip() for part in text.split(",") if part.strip()]
        try:
            items = [kind(part) for part in parts]
        except (ValueError, argparse.ArgumentTypeError) as exc:
            raise argparse.ArgumentTypeError(f"{text!r}: {exc}") from None
        bad = [i for i in items if allowed and i not in allowed]
        if not items or bad:
            raise argparse.ArgumentTypeError(
                f"unknown value(s) {', '.join(map(str, bad)) or repr(text)}; choose from {', '.join(allowed or ())}"
            )
        spelled: dict = {}  # value → how it was first spelled: a value given twice would plan the same runs twice
        for part, item in zip(parts, items, strict=True):
            if item in spelled:
                both = "" if spelled[item] == part else f" (as {spelled[item]} and {part})"
                raise argparse.ArgumentTypeError(f"{item} given twice{both}")
            spelled[item] = part
        return items

    return parse


def add_frameworks_flag(parser: argparse.ArgumentParser, old_spellings: tuple[str, ...] = ()) -> None:
    """``--frameworks a,b``: the one way every command chooses frameworks (default: all of them).

    ``old_spellings`` (e.g. ``--framework``, ``--only``) are still accepted, repeatable or comma-separated,
    and print a note naming the new flag.
    """
    from fwbench.frameworks import FRAMEWORKS, canonical

    parser.add_argument(
        "--frameworks",
        type=csv_of(canonical, FRAMEWORKS),
        action=_Extend,
        metavar="A,B",
        help=f"comma-separated, from {', '.join(FRAMEWORKS)} (default: all; {aliases_text()})",
    )
    for spelling in old_spellings:
        parser.add_argument(
            spelling,
            type=csv_of(canonical, FRAMEWORKS),
            action=_Extend,
            dest="frameworks",
            help=argparse.SUPPRESS,
            metavar="A,B",
        )


def aliases_text() -> str:
    """The other names the framework flags accept, for their help (``pytorch = torch``)."""
    from fwbench.frameworks import REGISTRY

    return ", ".join(f"{alias} = {f.name}" for f in REGISTRY.values() for alias in f.aliases)


def framework_name(text: str) -> str:
    """An argparse type for one framework: its record key or an alias (``pytorch``), returned as the key."""
    from fwbench.frameworks import FRAMEWORKS, canonical

    name = canonical(text.strip())
    if name not in FRAMEWORKS:
        raise argparse.ArgumentTypeError(f"unknown framework {text!r}; choose from {', '.join(FRAMEWORKS)}")
    return name


class _Extend(argparse.Action):
    """Collect the values of ``--frameworks`` and of its old spellings into one list, noting an old spelling."""

    def __call__(self, parser, namespace, values, option_string=None):
        if option_string != "--frameworks":
            print(f"{parser.prog}: note: {option_string} is now spelled --frameworks", file=sys.stderr)
        current = getattr(namespace, self.dest, None) or []
        setattr(namespace, self.dest, current + [v for v in values if v not in current])


def ensure_writable(directory: Path, flag: str = "--out") -> None:
    """Create ``directory`` if needed and check that a file can be written there, else UsageError naming ``flag``."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=directory):
            pass
    except OSError as exc:
        raise UsageError(f"{flag}: cannot write to {directory} ({exc.strerror or exc})") from exc


def check_creatable(directory: Path, flag: str) -> None:
    """UsageError naming ``flag`` unless ``directory`` is a directory, or can be made one, that this process may
    write, creating nothing: for a command that must not leave an empty output behind when it fails later. It makes
    a folder in the nearest existing directory and removes it; ``os.access`` alone answers yes to root everywhere,
    /proc included."""
    existing = next((p for p in (directory, *directory.absolute().parents) if p.exists()), directory)
    where = "" if existing == directory else f" ({existing})"
    if not existing.is_dir():
        raise UsageError(f"{flag} {directory}: not a directory{where}")
    try:
        os.rmdir(tempfile.mkdtemp(prefix=".fwbench-write-check-", dir=existing))
    except OSError as exc:
        raise UsageError(f"{flag} {directory}: not writable{where} ({exc.strerror or exc})") from None


EXAMPLES_HEADING = "examples:"


class HelpWithExamples(argparse.HelpFormatter):
    """argparse's help, wrapped as usual, except an epilog of examples (``examples``), printed line by line."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        if text.startswith(EXAMPLES_HEADING):
            return "".join(indent + line for line in text.splitlines(keepends=True))
        return super()._fill_text(text, width, indent)


def examples(*commands: str) -> dict:
    """Keyword arguments for ``ArgumentParser``/``add_parser``: an epilog listing ``commands``, one a line."""
    return {
        "epilog": "\n".join([EXAMPLES_HEADING, *(f"  {command}" for command in commands)]),
        "formatter_class": HelpWithExamples,
    }


def framework_values(values: list[str], flag: str, shape: str) -> list[tuple[str, str]]:
    """``FRAMEWORK=VALUE`` flag values (``--python``, ``--versions``) as (framework, value) pairs; UsageError naming
    ``flag``, the bad value and the ``shape`` expected (``FRAMEWORK=/path/to/python``)."""
    from fwbench.frameworks import FRAMEWORKS, canonical

    pairs = []
    for text in values:
        raw, sep, value = text.partition("=")
        name = canonical(raw)
        if not sep or name not in FRAMEWORKS or not value.strip(", "):
            raise UsageError(f"{flag} {text!r}: expected {shape} with FRAMEWORK one of {', '.join(FRAMEWORKS)}")
        pairs.append((name, value))
    return pairs


def existing_directory(text: str) -> Path:
    """An argparse type for a directory that is read: a missing path is a usage error, not an empty result."""
    path = Path(text)
    if not path.is_dir():
        raise argparse.ArgumentTypeError(f"{text}: {'not a directory' if path.exists() else 'no such directory'}")
    return path


def add_run_records_arguments(parser: argparse.ArgumentParser, counted: str) -> None:
    """The arguments of a benchmark script that reads run records: the directory (default results/runs), and
    ``--profile``, the profile whose ``counted`` records are read (default quick)."""
    parser.add_argument(
        "results",
        nargs="?",
        type=existing_directory,
        default="results/runs",
        help="run records directory (default results/runs)",
    )
    parser.add_argument("--profile", default="quick", help=f"profile whose {counted} are counted (default quick)")
