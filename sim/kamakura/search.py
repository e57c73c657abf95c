"""The Python face of Kamakura MCTS: one fresh search from a position, over whichever tree the parameters
name (turn_mcts.py for `tree=turns`, mcts.py for `tree=actions`). The batch loop (batch.py) calls the
compiled searches itself and keeps a tree per seat between decisions instead.
"""

from __future__ import annotations

import numpy as np

from sim.kamakura.agent_kinds import AGENTS
from sim.kamakura.agents import MAX_PLAN
from sim.kamakura.kernels import VOLUNTARY
from sim.kamakura.mcts import mcts_action, tree_capacity
from sim.kamakura.turn_mcts import PLAN_WIDTH, at_turn_start, turn_mcts_plan, turn_tree_capacity
from sim.kamakura.uct import P_ITERS, P_TREE, P_WIDTH, TREE_TURNS, new_tree


def search_row(params: dict) -> np.ndarray:
    """The kernels' parameter row (uct.P_*) for MCTS parameters given by name, the `mcts` agent's defaults
    (its entry in the game registry) filling in the rest; an unknown name is a ValueError."""
    known = AGENTS["mcts"].params
    unknown = set(params) - set(known)
    if unknown:
        raise ValueError(f"unknown MCTS parameters: {sorted(unknown)}")
    return np.array([float(params.get(key, default)) for key, (_kind, default) in known.items()],
                    dtype=np.float64)


def search_turn(state_vector: np.ndarray, rng: np.ndarray, **params: float) -> list[int]:
    """One fresh search from a position (no tree kept): the action codes MCTS plays from there to the end
    of the turn. With tree=turns at the start of a turn that is the whole planned turn; otherwise (the
    micro-action tree, or a turn already under way) one action. `params` are the agent's (iters, c,
    rollout, reward, horizon, prior, tree, width; choices by index), defaults as the `mcts` agent's."""
    row = search_row(params)
    vector = state_vector.copy()
    history = np.zeros(1, dtype=np.int64)
    if int(row[P_TREE]) == TREE_TURNS and at_turn_start(vector):
        tree = new_tree(turn_tree_capacity(row[P_ITERS], row[P_WIDTH], vector[VOLUNTARY]), PLAN_WIDTH)
        plan = np.empty(MAX_PLAN, dtype=np.int64)
        n = turn_mcts_plan(vector, rng, row, tree, history, 0, plan)
        return [int(code) for code in plan[:n]]
    tree = new_tree(tree_capacity(row[P_ITERS]))
    return [int(mcts_action(vector, rng, row, tree, history, 0))]


def search(state_vector: np.ndarray, rng: np.ndarray, **params: float) -> int:
    """The next action code MCTS plays at a position, from a fresh search (see search_turn)."""
    return search_turn(state_vector, rng, **params)[0]
