"""The `balance` command line (docs/reference/commands.md): one module per command, each with its
`add_arguments(parser)` and its `run(args) -> int` (and, if it needs them, `PARSER`: more arguments of its
parser), listed once with its one line of help in `COMMANDS`, from which `build_parser` builds the parser
and `main` dispatches, importing only the module of the command asked for. Bad input is refused with one
line and exit status 2.

The layers: this package sits above `sim.app` (the runner and the application's studies) and `sim.design`
(the design studies, which use `sim.app`); neither imports it.
"""

from __future__ import annotations

import argparse
import atexit
import importlib
import os
import sys
from collections.abc import Iterable
from importlib import metadata
from types import ModuleType

from sim.commands import interrupt
from sim.core.errors import ConfigError, RunFailed

#: every `balance` subcommand, in the order `balance --help` lists them, with its one line of help; each is
#: the module of that name here, imported only when its command runs (or `balance --help` of it)
COMMANDS: dict[str, str] = {
    "study": "play a batch of games in memory and print seat win rates",
    "simulate": "self-play games in parallel into a resumable run directory",
    "values": ("causal value of each component by paired intervention (holding it vs nobody "
              "holding it, same seeds), in win share and points"),
    "report": "balance report of run directories (HTML, JSON, CSV)",
    "summary": "seat win rates and ties of run directories, from their logs",
    "ladder": ("strength ladder: each level (random, greedy, MCTS at doubling iterations, "
              "expert, search) against the level below; win share vs 1/N and one rating per "
              "level"),
    "play": "play one game in the terminal against agents, to check rules by hand",
    "train": ("fit the expert agent's evaluation by self-play (expert iteration) and write its "
              "model file"),
    "bench": "engine and agent throughput on this machine",
    "luck": ("how much of who wins the deal, the draws and the players' own choices decide, and what a "
             "luck-corrected estimate can save at most"),
    "compare": ("play a variant config against its base on the same seeds and say, question by "
              "question, whether the change made the game fairer"),
    "sweep": "run a grid or list of config variants and write a comparison report",
    "tune": ("search a space of config values for the one that best meets a balance target "
              "(candidates raced with confidence intervals)"),
    "explore": ("search a tune file's space for many fair designs that play differently (quality-diversity "
                "search, an archive that resumes) and write the most distinct as configs"),
    "profile": ("self-play at several skill levels on the same game seeds; the report shows every "
              "headline figure per level and flags what depends on how well people play"),
    "sheet": ("the balance sheet: every player count played by the two strongest levels until "
              "decided; for each, the seats, start player and tie-break, and whether the two "
              "levels agree on each within the margin"),
    "workbench": ("edit a config in the browser, run it and watch its verdicts firm up, compare it "
              "with its start, take the TOML away"),
}


def command(name: str) -> ModuleType:
    """The module of command `name`: its `add_arguments(parser)`, `run(args) -> int` and, if it needs
    them, `PARSER` (more arguments of its parser) and `OWN_CTRL_C`."""
    return importlib.import_module(f"sim.commands.{name}")


def _version() -> str:
    try:
        return metadata.version("balance-toolkit")
    except metadata.PackageNotFoundError:  # run from a source tree that was never installed
        return "(not installed)"


class OneLineParser(argparse.ArgumentParser):
    """argparse's parser, refusing in one line: the command, what is wrong and where to read more (its
    usage block would bury the line that matters)."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")


def build_parser(full: Iterable[str] | None = None) -> argparse.ArgumentParser:
    """The `balance` parser: every command by name and help, and the arguments of the commands in `full`
    (default: all). A command's module is imported only for its arguments, so `balance --help` and each
    command load only what they use."""
    parser = OneLineParser(prog="balance", description="Monte Carlo balance toolkit for board games.")
    parser.add_argument("--version", action="version", version=f"balance {_version()}")
    sub = parser.add_subparsers(dest="command", required=True)
    full = set(COMMANDS if full is None else full)
    for name, help_line in COMMANDS.items():
        module = command(name) if name in full else None
        subparser = sub.add_parser(name, help=help_line, **getattr(module, "PARSER", {}))
        if module is not None:
            module.add_arguments(subparser)
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
    argv = sys.argv[1:] if argv is None else argv
    args = build_parser(full=[argv[0]] if argv and argv[0] in COMMANDS else []).parse_args(argv)
    if own_process:
        interrupt.quiet_trackers()
    if own_process and not getattr(command(args.command), "OWN_CTRL_C", False):
        interrupt.watch()
    figures = _open_figures()
    try:
        return command(args.command).run(args)
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
