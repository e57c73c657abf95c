"""The tune file (TOML) of `balance tune`: its space, target and racing settings, read and validated with
every candidate of the space before anything runs. The format is documented in sim/design/tune.py."""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import os
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from sim.core.config import (
    check_unknown_keys,
    expect_bool,
    expect_int,
    expect_list,
    expect_str,
    expect_str_choice,
    expect_table,
    fail,
    load_toml,
    value_described,
)
from sim.core.errors import ConfigError
from sim.core.game_spec import GameSpec
from sim.design.files import agent_lineups, check_agents, games_count, load_base, player_counts, validate
from sim.design.overrides import KeyPath, apply_overrides, format_value, path_text
from sim.design.search_space import SearchSpace, read_constraints, read_dimensions

_TUNE_KEYS = {"base", "description", "players", "agents", "seed", "budget", "space", "target", "racing",
              "skip_invalid", "constraints", "search"}
_SEARCH_KEYS = {"method", "sampler", "objectives", "first_games", "growth", "final_games", "confirm_games",
                "confirm_agents", "confirm_points", "confidence", "startup_trials", "values_games",
                "confirm_values_games", "verify_games", "curve_checks", "curve_games"}
SAMPLERS = ("tpe", "cmaes", "nsga2", "random")
OBJECTIVES = ("seats", "changes", "l1")
METHODS = ("auto", "racing", "model")
MAX_RACED = 5000  # method = "auto": race every candidate up to this many, search by model beyond
#: the most values one space key may take ({min, max, step} counted before it is expanded): a
#: `max = 10**30` is refused at once, not built value by value
MAX_DIMENSION_VALUES = 10_000
_TARGET_KEYS = {"objective", "tolerance", "length", "chit_cap"}
_RACING_KEYS = {"method", "first_games", "growth", "final_games", "confirm_games", "confidence", "eta",
                "stop_when_decided", "values_games", "confirm_values_games"}


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
    #: with target.chit_cap: base games of the values study that price a candidate at final_games (earlier
    #: rounds in proportion to their games), and the fresh ones that price the recommendation
    values_games: int = 60
    confirm_values_games: int = 200

    def values_at(self, games: int) -> int:
        """The base games that price a candidate with `games` games: in proportion, two at least."""
        return max(2, math.ceil(self.values_games * games / self.final_games))

    def look_confidence(self) -> float:
        """The confidence of each round's intervals: the race looks at the same candidates once a round,
        and a candidate may be dropped at any look, so each look spends an equal share of the error
        allowed (Bonferroni over the planned looks, the simplest alpha spending): a candidate is wrongly
        ruled out with probability <= 1 - confidence over the whole race, not per round."""
        return 1 - (1 - self.confidence) / len(self.schedule())

    def schedule(self) -> list[int]:
        """Games per candidate after each round: first_games, x growth, ..., final_games."""
        out = [min(self.first_games, self.final_games)]
        while out[-1] < self.final_games:
            out.append(min(self.final_games, max(out[-1] + 1, math.ceil(out[-1] * self.growth))))
        return out


@dataclass(frozen=True)
class Search:
    """The ``[search]`` table: how a space too large to race is searched (sim/design/model_search.py)."""

    sampler: str = "tpe"
    objectives: tuple[str, ...] = ("seats",)
    first_games: int = 500
    growth: float = 2.0
    final_games: int = 4000
    confirm_games: int = 20000
    confirm_agents: str = ""
    confirm_points: int = 3
    confidence: float = 0.95
    startup_trials: int = 20
    #: with target.chit_cap: base games of the values study that price a fully played candidate's component
    #: kinds (each base game plays every kind's arms), and the fresh ones that confirm the recommendation
    values_games: int = 60
    confirm_values_games: int = 200
    #: above final_games: a candidate that ends the stages better than the best verified one plays on to
    #: this many games before it counts (the incumbent's check); at final_games (the default), no check.
    #: Measured on the shipped chit-points example it made the confirmed recommendations worse (README),
    #: so it is off
    verify_games: int = 4000
    #: the curve's checks (sim/design/curve_checks.py): at k/curve_checks of the budget, k < curve_checks,
    #: each study's best so far plays curve_games fresh games; the last check is the confirmation. They
    #: measure the search and never steer it, so they are neither in the budget nor in the study's identity
    curve_checks: int = 4
    curve_games: int = 4000

    def schedule(self) -> list[int]:
        """Games a trial has after each stage: first_games, x growth, ..., final_games."""
        return Racing(first_games=self.first_games, growth=self.growth,
                      final_games=self.final_games).schedule()


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
    spec: GameSpec  # the base config's game, looked up once when the file is read
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
    method: str = "racing"                # "racing" (every candidate) or "model" (sim/design/model_search)
    search_space: SearchSpace | None = None
    search: Search | None = None

    @property
    def game(self) -> str:
        """The game's name, as tune.json and the report record it."""
        return self.spec.name


#: the bounds of a factor between rounds (racing.growth, search.growth, racing.eta), said in `balance tune
#: --help`: past the ceiling the next round's games overflow a count; at the floor a round adds a game
GROWTH = (1.01, 100.0)
#: the least target.tolerance, said in `balance tune --help`: the smallest --margin (0.01 pp); a tolerance of
#: 0 asks for seats exactly equal, which no count of games can show
LEAST_TOLERANCE = 0.0001


def number(value: object, file: str, key: str, lo: float, hi: float | None = None) -> float:
    """A finite number in [lo, hi] (nan and inf are refused: a growth, eta or length bound of inf or nan
    would run a race forever or make every comparison false)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        fail(file, key, f"must be a number, {value_described(value)}")
    if not math.isfinite(value):
        fail(file, key, f"must be a finite number, got {value}")
    if value < lo or (hi is not None and value > hi):
        fail(file, key, f"must be in {lo}..{hi}, got {value}" if hi is not None else
             f"must be at least {lo}, got {value}")
    return float(value)


#: the tune file's shares, each with what it is and an example: a designer may type 2 for 2 percentage points
_SHARES = {"target.tolerance": "a share of games, 0.02 = 2 percentage points",
           "target.chit_cap": "a share of games, 0.15 = 15 percentage points",
           "racing.confidence": "a confidence level, 0.95 = 95%",
           "search.confidence": "a confidence level, 0.95 = 95%"}


def _share(value: object, file: str, key: str, lo: float = 0.0, hi: float | None = None) -> float:
    """A share (of games, or a confidence level) in [lo, hi], or in [lo, 1) without ``hi``. A value of 1
    or more is a percentage typed for a share: refused saying what the key is, with the share it would
    be when that is one (``got 2 (did you mean 0.02?)``)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        fail(file, key, f"must be a number ({_SHARES[key]}), {value_described(value)}")
    if not math.isfinite(value):
        fail(file, key, f"must be a finite number ({_SHARES[key]}), got {value}")
    top = 1.0 if hi is None else hi
    if value >= 1:
        meant = value / 100
        hint = f" (did you mean {meant:g}?)" if lo <= meant <= top and meant < 1 else ""
        fail(file, key, f"{_SHARES[key]}; got {value!r}{hint}")
    if value < lo or value > top:
        within = f"in {lo:g}..{hi:g}" if hi is not None else f"at least {lo:g} and below 1"
        fail(file, key, f"must be {within} ({_SHARES[key]}), got {value!r}")
    return float(value)


def _values(spec: Any, file: str, where: str) -> tuple[Any, ...]:
    """One space key's values: ``{min, max, step}`` (integers) or ``{choices = [...]}`` (or a bare list)."""
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
        return values
    if "min" not in spec or "max" not in spec:
        fail(file, where, "needs {min = ..., max = ...} (integers) or {choices = [...]}")
    lo = expect_int(spec["min"], file, f"{where}.min")
    hi = expect_int(spec["max"], file, f"{where}.max", lo=lo)
    step = expect_int(spec.get("step", 1), file, f"{where}.step", lo=1)
    count = (hi - lo) // step + 1
    if count > MAX_DIMENSION_VALUES:
        fail(file, where, f"{{min = {lo}, max = {hi}, step = {step}}} is {count:,} values; a space key takes "
                          f"at most {MAX_DIMENSION_VALUES:,}: raise step or narrow the range")
    return tuple(range(lo, hi + 1, step))


def _search(table: Any, file: str, spec: GameSpec, players: int, capped: bool) -> Search:
    t = expect_table(table, file, "search")
    check_unknown_keys(t, _SEARCH_KEYS, file, "search")
    d = Search()
    objectives = t.get("objectives", list(d.objectives))
    objectives = tuple(expect_list(objectives, file, "search.objectives"))
    for i, name in enumerate(objectives):
        expect_str_choice(name, file, f"search.objectives[{i}]", OBJECTIVES)
    if not objectives or objectives[0] != "seats" or len(set(objectives)) < len(objectives):
        fail(file, "search.objectives", 'must start with "seats" and name each objective once, e.g. '
                                        '["seats", "changes"]')
    sampler = expect_str_choice(t.get("sampler", "nsga2" if len(objectives) > 1 else d.sampler), file,
                                "search.sampler", SAMPLERS)
    if sampler == "cmaes" and len(objectives) > 1:
        fail(file, "search.sampler", "cmaes searches one objective; use nsga2 or tpe for several")
    final = games_count(t.get("final_games", d.final_games), file, "search.final_games", 1)
    confirm_agents = expect_str(t.get("confirm_agents", ""), file, "search.confirm_agents")
    if confirm_agents:
        check_agents(file, "search.confirm_agents", confirm_agents, players, spec)
    for key in ("values_games", "confirm_values_games"):
        if key in t and not capped:
            fail(file, f"search.{key}", "prices component kinds for target.chit_cap, which the file does not "
                                        "set")
    values_games = games_count(t.get("values_games", d.values_games), file, "search.values_games", 2)
    verify_games = games_count(t.get("verify_games", final), file, "search.verify_games", final)
    return Search(sampler=sampler, objectives=objectives,
                  first_games=games_count(t.get("first_games", min(d.first_games, final)), file,
                                         "search.first_games", 1, final),
                  growth=number(t.get("growth", d.growth), file, "search.growth", *GROWTH),
                  final_games=final,
                  confirm_games=games_count(t.get("confirm_games", d.confirm_games), file,
                                            "search.confirm_games", 1),
                  confirm_agents=confirm_agents,
                  confirm_points=expect_int(t.get("confirm_points", d.confirm_points), file,
                                            "search.confirm_points", 1, 20),
                  confidence=_share(t.get("confidence", d.confidence), file, "search.confidence", 0.5,
                                    0.9999),
                  startup_trials=expect_int(t.get("startup_trials", d.startup_trials), file,
                                            "search.startup_trials", 1, 10_000),
                  values_games=values_games,
                  confirm_values_games=games_count(t.get("confirm_values_games", d.confirm_values_games),
                                                   file, "search.confirm_values_games", 2),
                  verify_games=verify_games,
                  curve_checks=expect_int(t.get("curve_checks", d.curve_checks), file, "search.curve_checks",
                                          1, 20),
                  curve_games=games_count(t.get("curve_games", d.curve_games), file, "search.curve_games",
                                         2))


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


def _check_budget(budget: int, search: Search, file: str) -> None:
    """A model search's budget must leave games for the search after the confirmation it reserves (the
    confirmation's games for each point it confirms), and pay for one trial played to the end (its
    stages and the incumbent's check) and at least ten trials' first stage."""
    points = 1 if len(search.objectives) == 1 else search.confirm_points
    reserve = search.confirm_games * points
    first, full = 10 * search.schedule()[0], max(search.verify_games, search.schedule()[-1])  # full_games
    least = reserve + max(first, full)
    if budget < least:
        fail(file, "budget", f"{budget:,} games leave too few for a search: the confirmation takes "
                             f"{reserve:,} (search.confirm_games x {points} point(s)), and ten trials' first "
                             f"stage {first:,} (search.first_games) or one trial played to the end {full:,} "
                             f"(search.final_games, search.verify_games); give at least {least:,}, or lower "
                             f"those")


def load_tune(path: str | os.PathLike[str]) -> Tune:
    """Read and validate a tune file and every candidate of its space (ConfigError naming the tune file,
    the key and what is wrong) before anything runs."""
    file = os.fspath(path)
    data, _ = load_toml(file)
    fields, skip_invalid = read_head(data, file)
    spec, players = fields["spec"], fields["players"]
    target = read_target(data.get("target", {}), file, spec)
    racing = _read_racing(data.get("racing", {}), file, target.chit_cap)
    search_space = read_space(data, file, fields["base_config"])
    method = _read_method(data, file, search_space)
    common = {"file": file, **fields, "space": tuple((d.path, d.values) for d in search_space.dimensions),
              "target": target, "racing": racing, "search_space": search_space}
    if method == "model":
        search = _search(data.get("search", {}), file, spec, players, target.chit_cap is not None)
        _check_budget(fields["budget"], search, file)
        check_corners(search_space, spec, players, file, skip_invalid)
        return Tune(**common, candidates=(), method="model", search=search)
    candidates, invalid = _candidates(search_space, file, spec, players, skip_invalid)
    return Tune(**common, candidates=candidates, invalid=invalid, method="racing")


def read_head(data: dict[str, Any], file: str,
              keys: Collection[str] = frozenset(_TUNE_KEYS)) -> tuple[dict[str, Any], bool]:
    """The tune's base config, player count, agents (checked against the base), seed, budget and
    description, as Tune fields; and skip_invalid. `keys`: the file's allowed top-level keys (`balance
    explore` reads the same head with its own tables)."""
    check_unknown_keys(data, keys, file, "")
    for key in ("base", "players", "agents", "space", "budget"):
        if key not in data:
            fail(file, key, "missing key (a tune names base, players, agents, space and budget)")
    base, spec, base_config = load_base(file, data["base"])
    counts = player_counts(file, data["players"], spec)
    if len(counts) != 1:
        fail(file, "players", "a tune is for one player count")
    players = counts[0]
    lineups = agent_lineups(file, data["agents"])
    if len(lineups) != 1:
        fail(file, "agents", "a tune is for one agent lineup")
    agents = lineups[0]
    validate(spec, base_config, players, base)
    check_agents(file, "agents", agents, players, spec)
    seed = expect_int(data.get("seed", 0), file, "seed", 0, 2**63 - 1)
    budget = games_count(data["budget"], file, "budget")
    description = expect_str(data.get("description", ""), file, "description")
    skip_invalid = data.get("skip_invalid", False)
    if not isinstance(skip_invalid, bool):
        fail(file, "skip_invalid", f"must be a boolean (true or false), got {skip_invalid!r}")
    return {"base": base, "spec": spec, "base_config": base_config, "players": players, "agents": agents,
            "seed": seed, "budget": budget, "description": description}, skip_invalid


def read_target(table: Any, file: str, spec: GameSpec) -> Target:
    """The ``[target]`` table: the tolerance, and optionally a length range and a component cap."""
    t = expect_table(table, file, "target")
    check_unknown_keys(t, _TARGET_KEYS, file, "target")
    expect_str_choice(t.get("objective", "seat_balance"), file, "target.objective", ("seat_balance",))
    length = None
    if "length" in t:
        rng = expect_table(t["length"], file, "target.length")
        check_unknown_keys(rng, ("min", "max"), file, "target.length")
        lo = number(rng.get("min", 0), file, "target.length.min", 0)
        hi = number(rng["max"], file, "target.length.max", lo) if "max" in rng else math.inf
        length = (lo, hi)
    chit_cap = None
    if "chit_cap" in t:
        if spec.values is None:
            fail(file, "target.chit_cap", f"{spec.name} has no values study to price its components by")
        chit_cap = _share(t["chit_cap"], file, "target.chit_cap")
    return Target(tolerance=_share(t.get("tolerance", 0.02), file, "target.tolerance", LEAST_TOLERANCE),
                  length=length, chit_cap=chit_cap)


def _read_racing(table: Any, file: str, chit_cap: float | None) -> Racing:
    """The ``[racing]`` table (its pricing keys only with a component cap)."""
    r = expect_table(table, file, "racing")
    check_unknown_keys(r, _RACING_KEYS, file, "racing")
    defaults = Racing()
    final = games_count(r.get("final_games", defaults.final_games), file, "racing.final_games", 1)
    racing = Racing(
        method=expect_str_choice(r.get("method", defaults.method), file, "racing.method",
                                 ("intervals", "halving")),
        first_games=games_count(r.get("first_games", min(defaults.first_games, final)), file,
                               "racing.first_games", 1, final),
        growth=number(r.get("growth", defaults.growth), file, "racing.growth", *GROWTH),
        final_games=final,
        confirm_games=games_count(r.get("confirm_games", final), file, "racing.confirm_games", 0),
        confidence=_share(r.get("confidence", defaults.confidence), file, "racing.confidence", 0.5, 0.9999),
        eta=number(r.get("eta", defaults.eta), file, "racing.eta", *GROWTH),
        stop_when_decided=expect_bool(r.get("stop_when_decided", True), file, "racing.stop_when_decided"),
        values_games=games_count(r.get("values_games", defaults.values_games), file, "racing.values_games",
                                 2),
        confirm_values_games=games_count(r.get("confirm_values_games", defaults.confirm_values_games), file,
                                         "racing.confirm_values_games", 2))
    for key in ("values_games", "confirm_values_games"):
        if key in r and chit_cap is None:
            fail(file, f"racing.{key}", "prices component kinds for target.chit_cap, which the file does not "
                                        "set")
    return racing


def read_space(data: dict[str, Any], file: str, base_config: dict[str, Any]) -> SearchSpace:
    """The ``[space]`` and ``[[constraints]]``, refused when no candidate can meet the constraints."""
    dims = read_dimensions(expect_table(data["space"], file, "space"), base_config, file,
                           lambda spec, where: _values(spec, file, where))
    constraints = read_constraints(data.get("constraints", []), dims, base_config, file)
    search_space = SearchSpace(dims, constraints, base_config)
    search_space.check_feasible(file)
    return search_space


def _read_method(data: dict[str, Any], file: str, search_space: SearchSpace) -> str:
    """``search.method``: "racing" races every candidate, "model" searches; "auto" races up to MAX_RACED.
    The ``[search]`` keys are checked whatever the method, and a table the method would ignore ([search]'s
    other keys in a race, [racing] in a model search) is refused rather than silently unused."""
    table = expect_table(data.get("search", {}), file, "search")
    check_unknown_keys(table, _SEARCH_KEYS, file, "search")
    method = given = expect_str_choice(table.get("method", "auto"), file, "search.method", METHODS)
    size = search_space.size()
    if method == "auto":
        method = "racing" if size <= MAX_RACED else "model"
    if method == "racing" and size > MAX_RACED:
        fail(file, "search.method", f"racing plays every candidate, and the space has {size:.3g}; use "
                                    f"method = \"model\" (or \"auto\") beyond {MAX_RACED:,}")
    unused = sorted(set(table) - {"method"}) if method == "racing" else sorted(data.get("racing", {}))
    if unused and given != "auto":  # "auto" may set both ways: the space's size picks one
        table_name, how = ("search", f"races its {size:,} candidates ([racing] sets how)") \
            if method == "racing" else ("racing", "searches its space by model ([search] sets how)")
        fail(file, f"{table_name}.{unused[0]}", f"would be ignored: this tune {how}")
    return method


def _candidates(search_space: SearchSpace, file: str, spec: GameSpec, players: int,
                skip_invalid: bool) -> tuple[tuple[Candidate, ...], tuple[tuple[str, str], ...]]:
    """Every candidate of a space to race, each validated by the game (one it refuses is refused by file,
    or with skip_invalid left out, as is one that breaks a constraint), and the ones left out with why."""
    space = tuple((d.path, d.values) for d in search_space.dimensions)
    candidates: list[Candidate] = []
    invalid: list[tuple[str, str]] = []
    seen: dict[str, str] = {}
    for values in itertools.product(*(v for _, v in space)):
        overrides = {p: v for (p, _), v in zip(space, values, strict=True)}
        label = ", ".join(f"{path_text(k)} = {format_value(v)}" for k, v in overrides.items())
        source = f"{file} (candidate {label})"
        config = apply_overrides(search_space.base, overrides, source)
        try:
            validate(spec, config, players, source)
        except ConfigError as err:
            if not skip_invalid:
                raise ConfigError(f"{err} (set skip_invalid = true to leave such candidates out)") from None
            invalid.append((label, str(err)))
            continue
        if search_space.violations(values):
            invalid.append((label, "breaks " + search_space.violations(values)[0]))
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
    return tuple(candidates), tuple(invalid)


def check_corners(space: SearchSpace, spec: GameSpec, players: int, file: str,
                   skip_invalid: bool) -> None:
    """Before any game, the game's validator sees the extreme candidates a model search can propose (every
    value at its lowest, at its highest, each repaired): a range the game refuses is refused here by file
    and key, not discovered trial by trial (set skip_invalid = true to let the search skip such
    candidates instead)."""
    if skip_invalid:
        return
    for end, at in (("lowest", 0), ("highest", -1)):
        values = space.repair([d.values[at] for d in space.dimensions])
        overrides = {d.path: v for d, v in zip(space.dimensions, values, strict=True)}
        source = f"{file} (every searched value at its {end}, repaired)"
        try:
            validate(spec, apply_overrides(space.base, overrides, source), players, source)
        except ConfigError as err:
            raise ConfigError(f"{err} (set skip_invalid = true to let the search skip such candidates)") \
                from None
