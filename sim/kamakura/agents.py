"""Compiled Kamakura agents for the batch path (and, through thin wrappers, for the readable API).

random: uniform over the legal micro-actions, by rejection sampling, except that it never takes an action
    that turns a reachable gain into a void turn: a swap after which no gain is reachable any more, or a
    voluntary pass (R-8 knob). Rejection keeps the choice uniform over the actions it allows.
greedy: at the start of each turn plans the swaps, activations and claims that gain the most points this
    turn (ties: fewest power chits spent, then a seeded draw), then plays the plan out; the search is
    planner.py's.
"""

from numba import njit

from sim.kamakura.agent_kinds import AGENTS
from sim.kamakura.board import SWAPS
from sim.kamakura.kernels import (
    A_PASS,
    A_USE,
    SWAPS_LEFT,
    gain_reachable,
    legal_actions,
    swap_tiles,
)
from sim.kamakura.planner import greedy_plan
from sim.rng import rng_below

# The codes are declared once, in the game's registry entry (spec.py); plain ints here for numba.
AGENT_CODES = {name: kind.code for name, kind in AGENTS.items()}
AGENT_RANDOM = AGENT_CODES["random"]
AGENT_GREEDY = AGENT_CODES["greedy"]
AGENT_MCTS = AGENT_CODES["mcts"]  # searched in turn_mcts.py or mcts.py, with the seat's tree
AGENT_EXPERT = AGENT_CODES["expert"]  # expert.py: the planner's best turns scored by a learned evaluation
MAX_PLAN = 96


# ---- random --------------------------------------------------------------------------------------------
@njit(cache=True)
def swap_keeps_gain(s, action):
    """Would this swap leave a gain reachable this turn? (The state is restored before returning.)"""
    a = SWAPS[action, 0]
    b = SWAPS[action, 1]
    swap_tiles(s, a, b)
    s[SWAPS_LEFT] -= 1
    ok = gain_reachable(s)
    s[SWAPS_LEFT] += 1
    swap_tiles(s, a, b)
    return ok


@njit(cache=True)
def random_action(s, rng, buf):
    n = legal_actions(s, buf)
    if n == 1:
        return buf[0]
    while True:
        action = buf[rng_below(rng, n)]
        if action < A_USE:
            if swap_keeps_gain(s, action):
                return action
        elif action != A_PASS:
            return action


@njit(cache=True)
def agent_plan(kind, s, rng, plan, buf):
    """The next action(s) of agent `kind`: random gives one action, greedy a whole turn."""
    if kind == AGENT_GREEDY:
        return greedy_plan(s, rng, plan)
    plan[0] = random_action(s, rng, buf)
    return 1
