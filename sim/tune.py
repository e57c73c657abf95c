"""`balance tune`: search a declared space of config values for the one that best meets a balance target
(issue 7), racing the candidates so that clearly worse ones stop early.

A tune file (TOML)::

    base = "../kamakura/base.toml"       # relative to this file, or absolute
    players = 4
    agents = "greedy"                    # one --agents value
    seed = 1                             # the race's games; the confirmation plays fresh seeds
    budget = 600000                      # total games at most (race and confirmation)

    [space]                              # every combination: integer ranges and choices, by dotted key
    "rules.order_chit_moves[1]" = {min = 0, max = 4}
    "rules.tie_break" = {choices = ["last_in_order", "shared"]}

    [target]
    tolerance = 0.02                     # every seat's win rate within 2 points of 1/players
    length = {min = 25, max = 40}        # optional: mean game length (turns or rounds)
    chit_cap = 0.15                      # optional, Kamakura: no chit type adds more to the win rate

    [racing]
    method = "intervals"                 # or "halving" (also keep only the best 1/eta each round)
    first_games = 1000                   # games per candidate in round 1
    growth = 2                           # each round multiplies the games of the survivors
    final_games = 20000                  # the games a candidate has when it is chosen
    confirm_games = 20000                # fresh games for the recommended config (0: no confirmation)
    confidence = 0.95
    eta = 3
    stop_when_decided = true             # stop once the answer is decided (met, or out of reach)

The objective is the largest deviation of a seat's win rate from the fair share, ``max_s |p_s - 1/N|``
(win shares as in `analysis.seats`: ties by the configured tie-break, shared wins 1/k). Its bounds are
simultaneous over the seats (Wilson intervals at ``1 - (1 - confidence) / seats`` each), so "every seat
within the tolerance" holds at the stated confidence when the upper bound is below the tolerance.

Racing: round r plays every surviving candidate up to ``first_games * growth**r`` games (capped at
``final_games``), through `sim.runner.simulate` into ``<out>/candidates/<slug>/`` (game i of every
candidate has the seed of (seed, i): common random numbers, and each round adds fresh game indices). After
each round a candidate is dropped when a constraint is clearly violated (its interval lies outside the
range or above the cap) or when its objective's lower bound exceeds the best candidate's upper bound. The
race ends when the survivors have ``final_games``, or (``stop_when_decided``, the default) as soon as the
answer is decided: the best survivor meets the target at the confidence, or no survivor can. The survivor
with the lowest objective is recommended and then plays ``confirm_games`` games with a fresh seed, on which
alone the statement "target met with 95% confidence" rests (the race's own figures favour the winner,
which was chosen on them).
Everything is resumable: a killed tune replays nothing that finished.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import os
import time
import tomllib
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from statistics import NormalDist
from typing import Any

import numpy as np

from sim.config import (
    check_unknown_keys,
    expect_bool,
    expect_int,
    expect_list,
    expect_str,
    expect_str_choice,
    expect_table,
    fail,
    load_toml,
)
from sim.errors import ConfigError
from sim.overrides import KeyPath, apply_overrides, dump_toml, format_value, parse_key, path_text
from sim.runner import RunDirectory, RunPlan, check_directory, simulate
from sim.sweep import (
    agent_lineups,
    check_agents,
    finished_games,
    load_base,
    player_counts,
    validate,
    write_if_changed,
)

_TUNE_KEYS = {"base", "description", "players", "agents", "seed", "budget", "space", "target", "racing",
              "skip_invalid"}
_TARGET_KEYS = {"objective", "tolerance", "length", "chit_cap"}
_RACING_KEYS = {"method", "first_games", "growth", "final_games", "confirm_games", "confidence", "eta",
                "stop_when_decided"}
TUNE_MANIFEST = "tune.json"


# ---- the tune file ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Target:
    tolerance: float = 0.02
    length: tuple[float, float] | None = None
    chit_cap: float | None = None


@dataclass(frozen=True)
class Racing:
    method: str = "intervals"
    first_games: int = 1000
    growth: float = 2.0
    final_games: int = 20000
    confirm_games: int = 20000
    confidence: float = 0.95
    eta: float = 3.0
    stop_when_decided: bool = True  # stop once the target is met, or out of reach, for every survivor

    def schedule(self) -> list[int]:
        """Games per candidate after each round: first_games, x growth, ..., final_games."""
        out = [min(self.first_games, self.final_games)]
        while out[-1] < self.final_games:
            out.append(min(self.final_games, max(out[-1] + 1, math.ceil(out[-1] * self.growth))))
        return out


@dataclass(frozen=True)
class Candidate:
    slug: str
    values: tuple[Any, ...]  # one per space key, in the space's order
    overrides: dict[KeyPath, Any]
    config: dict[str, Any]

    def label(self) -> str:
        return ", ".join(f"{path_text(k)} = {format_value(v)}" for k, v in self.overrides.items())


@dataclass(frozen=True)
class Tune:
    file: str
    base: str
    game: str
    base_config: dict[str, Any]
    players: int
    agents: str
    seed: int
    budget: int
    space: tuple[tuple[KeyPath, tuple[Any, ...]], ...]
    target: Target
    racing: Racing
    candidates: tuple[Candidate, ...]
    invalid: tuple[tuple[str, str], ...] = ()  # (candidate label, why) left out with skip_invalid
    description: str = ""


def _number(value: object, file: str, key: str, lo: float, hi: float | None = None) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        fail(file, key, f"must be a number, got {value!r}")
    if value < lo or (hi is not None and value > hi):
        fail(file, key, f"must be in {lo}..{hi}, got {value}" if hi is not None else
             f"must be at least {lo}, got {value}")
    return float(value)


def _space(table: dict[str, Any], file: str) -> tuple[tuple[KeyPath, tuple[Any, ...]], ...]:
    out = []
    for key, spec in table.items():
        where = f"space.{json.dumps(key)}"
        path = parse_key(key, file, where)
        if isinstance(spec, list):
            spec = {"choices": spec}
        spec = expect_table(spec, file, where)
        check_unknown_keys(spec, ("min", "max", "step", "choices"), file, where)
        if "choices" in spec:
            if set(spec) != {"choices"}:
                fail(file, where, "give either choices = [...] or min/max (and step), not both")
            values = tuple(expect_list(spec["choices"], file, f"{where}.choices"))
            if not values:
                fail(file, f"{where}.choices", "must list at least one value")
            if len({format_value(v) for v in values}) < len(values):
                fail(file, f"{where}.choices", "repeats a value")
        else:
            if "min" not in spec or "max" not in spec:
                fail(file, where, "needs {min = ..., max = ...} (integers) or {choices = [...]}")
            lo = expect_int(spec["min"], file, f"{where}.min")
            hi = expect_int(spec["max"], file, f"{where}.max", lo=lo)
            step = expect_int(spec.get("step", 1), file, f"{where}.step", lo=1)
            values = tuple(range(lo, hi + 1, step))
        out.append((path, values))
    if not out:
        fail(file, "space", "is empty: name at least one dotted key to search")
    if len({p for p, _ in out}) < len(out):
        fail(file, "space", "names a key twice")
    return tuple(out)


def _slug(values: tuple[Any, ...]) -> str:
    parts = []
    for v in values:
        if isinstance(v, bool | int | str) and len(str(v)) <= 16:
            parts.append(str(v).lower() if isinstance(v, bool) else str(v))
        else:
            parts.append(hashlib.sha256(format_value(v).encode()).hexdigest()[:6])
    text = "c-" + "_".join(parts)
    text = "".join(c if c.isalnum() or c in "_.=-" else "-" for c in text)
    if len(text) > 60:
        text = "c-" + hashlib.sha256(text.encode()).hexdigest()[:12]
    return text


def load_tune(path: str | os.PathLike[str]) -> Tune:
    """Read and validate a tune file and every candidate of its space (ConfigError naming the tune file,
    the key and what is wrong) before anything runs."""
    file = os.fspath(path)
    data, _ = load_toml(file)
    check_unknown_keys(data, _TUNE_KEYS, file, "")
    for key in ("base", "players", "agents", "space", "budget"):
        if key not in data:
            fail(file, key, "missing key (a tune names base, players, agents, space and budget)")
    base, game, base_config = load_base(file, data["base"])
    counts = player_counts(file, data["players"])
    if len(counts) != 1:
        fail(file, "players", "a tune is for one player count")
    players = counts[0]
    lineups = agent_lineups(file, data["agents"])
    if len(lineups) != 1:
        fail(file, "agents", "a tune is for one agent lineup")
    agents = lineups[0]
    validate(game, base_config, players, base)
    check_agents(file, "agents", agents, players, game)
    seed = expect_int(data.get("seed", 0), file, "seed", 0, 2**63 - 1)
    budget = expect_int(data["budget"], file, "budget", 1)
    description = expect_str(data.get("description", ""), file, "description")
    skip_invalid = data.get("skip_invalid", False)
    if not isinstance(skip_invalid, bool):
        fail(file, "skip_invalid", f"must be a boolean (true or false), got {skip_invalid!r}")

    t = expect_table(data.get("target", {}), file, "target")
    check_unknown_keys(t, _TARGET_KEYS, file, "target")
    expect_str_choice(t.get("objective", "seat_balance"), file, "target.objective", ("seat_balance",))
    length = None
    if "length" in t:
        rng = expect_table(t["length"], file, "target.length")
        check_unknown_keys(rng, ("min", "max"), file, "target.length")
        lo = _number(rng.get("min", 0), file, "target.length.min", 0)
        hi = _number(rng.get("max", math.inf), file, "target.length.max", lo)
        length = (lo, hi)
    chit_cap = None
    if "chit_cap" in t:
        if game != "kamakura":
            fail(file, "target.chit_cap", "a cap on chit values is for Kamakura configs only")
        chit_cap = _number(t["chit_cap"], file, "target.chit_cap", 0, 1)
    target = Target(_number(t.get("tolerance", 0.02), file, "target.tolerance", 0, 1), length, chit_cap)

    r = expect_table(data.get("racing", {}), file, "racing")
    check_unknown_keys(r, _RACING_KEYS, file, "racing")
    defaults = Racing()
    final = expect_int(r.get("final_games", defaults.final_games), file, "racing.final_games", 1)
    racing = Racing(
        method=expect_str_choice(r.get("method", defaults.method), file, "racing.method",
                                 ("intervals", "halving")),
        first_games=expect_int(r.get("first_games", min(defaults.first_games, final)), file,
                               "racing.first_games", 1, final),
        growth=_number(r.get("growth", defaults.growth), file, "racing.growth", 1.01),
        final_games=final,
        confirm_games=expect_int(r.get("confirm_games", final), file, "racing.confirm_games", 0),
        confidence=_number(r.get("confidence", defaults.confidence), file, "racing.confidence", 0.5, 0.9999),
        eta=_number(r.get("eta", defaults.eta), file, "racing.eta", 1.01),
        stop_when_decided=expect_bool(r.get("stop_when_decided", True), file, "racing.stop_when_decided"))

    space = _space(expect_table(data["space"], file, "space"), file)
    candidates: list[Candidate] = []
    invalid: list[tuple[str, str]] = []
    seen: dict[str, str] = {}
    for values in itertools.product(*(v for _, v in space)):
        overrides = {p: v for (p, _), v in zip(space, values, strict=True)}
        label = ", ".join(f"{path_text(k)} = {format_value(v)}" for k, v in overrides.items())
        source = f"{file} (candidate {label})"
        config = apply_overrides(base_config, overrides, source)
        try:
            validate(game, config, players, source)
        except ConfigError as err:
            if not skip_invalid:
                raise ConfigError(f"{err} (set skip_invalid = true to leave such candidates out)") from None
            invalid.append((label, str(err)))
            continue
        canon = json.dumps({k: v for k, v in config.items() if k != "description"}, sort_keys=True)
        if canon in seen:
            fail(file, "space", f"candidates {seen[canon]} and {label} are the same config")
        seen[canon] = label
        candidates.append(Candidate(_slug(values), values, overrides, config))
    if not candidates:
        raise ConfigError(f"{file}: space: no candidate is a valid config; the first: {invalid[0][1]}")
    slugs = [c.slug for c in candidates]
    if len(set(slugs)) < len(slugs):
        candidates = [Candidate(f"c-{i:04d}", c.values, c.overrides, c.config)
                      for i, c in enumerate(candidates)]
    return Tune(file, base, game, base_config, players, agents, seed, budget, space, target, racing,
                tuple(candidates), tuple(invalid), description)


# ---- statistics and racing (pure) -----------------------------------------------------------------------
def z_value(confidence: float, sides: int = 1) -> float:
    """Two-sided normal quantile for `confidence` shared (Bonferroni) among `sides` intervals."""
    return NormalDist().inv_cdf(1 - (1 - confidence) / (2 * sides))


def _wilson(successes: np.ndarray, n: float, z: float) -> tuple[np.ndarray, np.ndarray]:
    from analysis.stats import wilson_intervals

    return wilson_intervals(successes, np.full(len(successes), n), z)


def seat_deviation(wins, games: int, confidence: float = 0.95) -> dict[str, float]:
    """The objective from per-seat win counts (summed win shares) of `games` games: ``value`` =
    max_s |wins_s / games - 1/seats| with ``low`` and ``high`` bounds that hold for all seats at once
    with probability `confidence` (Wilson intervals, Bonferroni over the seats)."""
    wins = np.asarray(wins, dtype=float)
    k = len(wins)
    fair = 1.0 / k
    if games <= 0:
        return {"value": math.nan, "low": 0.0, "high": 1.0 - fair}
    rates = wins / games
    low, high = _wilson(wins, games, z_value(confidence, k))
    return {"value": float(np.max(np.abs(rates - fair))),
            "low": float(np.max(np.maximum(0.0, np.maximum(low - fair, fair - high)))),
            "high": float(np.max(np.maximum(fair - low, high - fair)))}


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
    s = Standing(slug, games, [float(w) for w in wins], dev["value"], dev["low"], dev["high"])
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
                f"chit {b[0]} adds {100 * b[1]:.1f} points [{100 * b[2]:.1f}, {100 * b[3]:.1f}] > cap"
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


def verdict(confirm: Standing, target: Target, race: list[Standing], confidence: float) -> tuple[bool, str]:
    """Whether the target is met with `confidence`, on the recommended config's confirmation games, and
    the sentence that says so (or that no candidate in the space meets it)."""
    tol = target.tolerance
    pct = f"{100 * confidence:g}%"
    met = confirm.high < tol and confirm.feasible == "yes"
    figures = (f"largest seat deviation {100 * confirm.value:.2f} points, {pct} upper bound "
               f"{100 * confirm.high:.2f} (tolerance {100 * tol:g}) on {confirm.games:,} games")
    if met:
        return True, f"Target met with {pct} confidence: {figures}."
    # "No candidate meets it" is a claim about all of them at once: Bonferroni over the candidates too.
    # The recommended candidate is judged on its fresh confirmation games.
    family = 1 - (1 - confidence) / max(1, len(race))
    judged = [confirm if s.slug == confirm.slug else s for s in race]
    if all(s.feasible == "no" or seat_deviation(s.wins, s.games, family)["low"] > tol for s in judged):
        return False, (f"Target not met, and with {pct} confidence (simultaneous over all {len(race)} "
                       f"candidates and their seats) no candidate in the space meets it: every candidate's "
                       f"lower bound exceeds the tolerance or it clearly violates a constraint. The "
                       f"recommended config is the closest: {figures}.")
    if confirm.low > tol:
        why = f"the recommended config misses it with {pct} confidence ({figures})"
    else:
        why = f"not shown at {pct} ({figures})"
    if confirm.feasible != "yes" and confirm.why_infeasible:
        why += f"; {confirm.why_infeasible}"
    unsure = [s.slug for s in judged
              if s.feasible != "no" and seat_deviation(s.wins, s.games, family)["low"] <= tol]
    return False, (f"Target not met with {pct} confidence: {why}. Candidates that could not be ruled out: "
                   f"{', '.join(unsure[:10])}{' ...' if len(unsure) > 10 else ''}; more games "
                   f"(racing.final_games) would settle them.")


# ---- figures of a run ----------------------------------------------------------------------------------
def run_standing(slug: str, run_dir: str | os.PathLike[str], games: int, target: Target,
                 confidence: float) -> Standing:
    """A candidate's standing from its run directory's first `games` games."""
    from analysis.runs import read_table
    from analysis.seats import seat_win_rates

    players = read_table(run_dir, "players")
    players = players[players["game_id"] < games]
    seats = seat_win_rates(players)
    n = int(seats["games"].max())
    length = None
    if target.length is not None:
        g = read_table(run_dir, "games")
        col = "turns" if "turns" in g.columns else "rounds"
        values = g.loc[g["game_id"] < games, col].to_numpy(dtype=float)
        length = (float(values.mean()), float(values.std(ddof=1)) if len(values) > 1 else math.inf)
    chits = None
    if target.chit_cap is not None:
        from analysis.chit_values import chit_values
        from analysis.stats import Z95

        events = read_table(run_dir, "events")
        events = events[events["game_id"] < games]
        manifest = json.loads((Path(run_dir) / "manifest.json").read_text())
        table = chit_values(events, players, manifest["config"])
        se = (table["ci_high"] - table["ci_low"]) / (2 * Z95)
        chits = [(f"{c} {int(i)}", float(v), float(e)) for c, i, v, e in
                 zip(table["colour"], table["icons"], table["win_added"], se, strict=True) if np.isfinite(v)]
    return standing(slug, seats["wins"].to_numpy(), n, target, confidence, length, chits)


def _play(plan: RunPlan, games: int, out: str, slug: str, target: Target, confidence: float, jobs: int = 1,
          force: bool = False) -> tuple[str, int, Standing]:
    """Play a candidate up to `games` (resuming its run directory) and return its standing (a worker)."""
    played = 0
    if force or finished_games(Path(out)) < games:
        played = simulate(plan, games, out, jobs=jobs, force=force).played
    return slug, played, run_standing(slug, out, games, target, confidence)


# ---- the race ----------------------------------------------------------------------------------------------
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
         say: Callable[[str], None] = lambda line: None, tolerance: float | None = None) -> RaceResult:
    """Race the candidates (see the module docstring) within `budget` games: each round brings the survivors
    to the next sample size of ``racing.schedule()``, then drops those `race_round` rules out. When the
    budget cannot pay a round for every survivor, only the best by objective that it can pay play on. A lone
    survivor goes straight to ``final_games``. With ``racing.stop_when_decided`` and a `tolerance`, the
    race stops as soon as the survivors' answer is `decided`. The winner is `best_of` the last survivors."""
    alive = list(slugs)
    games_of = {slug: 0 for slug in alive}
    final: dict[str, Standing] = {}
    dropped: dict[str, tuple[int, str]] = {}
    rounds: list[dict[str, Any]] = []
    played = 0
    for r, n in enumerate(racing.schedule()):
        if len(alive) == 1 and n < racing.final_games:
            continue
        spent = sum(games_of.values())

        def cost(group: list[str], n: int = n) -> int:
            return sum(n - games_of[s] for s in group)

        note = ""
        if spent + cost(alive) > budget:
            ranked = sorted(alive, key=lambda s: (final[s].value, final[s].high)) if final else alive
            keep: list[str] = []
            for slug in ranked:
                if spent + cost([*keep, slug]) <= budget:
                    keep.append(slug)
            if not keep:
                say(f"round {r + 1}: the budget allows no more games; the race stops")
                break
            for slug in alive:
                if slug not in keep:
                    dropped[slug] = (r + 1, "budget: not among the best the remaining budget can play")
            note = f"budget: {len(alive) - len(keep)} candidates left out"
            alive = keep
        need = cost(alive)
        for slug, p, st in play([(s, n) for s in alive]):
            played += p
            games_of[slug] = n
            final[slug] = st
        drops = race_round({s: final[s] for s in alive}, racing.method, racing.eta)
        for slug, why in drops.items():
            dropped[slug] = (r + 1, why)
        best = best_of([final[s] for s in alive])
        rounds.append({"round": r + 1, "games_per_candidate": n, "candidates": len(alive),
                       "dropped": len(drops), "left": len(alive) - len(drops), "best": best.slug,
                       "best_value": best.value, "best_low": best.low, "best_high": best.high,
                       "games_in_round": need, "note": note})
        alive = [s for s in alive if s not in drops]
        say(f"round {r + 1}: {rounds[-1]['candidates']} candidates at {n:,} games, {len(drops)} dropped, "
            f"{len(alive)} left; best {best.slug}: deviation {100 * best.value:.2f} "
            f"[{100 * best.low:.2f}, {100 * best.high:.2f}] points")
        answer = decided([final[s] for s in alive], tolerance) if racing.stop_when_decided and \
            tolerance is not None else ""
        if answer and n < racing.final_games:
            rounds[-1]["note"] = (rounds[-1]["note"] + "; " if rounds[-1]["note"] else "") + \
                f"decided ({answer}): the race stops"
            say(f"the target is {answer} for every survivor: the race stops at {n:,} games per candidate")
            break
    survivors = [final[s] for s in alive if s in final] or list(final.values())
    winner = best_of(survivors).slug
    return RaceResult(final, games_of, dropped, rounds, winner, played)


# ---- the tune --------------------------------------------------------------------------------------------
@dataclass
class TuneResult:
    out: Path
    recommended: Candidate
    config_file: Path
    report: Path | None
    met: bool
    statement: str
    race_games: int
    confirm_games: int
    exhaustive_games: int
    played: int
    seconds: float
    rounds: list[dict[str, Any]] = field(default_factory=list)


def confirm_seed(seed: int) -> int:
    """The confirmation run's seed: fresh games, derived from the tune's seed."""
    return int(hashlib.sha256(f"balance-tune-confirm:{seed}".encode()).hexdigest()[:15], 16)


def candidate_config_text(tune: Tune, cand: Candidate, note: str = "") -> tuple[str, dict[str, Any]]:
    """A candidate's config as standalone TOML and as the table `simulate` will read from it."""
    header = (f"Candidate {cand.slug} of `balance tune {tune.file}` ({tune.players} players, agents "
              f"{tune.agents}).\n= {tune.base} with {cand.label()}.\n"
              "Standalone: `balance simulate` accepts this file as it is." + (f"\n{note}" if note else ""))
    config = dict(cand.config)
    desc = str(config.get("description") or "")
    config["description"] = (desc + " | " if desc else "") + f"tuned: {cand.label()}"
    config = {"game": config.pop("game"), "description": config.pop("description"), **config}
    text = dump_toml(config, header)
    return text, tomllib.loads(text)


def _plan(tune: Tune, config: dict[str, Any], path: Path, seed: int) -> RunPlan:
    from sim.agent_spec import parse_agents

    rules = validate(tune.game, config, tune.players, os.fspath(path))
    agents = tuple(str(a) for a in parse_agents(tune.agents, tune.players, tune.game))
    return RunPlan(tune.game, os.fspath(path), config, rules.config_hash, tune.players, agents, False, seed)


def default_out(tune_file: str | os.PathLike[str]) -> Path:
    return Path("runs") / "tunes" / Path(tune_file).stem


def run_tune(tune_file: str | os.PathLike[str], out: str | os.PathLike[str] | None = None, jobs: int = 1,
             report: bool = True, force: bool = False, say: Callable[[str], None] = print) -> TuneResult:
    """Validate the tune file, race the candidates, confirm the recommendation, write the config and the
    report. A second run with the same file and folder replays nothing that finished."""
    started = time.perf_counter()
    tune = load_tune(tune_file)
    out = Path(out) if out else default_out(tune_file)
    if out.exists() and not out.is_dir():
        raise ConfigError(f"{out}: --out is a file, not a tune folder")
    if out.is_dir() and any(out.iterdir()) and not (out / TUNE_MANIFEST).is_file():
        raise ConfigError(f"{out}: --out is a non-empty folder that is not a tune folder "
                          f"(no {TUNE_MANIFEST}); choose another --out")
    racing, target = tune.racing, tune.target
    first_round = len(tune.candidates) * racing.first_games + racing.confirm_games
    if first_round > tune.budget:
        raise ConfigError(f"{tune.file}: budget: {tune.budget:,} games cannot pay round 1 "
                          f"({len(tune.candidates)} candidates x {racing.first_games:,}) and the "
                          f"confirmation ({racing.confirm_games:,}): {first_round:,} games")
    plans: dict[str, RunPlan] = {}
    texts: dict[str, str] = {}
    for cand in tune.candidates:
        texts[cand.slug], config = candidate_config_text(tune, cand)
        plans[cand.slug] = _plan(tune, config, out / "configs" / f"{cand.slug}.toml", tune.seed)
    for cand in tune.candidates:  # every plan made first: refuse (or with force, replace) only then
        check_directory(RunDirectory(out / "candidates" / cand.slug), plans[cand.slug], force=force)
    (out / "configs").mkdir(parents=True, exist_ok=True)
    (out / "candidates").mkdir(exist_ok=True)
    for slug, text in texts.items():
        write_if_changed(out / "configs" / f"{slug}.toml", text)

    executor = None
    if jobs > 1:
        from joblib.externals.loky import get_reusable_executor

        executor = get_reusable_executor(max_workers=jobs)

    def play(tasks: list[tuple[str, int]]) -> list[tuple[str, int, Standing]]:
        args = [(plans[s], n, os.fspath(out / "candidates" / s), s, target, racing.confidence)
                for s, n in tasks]
        if executor is None or len(args) == 1:
            return [_play(*a) for a in args]
        return list(executor.map(_play, *zip(*args, strict=True)))

    try:
        result = race([c.slug for c in tune.candidates], play, racing, tune.budget - racing.confirm_games,
                      say, target.tolerance)
    finally:
        if executor is not None:
            executor.shutdown(wait=True)
    by_slug = {c.slug: c for c in tune.candidates}
    cand = by_slug[result.winner]
    winner = result.standings[result.winner]
    played = result.played

    # confirmation: fresh games of the recommended config (forced: replaces an earlier recommendation's)
    confirm = None
    cseed = confirm_seed(tune.seed)
    if racing.confirm_games:
        _, config = candidate_config_text(tune, cand)
        plan = _plan(tune, config, out / "configs" / f"{cand.slug}.toml", cseed)
        confirm_dir = os.fspath(out / "confirm")
        manifest = RunDirectory(confirm_dir).read_manifest()
        force = manifest is not None and (manifest.get("config_hash"), manifest.get("seed")) != \
            (plan.config_hash, plan.seed)
        _, p, confirm = _play(plan, racing.confirm_games, confirm_dir, cand.slug, target, racing.confidence,
                              jobs=jobs, force=force)
        played += p
        say(f"confirmation: {cand.slug} on {racing.confirm_games:,} fresh games (seed {cseed}): deviation "
            f"{100 * confirm.value:.2f} [{100 * confirm.low:.2f}, {100 * confirm.high:.2f}] points")
    judged = confirm or winner
    met, statement = verdict(judged, target, list(result.standings.values()), racing.confidence)
    if confirm is None:
        statement += " (judged on the race's own games, with no confirmation run: they favour the winner)"
    race_games = result.total
    confirm_games = racing.confirm_games if confirm else 0
    # an exhaustive grid at the same per-candidate sample size: every candidate as many games as the
    # recommended one's figures rest on (its race games, or its confirmation games when more)
    per_candidate = max(result.games[result.winner], confirm_games)
    exhaustive = len(tune.candidates) * per_candidate
    rec_path = out / "recommended.toml"
    text, _ = candidate_config_text(tune, cand, f"{statement}")
    rec_path.write_text(text)
    state = {
        "tune_file": tune.file, "base": tune.base, "game": tune.game, "players": tune.players,
        "agents": tune.agents, "seed": tune.seed, "confirm_seed": cseed, "budget": tune.budget,
        "description": tune.description,
        "space": [{"key": path_text(p), "values": list(v)} for p, v in tune.space],
        "target": asdict(target), "racing": asdict(racing), "schedule": racing.schedule(),
        "invalid": [list(x) for x in tune.invalid],
        "candidates": [{"slug": c.slug, "label": c.label(), "values": list(c.values),
                        "games": result.games[c.slug],
                        "dropped_round": result.dropped.get(c.slug, (None, ""))[0],
                        "dropped_why": result.dropped.get(c.slug, (None, ""))[1],
                        **_standing_dict(result.standings.get(c.slug))} for c in tune.candidates],
        "rounds": result.rounds, "recommended": cand.slug, "recommended_label": cand.label(),
        "race_final": _standing_dict(winner), "confirm": _standing_dict(confirm),
        "met": met, "statement": statement, "race_games": race_games, "confirm_games": confirm_games,
        "total_games": race_games + confirm_games, "exhaustive_games": exhaustive,
        "games_per_candidate_exhaustive": per_candidate,
        "recommended_config": os.fspath(rec_path),
    }
    (out / TUNE_MANIFEST).write_text(json.dumps(state, indent=2, default=_json))
    page = None
    if report:
        from analysis.tune_report import build_tune_report

        page = build_tune_report(out)
    return TuneResult(out, cand, rec_path, page, met, statement, race_games, confirm_games, exhaustive,
                      played, time.perf_counter() - started, result.rounds)


def _standing_dict(s: Standing | None) -> dict[str, Any]:
    if s is None:
        return {}
    return {k: (None if isinstance(v, float) and not math.isfinite(v) else v) for k, v in asdict(s).items()}


def _json(value: Any) -> Any:
    if hasattr(value, "item"):
        return value.item()
    if isinstance(value, tuple):
        return list(value)
    raise TypeError(f"not JSON: {type(value)}")
