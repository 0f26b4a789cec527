"""Every command of the three console scripts explains itself: its --help has examples (README: "Every command's
`--help` explains its flags, with examples")."""

from __future__ import annotations

import argparse

import pytest

from ecosystem.cli import build_parser as ecosystem_parser
from fwbench.cliargs import EXAMPLES_HEADING
from generator.cli import build_parser as generator_parser
from runners.cli import build_parser as runners_parser


def commands(parser: argparse.ArgumentParser, name: str):
    """``(name, parser)`` of ``parser`` and of every subcommand under it, depth first."""
    yield name, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub_name, sub in action.choices.items():
                yield from commands(sub, f"{name} {sub_name}")


ALL = [
    *commands(runners_parser(), "runners"),
    *commands(generator_parser(), "generator"),
    *commands(ecosystem_parser(), "ecosystem"),
]


@pytest.mark.parametrize("name, parser", ALL, ids=[name for name, _ in ALL])
def test_every_commands_help_has_examples(name, parser):
    shown = parser.format_help()
    assert f"\n{EXAMPLES_HEADING}\n" in shown, f"`{name} --help` shows no examples"
    section = shown.split(f"\n{EXAMPLES_HEADING}\n")[1].split("\n\n")[0].splitlines()
    # each example a line of its own, a line that explains it indented further
    examples = [line for line in section if not line.startswith("      ")]
    assert examples and all(line.startswith(f"  {name.split()[0]} ") for line in examples), section


@pytest.mark.parametrize("name, parser", ALL, ids=[name for name, _ in ALL])
def test_every_commands_help_says_what_it_does(name, parser):
    assert parser.description, f"`{name} --help` has no description"


@pytest.mark.parametrize(
    "build, argv, line",
    [
        (
            runners_parser,
            ["matrix", "--repeats", "0"],
            "runners matrix: error: argument --repeats: expected a positive integer or auto, got '0'",
        ),
        (
            runners_parser,
            ["envs", "build", "--device", "tpu"],
            "runners envs build: error: argument --device: invalid choice: 'tpu' (choose from 'cpu', 'gpu')",
        ),
        (generator_parser, ["build", "--results", "/nonexistent"], "generator build: error: argument --results: "),
        # an unknown flag: reported by the subcommand it was given to, whose --help lists the flags there
        (ecosystem_parser, ["collect", "--bogus"], "ecosystem collect: error: unrecognized arguments: --bogus"),
        (runners_parser, ["probes", "--device", "gpu"], "runners probes: error: unrecognized arguments: --device gpu"),
        (runners_parser, ["envs", "build", "--bogus"], "runners envs build: error: unrecognized arguments: --bogus"),
        (runners_parser, ["--bogus", "env"], "runners: error: unrecognized arguments: --bogus"),
        # a number that is no limit: the shared cliargs types refuse nan and inf wherever they are used
        (
            ecosystem_parser,
            ["collect", "--max-wait", "nan"],
            "ecosystem collect: error: argument --max-wait: expected a positive number, got 'nan'",
        ),
        (
            runners_parser,
            ["benchmark-script", "--budget", "inf"],
            "runners benchmark-script: error: argument --budget: expected a positive number, got 'inf'",
        ),
    ],
)
def test_a_bad_flag_is_one_line_naming_it_and_its_value_exit_2(build, argv, line, capsys):
    """The design's convention (docs/design.md, "Command-line conventions"): argparse's own errors too, not its
    usage block with the error at its end."""
    with pytest.raises(SystemExit) as exit_info:
        build().parse_args(argv)
    (printed,) = capsys.readouterr().err.splitlines()
    assert exit_info.value.code == 2 and printed.startswith(line)
    assert printed.endswith(f"(see `{line.split(':')[0]} --help`)")
