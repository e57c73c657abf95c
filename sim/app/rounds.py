"""A fixed number of games played in rounds, with a plan, a progress line a round and a time cap: what
`balance values` plays (a values run takes minutes: its base games each play every component's arms from
every position).

Before the first round the seconds a game are known from the run directory's earlier sessions
(`sim.app.until_decided.run_pace`), or else a small first batch (the plan's smallest chunk, on every job) is
played and timed; then the plan is said (the games, and the time they take at that pace), and the rest is
played in rounds of about `ROUND_SECONDS` each, a line after each (games in hand, time so far, time left at
the pace so far). With a time cap no round starts that the time left cannot pay for at the measured pace
(the slower of the run directory's sessions and this loop's own rounds): the last round is sized to end
before the cap.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

from analysis.verdicts import duration

#: a round's length once the pace is known: a progress line about this often
ROUND_SECONDS = 20.0
#: the last round under a time cap is sized at this many times the measured pace (a round's own start-up,
#: and base games that run long)
SAFETY = 1.1


@dataclass
class RoundsResult:
    """What `play_in_rounds` did: the games in hand at the end, those it played, its rounds and seconds,
    and whether the time cap stopped it short of the games asked."""

    games: int
    played: int
    already: int
    rounds: int
    seconds: float
    capped: bool


def _rate(seconds_a_game: float, unit: str) -> str:
    rate = 1 / seconds_a_game
    if rate >= 10:
        return f"{rate:,.0f} {unit}/s"
    if rate >= 1:
        return f"{rate:.1f} {unit}/s"
    return f"{seconds_a_game:,.1f} s a {unit.removesuffix('s')}"


def play_in_rounds(play_to: Callable[[int], int], held: Callable[[], int], games: int, *,
                   minutes: float | None = None, say: Callable[[str], None] = print,
                   cost: Callable[[int], float | None] | None = None, probe: int = 1, what: str = "values",
                   unit: str = "base games", clock: Callable[[], float] = time.monotonic,
                   reserve: float = 0.0) -> RoundsResult:
    """Bring a run to `games` games (`play_to(n)`: to n in all, returning the games it played; `held()`:
    the games 0..k-1 finished now) in rounds, saying the plan first and a line after every round; with
    `minutes`, stop before a round the time left cannot pay for. `cost(n)`: the seconds playing to n would
    take at the run's own earlier pace, None before any of its games was timed. `reserve`: seconds of the
    cap kept aside for what the command does after the last round (reading and printing the values)."""
    started = clock()
    already = have = held()
    played, rounds = 0, 0
    timed: list[tuple[int, float]] = []  # (games, seconds) of each round that played

    def pace() -> float | None:
        figures = []
        if timed:
            kept = timed[1:] if len(timed) > 1 else timed  # the first batch carries the start-up
            figures.append(max(sum(s for _, s in kept) / sum(g for g, _ in kept), kept[-1][1] / kept[-1][0]))
        if cost is not None:
            ahead = cost(have + 1)
            if ahead is not None and ahead > 0:
                figures.append(ahead)
        return max(figures) if figures else None

    def left() -> float:
        return 60 * minutes - (clock() - started) - reserve if minutes is not None else math.inf

    def play(to: int) -> None:
        nonlocal have, played, rounds
        before = clock()
        got = play_to(to)
        spent = clock() - before
        have, rounds = held(), rounds + 1
        played += got
        if got > 0 and spent > 0:
            timed.append((got, spent))

    if have < games and pace() is None:
        first = min(games, have + max(1, probe))
        say(f"{what}: timing a first batch of {first - have:,} {unit}, for the plan")
        play(first)
    per = pace()
    if have < games:
        need = (games - have) * per if per else None
        cap = f"; time cap {minutes:g} min" if minutes is not None else ""
        when = f", about {duration(need)} at {_rate(per, unit)}" if need is not None else ""
        beyond = " (more than the time cap: it stops at the cap with the games played by then)" \
            if need is not None and minutes is not None and need > left() else ""
        say(f"{what}: plan: {games - have:,} more {unit} to {games:,}{when}{cap}{beyond}")
    capped = False
    while have < games:
        per = pace()
        size = max(1, probe, int(ROUND_SECONDS / per)) if per else games - have
        size = max(size, math.ceil(0.05 * have))
        to = min(games, have + size)
        if minutes is not None and per:
            fits = have + int(max(0.0, left()) / (SAFETY * per))
            to = min(to, fits)
            if to <= have:
                capped = True
                break
        play(to)
        per = pace()
        rest = f", about {duration((games - have) * per)} left" if per and have < games else ""
        say(f"{what}: {have:,} of {games:,} {unit} ({100 * have / games:.0f}%), "
            f"{duration(clock() - started)} in all{rest}")
    seconds = clock() - started
    if capped:
        say(f"{what}: stopped: the time cap ({minutes:g} min) reached at {have:,} of {games:,} {unit}, "
            f"in {duration(seconds)}")
    return RoundsResult(games=have, played=played, already=already, rounds=rounds, seconds=seconds,
                        capped=capped)
