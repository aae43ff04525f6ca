"""``torchrig --help`` and every ``torchrig CMD --help`` (help and usage) lay out exactly as
argparse's own HelpFormatter lays them out (issue 27: the CLI's formatter only asks for the
terminal's width later), at any terminal width. The reference is the same parser built with
argparse.HelpFormatter."""

from __future__ import annotations

import argparse

import pytest

from torchrig import cli

COMMANDS = tuple(cli.COMMANDS)


def _texts(argv: list[str]) -> list[str]:
    """The top-level help, and the help and usage of the command ``argv`` names."""
    parser = cli.build_parser(argv)
    texts = [parser.format_help(), parser.format_usage()]
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    command = cli.invoked_command(argv)
    if command is not None:
        texts += [sub.choices[command].format_help(), sub.choices[command].format_usage()]
    return texts


@pytest.mark.parametrize("columns", ["40", "80", "123", "250"])
@pytest.mark.parametrize("command", [*COMMANDS, None])
def test_help_reads_as_argparse_lays_it_out(command: str | None, columns: str,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", columns)
    argv = [] if command is None else [command]
    ours = _texts(argv)
    monkeypatch.setattr(cli, "_Formatter", argparse.HelpFormatter)
    stock = _texts(argv)
    assert ours == stock
    assert max(len(line) for line in ours[0].splitlines()) <= max(int(columns), 60)


def test_a_width_given_to_the_formatter_is_used_as_given() -> None:
    parser = argparse.ArgumentParser(prog="p", formatter_class=lambda prog: cli._Formatter(
        prog, width=50, max_help_position=30))
    parser.add_argument("--option", help="word " * 30)
    stock = argparse.ArgumentParser(prog="p", formatter_class=lambda prog: argparse.HelpFormatter(
        prog, width=50, max_help_position=30))
    stock.add_argument("--option", help="word " * 30)
    assert parser.format_help() == stock.format_help()
    assert max(len(line) for line in parser.format_help().splitlines()) <= 50


def _commands(argv: list[str]) -> list[str]:
    parser = cli.build_parser(argv)
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return list(sub.choices)


def test_a_line_that_starts_with_a_command_builds_that_command_alone() -> None:
    # Each parser argparse builds costs three gettext look-ups; a plan needs only plan's.
    assert _commands(["plan", "--task", "llm_inference"]) == ["plan"]
    assert _commands(["check", "x.json"]) == ["check"]
    # Whatever can print the top-level help or the list of commands still has every command.
    for argv in ([], ["-h"], ["-h", "plan"], ["--version", "plan"], ["plna"]):
        assert _commands(argv) == list(COMMANDS), argv


def test_a_mistyped_command_still_lists_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        cli.main(["plna", "--task", "llm_inference"])
    assert exited.value.code == 2
    assert capsys.readouterr().err.strip() == (
        "torchrig: argument COMMAND: invalid choice: 'plna' (choose from 'detect', 'plan', "
        "'check', 'export', 'verify', 'bench')")
