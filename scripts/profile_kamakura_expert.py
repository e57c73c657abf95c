"""Where the Kamakura `expert` spends its time (docs/design/notes.md, Kamakura speed): collects the expert's
turn-start positions from fixed-seed expert self-play (3 players, base config, default parameters but
settle=0: every turn looks deep), replays the stages of expert.expert_plan on them in compiled loops, each
stage alone, and prints the microseconds per expert turn that each stage costs.

    PYTHONPATH=. python scripts/profile_kamakura_expert.py [--games 20] [--repeats 5]

Stages: the planner's candidates (turn_candidates, width 16); copying the position and playing each
candidate on it; the quick evaluation (lead) of every candidate; the greedy replies of the deep look
(greedy_plan on every position where one is asked for, `deep` x `horizon` x players per turn) and
playing them; the deep look's lead; and expert_plan whole, for the sum.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
from numba import njit

from sim import games
from sim.core.agent_spec import agent_arrays
from sim.core.rng import game_seeds, rng_seeded
from sim.kamakura.agents import MAX_PLAN
from sim.kamakura.expert import E_WEIGHTS, N_FEATURES, expert_plan, lead
from sim.kamakura.game import kernel_rules
from sim.kamakura.kernels import OVER, PLAYERS, TO_MOVE, apply_action, gain_reachable, new_game
from sim.kamakura.planner import greedy_plan, turn_candidates


def collect(n_games: int, row: np.ndarray) -> dict[str, np.ndarray]:
    """Positions of every stage, gathered by replaying expert_plan's steps in Python on expert games."""
    spec = games.spec("kamakura")
    rules = kernel_rules(spec.default_rules(3))
    width, deep, horizon = int(row[0]), int(row[1]), int(row[2])
    weights = row[E_WEIGHTS:E_WEIGHTS + N_FEATURES]
    starts, rngs, after, seats, reply_at, reply_rngs, deep_end = [], [], [], [], [], [], []
    plan = np.empty(MAX_PLAN, dtype=np.int64)
    for seed in game_seeds(7, 0, n_games):
        s = new_game(rules, seed)
        rng = rng_seeded(seed, 1)
        while s[OVER] == 0:
            if gain_reachable(s):
                starts.append(s.copy())
                rngs.append(rng.copy())
                cands = np.empty((width, MAX_PLAN), dtype=np.int64)
                n, lengths = turn_candidates(s, rng.copy(), width, cands)
                quick = []
                for k in range(n):
                    st = s.copy()
                    for j in range(lengths[k]):
                        apply_action(st, cands[k, j])
                    after.append(st)
                    seats.append(s[TO_MOVE])
                    quick.append(lead(st, s[TO_MOVE], weights))
                for k in np.argsort(-np.array(quick), kind="mergesort")[:deep] if n > 1 else []:
                    st = after[len(after) - n + k].copy()
                    r = rng.copy()
                    for _ in range(horizon * s[PLAYERS]):
                        if st[OVER] == 1:
                            break
                        reply_at.append(st.copy())
                        reply_rngs.append(r.copy())
                        m = greedy_plan(st, r, plan)
                        for j in range(m):
                            apply_action(st, plan[j])
                    deep_end.append(st)
            m = expert_plan(s, rng, row, plan)
            for j in range(m):
                apply_action(s, plan[j])
    return {"starts": np.array(starts), "rngs": np.array(rngs), "after": np.array(after),
            "seats": np.array(seats, dtype=np.int64), "reply_at": np.array(reply_at),
            "reply_rngs": np.array(reply_rngs), "deep_end": np.array(deep_end)}


@njit
def time_candidates(starts, rngs, width):
    cands = np.empty((width, MAX_PLAN), dtype=np.int64)
    total = 0
    for i in range(starts.shape[0]):
        n, lengths = turn_candidates(starts[i], rngs[i].copy(), width, cands)
        total += n
    return total


@njit
def time_copy_apply(starts, rngs, width):
    """Candidates again (subtract time_candidates), each copied and played."""
    cands = np.empty((width, MAX_PLAN), dtype=np.int64)
    st = np.empty_like(starts[0])
    total = 0
    for i in range(starts.shape[0]):
        n, lengths = turn_candidates(starts[i], rngs[i].copy(), width, cands)
        for k in range(n):
            st[:] = starts[i]
            for j in range(lengths[k]):
                apply_action(st, cands[k, j])
            total += st[0]
    return total


@njit
def time_lead(positions, seats, weights):
    total = 0.0
    for i in range(positions.shape[0]):
        total += lead(positions[i], seats[i], weights)
    return total


@njit
def time_greedy(positions, rngs, apply):
    plan = np.empty(MAX_PLAN, dtype=np.int64)
    st = np.empty_like(positions[0])
    total = 0
    for i in range(positions.shape[0]):
        st[:] = positions[i]
        m = greedy_plan(st, rngs[i].copy(), plan)
        if apply:
            for j in range(m):
                apply_action(st, plan[j])
        total += m
    return total


@njit
def time_expert(starts, rngs, row):
    plan = np.empty(MAX_PLAN, dtype=np.int64)
    total = 0
    for i in range(starts.shape[0]):
        total += expert_plan(starts[i].copy(), rngs[i].copy(), row, plan)
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    spec = games.spec("kamakura")
    _, params = agent_arrays([["expert:settle=0"] * 3], spec)  # always deep, as the stages
    row = np.ascontiguousarray(params[0, 0])
    width = int(row[0])
    weights = row[E_WEIGHTS:E_WEIGHTS + N_FEATURES]
    p = collect(args.games, row)
    turns = len(p["starts"])
    seats_end = np.array([0] * len(p["deep_end"]), dtype=np.int64)
    stages = {
        "turn_candidates (width 16)": lambda: time_candidates(p["starts"], p["rngs"], width),
        "  + copy and play each": lambda: time_copy_apply(p["starts"], p["rngs"], width),
        "quick lead of each candidate": lambda: time_lead(p["after"], p["seats"], weights),
        "greedy_plan of the replies": lambda: time_greedy(p["reply_at"], p["reply_rngs"], False),
        "  + playing them": lambda: time_greedy(p["reply_at"], p["reply_rngs"], True),
        "deep lead": lambda: time_lead(p["deep_end"], seats_end, weights),
        "expert_plan whole": lambda: time_expert(p["starts"], p["rngs"], row),
    }
    print(f"{turns} expert turns from {args.games} games ({len(p['after'])} candidates, "
          f"{len(p['reply_at'])} greedy replies); microseconds per expert turn, median of {args.repeats}:")
    for name, run in stages.items():
        run()  # compile
        times = []
        for _ in range(args.repeats):
            start = time.perf_counter()
            run()
            times.append(time.perf_counter() - start)
        print(f"  {name:<30} {1e6 * statistics.median(times) / turns:8.1f}")


if __name__ == "__main__":
    main()
