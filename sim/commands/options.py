"""The options several `balance` commands share, defined once: the argparse types of whole numbers
(`positive_int`, `seed_int`), `add_run_options` (--jobs, --backend, --scheduler, --seed, --out, --force,
--quiet, and --chunk-size and --wait, in the order and with the help each command gives them),
`study_backend` (the --backend and --scheduler of the studies that play many runs), `add_run_dirs_options`
(the arguments of the commands that read run directories) and `RunOptions`, the one object that carries
their values from the parsed arguments to a run function (and, `cluster`, a study's one Dask cluster)."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, fields
from typing import Any

from sim.app.bounds import (  # noqa: F401 (the options' types, re-exported for the commands)
    MOST_GAMES,
    MOST_IN_MEMORY,
    MOST_PLAYERS,
    _whole_number,
    at_most,
    games_in_memory_int,
    games_int,
    players_int,
    positive_float,
    positive_int,
    seed_int,
)
from sim.app.until_decided import add_margin_option, add_questions_option
from sim.core.errors import ConfigError
from storage.backends import StudyCluster, study_cluster
from storage.run_dir import MAX_MANIFEST_BYTES
from storage.run_parts import MAX_RECORDS_BYTES


def examples(*lines: str) -> dict[str, Any]:
    """A command's `PARSER`: its help ends with these example command lines, kept as written."""
    return {"epilog": "examples:\n" + "\n".join(f"  {line}" for line in lines),
            "formatter_class": argparse.RawDescriptionHelpFormatter}


def user_path(text: str) -> str:
    """A path as a user types it, `~` read as the home folder (os.path.expanduser): the one place it is
    expanded, so that the writers (pathlib, which keeps a literal ~) and the readers (pyarrow and pandas,
    which expand it) see the same folder. The argparse type of every path that is written or read."""
    if "\0" in text:
        raise argparse.ArgumentTypeError("the path has a null byte")
    return os.path.expanduser(text)


def out_path(text: str) -> str:
    """The argparse type of --out: a path, not empty (an empty one would write to the default place), `~`
    expanded (`user_path`)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("must name a path, got an empty one (leave --out out for the "
                                         "default)")
    return user_path(text)


def cores() -> int:
    """The cores this process may run on (its CPU affinity where the system says it, else the machine's)."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:  # macOS, Windows
        return os.cpu_count() or 1


def check_jobs(jobs: int | None, scheduler: str | None) -> None:
    """Refuse more worker processes than cores on this machine (they would only slow each other and fill
    the memory); on a Dask cluster (--scheduler) the cluster's workers run them, so any number goes."""
    if jobs is not None and scheduler is None and jobs > cores():
        raise ConfigError(f"--jobs: at most {cores()} (the cores here), got {jobs}; more processes than "
                          "cores only slow each other (a Dask cluster, --scheduler, takes more)")


def _standard() -> dict[str, tuple[str, dict[str, Any]]]:
    """Each shared option's flag and its usual definition (a command may give its own help or default).
    Built at each call: --jobs's default is the machine's cores when the parser is built."""
    return {
        "jobs": ("--jobs", {"type": positive_int, "default": cores(),
                            "help": "worker processes, at most the machine's cores unless --scheduler "
                                    "is given (default: the cores, %(default)s here)"}),
        "seed": ("--seed", {"type": seed_int, "default": 0, "help": "seed of every game (default 0)"}),
        "out": ("--out", {"type": out_path}),
        "backend": ("--backend", {"choices": ("loky", "dask"), "default": "loky",
                                  "help": "loky (this machine, the default) or dask (a LocalCluster)"}),
        "scheduler": ("--scheduler", {"help": "dask scheduler address (default: a local cluster)"}),
        "chunk_size": ("--chunk-size", {"type": games_in_memory_int}),
        "force": ("--force", {"action": "store_true",
                              "help": "replace a run directory made by a different run"}),
        "quiet": ("--quiet", {"action": "store_true"}),
        "wait": ("--wait", {"action": "store_true"}),
    }


def add_run_options(parser: argparse.ArgumentParser, **options: bool | str | dict[str, Any]) -> None:
    """Add the shared options a command takes, in the order given (the order of its usage line and help),
    each as `name=True` (its usual definition), `name="help"` (the command's own help text) or
    `name={...}` (what the command changes in its definition: help, default), e.g.
    ``add_run_options(parser, jobs=True, out="ladder folder (default: ...)")``."""
    standard = _standard()
    for name, own in options.items():
        flag, definition = standard[name]
        change = own if isinstance(own, dict) else {"help": own} if isinstance(own, str) else {}
        parser.add_argument(flag, **{**definition, **change})


def study_backend(study: str) -> dict[str, str]:
    """The --backend and --scheduler of a study that plays many runs (sheet, profile, sweep, ladder,
    explore), for `add_run_options`: one cluster for the whole `study`."""
    return {"backend": f"where the games play: loky processes on this machine, or dask, one cluster for the "
                       f"whole {study} (a LocalCluster of --jobs workers, or the one at --scheduler) "
                       "(default loky)",
            "scheduler": "with --backend dask: the address of a running Dask scheduler, e.g. "
                         "tcp://10.0.0.5:8786 (default: a LocalCluster on this machine)"}


def add_run_dirs_options(parser: argparse.ArgumentParser, *, partial: str, tallied: str,
                         out: str | None = None) -> None:
    """The arguments of a command that reads run directories (`report`, `summary`), in this order: the run
    directories, --out (`out`: its help, when the command writes a folder), --allow-partial (`partial`:
    what the command does with a damaged run's intact games), --jobs (`tallied`: what it does to the
    chunks), --backend, --margin and --questions."""
    parser.add_argument("runs", nargs="+", type=user_path,
                        help="run directories written by simulate; a manifest.json "
                        f"past {MAX_MANIFEST_BYTES // 2**20} MB or a chunks.jsonl past "
                        f"{MAX_RECORDS_BYTES // 2**20} MB is refused (no run writes one that large)")
    if out is not None:
        add_run_options(parser, out=out)
    parser.add_argument("--allow-partial", action="store_true",
                        help=f"{partial} the intact games of a run with damaged parts (default: refuse it)")
    add_run_options(parser, jobs={"default": 1, "help": f"chunks {tallied} in parallel (default 1); memory "
                                                       "holds one chunk a job"}, backend=True)
    add_margin_option(parser)
    add_questions_option(parser)


@dataclass(frozen=True)
class RunOptions:
    """How a command runs, as its shared options say; an option the command does not take keeps the
    default here."""

    jobs: int | None = None
    backend: str = "loky"
    scheduler: str | None = None
    seed: int | None = 0
    out: str | None = None
    force: bool = False
    quiet: bool = False
    chunk_size: int | None = None
    wait: bool = False

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> RunOptions:
        """The options of the parsed arguments; --jobs past the cores is refused (`check_jobs`)."""
        options = cls(**{f.name: getattr(args, f.name) for f in fields(cls) if hasattr(args, f.name)})
        check_jobs(options.jobs, options.scheduler)
        return options

    def check_backend(self) -> None:
        """Refuse --scheduler without --backend dask."""
        if self.scheduler and self.backend != "dask":
            raise ConfigError("--scheduler: only used with --backend dask")

    def cluster(self) -> AbstractContextManager[StudyCluster | None]:
        """A study's one Dask cluster (storage.backends.study_cluster: --scheduler's, reached now, or a
        LocalCluster of --jobs workers, started at the first game), or None with loky; closed when the
        `with` ends. --scheduler without --backend dask is refused first (`check_backend`)."""
        self.check_backend()
        return study_cluster(self.backend, self.scheduler, self.jobs or 1)

    def say(self) -> Callable[[str], None]:
        """The progress lines' printer: to stderr, at once; nothing with --quiet."""
        def say(line: str) -> None:
            if not self.quiet:
                print(line, file=sys.stderr, flush=True)
        return say
