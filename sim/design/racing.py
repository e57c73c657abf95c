"""The race of `balance tune`, as pure functions of the candidates' standings: who is dropped after a
round, who is best, whether the answer is decided, and the sentence that states it. `race` drives the
rounds through a play function it is handed, so it runs no game itself (sim/design/tune.py plays them).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from analysis import figures
from analysis.stats import seat_deviation, z_value
from sim.design.tune_file import Racing, Target


@dataclass
class Standing:
    """A candidate's figures after a round (all from its games so far)."""

    slug: str
    games: int
    wins: list[float]
    value: float  # the objective
    low: float
    high: float
    # "yes": every constraint met at the confidence; "no": one clearly violated; else "unsure"
    feasible: str = "yes"
    why_infeasible: str = ""
    length: float = math.nan
    length_low: float = math.nan
    length_high: float = math.nan
    chit_max: float = math.nan
    chit_max_item: str = ""
    chit_max_low: float = math.nan
    chit_max_high: float = math.nan


def standing(slug: str, wins, games: int, target: Target, confidence: float = 0.95,
             length: tuple[float, float] | None = None,
             chits: list[tuple[str, float, float]] | None = None) -> Standing:
    """A candidate's standing from win counts, and (when the target constrains them) its mean game
    length and sd (``length``) and each chit type's win added with its standard error (``chits``)."""
    dev = seat_deviation(wins, games, confidence)
    s = Standing(slug=slug, games=games, wins=[float(w) for w in wins], value=dev["value"], low=dev["low"],
                 high=dev["high"])
    states = []
    if target.length is not None and length is not None:
        mean, sd = length
        half = z_value(confidence) * sd / math.sqrt(games) if games > 1 else math.inf
        s.length, s.length_low, s.length_high = mean, mean - half, mean + half
        lo, hi = target.length
        if s.length_high < lo or s.length_low > hi:
            states.append("no")
            s.why_infeasible = f"game length {mean:.1f} [{s.length_low:.1f}, {s.length_high:.1f}] outside " \
                               f"{lo:g}..{hi:g}"
        else:
            states.append("yes" if lo <= s.length_low and s.length_high <= hi else "unsure")
    if target.chit_cap is not None and chits:
        z = z_value(confidence, len(chits))
        bounds = [(item, value, value - z * se, value + z * se) for item, value, se in chits]
        item, value, low, high = max(bounds, key=lambda b: b[1])
        s.chit_max, s.chit_max_item, s.chit_max_low, s.chit_max_high = value, item, low, high
        clearly = [b for b in bounds if b[2] > target.chit_cap]
        if clearly:
            states.append("no")
            b = max(clearly, key=lambda b: b[2])
            s.why_infeasible = (s.why_infeasible + "; " if s.why_infeasible else "") + \
                f"chit {b[0]} adds {figures.figure(100 * b[1])} pp " \
                f"{figures.interval(100 * b[2], 100 * b[3], keep_off=(0.0, 100 * target.chit_cap))} > cap"
        else:
            states.append("yes" if max(b[3] for b in bounds) <= target.chit_cap else "unsure")
    s.feasible = "no" if "no" in states else "unsure" if "unsure" in states else "yes"
    return s


def race_round(standings: dict[str, Standing], method: str = "intervals",
               eta: float = 3.0) -> dict[str, str]:
    """Which candidates to drop after a round, and why (slug -> reason). Pure: decides on the standings
    alone. A candidate is dropped when a constraint is clearly violated (unless every candidate violates
    one), or when its objective's lower bound lies above the best upper bound among the candidates still
    feasible; with ``method="halving"`` only the best ``ceil(n / eta)`` of the rest by objective stay."""
    dropped: dict[str, str] = {}
    alive = dict(standings)
    if any(s.feasible != "no" for s in alive.values()):
        for slug, s in list(alive.items()):
            if s.feasible == "no":
                dropped[slug] = f"constraint clearly violated: {s.why_infeasible}"
                del alive[slug]
    if not alive:
        return dropped
    best = min(alive.values(), key=lambda s: (s.high, s.value))
    for slug, s in list(alive.items()):
        if s.low > best.high:
            dropped[slug] = (f"clearly worse: objective lower bound {100 * s.low:.2f} > best upper bound "
                             f"{100 * best.high:.2f} ({best.slug})")
            del alive[slug]
    if method == "halving" and len(alive) > 1:
        keep = max(1, math.ceil(len(alive) / eta))
        ranked = sorted(alive.values(), key=lambda s: (s.value, s.high))
        for s in ranked[keep:]:
            dropped[s.slug] = f"halving: not among the best {keep} by objective"
    return dropped


def best_of(standings: list[Standing]) -> Standing:
    """The recommended standing: feasible before unsure before infeasible, then the lowest objective."""
    order = {"yes": 0, "unsure": 1, "no": 2}
    return min(standings, key=lambda s: (order[s.feasible], s.value, s.high))


def verdict(confirm: Standing, target: Target, race: list[Standing], confidence: float,
            looks: int = 1, *, limit: str = "racing.final_games",
            names: dict[str, str] | None = None) -> tuple[bool, str]:
    """Whether the target is met with `confidence`, on the recommended config's confirmation games, and
    the sentence that says so (or that no candidate in the space meets it). `looks`: the rounds the race
    planned; a candidate's last figures were seen at one of them, so the claim about every candidate is
    Bonferroni-corrected over the candidates and the looks. `limit`: the setting that stopped the race
    (what more games would take); `names`: each candidate by what it changes."""
    tol = target.tolerance
    pct = f"{100 * confidence:g}%"
    met = confirm.high < tol and confirm.feasible == "yes"
    upper = figures.bound(100 * confirm.high, True, 2, keep_off=(100 * tol,))  # never shown on the tolerance
    said = (f"largest seat deviation {figures.figure(100 * confirm.value, 2)} percentage points, {pct} upper "
            f"bound {upper} (tolerance {100 * tol:g}) on {confirm.games:,} games")
    if met:
        return True, f"Target met with {pct} confidence: {said}."
    # "No candidate meets it" is a claim about all of them at once: Bonferroni over the candidates too.
    # The recommended candidate is judged on its fresh confirmation games.
    family = 1 - (1 - confidence) / (max(1, len(race)) * max(1, looks))
    judged = [confirm if s.slug == confirm.slug else s for s in race]
    if all(s.feasible == "no" or seat_deviation(s.wins, s.games, family)["low"] > tol for s in judged):
        return False, (f"Target not met, and with {pct} confidence (simultaneous over all {len(race)} "
                       f"candidates, their seats and the race's {looks} rounds) no candidate in the space "
                       f"meets it: every candidate's "
                       f"lower bound exceeds the tolerance or it clearly violates a constraint. The "
                       f"recommended config is the closest: {said}.")
    if confirm.low > tol:
        why = f"the recommended config misses it with {pct} confidence ({said})"
    else:
        why = f"not shown at {pct} ({said})"
    if confirm.feasible != "yes" and confirm.why_infeasible:
        why += f"; {confirm.why_infeasible}"
    unsure = [(names or {}).get(s.slug, s.slug) for s in judged
              if s.feasible != "no" and seat_deviation(s.wins, s.games, family)["low"] <= tol]
    more = "a larger budget" if limit == "budget" else f"more games per candidate ({limit})"
    return False, (f"Target not met with {pct} confidence: {why}. Candidates that could not be ruled out: "
                   f"{'; '.join(unsure[:10])}{' ...' if len(unsure) > 10 else ''}; {more} would settle "
                   "them.")


#: play(tasks) -> results: each task (slug, games) brings that candidate up to `games` games in all and
#: gives back (slug, games played now, its standing on all its games).
PlayFn = Callable[[list[tuple[str, int]]], list[tuple[str, int, Standing]]]


@dataclass
class RaceResult:
    standings: dict[str, Standing]  # each candidate's standing after its last round
    games: dict[str, int]  # games each candidate played
    dropped: dict[str, tuple[int, str]]  # slug -> (round, why)
    rounds: list[dict[str, Any]]
    winner: str
    played: int = 0
    limited_by: str = "racing.final_games"  # what stopped the race: the games per candidate, or "budget"

    @property
    def total(self) -> int:
        return sum(self.games.values())


def decided(standings: list[Standing], tolerance: float) -> str:
    """Whether the race can stop because more games cannot change the answer: "met" when the best meets
    every part of the target at the confidence, "out of reach" when none can (each one's lower bound
    above the tolerance, or a constraint clearly violated), else ""."""
    if not standings:
        return ""
    best = best_of(standings)
    if best.high < tolerance and best.feasible == "yes":
        return "met"
    if all(s.low > tolerance or s.feasible == "no" for s in standings):
        return "out of reach"
    return ""


def race(slugs: list[str], play: PlayFn, racing: Racing, budget: int,
         say: Callable[[str], None] = lambda line: None, tolerance: float | None = None,
         extra: Callable[[str, int, int], int] | None = None) -> RaceResult:
    """Race the candidates (see the module docstring) within `budget` games: each round brings the survivors
    to the next sample size of ``racing.schedule()``, then drops those `race_round` rules out. When the
    budget cannot pay a round for every survivor, only the best by objective that it can pay play on. A lone
    survivor goes straight to ``final_games``. With ``racing.stop_when_decided`` and a `tolerance`, the
    race stops as soon as the survivors' answer is `decided`. The winner is `best_of` the last survivors.
    `extra(slug, have, n)`: games a candidate costs beyond its own in going from `have` to `n` (the
    pricing of a component cap), charged to the budget too."""
    return Race(slugs, play, racing, budget=budget, say=say, tolerance=tolerance, extra=extra).run()


class Race:
    """The race's state (survivors, games, standings, drops, rounds) and its steps, for `race`."""

    def __init__(self, slugs: list[str], play: PlayFn, racing: Racing, budget: int,
                 say: Callable[[str], None], tolerance: float | None,
                 extra: Callable[[str, int, int], int] | None) -> None:
        self.play, self.racing, self.budget, self.say = play, racing, budget, say
        self.tolerance, self.extra = tolerance, extra
        self.alive = list(slugs)
        self.games_of = {slug: 0 for slug in self.alive}
        self.final: dict[str, Standing] = {}
        self.dropped: dict[str, tuple[int, str]] = {}
        self.rounds: list[dict[str, Any]] = []
        self.played = 0
        self.extra_spent = 0
        self.limited_by = "racing.final_games"

    def run(self) -> RaceResult:
        for r, n in enumerate(self.racing.schedule()):
            if len(self.alive) == 1 and n < self.racing.final_games:
                continue
            cut = self.fit_budget(r, n)
            if cut is None:
                break
            self.play_round(r, n, cut)
            if self.stop_if_decided(n):
                break
        survivors = [self.final[s] for s in self.alive if s in self.final] or list(self.final.values())
        return RaceResult(standings=self.final, games=self.games_of, dropped=self.dropped, rounds=self.rounds,
                          winner=best_of(survivors).slug, played=self.played, limited_by=self.limited_by)

    def cost(self, group: list[str], n: int) -> int:
        """The games that bringing `group` to `n` games costs, their pricing included."""
        extra = self.extra
        return sum(n - self.games_of[s] + (extra(s, self.games_of[s], n) if extra else 0) for s in group)

    def fit_budget(self, r: int, n: int) -> int | None:
        """When the budget cannot pay round r + 1 (to `n` games) for every survivor, keep the best by
        objective that it can pay: how many were cut (0 when all fit), None when it pays none."""
        spent = sum(self.games_of.values()) + self.extra_spent
        if spent + self.cost(self.alive, n) <= self.budget:
            return 0
        final = self.final
        ranked = sorted(self.alive, key=lambda s: (final[s].value, final[s].high)) if final else self.alive
        keep: list[str] = []
        for slug in ranked:
            if spent + self.cost([*keep, slug], n) <= self.budget:
                keep.append(slug)
        if not keep:
            self.say(f"round {r + 1}: the budget allows no more games; the race stops")
            self.limited_by = "budget"
            return None
        for slug in self.alive:
            if slug not in keep:
                self.dropped[slug] = (r + 1, "budget: not among the best the remaining budget can play")
        cut = len(self.alive) - len(keep)
        self.alive = keep
        self.limited_by = "budget"  # candidates left the race for the budget, not on their figures
        return cut

    def play_round(self, r: int, n: int, cut: int) -> None:
        """Round r + 1: the survivors to `n` games, then the drops `race_round` rules, the round recorded
        and said (the candidates the budget cut before it named too)."""
        need = self.cost(self.alive, n)
        self.extra_spent += need - sum(n - self.games_of[s] for s in self.alive)
        for slug, p, st in self.play([(s, n) for s in self.alive]):
            self.played += p
            self.games_of[slug] = n
            self.final[slug] = st
        drops = race_round({s: self.final[s] for s in self.alive}, self.racing.method, self.racing.eta)
        for slug, why in drops.items():
            self.dropped[slug] = (r + 1, why)
        best = best_of([self.final[s] for s in self.alive])
        note = f"budget: {cut} candidates left out" if cut else ""
        self.rounds.append({"round": r + 1, "games_per_candidate": n, "candidates": len(self.alive),
                            "dropped": len(drops), "left": len(self.alive) - len(drops), "best": best.slug,
                            "best_value": best.value, "best_low": best.low, "best_high": best.high,
                            "games_in_round": need, "note": note})
        self.alive = [s for s in self.alive if s not in drops]
        # the candidates the budget cut before the round are named too: "18 left" must not become
        # "0 dropped, 8 left" with no word of the other ten
        budget_cut = f"{cut} cut for budget, " if cut else ""
        self.say(f"round {r + 1}: {self.rounds[-1]['candidates']} candidates at {n:,} games ({budget_cut}"
                 f"{len(drops)} dropped), {len(self.alive)} left; best {best.slug}: deviation "
                 f"{100 * best.value:.2f} [{100 * best.low:.2f}, {100 * best.high:.2f}] pp; "
                 f"{sum(self.games_of.values()) + self.extra_spent:,} of {self.budget:,} games")

    def stop_if_decided(self, n: int) -> bool:
        """With ``racing.stop_when_decided`` and a tolerance: whether the survivors' answer is decided
        before ``final_games`` (the round's note says so)."""
        answer = decided([self.final[s] for s in self.alive], self.tolerance) \
            if self.racing.stop_when_decided and self.tolerance is not None else ""
        if answer and n < self.racing.final_games:
            self.rounds[-1]["note"] = (self.rounds[-1]["note"] + "; " if self.rounds[-1]["note"] else "") + \
                f"decided ({answer}): the race stops"
            self.say(f"the target is {answer} for every survivor: the race stops at {n:,} games per "
                     "candidate")
            return True
        return False
