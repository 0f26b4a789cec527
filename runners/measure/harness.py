"""The harness version a record states: a digest of the code that shapes a framework's training step.

A comparison must never pair runs of different trainers (a change to a trainer moved the TPU's bf16 figure by 15 %
while the frameworks stayed the same), so every record carries ``harness``: the modules its ``Trainer`` is built from
(the trainer module and every ``runners.frameworks`` / ``runners.workloads`` module it imports, transitively) and a
digest of their code. The digest reads each module's syntax tree without its docstrings, so comments, docstrings and
formatting leave it unchanged and any change to what runs changes it; the modules' names and their imports of each
other are left out, so that moving a module (its importers updated) leaves it unchanged too.
"""

from __future__ import annotations

import ast
import functools
import hashlib
from pathlib import Path

#: the packages whose modules shape a training step; imports of anything else (the frameworks, fwbench) are not
#: followed: a framework's own version is recorded apart, and fwbench's helpers do not run inside the step
STEP_PACKAGES = ("runners.frameworks", "runners.workloads")
#: characters of the hexadecimal digest a record keeps
DIGEST_LENGTH = 12


#: the repository root, under which ``STEP_PACKAGES`` live
ROOT = Path(__file__).resolve().parents[2]


def _source_path(module: str) -> Path | None:
    """The file of ``module`` under ``ROOT`` (a module or a package's ``__init__``), None where it is no module
    (an imported name); found by path, since finding a spec would import the frameworks."""
    base = ROOT.joinpath(*module.split("."))
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return path
    return None


def _without_docstrings(tree: ast.AST) -> ast.AST:
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        first = body[0] if isinstance(body, list) and body else None
        if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
            node.body = body[1:] or [ast.Pass()]
    return tree


def _without_step_imports(tree: ast.AST) -> ast.AST:
    """``tree`` without its imports of ``STEP_PACKAGES`` modules: the code they bring is digested on its own."""
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list):
            node.body = [statement for statement in body if not _imports_step_module(statement)] or [ast.Pass()]
    return tree


def _imports_step_module(statement: ast.stmt) -> bool:
    if isinstance(statement, ast.Import):
        return any(alias.name.startswith(STEP_PACKAGES) for alias in statement.names)
    return (
        isinstance(statement, ast.ImportFrom)
        and statement.level == 0
        and (statement.module or "").startswith(STEP_PACKAGES)
    )


def _step_imports(tree: ast.AST) -> set[str]:
    """The modules of ``STEP_PACKAGES`` that ``tree`` imports. ``from a.b import x`` names the module ``a.b.x`` where
    one exists, else ``a.b``: a package named only to reach its modules is not followed, since a framework
    folder's ``__init__`` holds its registry entry (colour, label), which shapes no step."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [
                f"{node.module}.{alias.name}" if _source_path(f"{node.module}.{alias.name}") else node.module
                for alias in node.names
            ]
        else:
            continue
        found.update(name for name in names if name.startswith(STEP_PACKAGES) and _source_path(name))
    return found


@functools.cache
def harness(trainer_module: str) -> dict:
    """``{"digest": …, "modules": [...]}`` for the ``Trainer`` of ``trainer_module``: the step-shaping modules it
    is built from, sorted, and the digest of their code (docstrings, comments and layout ignored)."""
    trees, pending = {}, [trainer_module]
    while pending:
        module = pending.pop()
        if module in trees:
            continue
        path = _source_path(module)
        if path is None:
            raise ModuleNotFoundError(f"harness: no module {module} under {ROOT}")
        trees[module] = ast.parse(path.read_text(encoding="utf-8"))
        pending.extend(_step_imports(trees[module]) - trees.keys())
    # the code alone, not where it lives: a module moved, its importers updated, keeps the digest (and the records
    # measured before the move their pairing with those after it)
    digest = hashlib.sha256()
    for code in sorted(ast.dump(_without_step_imports(_without_docstrings(tree))) for tree in trees.values()):
        digest.update(code.encode() + b"\0")
    return {"digest": digest.hexdigest()[:DIGEST_LENGTH], "modules": sorted(trees)}
