"""`balance --help` and every subcommand's: each option says what it means, and each
option with a default names it; `balance --version` prints the installed version."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from importlib import metadata
from pathlib import Path

from sim.commands import COMMANDS, build_parser, command


def _subparsers() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def test_every_option_of_every_subcommand_has_help_and_names_its_default() -> None:
    missing, silent = [], []
    for name, sub in _subparsers().items():
        for action in sub._actions:
            if isinstance(action, argparse._HelpAction):
                continue
            label = f"{name} {'/'.join(action.option_strings) or action.dest}"
            if not action.help:
                missing.append(label)
            elif action.option_strings and action.default not in (None, False) \
                    and "default" not in action.help:
                silent.append(label)
    assert not missing, f"options without help: {missing}"
    assert not silent, f"options whose help does not name the default: {silent}"


def test_the_parser_is_built_from_the_commands_table() -> None:
    subparsers = _subparsers()
    assert list(subparsers) == list(COMMANDS)
    for name, help_line in COMMANDS.items():
        module = command(name)
        assert help_line and callable(module.run) and callable(module.add_arguments)


def test_balance_help_imports_no_command() -> None:
    """`balance --help` lists the commands from the table alone: no command module, no numba, no
    matplotlib; `balance summary --help` imports the summary command and none of the others."""
    probe = ("import json, sys\nfrom sim.commands import main\ntry:\n    main(sys.argv[1:])\n"
             "except SystemExit:\n    pass\nprint(json.dumps(sorted(sys.modules)))")
    loaded = {}
    for argv in (["--help"], ["summary", "--help"]):
        done = subprocess.run([sys.executable, "-c", probe, *argv], capture_output=True, text=True,
                              timeout=120, cwd=Path(__file__).resolve().parents[1])
        loaded[argv[0]] = set(json.loads(done.stdout.strip().splitlines()[-1]))
    others = {f"sim.commands.{name}" for name in COMMANDS}
    assert not loaded["--help"] & (others | {"numba", "matplotlib", "scipy"})
    assert loaded["summary"] & others == {"sim.commands.summary"}


def test_version() -> None:
    done = subprocess.run([sys.executable, "-m", "sim", "--version"], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0 and done.stdout.strip() == f"balance {metadata.version('balance-toolkit')}"


def test_every_command_ends_its_help_with_examples_that_parse() -> None:
    """Two or three example lines at the end of each command's help, each one a command
    line the parser accepts (its flags and arguments exist)."""
    import shlex

    parser = build_parser()
    for name, sub in _subparsers().items():
        epilog = sub.epilog or ""
        assert epilog.startswith("examples:\n"), name
        lines = [line.strip() for line in epilog.splitlines()[1:] if line.strip()]
        assert 2 <= len(lines) <= 3, (name, lines)
        for line in lines:
            words = shlex.split(line)
            assert words[:2] == ["balance", name], line
            assert parser.parse_args(words[1:]).command == name
