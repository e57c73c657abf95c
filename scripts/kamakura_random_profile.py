"""Where Kamakura random self-play spends its time (docs/design/notes.md, Kamakura speed): records every step
of fixed-seed random games (3 players, base config), replays each stage of a step on the recorded states in a
compiled loop, that stage alone, and prints its cost per call and per game, beside the whole batch path.

    PYTHONPATH=. python scripts/kamakura_random_profile.py [--games 60] [--repeats 15]
    python scripts/kamakura_random_profile.py [--rounds 5] /tmp/wt-old /tmp/wt-new ...

Stages: new_game; legal_actions at every step; gain_reachable where the turn has no gain yet (what
legal_actions asks first); swap_keeps_gain on the swaps played (a swap drawn and rejected costs another
check, not counted here); random_action whole; random_step told what the batch loop tells it (on a
checkout that has it); apply_action. Each loop copies a recorded state into a scratch vector first; the
copy alone is timed and taken off. The stages alternate within every repeat; medians. Replaying recorded
states keeps their variety (a stage run again and again on one position would have its branches learnt by
the processor, hiding what a misprediction costs); the states are int32 so that 60 games' fit the caches.
Given checkouts, runs itself in each (PYTHONPATH = the checkout), alternating, `--rounds` times, and prints
the median of each figure side by side: any checkout whose new_game takes the rules whole, a75edf0 and later.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from numba import njit

from sim import games
from sim.core.rng import game_seeds, rng_seeded
from sim.kamakura.agents import random_action, swap_keeps_gain
from sim.kamakura.batch import run_batch
from sim.kamakura.game import kernel_rules
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

try:
    from sim.kamakura.agents import random_step
except ImportError:  # a checkout before the speed work's round 3
    random_step = None


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


def _medians(stages: dict, repeats: int) -> dict[str, float]:
    """Median seconds of each stage's loop, the stages in alternation within every repeat (a busy spell of
    a shared machine falls on all of them)."""
    for f in stages.values():
        f()  # compile
    times: dict[str, list[float]] = {name: [] for name in stages}
    for _ in range(repeats):
        for name, f in stages.items():
            start = time.perf_counter()
            f()
            times[name].append(time.perf_counter() - start)
    return {name: statistics.median(values) for name, values in times.items()}


def measure(n_games: int, repeats: int) -> dict:
    """The stages' costs in this checkout: {"steps", "first", "swaps"} a game and "stages": name -> [ns a
    call, calls a game]."""
    rules = games.spec("kamakura").default_rules(3)
    krules = kernel_rules(rules)
    seeds = game_seeds(3, 0, n_games)
    states = np.empty((n_games * 250, STATE_SIZE), dtype=np.int32)
    rngs = np.empty(n_games * 250, dtype=np.uint64)
    actions = np.empty(n_games * 250, dtype=np.int64)
    n = _collect(krules, seeds, states, rngs, actions)
    states, rngs, actions = states[:n], rngs[:n], actions[:n]
    work = np.empty(STATE_SIZE, dtype=np.int64)
    first = int((states[:, GAINS_DONE] == 0).sum())
    swaps = int((actions < A_USE).sum())
    stages = {"copy": lambda: _copies(states, work),
              "run_batch whole": lambda: run_batch(rules, seeds, [0, 0, 0]),
              "new_game": lambda: _new_games(krules, seeds),
              "legal_actions (every step)": lambda: _legal(states, work),
              "gain_reachable (no gain yet)": lambda: _reachable(states, work),
              "swap_keeps_gain (swaps played)": lambda: _keeps(states, actions, work),
              "random_action (every step)": lambda: _random(states, rngs, work)}
    if random_step is not None:
        hints = _hints(krules, seeds, n)
        stages["random_step as the batch loop calls it"] = lambda: _stepped(states, rngs, hints, work)
    stages["apply_action (every step)"] = lambda: _apply(states, actions, work)
    seconds = _medians(stages, repeats)
    calls = {"run_batch whole": n_games, "new_game": n_games, "gain_reachable (no gain yet)": first,
             "swap_keeps_gain (swaps played)": swaps}
    out = {}
    for name, total in seconds.items():
        if name == "copy":
            continue
        count = calls.get(name, n)
        copying = 0.0 if name in ("run_batch whole", "new_game") else seconds["copy"]
        out[name] = [(total - copying) / count * 1e9, count / n_games]
    return {"steps": n / n_games, "first": first / n_games, "swaps": swaps / n_games, "stages": out}


def _row(name: str, ns: float | None, calls: float) -> str:
    per_call = "" if ns is None or calls == 1 else f"{ns:.1f}"
    per_game = "" if ns is None else f"{ns * calls / 1000:.2f}"
    return f" {per_call:>10} {per_game:>10}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkouts", nargs="*", help="checkouts to compare, each run in its own process in "
                                                     "alternation (default: this one, in this process)")
    parser.add_argument("--games", type=int, default=60)
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--rounds", type=int, default=5, help="alternating runs of each checkout")
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)  # a child's answer
    args = parser.parse_args()
    if not args.checkouts:
        result = measure(args.games, args.repeats)
        if args.json:
            print(json.dumps(result))
            return
        runs = {"this checkout": [result]}
    else:
        runs = {c: [] for c in args.checkouts}
        for _ in range(args.rounds):
            for checkout in args.checkouts:
                done = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--json", "--games",
                                       str(args.games), "--repeats", str(args.repeats)], cwd=checkout,
                                      env={"PYTHONPATH": checkout, "PATH": "/usr/bin:/bin"},
                                      capture_output=True, text=True, check=True)
                runs[checkout].append(json.loads(done.stdout.splitlines()[-1]))
    some = next(iter(runs.values()))[0]
    print(f"{args.games} random games, 3 players, base config: {some['steps']:.1f} steps a game, "
          f"{some['first']:.1f} before the turn's first gain, {some['swaps']:.1f} swaps played; median of "
          f"{args.repeats}" + (f", then of {args.rounds} alternating runs" if args.checkouts else ""))
    print(f"  {'stage':<40}" + "".join(f" {c[-21:]:>21}" for c in runs))
    print(f"  {'':<40}" + f" {'ns a call':>10} {'us a game':>10}" * len(runs))
    names = max((list(r[0]["stages"]) for r in runs.values()), key=len)
    for name in names:
        line = f"  {name:<40}"
        for results in runs.values():
            values = [r["stages"][name] for r in results if name in r["stages"]]
            if not values:
                line += _row(name, None, 1)
                continue
            line += _row(name, statistics.median(v[0] for v in values), values[0][1])
        print(line)


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
