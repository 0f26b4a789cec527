"""``runners envs list|build|remove``: the environments of other framework versions, and the ``FRAMEWORK=V1,V2``
values that ``runners envs`` and ``runners matrix --versions`` share."""

from __future__ import annotations

import argparse

from tabulate import tabulate

from fwbench.cliargs import EXIT_FAILURE, EXIT_OK, UsageError, examples, framework_values
from fwbench.frameworks import FRAMEWORKS
from runners import envs

VERSIONS_HELP = (
    "FRAMEWORK=V1,V2 (repeatable): versions of one framework, each a release, 'article' (the article's) or "
    "'installed' (this interpreter's)"
)


def parse_versions(values: list[str], flag: str = "--versions") -> dict[str, list[str]]:
    """``FRAMEWORK=V1,V2`` values as {framework: [versions]}; UsageError naming the bad value."""
    versions: dict[str, list[str]] = {}
    for name, listed in framework_values(values, flag, "FRAMEWORK=V1,V2"):
        items = [item.strip() for item in listed.split(",") if item.strip()]
        versions.setdefault(name, []).extend(item for item in items if item not in versions.get(name, []))
    return versions


def article_versions() -> dict[str, list[str]]:
    """The article's version of every framework (what ``runners envs build`` builds when given none)."""
    return {name: [envs.ARTICLE] for name in FRAMEWORKS}


def cmd_list(args: argparse.Namespace) -> int:
    """Print the known version sets and the environments built, one row each."""
    rows = [
        [
            row["framework"],
            row["version"] + (" (article)" if row["article"] else ""),
            row["status"],
            "—" if row["build_seconds"] is None else f"{row['build_seconds']:.0f} s",
            row["path"] if row["status"] == "built" else row["why"],
        ]
        for row in envs.listing()
    ]
    print(tabulate(rows, headers=["framework", "version", "status", "build", "path / note"]))
    print(f"environments in {envs.envs_dir()} (${envs.ENVS_DIR_ENV} to move them)")
    return EXIT_OK


def concrete(versions: dict[str, list[str]]) -> list[tuple[str, str]]:
    """(framework, release) pairs of ``--versions`` values that need an environment of their own."""
    pairs = []
    for name, requested in versions.items():
        if envs.INSTALLED in requested:
            raise UsageError(f"{name}={envs.INSTALLED}: the installed version needs no environment")
        for version in requested:
            release = envs.article_version(name) if version == envs.ARTICLE else version
            try:
                envs.version_set(name, release)
            except envs.EnvError as exc:
                raise UsageError(str(exc)) from None
            pairs.append((name, release))
    return pairs


def cmd_build(args: argparse.Namespace) -> int:
    """Build the environments asked for (the article's versions when none), skipping those already built."""
    for name, version in concrete(parse_versions(args.versions, flag="runners envs build") or article_versions()):
        try:
            print(envs.build(name, version, log=lambda line: print(line, flush=True)))
        except envs.EnvError as exc:
            raise UsageError(str(exc)) from None
    return EXIT_OK


def cmd_remove(args: argparse.Namespace) -> int:
    """Delete the environments asked for."""
    missing = 0
    for name, version in concrete(parse_versions(args.versions, flag="runners envs remove")):
        if envs.remove(name, version):
            print(f"removed {envs.env_path(name, version)}")
        else:
            print(f"{name} {version}: no environment at {envs.env_path(name, version)}")
            missing += 1
    return EXIT_FAILURE if missing else EXIT_OK


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``runners envs`` and its actions to the ``runners`` parser."""
    parser = sub.add_parser(
        "envs",
        help="build, list and remove the environments of other framework versions",
        description="Each framework version other than the installed one runs in a virtual environment of its own, "
        "built with uv from the known-good sets of fwbench/version_sets.json (the framework with the companion "
        "releases of its time). `runners matrix --versions` builds the ones it needs; these commands manage them.",
        **examples(
            "runners envs list",
            "runners envs build                      # the article's versions of all three",
            "runners envs build jax=0.4.26,0.6.2",
            "runners envs remove torch=article",
        ),
    )
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    listing = actions.add_parser("list", help="the known version sets and the environments built")
    listing.set_defaults(func=cmd_list)
    build = actions.add_parser("build", help="build environments (default: the article's versions)")
    build.add_argument("versions", nargs="*", metavar="FRAMEWORK=V1,V2", help=VERSIONS_HELP)
    build.set_defaults(func=cmd_build)
    remove = actions.add_parser("remove", help="delete environments")
    remove.add_argument("versions", nargs="+", metavar="FRAMEWORK=V1,V2", help=VERSIONS_HELP)
    remove.set_defaults(func=cmd_remove)
