"""``runners envs list|build|remove|plan``: the environments of other framework versions and, on an NVIDIA machine,
the CUDA ones (``--device gpu``); what ``make site`` runs (``plan``); and the ``FRAMEWORK=V1,V2`` values that
``runners envs`` and ``runners matrix --versions`` share."""

from __future__ import annotations

import argparse
import sys

from tabulate import tabulate

from fwbench.cliargs import EXIT_FAILURE, EXIT_OK, UsageError, examples
from fwbench.frameworks import measured_on
from runners.envs import gpu as envs_gpu
from runners.envs import versions as envs
from runners.envs.versions import parse_versions
from runners.workloads import WORKLOADS

VERSIONS_HELP = (
    "FRAMEWORK=V1,V2 (repeatable): versions of one framework, each a release, 'article' (the article's) or "
    "'installed' (this interpreter's)"
)
#: how NVML's names of NVIDIA GPUs begin (``NVIDIA H200``; older boards ``Tesla T4``, ``Quadro RTX 8000``)
NVIDIA_NAMES = ("NVIDIA ", "Tesla ", "Quadro ", "GeForce ", "TITAN ")


def article_versions() -> dict[str, list[str]]:
    """The article's version of every framework (what ``runners envs build`` builds when given none)."""
    return {name: [envs.ARTICLE] for name in envs.version_sets()["frameworks"]}


def cmd_list(args: argparse.Namespace) -> int:
    """Print the known version sets and the environments built, one row each."""
    rows = [
        [
            row["framework"],
            row["version"]
            + (f" {row['variant']}" if row["variant"] else "")
            + (" (article)" if row["article"] else ""),
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
    """Build the environments asked for (the article's versions when none), skipping those already built; with
    ``--device gpu`` the CUDA ones."""
    if args.device == "gpu":
        return build_cuda(args)
    for flag, given in (("--dry-run", args.dry_run), ("--cuda-driver", args.cuda_driver), ("--arch", args.arch)):
        if given:
            raise UsageError(f"{flag}: only with --device gpu")
    for name, version in concrete(parse_versions(args.versions, flag="version") or article_versions()):
        try:
            print(envs.build(name, version, log=lambda line: print(line, flush=True)))
        except envs.EnvError as exc:
            raise UsageError(str(exc)) from None
    return EXIT_OK


def build_cuda(args: argparse.Namespace) -> int:
    """Build (``--dry-run``: resolve and print) every framework's CUDA environment; a failure is one line naming
    the framework and uv's reason, and the others still build."""
    if args.versions:
        raise UsageError(f"--device gpu {args.versions[0]}: the CUDA environments hold the installed versions")
    if args.arch and not args.dry_run:
        raise UsageError(f"--arch {args.arch}: only with --dry-run (a build is for this machine)")
    gpu = envs_gpu.gpu_for(args.dry_run, args.cuda_driver)
    failed = 0
    for name in measured_on("gpu"):
        try:
            if args.dry_run:
                print(*envs_gpu.resolve_build(name, gpu, args.arch or envs_gpu.default_arch()), sep="\n", flush=True)
            else:
                print(envs_gpu.build(name, gpu, log=lambda line: print(line, flush=True)), flush=True)
        except envs.EnvError as exc:
            print(f"runners envs build: {exc}", file=sys.stderr, flush=True)
            failed += 1
    return EXIT_FAILURE if failed else EXIT_OK


def workload_list(text: str) -> tuple[str, ...]:
    """``--workloads resnet18,gpt``: registered workloads, each once, in the order given."""
    names = tuple(dict.fromkeys(name.strip() for name in text.split(",") if name.strip()))
    unknown = [name for name in names if name not in WORKLOADS]
    if unknown or not names:
        found = f"unknown workload {unknown[0]!r}" if unknown else "no workload given"
        raise argparse.ArgumentTypeError(f"{found}; choose from {', '.join(WORKLOADS)}")
    return names


def nvidia_gpu(text: str) -> str:
    """``--fake-gpu NAME``: an NVIDIA GPU as NVML names it; the plan for it builds CUDA environments, and its records
    go under the machine id its name gives."""
    if not text.startswith(NVIDIA_NAMES):
        raise argparse.ArgumentTypeError(
            f"{text!r}: not an NVIDIA GPU as NVML names one ({', '.join(f'{n}…' for n in NVIDIA_NAMES)}), and the "
            "plan builds CUDA environments"
        )
    return text


def cmd_remove(args: argparse.Namespace) -> int:
    """Delete the environments asked for."""
    missing = 0
    for name, version in concrete(parse_versions(args.versions, flag="version")):
        if removed := envs.remove(name, version):
            print(*(f"removed {path}" for path in removed), sep="\n")
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
            "runners envs build --device gpu         # on an NVIDIA machine: each framework's CUDA build",
            "runners envs build --device gpu --dry-run --cuda-driver 12.4",
            "runners envs build --device gpu --dry-run --cuda-driver 13.0 --arch aarch64",
        ),
    )
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    listing = actions.add_parser(
        "list",
        help="the known version sets and the environments built",
        description="Print one row per known version set and per environment built: the framework, the version "
        "(and whether it is the article's), built or not, how long its build took, and its path, else a note (such "
        "as why it cannot run here). Writes nothing.",
        **examples("runners envs list"),
    )
    listing.set_defaults(func=cmd_list)
    build = actions.add_parser(
        "build",
        help="build environments (default: the article's versions)",
        description="Build a virtual environment with uv for each version given (default: the article's version of "
        "each framework), skipping those already built, and print its path; with --device gpu, one CUDA environment "
        "per framework at the installed version, for the GPU NVML sees. Environments go under "
        f"${envs.ENVS_DIR_ENV} (default ~/.cache/fwbench/envs), each written whole or not at all; --dry-run prints "
        "what uv resolves and writes nothing.",
        **examples(
            "runners envs build                      # the article's versions of all three",
            "runners envs build jax=0.4.26,0.6.2",
            "runners envs build --device gpu         # on an NVIDIA machine: each framework's CUDA build",
            "runners envs build --device gpu --dry-run --cuda-driver 12.4",
        ),
    )
    build.add_argument("versions", nargs="*", metavar="FRAMEWORK=V1,V2", help=VERSIONS_HELP)
    build.add_argument(
        "--device",
        choices=("cpu", "gpu"),
        default="cpu",
        help="gpu: on an NVIDIA machine, one CUDA environment per framework at the installed version "
        "(<framework>-<version>-py<X.Y>-cuda), which runners matrix uses on the GPU (default cpu)",
    )
    build.add_argument(
        "--dry-run", action="store_true", help="with --device gpu: print the package sets uv resolves; install nothing"
    )
    build.add_argument("--cuda-driver", metavar="MAJOR.MINOR", help="with --dry-run: the driver's CUDA, not NVML's")
    build.add_argument(
        "--arch",
        choices=tuple(envs_gpu.PLATFORMS),
        help="with --dry-run: resolve for a Linux GPU machine of this architecture (aarch64: Grace, DGX Spark; "
        "default: this machine's, x86_64 where it is neither)",
    )
    build.set_defaults(func=cmd_build)
    remove = actions.add_parser(
        "remove",
        help="delete environments",
        description="Delete the environments of the versions given (and a version's probe environment, if any), "
        "printing each path removed; a version with no environment is named, and the command exits 1.",
        **examples("runners envs remove torch=article", "runners envs remove jax=0.4.26"),
    )
    remove.add_argument("versions", nargs="+", metavar="FRAMEWORK=V1,V2", help=VERSIONS_HELP)
    remove.set_defaults(func=cmd_remove)
