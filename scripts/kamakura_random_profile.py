"""Where Kamakura random self-play spends its time (issue 38): records every step of fixed-seed random games
(3 players, base config), replays each stage of a step on the recorded states in a compiled loop, that
stage alone, and prints its cost per call and per game, beside the whole batch path.

    PYTHONPATH=. python scripts/kamakura_random_profile.py [--games 1000] [--repeats 7]

Stages: new_game; legal_actions at every step; gain_reachable where the turn has no gain yet (what
legal_actions asks first); swap_keeps_gain on the swaps played (each swap the agent plays, and every one it
draws and rejects, costs one); random_action whole; random_step told what the batch loop tells it (on a
checkout that has it); apply_action. Each loop copies a recorded state into a scratch vector first; the
copy alone is timed and taken off. Runs on any checkout since d6cd0a5's (PYTHONPATH picks it).
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
from numba import njit

from sim.kamakura.agents import random_action, swap_keeps_gain
from sim.kamakura.batch import run_batch
from sim.kamakura.kernels import (
    A_USE,
    GAINS_DONE,
    N_ACTIONS,
    OVER,
    STATE_SIZE,
    TO_MOVE,
    apply_action,
    gain_reachable,
    legal_actions,
    new_game,
)
from sim.rng import game_seeds, rng_seeded

try:
    from sim.kamakura.agents import random_step
except ImportError:  # before issue 38's round 3
    random_step = None


def kamakura_rules():
    try:
        from sim import games
        from sim.kamakura.game import kernel_rules
        rules = games.spec("kamakura").default_rules(3)
        return rules, kernel_rules(rules)
    except (ImportError, AttributeError):  # d6cd0a5: new_game takes the knobs one by one
        from sim.kamakura.params import default_rules
        return default_rules(3), None


@njit
def _collect(rules, seeds, states, rngs, actions):
    buf = np.empty(N_ACTIONS, dtype=np.int64)
    k = 0
    for g in range(seeds.shape[0]):
        s = new_game(rules, seeds[g])
        rng = rng_seeded(seeds[g], 1)
        while s[OVER] == 0:
            states[k] = s
            rngs[k] = rng[0]
            actions[k] = random_action(s, rng, buf)
            apply_action(s, actions[k])
            k += 1
    return k


@njit
def _copies(states, work):
    x = 0
    for k in range(states.shape[0]):
        work[:] = states[k]
        x += work[TO_MOVE]
    return x


@njit
def _new_games(rules, seeds):
    x = 0
    for g in range(seeds.shape[0]):
        x += new_game(rules, seeds[g])[TO_MOVE]
    return x


@njit
def _legal(states, work):
    buf = np.empty(N_ACTIONS, dtype=np.int64)
    x = 0
    for k in range(states.shape[0]):
        work[:] = states[k]
        x += legal_actions(work, buf)
    return x


@njit
def _reachable(states, work):
    x = 0
    for k in range(states.shape[0]):
        work[:] = states[k]
        if work[GAINS_DONE] == 0:
            x += gain_reachable(work)
    return x


@njit
def _keeps(states, actions, work):
    x = 0
    for k in range(states.shape[0]):
        work[:] = states[k]
        if actions[k] < A_USE:
            x += swap_keeps_gain(work, actions[k])
    return x


@njit
def _random(states, rngs, work):
    buf = np.empty(N_ACTIONS, dtype=np.int64)
    rng = np.empty(1, dtype=np.uint64)
    x = 0
    for k in range(states.shape[0]):
        work[:] = states[k]
        rng[0] = rngs[k]
        x += random_action(work, rng, buf)
    return x


@njit
def _apply(states, actions, work):
    x = 0
    for k in range(states.shape[0]):
        work[:] = states[k]
        apply_action(work, actions[k])
        x += work[TO_MOVE]
    return x


def _median(f, repeats: int) -> float:
    f()  # compile
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        f()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    rules, krules = kamakura_rules()
    if krules is None:
        raise SystemExit("this checkout's new_game takes the knobs one by one; run the script on a later one")
    seeds = game_seeds(3, 0, args.games)
    states = np.empty((args.games * 250, STATE_SIZE), dtype=np.int64)
    rngs = np.empty(args.games * 250, dtype=np.uint64)
    actions = np.empty(args.games * 250, dtype=np.int64)
    n = _collect(krules, seeds, states, rngs, actions)
    states, rngs, actions = states[:n], rngs[:n], actions[:n]
    work = np.empty(STATE_SIZE, dtype=np.int64)
    first = int((states[:, GAINS_DONE] == 0).sum())
    swaps = int((actions < A_USE).sum())
    hints = None
    if random_step is not None:
        hints = _hints(krules, seeds, n)
    def timed(f) -> float:
        return _median(f, args.repeats)

    copy = timed(lambda: _copies(states, work))
    rows = [("run_batch whole", timed(lambda: run_batch(rules, seeds, [0, 0, 0])), args.games, 0.0),
            ("new_game", timed(lambda: _new_games(krules, seeds)), args.games, 0.0),
            ("legal_actions (every step)", timed(lambda: _legal(states, work)), n, copy),
            ("gain_reachable (no gain yet)", timed(lambda: _reachable(states, work)), first, copy),
            ("swap_keeps_gain (swaps played)", timed(lambda: _keeps(states, actions, work)), swaps, copy),
            ("random_action (every step)", timed(lambda: _random(states, rngs, work)), n, copy)]
    if hints is not None:
        stepped = timed(lambda: _stepped(states, rngs, hints, work))
        rows.append(("random_step as the batch loop calls it", stepped, n, copy))
    rows.append(("apply_action (every step)", timed(lambda: _apply(states, actions, work)), n, copy))
    print(f"{args.games} random games, 3 players, base config: {n / args.games:.1f} steps a game, "
          f"{first / args.games:.1f} before the turn's first gain, {swaps / args.games:.1f} swaps played; "
          f"median of {args.repeats}")
    print(f"  {'stage':<40} {'ns a call':>10} {'calls a game':>13} {'us a game':>10}")
    for name, seconds, calls, taken_off in rows:
        per_call = (seconds - taken_off) / calls
        print(f"  {name:<40} {per_call * 1e9:>10.1f} {calls / args.games:>13.1f} "
              f"{per_call * calls / args.games * 1e6:>10.2f}")


def _hints(krules, seeds, n: int) -> np.ndarray:
    """What the batch loop tells random_step at every step (a gain known reachable)."""
    return _collect_hints(krules, seeds, np.empty(n, dtype=np.bool_))


@njit
def _collect_hints(rules, seeds, hints):
    buf = np.empty(N_ACTIONS, dtype=np.int64)
    k = 0
    for g in range(seeds.shape[0]):
        s = new_game(rules, seeds[g])
        rng = rng_seeded(seeds[g], 1)
        reachable = False
        while s[OVER] == 0:
            hints[k] = reachable
            action, reachable = random_step(s, rng, buf, reachable)
            apply_action(s, action)
            k += 1
    return hints


@njit
def _stepped(states, rngs, hints, work):
    buf = np.empty(N_ACTIONS, dtype=np.int64)
    rng = np.empty(1, dtype=np.uint64)
    x = 0
    for k in range(states.shape[0]):
        work[:] = states[k]
        rng[0] = rngs[k]
        x += random_step(work, rng, buf, hints[k])[0]
    return x


if __name__ == "__main__":
    main()
