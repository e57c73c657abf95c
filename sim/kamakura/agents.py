"""Compiled Kamakura agents for the batch path (and, through thin wrappers, for the readable API).

random: uniform over the legal micro-actions, by rejection sampling, except that it never makes a swap
    after which no gain is reachable any more (a swap that throws the turn away by accident). Under the
    R-8 knob voluntary_pass the pass, legal before the turn's first gain, is one of the actions it draws
    (so a random player drops out of the game by choice now and then); without the knob a pass is legal
    only when no gain is reachable, and then it is the only action. Rejection keeps the choice uniform
    over the actions it allows.
greedy: at the start of each turn plans the swaps, activations and claims that gain the most points this
    turn (ties: fewest power chits spent, then a seeded draw), then plays the plan out; the search is
    planner.py's.
"""

from numba import njit

from sim.core.rng import rng_below
from sim.kamakura.agent_kinds import AGENTS
from sim.kamakura.board import SWAPS
from sim.kamakura.kernels import (
    A_GAIN,
    A_USE,
    GAINS_DONE,
    SWAPS_LEFT,
    gain_reachable,
    legal_actions,
    open_actions,
    swap_tiles,
)
from sim.kamakura.planner import greedy_plan

# The codes are declared once, in the game's registry entry (spec.py); plain ints here for numba.
AGENT_CODES = {name: kind.code for name, kind in AGENTS.items()}
AGENT_RANDOM = AGENT_CODES["random"]
AGENT_GREEDY = AGENT_CODES["greedy"]
AGENT_MCTS = AGENT_CODES["mcts"]  # searched in turn_mcts.py or mcts.py, with the seat's tree
AGENT_EXPERT = AGENT_CODES["expert"]  # expert.py: the planner's best turns scored by a learned evaluation
AGENT_SEARCH = AGENT_CODES["search"]  # puct.py: PUCT over whole turns, the expert's evaluation at the leaves
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
    """The random agent's next action (see the module's docstring), from the state alone."""
    return random_step(s, rng, buf, False)[0]


@njit(cache=True)
def random_step(s, rng, buf, reachable):
    """random_action for a caller that follows the turn (the batch loop): `reachable` says that the last
    step left a gain known to be reachable (R-8), so the turn's next action needs no check of it. Returns
    the action and whether a gain is known reachable after it: after a swap that swap_keeps_gain let
    through, and after an activation before the turn's first gain (it turns a power still to activate
    into swaps left or an activated green, which gain_reachable counts alike). The draws and the choice
    are random_action's; a swap rejected once is not tried again when drawn again within the same step."""
    if reachable and s[GAINS_DONE] == 0:
        n = open_actions(s, buf, True)
    else:
        n = legal_actions(s, buf)
    if n == 1:
        return buf[0], False
    rejected = 0  # bit k: swap k leaves no gain reachable
    while True:
        action = buf[rng_below(rng, n)]
        if action < A_USE:
            bit = 1 << action
            if rejected & bit == 0:
                if swap_keeps_gain(s, action):
                    return action, True
                rejected |= bit
        else:  # a pass among others is the voluntary one (R-8 knob): drawn like any action
            return action, action < A_GAIN and s[GAINS_DONE] == 0


@njit(cache=True)
def agent_plan(kind, s, rng, plan, buf):
    """The next action(s) of agent `kind`: random gives one action, greedy a whole turn."""
    if kind == AGENT_GREEDY:
        return greedy_plan(s, rng, plan)
    plan[0] = random_action(s, rng, buf)
    return 1
