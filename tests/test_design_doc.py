"""docs/design.md stays short and names only what exists: every repository path it gives in backticks, and every
module (or a module's attribute) of fwbench's packages it names, found by file lookup: no module is imported, so no
framework is."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DESIGN = ROOT / "docs" / "design.md"
MAX_LINES = 300
PACKAGES = ("fwbench", "runners", "generator", "ecosystem", "benchmarks")
EXTENSIONS = (".py", ".json", ".md", ".j2", ".yml", ".toml", ".txt", ".sh", ".po")
#: what is not looked for in the tree: a record schema's name (``fwbench.run/3``), a path outside the repository
NOT_A_PATH = re.compile(r"^(?:fwbench\.\w+/\d+|[~/$]|https?:)")
DOTTED = re.compile(rf"^(?:{'|'.join(PACKAGES)})(?:\.\w+)+$")
SKIPPED_DIRS = {".git", ".venv", "node_modules", "site", "__pycache__", "build"}


def spans(text: str) -> list[str]:
    """The inline code spans of ``text``, fenced blocks left out."""
    text = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    return re.findall(r"`([^`\n]+)`", text)


def paths(text: str) -> list[str]:
    """The spans that look like repository paths: one word, holding ``/`` or ending in a known extension."""
    return sorted(
        {
            span
            for span in spans(text)
            if " " not in span
            and not NOT_A_PATH.match(span)
            and ("/" in span or span.endswith(EXTENSIONS))
            and not DOTTED.match(span)
        }
    )


def modules(text: str) -> list[str]:
    """The spans that name a module of the packages, or a name in one; of ``python -m MODULE …``, the module."""
    named = {span.split()[2] if span.startswith("python -m ") else span for span in spans(text)}
    return sorted(name for name in named if DOTTED.match(name))


def exists(path: str) -> bool:
    """Whether ``path`` names a file or folder of the repository; ``<placeholder>`` parts match any name, ``…`` any
    rest of a name, and a bare file name is found anywhere in the tree."""
    pattern = re.sub(r"<[^>]+>", "*", path).replace("…", "*").rstrip("/")
    if "/" not in pattern:
        return any(not SKIPPED_DIRS.intersection(found.relative_to(ROOT).parts) for found in ROOT.rglob(pattern))
    return any(ROOT.glob(pattern))


def module_file(parts: list[str]) -> Path | None:
    base = ROOT.joinpath(*parts)
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def names_in(body: list[ast.stmt]) -> dict[str, ast.AST]:
    """The names a module or class body binds, with the node that binds each."""
    found: dict[str, ast.AST] = {}
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found[node.name] = node
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                for name in ast.walk(target):
                    if isinstance(name, ast.Name):
                        found[name.id] = node
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            found[node.target.id] = node
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                found[(alias.asname or alias.name).split(".")[0]] = node
        elif isinstance(node, (ast.If, ast.Try)):
            found.update(names_in(node.body))
    return found


def resolves(dotted: str) -> bool:
    """Whether ``dotted`` is a module of the repository, or a name its longest module prefix binds (then a name the
    class it names binds, and so on)."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        path = module_file(parts[:cut])
        if path is None:
            continue
        rest = parts[cut:]
        if not rest:
            return True
        body = ast.parse(path.read_text(encoding="utf-8")).body
        for name in rest:
            bound = names_in(body).get(name)
            if bound is None:
                # a submodule of a package not yet looked up: handled by a longer cut, so this one fails
                return False
            if not isinstance(bound, ast.ClassDef):
                return True  # an attribute of a value: as deep as a file lookup can follow
            body = bound.body
        return True
    return False


TEXT = DESIGN.read_text(encoding="utf-8")


def test_design_is_at_most_300_lines():
    lines = len(TEXT.splitlines())
    assert lines <= MAX_LINES, f"docs/design.md has {lines} lines; at most {MAX_LINES}"


@pytest.mark.parametrize("path", paths(TEXT))
def test_every_path_it_names_exists(path):
    assert exists(path), f"docs/design.md names `{path}`, which is not in the repository"


@pytest.mark.parametrize("dotted", modules(TEXT))
def test_every_module_it_names_resolves(dotted):
    assert resolves(dotted), f"docs/design.md names `{dotted}`, no module or module attribute of the repository"


def test_the_reader_sees_paths_and_modules():
    text = (
        "`fwbench/records.py` `fwbench.run/3` `runners.measure.record.ok_record` `a b/c`"
        " `python -m generator.catalogue --x`\n```\nx/`y`\n```\n"
    )
    assert paths(text) == ["fwbench/records.py"]
    assert modules(text) == ["generator.catalogue", "runners.measure.record.ok_record"]
    assert exists("runners/frameworks/<name>/") and not exists("runners/nowhere.py")
    assert resolves("fwbench.decision.Verdict") and resolves("runners.kit")
    assert not resolves("fwbench.decision.no_such_name") and not resolves("fwbench.nowhere")
