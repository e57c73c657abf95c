"""The `balance` command line (docs/reference/commands.md): one module per command, each with its one-line
`HELP`, its `add_arguments(parser)` and its `run(args) -> int` (and, if it needs them, `PARSER`: more
arguments of its parser), listed once in `COMMANDS`, from which `build_parser` builds the parser and `main`
dispatches. Bad input is refused with one line and exit status 2.

The layers: this package sits above `sim.app` (the runner and the application's studies) and `sim.design`
(the design studies, which use `sim.app`); neither imports it.
"""

from __future__ import annotations

import argparse
import os
import sys
from types import ModuleType

from sim.commands import (
    bench,
    compare,
    interrupt,
    ladder,
    play,
    profile,
    report,
    sheet,
    simulate,
    study,
    summary,
    sweep,
    train,
    tune,
    values,
    workbench,
)
from sim.core.errors import ConfigError, RunFailed

#: every `balance` subcommand by name, in the order `balance --help` lists them
COMMANDS: dict[str, ModuleType] = {command.NAME: command for command in (
    study, simulate, values, report, summary, ladder, play, train, bench, compare, sweep, tune, profile,
    sheet, workbench)}


def _version() -> str:
    from importlib import metadata

    try:
        return metadata.version("balance-toolkit")
    except metadata.PackageNotFoundError:  # run from a source tree that was never installed
        return "(not installed)"


class OneLineParser(argparse.ArgumentParser):
    """argparse's parser, refusing in one line: the command, what is wrong and where to read more (its
    usage block would bury the line that matters)."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(prog="balance",
                                     description="Monte Carlo balance toolkit for board games.")
    parser.add_argument("--version", action="version", version=f"balance {_version()}")
    sub = parser.add_subparsers(dest="command", required=True)
    for name, command in COMMANDS.items():
        command.add_arguments(sub.add_parser(name, help=command.HELP, **getattr(command, "PARSER", {})))
    return parser


def _open_figures() -> set[int]:
    """The matplotlib figures open now (none when no command has drawn in this process)."""
    pyplot = sys.modules.get("matplotlib.pyplot")
    return set(pyplot.get_fignums()) if pyplot is not None else set()


def _close_figures_since(before: set[int]) -> None:
    """Close the figures a command left open (one refused part-way), so that many commands in one process
    (the tests, the workbench) do not pile them up; a finished command has saved and closed its own."""
    pyplot = sys.modules.get("matplotlib.pyplot")
    for number in _open_figures() - before:
        pyplot.close(number)


def main(argv: list[str] | None = None, *, own_process: bool = False) -> int:
    """Run the command `argv` asks for and return its exit status. `own_process`: this is the `balance`
    process itself (entry), so Ctrl-C may end it within 2 s where the command cannot (interrupt.watch),
    unless the command stops on Ctrl-C by itself (its module's OWN_CTRL_C: the workbench's server)."""
    args = build_parser().parse_args(argv)
    if own_process and not getattr(COMMANDS[args.command], "OWN_CTRL_C", False):
        interrupt.watch()
    figures = _open_figures()
    try:
        return COMMANDS[args.command].run(args)
    except ConfigError as err:
        print(f"balance: {err}", file=sys.stderr)
        return 2
    except RunFailed as err:
        print(f"balance: {err}", file=sys.stderr)
        return 1
    except OSError as err:  # a read-only place, a file where a folder should be, a full disk: one line
        print(f"balance: {err.filename or ''}{': ' if err.filename else ''}{err.strerror or err}",
              file=sys.stderr)
        return 2
    except KeyboardInterrupt as err:  # Interrupted says what a run kept
        print(f"balance: interrupted{f': {err}' if str(err) else ''}", file=sys.stderr)
        interrupt.said()
        return 130
    finally:
        _close_figures_since(figures)


def entry() -> None:
    """The `balance` command: main(), then the interpreter's exit handlers (loky's and Dask's shutdown,
    logging's flush) and an immediate exit. Why not a plain return: Arrow's C++ thread pools can abort the
    interpreter's own teardown after the work is done ("terminate called without an active exception",
    status -6; apache/arrow#34314), which turned a refusal's status 2 into a crash, intermittently."""
    import atexit

    try:
        code = main(own_process=True)
    except SystemExit as stop:  # argparse's --help, --version and usage errors
        code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 2)
        if not isinstance(stop.code, int) and stop.code is not None:
            print(stop.code, file=sys.stderr)
    # loky's own exit handler sits in threading's shutdown, which os._exit skips: stop its workers here
    # (killed after Ctrl-C: a worker still loading the kernels would hold the exit for seconds)
    executors = sys.modules.get("joblib.externals.loky.reusable_executor")
    if executors is not None and getattr(executors, "_executor", None) is not None:
        executors._executor.shutdown(wait=True, kill_workers=code == 130)
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe (`balance ... | head`): nothing more to say
            pass
    os._exit(code)
