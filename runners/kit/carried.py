"""The carried folder of ``make gpu-kit`` (jsonschema and MkDocs, built for the borrowed machine's Python): it goes on
the path only where the interpreter lacks one of its modules, since elsewhere its wheels would shadow the installed
packages. ``python -m runners.kit.carried`` prints the folder where it is needed (nothing where it is not) for
accelerator_kit.sh to put on PYTHONPATH before the kit starts: fwbench's records need jsonschema as they are imported.
Exit 1, saying so, where jsonschema cannot be had either way.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
KIT_DIR_ENV = "FWBENCH_KIT_DIR"
#: modules the site needs beyond the frameworks' stack
SITE_MODULES = ("mkdocs", "material", "mkdocs_gen_files", "pymdownx")
#: modules the kit needs beyond the frameworks' stack: records (jsonschema) and the site
KIT_MODULES = ("jsonschema", *SITE_MODULES)


def missing_modules(names: tuple[str, ...] = KIT_MODULES) -> list[str]:
    """The top-level modules among ``names`` that this interpreter cannot find (none is imported)."""
    return [name for name in names if importlib.util.find_spec(name) is None]


def site_missing() -> list[str]:
    """The modules the site needs that this interpreter cannot find: where any is, the kit builds no site."""
    return missing_modules(SITE_MODULES)


def carried_folder() -> Path:
    """The carried folder: $FWBENCH_KIT_DIR, else the checkout's build/gpu-kit."""
    return Path(os.environ.get(KIT_DIR_ENV) or REPO / "build" / "gpu-kit")


def kit_paths(kit_dir: Path, missing: list[str]) -> list[str]:
    """What goes before the interpreter's own packages: the carried folder, only where a module is ``missing``."""
    return [str(kit_dir)] if missing and kit_dir.is_dir() else []


def main() -> int:
    paths = kit_paths(carried_folder(), missing_modules())
    sys.path[:0] = paths
    if missing_modules(("jsonschema",)):  # every record is validated: nothing runs without it
        print(
            f"accelerator_kit: jsonschema cannot be imported; carried folder: {paths or 'none'}. Build it for this "
            f"Python ({sys.version_info.major}.{sys.version_info.minor}) with `make gpu-kit` where pip works and "
            "carry it (RUNNING.md, 'Accelerator kit')",
            file=sys.stderr,
        )
        return 1
    print(os.pathsep.join(paths))
    return 0


if __name__ == "__main__":
    sys.exit(main())
