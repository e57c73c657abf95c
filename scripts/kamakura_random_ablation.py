"""Kamakura random self-play, round 3 of docs/design/notes.md's Kamakura speed: the changes added one at a
time in one compiled loop of random self-play (3 players, base config), every variant playing the same games
with the same draws (checked), alternated within each repeat; prints microseconds a game and the speed-up over
the first.

    PYTHONPATH=. python scripts/kamakura_random_ablation.py [games] [repeats]

The first variant is a75edf0's legal_actions and gain_reachable, copied here (old_list, old_reach); the
others use this checkout's gain_reachable and open_actions. Needs a checkout with open_actions.
"""

from __future__ import annotations

import statistics
import sys
import time

import numpy as np
from numba import njit

from sim import games
from sim.core.rng import game_seeds, rng_below, rng_seeded
from sim.kamakura.board import MASK_TO_INDEX, SWAP_DISTANCE, SWAPS
from sim.kamakura.game import kernel_rules
from sim.kamakura.kernels import (
    A_END,
    A_GAIN,
    A_PASS,
    A_SWAP,
    A_USE,
    A_USE_ORDER,
    BOARD,
    GAIN_LINE,
    GAINS_ALLOWED,
    GAINS_DONE,
    GREEN_MIN,
    ICONS,
    MASKS,
    N_ACTIONS,
    N_CHITS,
    ORDER_MOVES,
    ORDER_SPENT,
    OVER,
    OWNER,
    SWAPS_LEFT,
    TO_MOVE,
    VOLUNTARY,
    apply_action,
    best_green,
    gain_reachable,
    gain_shortfall,
    new_game,
    open_actions,
    potential_swaps,
    swap_tiles,
    usable_power,
)


@njit
def old_reach(s):
    """a75edf0's gain_reachable: the whole budget and the greens at every step."""
    seat = s[TO_MOVE]
    budget = potential_swaps(s, seat)
    green = best_green(s, seat, True)
    gmin = s[GREEN_MIN]
    cap = budget if budget < 127 else 126
    for colour in range(4):
        idx = MASK_TO_INDEX[s[MASKS + colour]]
        for line in range(10):
            chit = 10 * colour + line
            if s[OWNER + chit] != -1:
                continue
            icons = s[ICONS + chit]
            if SWAP_DISTANCE[idx, line, icons] <= cap:
                return True
            lo = icons - green
            if lo < gmin:
                lo = gmin
            for target in range(lo, icons):
                if SWAP_DISTANCE[idx, line, target] <= cap:
                    return True
    return False

@njit
def old_list(s, out, first):
    """a75edf0's legal_actions past the R-8 check: a branch per candidate, gain_shortfall per chit."""
    seat = s[TO_MOVE]
    n = 0
    if first and s[SWAPS_LEFT] > 0:
        for k in range(SWAPS.shape[0]):
            if s[BOARD + SWAPS[k, 0]] != s[BOARD + SWAPS[k, 1]]:
                out[n] = A_SWAP + k
                n += 1
    for chit in range(30):
        if usable_power(s, chit, seat) and (first or chit >= 10):
            out[n] = A_USE + chit
            n += 1
    if first and s[ORDER_SPENT + seat] == 0 and s[ORDER_MOVES + seat] > 0:
        out[n] = A_USE_ORDER
        n += 1
    if s[GAINS_DONE] < s[GAINS_ALLOWED]:
        green = best_green(s, seat, False)
        for chit in range(N_CHITS):
            if s[OWNER + chit] != -1:
                continue
            if not first and chit % 10 != s[GAIN_LINE]:
                continue
            need = gain_shortfall(s, chit)
            if need == 0 or 0 < need <= green:
                out[n] = A_GAIN + chit
                n += 1
    if not first:
        out[n] = A_END
        n += 1
    elif s[VOLUNTARY] == 1:
        out[n] = A_PASS
        n += 1
    return n

@njit
def legal(s, out, lazy, branchless):
    """legal_actions with the new (`lazy`) or old R-8 check and the new (`branchless`) or old listing."""
    if s[OVER] == 1:
        return 0
    first = s[GAINS_DONE] == 0
    if first and not (gain_reachable(s) if lazy else old_reach(s)):
        out[0] = A_PASS
        return 1
    return open_actions(s, out, first) if branchless else old_list(s, out, first)

@njit
def keeps(s, action, lazy):
    """agents.swap_keeps_gain with the new (`lazy`) or old R-8 check."""
    a = SWAPS[action, 0]
    b = SWAPS[action, 1]
    swap_tiles(s, a, b)
    s[SWAPS_LEFT] -= 1
    ok = gain_reachable(s) if lazy else old_reach(s)
    s[SWAPS_LEFT] += 1
    swap_tiles(s, a, b)
    return ok

@njit
def play(rules, seeds, variant, out):
    """Random self-play of every seed with the changes up to `variant` (0: none); out[g] is a digest of game
    g's actions."""
    lazy = variant >= 1
    branchless = variant >= 2
    memory = variant >= 3
    hint = variant >= 4
    buf = np.empty(N_ACTIONS, dtype=np.int64)
    for g in range(seeds.shape[0]):
        s = new_game(rules, seeds[g])
        rng = rng_seeded(seeds[g], 1)
        known = False
        digest = 0
        while s[OVER] == 0:
            if hint and known and s[GAINS_DONE] == 0:
                n = open_actions(s, buf, True)
            else:
                n = legal(s, buf, lazy, branchless)
            known = False
            if n == 1:
                a = buf[0]
            else:
                rejected = 0
                while True:
                    a = buf[rng_below(rng, n)]
                    if a < A_USE:
                        bit = 1 << a
                        if not memory or rejected & bit == 0:
                            if keeps(s, a, lazy):
                                known = True
                                break
                            rejected |= bit
                    elif a != A_PASS:
                        known = a < A_GAIN and s[GAINS_DONE] == 0
                        break
            apply_action(s, a)
            digest = digest * 31 + a
        out[g] = digest


NAMES = ["before (a75edf0's legal_actions, gain_reachable)", "+ gain_reachable: free swaps first",
         "+ open_actions: no branch per candidate", "+ a rejected swap not checked again",
         "+ the reachable flag (random_step)"]


def main() -> None:
    games_n = int(sys.argv[1]) if len(sys.argv) > 1 else 3000
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 9
    rules = kernel_rules(games.spec("kamakura").default_rules(3))
    seeds = game_seeds(3, 0, games_n)
    first = np.zeros(games_n, dtype=np.int64)
    play(rules, seeds, 0, first)
    for variant in range(1, len(NAMES)):  # compile each, and check it plays the same games
        out = np.zeros(games_n, dtype=np.int64)
        play(rules, seeds, variant, out)
        assert (out == first).all(), f"variant {variant} plays other games"
    times: list[list[float]] = [[] for _ in NAMES]
    for _ in range(repeats):
        for variant in range(len(NAMES)):
            out = np.zeros(games_n, dtype=np.int64)
            start = time.perf_counter()
            play(rules, seeds, variant, out)
            times[variant].append(time.perf_counter() - start)
    base = statistics.median(times[0])
    print(f"{games_n} random games, 3 players, base config, one compiled loop, median of {repeats} "
          f"alternated (the same games)")
    for name, values in zip(NAMES, times, strict=True):
        m = statistics.median(values)
        print(f"  {name:<52} {m / games_n * 1e6:6.2f} us/game  x{base / m:.2f}")


if __name__ == "__main__":
    main()
