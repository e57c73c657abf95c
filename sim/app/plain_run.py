"""A fixed number of games (no --until-decided) that takes long says so before it plays: `balance
simulate`, `balance compare` and `balance profile` play the run's first games as a timed batch
(`first_batch`: until_decided's first batch, `probe_games` on each lane), and when the rest would take more
than PLAN_SECONDS at that pace they say one plan line (the games, the time and the pace it was measured
at), then a progress line at most every EVERY seconds as chunks land (`ProgressLines`: games done of the
total, time so far, time left). A quick run says nothing more than before.

The batch is the run's own first games, not extra ones: game i plays from the seed of (seed, i) whatever
the chunks, so the tables are those of the same run without it, and a run directory resumes as ever. Its
pace carries no first compile of the kernels nor the workers' start-up: `warm` (sim.app.runner.warm_kernels)
loads them before the clock starts, as play_until_decided's first batch does.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from analysis.verdicts import duration
from sim.app.kernel_cache import announce_compiling
from sim.app.runner import RunPlan, warm_kernels
from sim.app.until_decided import probe_games, rate_text
from storage.run_dir import RunDirectory

#: a run whose games would take longer than this (after its first batch) says its plan and progress lines
PLAN_SECONDS = 10.0
#: seconds at least between two progress lines
EVERY = 10.0


def _to_stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


class ProgressLines:
    """A line at most every `every` seconds (EVERY) while chunks come in (the progress callback of
    `sim.app.runner.simulate`): the games done of `total`, the time since `started`, and the time left at
    the pace of the games played since then (a long run is never silent). `done`: the games in hand when
    the lines start, `already` of them there before `started` (not timed)."""

    def __init__(self, game: str, total: int, unit: str, every: float | None = None,
                 clock: Callable[[], float] = time.monotonic, *, done: int = 0, already: int = 0,
                 started: float | None = None, say: Callable[[str], None] = _to_stderr) -> None:
        self.game, self.total, self.unit, self.clock, self.say = game, total, unit, clock, say
        self.every = EVERY if every is None else every
        self.last = clock()
        self.start = self.last if started is None else started
        self.done, self.already = done, already

    def __call__(self, games: int) -> None:
        self.done += games
        now = self.clock()
        if now - self.last < self.every or self.done >= self.total:
            return
        self.last = now
        spent, played = now - self.start, self.done - self.already
        left = f", about {duration((self.total - self.done) * spent / played)} left" if played > 0 else ""
        self.say(f"{self.game}: {self.done:,} of {self.total:,} {self.unit} played now, "
                 f"{duration(spent)}{left}")


def warmer(plan: RunPlan, jobs: int, backend: str, say: Callable[[str], None]) -> Callable[[], None]:
    """The `warm` of a first timed batch (here and in play_until_decided): say that the kernels compile
    now when numba's cache is cold, then load or compile them here and in the workers, waiting for it."""
    def warm() -> None:
        announce_compiling(plan.spec, lambda line: say(f"balance: {line}"))
        warm_kernels(plan, jobs, backend)
    return warm


@dataclass
class FirstBatch:
    """What `first_batch` did: the games it played (the runs' first missing ones), and the progress lines
    for the rest (None when the rest is quick: nothing was said)."""

    played: int = 0
    progress: ProgressLines | None = None


def first_batch(play_to: Callable[[int, int], int], runs: Sequence[RunDirectory], games: int, *,
                smallest_chunk: int, jobs: int, who: str, label: str, say: Callable[[str], None],
                warm: Callable[[], None] | None = None,
                clock: Callable[[], float] = time.monotonic) -> FirstBatch:
    """Before `runs` (one run directory, or a comparison's two played alike) are brought to `games` games
    each: play and time their first batch, `probe_games` a lane on `jobs` lanes (`play_to(n, chunk)`
    brings every run to n games in all in chunks of `chunk`, returning the games it played), and when the
    rest would take more than PLAN_SECONDS say the plan ("Plan: N games by `who`, about T at R measured on
    the first M games") and hand back the progress lines (named `label`) for the rest. Nothing is played
    when the first batch would be the whole run."""
    lane = probe_games(smallest_chunk)
    to = min(run.finished_games() for run in runs) + lane * max(1, jobs)
    if to >= games:
        return FirstBatch()
    had = [run.finished_within(games) for run in runs]
    if warm is not None:
        warm()
    before = clock()
    got = play_to(to, lane)
    seconds = clock() - before
    total, done = games * len(runs), sum(had) + got
    if got <= 0 or seconds <= 0 or (total - done) * seconds / got < PLAN_SECONDS:
        return FirstBatch(played=max(0, got))
    pace = seconds / got
    each = f" ({games:,} of each config)" if len(runs) > 1 else ""
    there = f" ({sum(had):,} already there)" if sum(had) else ""
    measured = f"the {got:,} games played now" if sum(had) else f"the first {got:,} games"
    say(f"Plan: {total:,} games{each} by {who}{there}, about {duration((total - done) * pace)} at "
        f"{rate_text(pace)} measured on {measured}")
    return FirstBatch(played=got, progress=ProgressLines(label, total, "games", clock=clock, done=done,
                                                         already=sum(had), started=before, say=say))
