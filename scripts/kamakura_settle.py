"""Calibrates the Kamakura expert's `settle` (docs/design/notes.md, Kamakura speed, round 2): over the turn
starts of fixed-seed expert self-play (base config, default parameters but `settle=0`, so every turn looks
deep), records the quick gap (the best candidate's quick lead minus the second best's, predicted points) and
whether the deep look chose another turn than the quick best; prints, for each threshold, the share of turns
whose gap exceeds it (the turns `settle` at that value would play without the deep look) and how often the
deep look disagreed on those.

    PYTHONPATH=. python scripts/kamakura_settle.py [--games 300] [--players 3]
"""

from __future__ import annotations

import argparse

import numpy as np

from sim import games
from sim.core.agent_spec import agent_arrays
from sim.core.rng import game_seeds, rng_seeded
from sim.kamakura.agents import MAX_PLAN
from sim.kamakura.expert import E_WEIGHTS, N_FEATURES, expert_look, lead
from sim.kamakura.game import kernel_rules
from sim.kamakura.kernels import OVER, PLAYERS, TO_MOVE, apply_action, gain_reachable, new_game
from sim.kamakura.planner import greedy_plan

THRESHOLDS = (0.25, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0)


def _after_lead(s, plan, length, weights) -> float:
    """The quick lead of the seat to move right after it plays plan[:length]."""
    st = s.copy()
    for j in range(length):
        apply_action(st, plan[j])
    return lead(st, s[TO_MOVE], weights)


def _short_look(s, rng, cands, lengths, order, weights) -> int:
    """The deep look's choice had it stopped before the expert's own next turn (the other seats' greedy
    replies only), replayed in Python on the same draws."""
    plan = np.empty(MAX_PLAN, dtype=np.int64)
    best, best_value = 0, -1e18
    for k in order[:3]:
        st = s.copy()
        for j in range(lengths[k]):
            apply_action(st, cands[k, j])
        r = rng.copy()
        for _ in range(s[PLAYERS] - 1):
            if st[OVER] == 1:
                break
            for j in range(greedy_plan(st, r, plan)):
                apply_action(st, plan[j])
        value = lead(st, s[TO_MOVE], weights)
        if value > best_value + 1e-9 or (abs(value - best_value) <= 1e-9 and k < best):
            best, best_value = k, value
    return best


def collect(n_games: int, players: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(gap, disagreed, rank, short) of every expert turn start with two candidates or more: rank is the
    deep choice's place in the quick order, short whether a look without the expert's own next turn would
    choose otherwise. The games are played by the always-deep expert (its choices are expert_look's, the
    generator advanced as expert_plan does)."""
    spec = games.spec("kamakura")
    rules = kernel_rules(spec.default_rules(players))
    _, params = agent_arrays([["expert:settle=0"] * players], spec)
    row = np.ascontiguousarray(params[0, 0])
    cands = np.empty((int(row[0]), MAX_PLAN), dtype=np.int64)
    plan = np.empty(MAX_PLAN, dtype=np.int64)
    weights = row[E_WEIGHTS:E_WEIGHTS + N_FEATURES]
    gaps, disagreed, ranks, short = [], [], [], []
    for seed in game_seeds(11, 0, n_games):
        s = new_game(rules, seed)
        rng = rng_seeded(seed, 1)
        while s[OVER] == 0:
            if not gain_reachable(s):
                for j in range(greedy_plan(s, rng, plan)):
                    apply_action(s, plan[j])
                continue
            n, lengths, gap, quick_best, best = expert_look(s, rng, row, cands)
            if n > 1:
                gaps.append(gap)
                disagreed.append(best != quick_best)
                quick = np.array([_after_lead(s, cands[k], lengths[k], weights) for k in range(n)])
                order = np.argsort(-quick, kind="mergesort")
                ranks.append(int(np.flatnonzero(order == best)[0]))
                short.append(_short_look(s, rng, cands, lengths, order, weights) != best)
            for j in range(lengths[best]):
                apply_action(s, cands[best, j])
    return np.array(gaps), np.array(disagreed), np.array(ranks), np.array(short)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--players", type=int, default=3)
    args = parser.parse_args()
    gap, disagreed, rank, short = collect(args.games, args.players)
    n = len(gap)
    print("the deep choice's place in the quick order: " + ", ".join(
        f"{r + 1}: {np.mean(rank == r):.1%}" for r in range(3)))
    print(f"a deep look without the expert's own next turn would choose otherwise on {short.mean():.1%}")
    print(f"{n} expert turns with 2+ candidates from {args.games} games, {args.players} players; the deep "
          f"look chose another turn than the quick best on {disagreed.mean():.1%} of them")
    print("settle | turns skipped | deep look disagreed on skipped | changed decisions, share of all turns")
    for t in THRESHOLDS:
        skip = gap > t
        k = int(skip.sum())
        on_skipped = disagreed[skip].mean() if k else 0.0
        print(f"{t:6.2f} | {k / n:13.1%} | {on_skipped:30.1%} | {disagreed[skip].sum() / n:.1%}")


if __name__ == "__main__":
    main()
