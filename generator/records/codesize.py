"""Lines of code of fwbench's framework implementations (comments, docstrings and blank lines excluded).

The files are found through the registry (``fwbench.frameworks``): each framework's model and trainer modules,
``runners/frameworks/<key>/resnet18_model.py`` and ``runners/frameworks/<key>/resnet18.py``, under a repository root
(this one, or the one ``generator build --source-root`` names). A framework that trains another's model
(``model_of``: PyTorch via torchax trains PyTorch's) is left out of the comparison: its model's lines are the other's,
and its trainer alone would set a part of one framework against the whole of the others.
"""

from __future__ import annotations

import ast
import io
import os
import tokenize
from dataclasses import dataclass
from pathlib import Path

from fwbench.frameworks import REGISTRY
from generator.i18n import N_

#: what the code-size page compares (English, translated where shown) -> the registry entry's property naming the
#: module of that part
PARTS = {N_("model"): "model_module", N_("training step"): "trainer_module"}
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


def compared() -> tuple[str, ...]:
    """The frameworks the code-size page compares, in display order: those that train a model of their own."""
    return tuple(name for name, entry in REGISTRY.items() if not entry.model_of)


def trains_another_model() -> dict[str, str]:
    """The frameworks left out of the comparison, each with the framework whose model it trains."""
    return {name: entry.model_of for name, entry in REGISTRY.items() if entry.model_of}


def file_name(module: str) -> str:
    """The file of a module in its framework's folder (``runners.frameworks.torch.resnet18`` ->
    ``torch/resnet18.py``): every framework's files have the same names."""
    return "/".join(module.split(".")[-2:]) + ".py"


def module_path(root: Path, module: str) -> Path:
    """The file of a module under the repository ``root`` (``runners.frameworks.torch.resnet18`` ->
    ``root/runners/frameworks/torch/resnet18.py``)."""
    return root.joinpath(*module.split(".")).with_suffix(".py")


def source_paths(root: Path) -> list[tuple[str, str, Path]]:
    """(part, framework, path) of every file of ``PARTS`` of the compared frameworks under the repository ``root``,
    found or not: the registry names each part's module."""
    return [
        (part, framework, module_path(root, getattr(REGISTRY[framework], module)))
        for part, module in PARTS.items()
        for framework in compared()
    ]


def sources_folder(root: Path) -> Path:
    """The innermost folder under ``root`` holding every file of ``PARTS`` (``root/runners``): the page names it."""
    return Path(os.path.commonpath([path for _part, _framework, path in source_paths(root)]))


def measure(root: Path) -> list[SourceFile]:
    """Read and count every file of ``PARTS`` under the repository ``root``; missing files have no text."""
    found = []
    for part, framework, path in source_paths(root):
        text = path.read_text(encoding="utf-8") if path.is_file() else None
        found.append(SourceFile(part, framework, path, text, count_code_lines(text) if text is not None else None))
    return found
