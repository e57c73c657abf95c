"""Where the Sakura expert's time goes (docs/design/notes.md, Sakura speed): collects positions from expert
self-play (4 players, base config, default parameters), then times each stage of its decision over them in
compiled loops, for the same work the expert does at a select decision (every card in hand against `samples`
common guesses):

  guesses     the unseen cards, their mix and `samples` guesses of the hidden cards (expert.guess_cards)
  copy        copying the position into the look-ahead vector, once per card and guess
  round       placing the guessed cards, ordering and resolving the round (agents.simulate_round)
  evaluation  the features of every player and the logistic chance of winning (expert.evaluate)
  decision    expert_action itself: without the race (most = samples), with it from `samples` guesses
              (first = 0, the expert before its speed work), and at its defaults (first look at `first`)

Usage: PYTHONPATH=. python scripts/sakura_expert_profile.py [--games 12] [--repeats 3]
Prints a markdown table (CPU microseconds per decision, share of the race-free decision); docs/design/notes.md
quotes it. Each stage's loop includes the ones above it, so a stage's time is the difference.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
from numba import njit

from sim import games
from sim.core.agent_spec import AgentSpec, agent_row
from sim.core.rng import game_seeds, new_rng
from sim.sakura import kernels as K
from sim.sakura.agents import simulate_round
from sim.sakura.expert import (
    E_SAMPLES,
    E_TEMP,
    E_WEIGHTS,
    MIX,
    N_FEATURES,
    emperor_move,
    evaluate,
    expert_action,
    guess_cards,
    hand_mix,
    new_work,
    pool_mix,
    unseen_cards,
)
from sim.sakura.game import kernel_rules
from sim.sakura.kernels import copy_round_fields
from sim.sakura.spec import SPEC


def collect(games_n: int, row: np.ndarray) -> np.ndarray:
    """The select positions met in `games_n` expert self-play games (4 players, base config)."""
    args = kernel_rules(SPEC.default_rules(4))
    found = []
    for seed in game_seeds(1, 0, games_n):
        s = K.new_game(args, seed)
        rng = new_rng(int(seed), 1)
        while s[K.PHASE] != K.PH_OVER:
            if s[K.PHASE] == K.PH_SELECT and s[K.COURT_PICKER] < 0:
                found.append(s.copy())
            K.apply_action(s, expert_action(s, rng, row))
    return np.array(found)


@njit
def stages(positions, rng, params, stage):
    """Run the select look-ahead over every position up to `stage` (0 guesses, 1 + copy, 2 + round,
    3 + evaluation); returns a checksum so nothing is optimised away."""
    samples = int(params[E_SAMPLES])
    temp = params[E_TEMP]
    weights = params[E_WEIGHTS:E_WEIGHTS + N_FEATURES]
    buf = np.empty(K.N_ACTIONS_MAX, dtype=np.int64)
    pool = np.empty(K.DECK_SIZE, dtype=np.int64)
    guess = np.empty(K.MAX_PAINTERS, dtype=np.int64)
    mixes = np.zeros((K.MAX_PAINTERS, MIX))
    gained = np.zeros(K.MAX_PAINTERS, dtype=np.int64)
    mine = np.zeros((K.N_ACTIONS_MAX, MIX))
    total = 0.0
    for j in range(positions.shape[0]):
        s = positions[j]
        t = s.copy()
        scratch = s.copy()
        w = new_work(s)
        me = s[K.TO_MOVE]
        n = K.legal_actions(s, buf)
        n_pool = unseen_cards(s, me, pool)
        pool_mix(s, pool, n_pool, mixes[0])
        for p in range(s[K.N_PAINTERS]):
            mixes[p] = mixes[0]
            w.emoves[p] = emperor_move(mixes[0])
        for i in range(n):
            hand_mix(s, me, buf[i] - K.A_PLAY, mine[i])
        for _k in range(samples):
            guess_cards(s, me, False, pool, n_pool, rng, guess)
            total += guess[0]
            if stage == 0:
                continue
            for i in range(n):
                copy_round_fields(t, s)
                if stage == 1:
                    total += t[K.EMPEROR]
                    continue
                for p in range(t[K.N_PAINTERS]):
                    if guess[p] >= 0:
                        t[K.SELECTED + p] = guess[p]
                t[K.SELECTED + me] = buf[i] - K.A_PLAY
                K.order_pending(t)
                simulate_round(t, me, -1, scratch, w.order, gained)
                if stage == 2:
                    total += t[K.EMPEROR]
                    continue
                mixes[me] = mine[i]
                w.emoves[me] = emperor_move(mine[i])
                total += evaluate(t, me, mixes, weights, temp, w)
    return total


@njit
def decisions(positions, rng, params):
    total = 0
    for j in range(positions.shape[0]):
        total += expert_action(positions[j], rng, params)
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=12)
    parser.add_argument("--repeats", type=int, default=3)
    a = parser.parse_args()
    spec = games.spec("sakura")
    row = np.array(agent_row(AgentSpec("expert", {}), spec, 4), dtype=np.float64)
    flat = np.array(agent_row(AgentSpec("expert", {"most": 0, "first": 0}), spec, 4), dtype=np.float64)
    late = np.array(agent_row(AgentSpec("expert", {"first": 0}), spec, 4), dtype=np.float64)
    positions = collect(a.games, row)
    n = len(positions)
    timed: dict[str, list[float]] = {}
    runs = [(f"stage{k}", lambda r, k=k: stages(positions, r, row, k)) for k in range(4)]
    runs += [("race-free", lambda r: decisions(positions, r, flat)),
             ("first=0", lambda r: decisions(positions, r, late)),
             ("default", lambda r: decisions(positions, r, row))]
    for _name, run in runs:
        run(new_rng(0, 9))  # compile
    for rep in range(a.repeats):
        for name, run in runs:  # alternated, so a busy spell of the machine falls on every stage
            start = time.process_time()  # this process's CPU time: steadier than the clock when shared
            run(new_rng(rep, 9))
            timed.setdefault(name, []).append((time.process_time() - start) / n * 1e6)
    med = {name: statistics.median(v) for name, v in timed.items()}
    parts = {"guesses": med["stage0"], "copy": med["stage1"] - med["stage0"],
             "round": med["stage2"] - med["stage1"], "evaluation": med["stage3"] - med["stage2"]}
    print(f"{n} select positions from {a.games} expert games (4 players, base config), median of {a.repeats}")
    print("| stage | us per decision | share of the race-free decision |")
    print("| --- | ---: | ---: |")
    for name, us in parts.items():
        print(f"| {name} | {us:,.0f} | {us / med['race-free']:.0%} |")
    total = sum(parts.values())
    print(f"| sum of the stages | {total:,.0f} | {total / med['race-free']:.0%} |")
    print(f"| expert_action, most = samples (no race) | {med['race-free']:,.0f} | 100% |")
    print(f"| expert_action, race to 192, first look at 48 (first=0) | {med['first=0']:,.0f} | "
          f"{med['first=0'] / med['race-free']:.0%} |")
    print(f"| expert_action, defaults (first look at 16) | {med['default']:,.0f} | "
          f"{med['default'] / med['race-free']:.0%} |")


if __name__ == "__main__":
    main()
