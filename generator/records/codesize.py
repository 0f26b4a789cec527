"""Lines of code of fwbench's framework implementations (comments, docstrings and blank lines excluded).

The files are found by the registry's framework keys: ``<key>_model.py`` and ``<key>_train.py`` under
``runners/frameworks/`` (``fwbench.frameworks``).
"""

from __future__ import annotations

import ast
import io
import tokenize
from dataclasses import dataclass
from pathlib import Path

from fwbench.frameworks import FRAMEWORKS
from generator.i18n import N_

#: what the code-size page compares (English, translated where shown) -> the file name's suffix after the
#: framework key
PARTS = {N_("model"): "model", N_("training step"): "train"}
_NOT_CODE = {
    tokenize.COMMENT,
    tokenize.NL,
    tokenize.NEWLINE,
    tokenize.INDENT,
    tokenize.DEDENT,
    tokenize.ENCODING,
    tokenize.ENDMARKER,
}


def _docstring_lines(tree: ast.AST) -> set[int]:
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                lines.update(range(first.lineno, first.end_lineno + 1))
    return lines


def count_code_lines(source: str) -> int:
    """Number of lines holding code: blank lines, comment-only lines and docstrings do not count."""
    docstrings = _docstring_lines(ast.parse(source))
    code: set[int] = set()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type not in _NOT_CODE:
            code.update(range(token.start[0], token.end[0] + 1))
    return len(code - docstrings)


@dataclass(frozen=True)
class SourceFile:
    """One implementation file: where it is, its text and its code-line count (None when missing)."""

    part: str
    framework: str
    path: Path
    text: str | None
    lines: int | None


def source_paths(frameworks_dir: Path) -> list[tuple[str, str, Path]]:
    """(part, framework, path) of every file of ``PARTS`` under ``frameworks_dir``, found or not."""
    return [
        (part, framework, frameworks_dir / f"{framework}_{suffix}.py")
        for part, suffix in PARTS.items()
        for framework in FRAMEWORKS
    ]


def measure(frameworks_dir: Path) -> list[SourceFile]:
    """Read and count every file of ``PARTS`` under ``frameworks_dir``; missing files have no text."""
    found = []
    for part, framework, path in source_paths(frameworks_dir):
        text = path.read_text(encoding="utf-8") if path.is_file() else None
        found.append(SourceFile(part, framework, path, text, count_code_lines(text) if text is not None else None))
    return found
