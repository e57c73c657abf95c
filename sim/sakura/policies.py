"""Agents for the readable Sakura API: they get the game and the observation-bearing state.

RandomPolicy re-states the batch `random` agent over the readable API with the same generator, so both
paths play identical games (the agreement test relies on it). GreedyPolicy runs the compiled greedy on
a copy of the state; the greedy reads only what the seat may observe (agents.py), which the no-peeking
test checks. ExpertPolicy does the same with the compiled expert (expert.py) and its model's weights,
SearchPolicy with the compiled search (search.py).
"""

from __future__ import annotations

import numpy as np

from sim.core.agent_spec import AgentSpec, agent_row
from sim.core.rng import rng_below
from sim.sakura import agents, mcts
from sim.sakura.agent_kinds import ROSTER
from sim.sakura.expert import expert_action
from sim.sakura.game import SakuraGame, SakuraState, action_to_string
from sim.sakura.kernels import N_ACTIONS_MAX
from sim.sakura.search import search_action


class RandomPolicy:
    def __init__(self, rng: np.ndarray) -> None:
        self.rng = rng

    def choose(self, game: SakuraGame, state: SakuraState) -> str:
        actions = game.legal_actions(state)
        return actions[rng_below(self.rng, len(actions))]


class GreedyPolicy:
    def __init__(self, rng: np.ndarray) -> None:
        self.rng = rng
        self._buf = np.empty(N_ACTIONS_MAX, dtype=np.int64)

    def choose(self, game: SakuraGame, state: SakuraState) -> str:
        return action_to_string(int(agents.greedy_action(state.vector.copy(), self.rng, self._buf)))


class MctsPolicy:
    """Information-set MCTS (mcts.py) from what the seat to move may observe."""

    def __init__(self, rng: np.ndarray, **params: float) -> None:
        self.rng = rng
        self.params = params  # iters, c, reward: defaults as the `mcts` agent's (sim/core/agent_spec.py)

    def choose(self, game: SakuraGame, state: SakuraState) -> str:
        return action_to_string(mcts.search(state.vector, self.rng, **self.params))


class ExpertPolicy:
    """The compiled expert (expert.py) on a copy of the state. Parameters: the `expert` agent's (samples,
    temp, model; defaults from the registry, the shipped model of the game's player count when model is
    '')."""

    agent = "expert"
    kernel = staticmethod(expert_action)

    def __init__(self, rng: np.ndarray, **params: float | str) -> None:
        self.rng = rng
        self.params = params
        self._row: np.ndarray | None = None

    def choose(self, game: SakuraGame, state: SakuraState) -> str:
        if self._row is None:  # the model is read once, for the game's player count
            spec = AgentSpec(self.agent, dict(self.params))
            self._row = np.array(agent_row(spec, ROSTER, game.players), dtype=np.float64)
        return action_to_string(int(self.kernel(state.vector.copy(), self.rng, self._row)))


class SearchPolicy(ExpertPolicy):
    """The compiled `search` (search.py) on a copy of the state, its parameters and model as the agent's."""

    agent = "search"
    kernel = staticmethod(search_action)


POLICIES = {"random": RandomPolicy, "greedy": GreedyPolicy, "mcts": MctsPolicy, "expert": ExpertPolicy,
            "search": SearchPolicy}
