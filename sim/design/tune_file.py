"""The tune file (TOML) of `balance tune`: its space, target and racing settings, read and validated with
every candidate of the space before anything runs. The format is documented in sim/design/tune.py."""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import os
from dataclasses import dataclass
from typing import Any

from sim import games
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
from sim.design.files import agent_lineups, check_agents, load_base, player_counts, validate
from sim.design.overrides import KeyPath, apply_overrides, format_value, parse_key, path_text
from sim.errors import ConfigError

_TUNE_KEYS = {"base", "description", "players", "agents", "seed", "budget", "space", "target", "racing",
              "skip_invalid"}
_TARGET_KEYS = {"objective", "tolerance", "length", "chit_cap"}
_RACING_KEYS = {"method", "first_games", "growth", "final_games", "confirm_games", "confidence", "eta",
                "stop_when_decided"}


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
        if games.spec(game).component_values is None:
            fail(file, "target.chit_cap", f"{game} logs no component values to cap")
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
