"""Objective measures of a captured error: colour codes stripped, tokens named, file and line pointed to."""

from __future__ import annotations

import re
from pathlib import PurePosixPath

#: CSI sequences (colours, bold, cursor moves) and the two-character escapes terminals understand
ANSI_ESCAPE = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b[@-Z\\-_]")

#: spellings of a dtype across the frameworks: PyTorch says Double/Float, XLA says f64/f32
DTYPE_SPELLINGS = {
    "float64": ("float64", "double", "f64"),
    "float32": ("float32", "float", "f32"),
}

#: source locations as Python prints them (``File "x.py", line 12``) and as compilers do (``x.py:12``)
LOCATION_PATTERNS = (
    re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+)'),
    re.compile(r"(?P<file>[^\s\"'()\[\]]+\.py):(?P<line>\d+)"),
)


def strip_ansi(text: str | None) -> str | None:
    """``text`` without ANSI colour/escape codes (None stays None)."""
    return None if text is None else ANSI_ESCAPE.sub("", text)


def count_lines(text: str | None) -> int | None:
    """Number of lines in ``text`` (None stays None)."""
    return None if text is None else len(text.splitlines())


def _token_pattern(spelling: str, ignore_case: bool = True) -> re.Pattern:
    # a number must not be part of a bigger number (64 in 640), a word not part of a bigger word
    if spelling.isdigit():
        return re.compile(rf"(?<!\d){spelling}(?!\d)")
    flags = re.IGNORECASE if ignore_case else 0
    return re.compile(rf"(?<![A-Za-z0-9_]){re.escape(spelling)}(?![A-Za-z0-9_])", flags)


def names_token(text: str, token: str) -> bool:
    """Whether ``text`` names ``token`` (a size, a dtype in any framework's spelling, or ``nan``)."""
    return any(_token_pattern(s).search(text) for s in DTYPE_SPELLINGS.get(token, (token,)))


def names_all_tokens(text: str | None, tokens) -> bool | None:
    """Whether ``text`` names every token; None when there is no text."""
    if text is None:
        return None
    return all(names_token(text, token) for token in tokens)


def names_layer(text: str | None, layer_name: str | None, layer_class: str) -> bool | None:
    """Whether ``text`` names the layer by its name or class; None without text or a layer at fault.

    The class must match in case: ``Linear`` is the layer, ``linear`` is also a function and a file.
    """
    if text is None or layer_name is None:
        return None
    return names_token(text, layer_name) or bool(_token_pattern(layer_class, ignore_case=False).search(text))


def source_locations(frames, texts) -> set[tuple[str, int]]:
    """(file, line) pairs from the traceback's frames plus every location quoted in ``texts``."""
    found = {(str(file), int(line)) for file, line in frames}
    for text in texts:
        for pattern in LOCATION_PATTERNS:
            found.update((m["file"], int(m["line"])) for m in pattern.finditer(text or ""))
    return found


def same_file(candidate: str, planted_file: str) -> bool:
    """Whether ``candidate`` (absolute or relative, as printed) is the repo-relative ``planted_file``."""
    candidate_parts = PurePosixPath(candidate.replace("\\", "/")).parts
    planted_parts = PurePosixPath(planted_file).parts
    return candidate_parts[-len(planted_parts) :] == planted_parts


def points_to(locations, planted_file: str, planted_line: int) -> tuple[bool, bool]:
    """(names the planted file, names the planted line of that file) among ``locations``."""
    in_file = [line for file, line in locations if same_file(file, planted_file)]
    return bool(in_file), planted_line in in_file
