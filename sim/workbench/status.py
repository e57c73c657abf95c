"""What a job's run directories say so far, for the page: the games finished, the pace and the time left,
and the verdicts with their evidence, computed by the same functions as `balance summary` and `balance
compare` (analysis.verdicts, sim.app.compare) from the chunks finished at the moment of looking. A look is
remembered until another chunk lands, so a page that refreshes every second reads the disk only then.

A run's games in a look are one number (`RunView.games`): the games of the tally its verdicts were judged
on (the cards' n) once there is one, else the run directory's finished games; the status line, the runs
list and the cards all show it.
"""

from __future__ import annotations

import time
import tomllib
from dataclasses import dataclass, field
from typing import Any

from analysis.causal_values import read_values_run
from analysis.questions import DEFAULT_QUESTIONS
from analysis.run_tally import read_run_tally
from analysis.verdicts import (
    ALPHA,
    DEFAULT_MARGINS,
    MIN_GAMES,
    JudgedSet,
    Margins,
    PageError,
    Verdict,
    judged_rate,
    judged_sets,
    judged_split,
    page_error,
    run_verdicts,
)
from analysis.worth_verdicts import worth_verdicts
from sim.app.compare import judge_folder
from sim.app.values_run import VALUES_TABLES
from sim.core.errors import ConfigError
from sim.workbench.exploring import Explored, explored
from sim.workbench.jobs import Job
from sim.workbench.tuning import Outcome, outcome, spent
from sim.workbench.workspace import Workspace
from storage.run_dir import TABLES, RunDirectory


@dataclass
class RunView:
    """One run directory's look: its games (the tally's once read: the cards' n), its tally and verdicts."""

    out: str
    games: int = 0
    run: Any = None
    verdicts: list[Verdict] = field(default_factory=list)

    @property
    def seats(self) -> list[dict[str, float]]:
        """Each seat's win rate with the seat verdict's interval (a confidence sequence)."""
        seat = next((v for v in self.verdicts if v.key == "seats"), None)
        if seat is None or "seats" not in seat.detail:
            return []
        fair = seat.detail["fair_share"]
        return [{"seat": s["seat"], "rate": s["win_rate"], "low": fair + s["ci_low"],
                 "high": fair + s["ci_high"]} for s in seat.detail["seats"]]

    @property
    def fair(self) -> float | None:
        seat = next((v for v in self.verdicts if v.key == "seats"), None)
        return seat.detail.get("fair_share") if seat else None


@dataclass
class JobView:
    """A job's look: its runs, the comparison's verdicts (a compare job), progress and time left."""

    job: Job
    runs: list[RunView]
    changes: list[Verdict] = field(default_factory=list)
    target: int | None = None
    rate: float | None = None
    lines: list[str] = field(default_factory=list)  # a tune's last lines of progress
    spent: tuple[int, int] | None = None            # a tune's games spent, of its budget
    outcome: Outcome | None = None                  # a finished tune's recommendation
    explored: Explored | None = None                # a finished explore's elites, or why there are none

    @property
    def games(self) -> int:
        """The games every run holds (a compare job's paired games: the fewer of its two runs')."""
        if self.spent:
            return self.spent[0]
        return min(r.games for r in self.runs) if self.runs else 0

    @property
    def counts(self) -> list[int]:
        """Each run's games, as its card counts them (a tune: the games spent)."""
        return [r.games for r in self.runs] if self.runs and not self.spent else [self.games]

    @property
    def error(self) -> PageError | None:
        """The card's error rate in all (analysis.verdicts.page_error): the comparison's verdicts, each run's
        own, an explore's confirmations; None while the card shows no verdict."""
        sets = []
        if self.changes:
            sets.append(JudgedSet("the comparison", sum(judged_split(self.changes).values())))
        judged = [judged_rate(r.verdicts) for r in self.runs if r.verdicts]
        if self.job.kind == "values":
            sets += judged_sets(judged, "values study's worth verdicts", "values studies' worth verdicts")
        else:
            sets += judged_sets(judged, "run's own verdicts", "runs' own verdicts")
        found = self.explored
        if found and found.elites:  # every candidate tried could have been confirmed wrongly
            sets += judged_sets([ALPHA] * found.tried, "candidate judged on fresh games",
                                "candidates judged on fresh games")
            sets += judged_sets([ALPHA] * found.replayed, "elite's replay at the second level",
                                "elites' replays at the second level")
        return page_error(sets, where="On this card") if sets else None

    @property
    def seconds_left(self) -> float | None:
        if not self.job.active or not self.rate or self.target is None:
            return None
        return max(0.0, (self.target * len(self.counts) - sum(self.counts)) / self.rate)


def finished_games(path, tables: tuple[str, ...] = TABLES) -> int:
    """The games finished in the run folder at `path` (0 before its manifest is written)."""
    folder = RunDirectory(path, tables)
    return folder.finished_total() if folder.manifest_path.exists() else 0


def look_values(workspace: Workspace, out: str, ended: bool, margins=DEFAULT_MARGINS) -> RunView:
    """A `balance values` run: its base games so far and, once its command has ended, each component's
    worth against its face value (analysis.worth_verdicts), the most over-valued first."""
    path = workspace.root / out
    view = RunView(out, finished_games(path, VALUES_TABLES))
    if view.games and ended:
        try:
            verdicts = worth_verdicts(read_values_run(path), margins)
        except ConfigError:
            return view
        view.verdicts = verdicts[:1] + sorted(verdicts[1:], key=lambda v: -abs(v.value)
                                              if v.value == v.value else 0.0)
    return view


def look_run(workspace: Workspace, out: str, margins: Margins = DEFAULT_MARGINS) -> RunView:
    """A self-play run: its finished games and, once there are some, its tally and verdicts; its games
    are then the tally's (the verdicts' n), read in the same snapshot of its chunks."""
    path = workspace.root / out
    view = RunView(out, finished_games(path))
    if view.games:
        try:
            view.run = read_run_tally(path)
        except ConfigError:  # between a chunk's parts: the next look has it
            return view
        view.games = view.run.n_games
        view.verdicts = run_verdicts(view.run, margins)
    return view


def job_margins(job: Job) -> Margins:
    """The margins a job's verdicts are judged at: the defaults, asking the questions the job asked."""
    return Margins(asked=tuple(job.about.get("questions") or DEFAULT_QUESTIONS))


class Looks:
    """Each job's last look, kept until its run directories hold other chunks or its status changes."""

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace
        self._seen: dict[str, tuple[Any, JobView]] = {}

    def view(self, job: Job) -> JobView:
        chunks = tuple(_chunks(self.workspace, out) for out in job.outs)
        key = (job.status, chunks)
        seen = self._seen.get(job.id)
        if seen and seen[0] == key:
            return _paced(seen[1])
        if job.kind in ("tune", "explore"):
            return _paced(self._tune_view(job))
        if job.kind == "values":
            view = JobView(job, [look_values(self.workspace, job.outs[0], not job.active)])
        else:
            view = JobView(job, [look_run(self.workspace, out, job_margins(job)) for out in job.outs])
        paired = len(set(chunks)) == 1  # both configs hold the same games: a round is over
        if job.kind == "compare" and paired and view.games >= MIN_GAMES:
            view.changes = compare_changes(self.workspace, job, job_margins(job))
        self._seen[job.id] = (key, view)
        return _paced(view)


    def _tune_view(self, job: Job) -> JobView:
        """A tune's or an explore's look: its command's last progress lines and, once it has ended, its
        outcome (a tune's recommendation, an explore's elites)."""
        log_path = self.workspace.jobs / f"{job.id}.log"
        log = log_path.read_text() if log_path.is_file() else ""
        view = JobView(job, [], lines=[x for x in log.splitlines() if x.strip()][-6:], spent=spent(log))
        draft = self.workspace.root / job.about["config"]
        if not job.active and draft.is_file():
            config = tomllib.loads(draft.read_text())
            if job.kind == "explore":
                view.explored = explored(self.workspace.root / job.outs[0], config)
                view.spent = view.explored.spent if view.explored and view.explored.spent else view.spent
            else:
                view.outcome = outcome(self.workspace.root / job.outs[0], config)
        return view


def _chunks(workspace: Workspace, out: str) -> tuple:
    path = workspace.root / out
    return tuple(RunDirectory(path, VALUES_TABLES if (path / "values.parquet").is_dir() else TABLES)
                 .finished())


def _paced(view: JobView) -> JobView:
    """The view with the pace so far (games per second since the job started, over all its runs, start-up
    included, so the time left errs long) and the games each run plays to: --games, or with
    --until-decided the most games an undecided verdict it stops on needs (a comparison's changes; at least
    the games in hand), capped by --games, and once it has stopped on its own the games it played."""
    job = view.job
    had = job.about.get("had_each") or [int(job.about.get("had", 0))] * len(view.counts)
    played = sum(view.counts) - sum(had)
    elapsed = (job.finished or time.time()) - job.started
    view.rate = played / elapsed if played > 0 and elapsed > 0 else None
    cap = int(job.about.get("games") or 0) or None
    if view.spent:
        view.target = view.spent[1]
    elif job.about.get("until_decided"):
        if job.status == "finished":  # stopped on its own: every asked question decided (or the cap)
            view.target = view.games
            return view
        # what the run stops on: a comparison's changes, a single run's own verdicts
        judged = view.changes if job.kind == "compare" else [v for r in view.runs for v in r.verdicts]
        needed = [v.needed for v in judged if v.needed]
        if job.kind == "compare" and not view.changes:
            view.target = None  # no paired look yet: the games it needs are not known
            return view
        goal = max([view.games, *needed]) if needed else view.games
        view.target = min(goal, cap) if cap else goal
    else:
        view.target = cap
    return view


def compare_changes(workspace: Workspace, job: Job, margins: Margins = DEFAULT_MARGINS) -> list[Verdict]:
    """The paired verdicts of a compare job's two runs, as `balance compare` judges them."""
    try:
        return judge_folder(workspace.root / job.about["folder"], margins)[3]
    except ConfigError:
        return []
