"""`balance luck`: how much of who wins the deal, the draws and the players' own choices decide.

Each of `deals` deals (game seeds of the run's seed, as every study plays them) is played with `draws`
orders of the cards left after the deal (the first as dealt, the others shuffled from the game seed's
stream 1000+j; a game that draws nothing after its setup takes one) and each of those `replays` times
with the agents' stream 1+r (the first is the study's own play). analysis/variance_parts.py splits the
variance of each seat's win share into the three parts; the answer says what a luck correction of the chance
events can save at most. Why it matters: docs/explanation/statistics.md, "How much is luck".
"""

from __future__ import annotations

import inspect
import os
import time
from dataclasses import dataclass

import numpy as np
import pandas as pd
from joblib import Parallel, delayed

from analysis.seats import win_shares
from analysis.variance_parts import luck_table
from sim.core.agent_spec import agent_arrays, check_models, parse_agents
from sim.core.errors import ConfigError
from sim.core.expert_model import PlayedConfig
from sim.core.game_spec import GameSpec
from sim.core.rng import game_seeds
from sim.games import load_config

#: the first stream of the other draw orders (the agents' streams are 1, 2, ...; the setup's is 0)
DRAW_STREAMS = 1000
#: deals a worker plays at a time
CHUNK = 100


@dataclass(frozen=True)
class LuckPlan:
    """What `balance luck` plays: the config, its players and agents, and the nested design."""

    config: str
    players: int
    agents: str = "expert"
    deals: int = 1000
    draws: int | None = None    # None: 2 where the game draws after its setup, else 1
    replays: int | None = None  # None: 2 with several draw orders, else 4
    seed: int = 0
    jobs: int = 1


@dataclass(frozen=True)
class LuckResult:
    """What `balance luck` played and found: the plan, the design as played, and the table
    (analysis/variance_parts.py luck_table)."""

    plan: LuckPlan
    agents: list[str]
    draws: int
    replays: int
    has_draws: bool     # the game draws after its setup (else its deal is all its chance)
    games: int
    seconds: float
    rules_hash: str     # the config's hash, as every run records it
    table: pd.DataFrame


def draws_after_setup(spec: GameSpec) -> bool:
    """Whether the game draws cards after its setup (its run_batch takes a `draw_stream`)."""
    return "draw_stream" in inspect.signature(spec.run_batch).parameters


def design(plan: LuckPlan, spec: GameSpec) -> tuple[int, int]:
    """(draws, replays) of the plan, its defaults filled in; a ConfigError for a design that cannot be
    played or estimated."""
    has_draws = draws_after_setup(spec)
    draws = plan.draws if plan.draws is not None else (2 if has_draws else 1)
    replays = plan.replays if plan.replays is not None else (2 if draws > 1 else 4)
    if draws > 1 and not has_draws:
        raise ConfigError(f"{plan.config}: --draws {draws}: {spec.vocabulary.title} draws nothing after its "
                          "setup, so its deal is all its chance; give --draws 1 (the default for it)")
    if replays < 2:
        raise ConfigError(f"--replays {replays}: the players' part needs each deal played at least twice; "
                          "give --replays 2 or more")
    if plan.deals < 20:
        raise ConfigError(f"--deals {plan.deals}: the split rests on the spread between deals; "
                          "give at least 20")
    return draws, replays


def _chunk(spec: GameSpec, config: dict, plan: LuckPlan, *, seating: list[str], start: int, count: int,
           draws: int, replays: int) -> np.ndarray:
    """Win shares of deals start .. start+count-1 in every draw order and replay: (count, draws,
    replays, players) (a worker)."""
    rules = spec.rules(config, plan.players, plan.config)
    kinds, params = agent_arrays([seating], spec, PlayedConfig(plan.config, rules.config_hash))
    seeds = game_seeds(plan.seed, start, count)
    out = np.empty((count, draws, replays, plan.players))
    for j in range(draws):
        extra = {"draw_stream": DRAW_STREAMS + j} if j else {}
        for r in range(replays):
            batch = spec.run_batch(rules, seeds, kinds[0], params[0], play_stream=1 + r, **extra)
            out[:, j, r] = win_shares(batch["winners"], batch.get("other_winners"))[:, :plan.players]
    return out


def play_luck(plan: LuckPlan) -> LuckResult:
    """Play the plan's games and split their variance: the table (analysis/variance_parts.py luck_table)
    with what was played."""
    spec, config, rules = load_config(plan.config, plan.players)
    draws, replays = design(plan, spec)
    agents = parse_agents(plan.agents, rules.players, spec)
    check_models(agents, spec, rules.players, rules.config_hash, plan.config)
    seating = [str(a) for a in agents]
    started = time.perf_counter()
    starts = range(0, plan.deals, CHUNK)
    parts = Parallel(n_jobs=max(1, min(plan.jobs, len(starts))))(
        delayed(_chunk)(spec, config, plan, seating=seating, start=start,
                        count=min(CHUNK, plan.deals - start), draws=draws, replays=replays)
        for start in starts)
    shares = np.concatenate(parts)
    return LuckResult(plan=plan, agents=seating, draws=draws, replays=replays,
                      has_draws=draws_after_setup(spec), games=int(shares[..., 0].size),
                      seconds=time.perf_counter() - started, rules_hash=rules.config_hash,
                      table=luck_table(shares, seed=plan.seed))


def _pct(row: pd.Series, part: str) -> str:
    """"7% [4, 10]": a part's share with its interval, in whole percent (never "-0")."""
    share, low, high = (round(100 * row[f"{part}_{key}"]) + 0 for key in ("share", "low", "high"))
    return f"{share}% [{low}, {high}]"


def luck_text(result: LuckResult) -> str:
    """The answer first (the chance share over all seats and what it allows), then the seats' table."""
    plan, table = result.plan, result.table
    every = table[table["seat"] == "all"].iloc[0]
    chance = {2: "the deal and the draws", 1: "the cards dealt and drawn", 0: "the deal"}[
        min(result.draws, 2) if result.has_draws else 0]
    level = ", ".join(dict.fromkeys(result.agents))
    lines = [
        f"{chance.capitalize()} {'decides' if chance == 'the deal' else 'decide'} {_pct(every, 'chance')} "
        f"of the variance of who wins at {level} "
        f"({plan.players} players); the players' own choices decide the rest, {_pct(every, 'play')}.",
        "So a luck correction of the chance events cannot cut the games an answer needs by more than "
        f"{every['most_saved']:.2f} times [{every['most_saved_low']:.2f}, {every['most_saved_high']:.2f}]; "
        "what the players' choices decide, no luck correction removes.",
        f"{plan.deals:,} deals x {result.draws} draw order(s) x {result.replays} replays = "
        f"{result.games:,} games of {os.fspath(plan.config)} (config {result.rules_hash}), seed "
        f"{plan.seed}, {result.seconds:.0f} s; intervals: 95%, bootstrap over deals.",
        "",
        f"{'seat':>5} {'win share':>10} {'deal':>14} {'draws':>14} {'play':>14}",
    ]
    for _, row in table.iterrows():
        share = f"{100 * row['win_share']:.1f}%" if row["seat"] != "all" else ""
        draws = _pct(row, "draws") if result.draws > 1 else "(in deal)" if result.has_draws else "none"
        parts = f"{_pct(row, 'deal'):>14} {draws:>14} {_pct(row, 'play'):>14}"
        lines.append(f"{row['seat']:>5} {share:>10} {parts}")
    return "\n".join(lines)
