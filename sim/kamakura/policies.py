"""Agents for the readable API: they see a game object and a state and return an action string.

RandomPolicy re-states the batch `random` agent's policy (agents.py) over the readable API, drawing from
the same generator in the same order, so the two paths must play identical games: the agreement test
relies on this. GreedyPolicy asks the compiled planner for a whole turn and hands it out one action at a
time; ExpertPolicy and SearchPolicy do the same with the compiled expert and search.
"""

from __future__ import annotations

import numpy as np

from sim.core.agent_spec import AgentSpec, agent_row
from sim.core.rng import rng_below
from sim.kamakura import agents, search
from sim.kamakura.agent_kinds import ROSTER
from sim.kamakura.expert import expert_plan
from sim.kamakura.game import KamakuraGame, KamakuraState, action_to_string
from sim.kamakura.puct import search_plan


class RandomPolicy:
    """Uniform over legal actions, never making a swap that leaves no gain reachable; the voluntary pass
    (R-8 knob) is drawn like any action (see agents.py)."""

    def __init__(self, rng: np.ndarray) -> None:
        self.rng = rng

    def choose(self, game: KamakuraGame, state: KamakuraState) -> str:
        actions = game.legal_actions(state)
        if len(actions) == 1:
            return actions[0]
        while True:
            action = actions[rng_below(self.rng, len(actions))]
            if action.startswith("swap "):
                if game.legal_actions(game.apply(state, action)) != ["pass"]:
                    return action
            else:
                return action


class GreedyPolicy:
    """Plans each turn with the compiled greedy planner, then plays the plan out."""

    def __init__(self, rng: np.ndarray) -> None:
        self.rng = rng
        self._queue: list[str] = []
        self._plan = np.empty(agents.MAX_PLAN, dtype=np.int64)

    def choose(self, game: KamakuraGame, state: KamakuraState) -> str:
        if not self._queue:
            n = agents.greedy_plan(state.vector.copy(), self.rng, self._plan)
            self._queue = [action_to_string(int(code)) for code in self._plan[:n]]
        return self._queue.pop(0)


class MctsPolicy:
    """UCT over the kernels (turn_mcts.py, or mcts.py with tree=actions; search.py), searching afresh at
    every decision: a whole turn at a time over turns, one action over micro-actions (the batch loop keeps
    its tree between decisions instead). Defaults: the `mcts` agent's (its entry in the game registry)."""

    def __init__(self, rng: np.ndarray, **params: float) -> None:
        self.rng = rng
        self.params = params
        self._queue: list[str] = []

    def choose(self, game: KamakuraGame, state: KamakuraState) -> str:
        if not self._queue:
            codes = search.search_turn(state.vector, self.rng, **self.params)
            self._queue = [action_to_string(code) for code in codes]
        return self._queue.pop(0)


class ExpertPolicy:
    """The compiled expert (expert.py) on a copy of the state: a whole turn at its start, handed out one
    action at a time. Parameters: the `expert` agent's (width, deep, replies, model; defaults from the
    registry, the shipped model of the game's player count when model is '')."""

    agent = "expert"
    kernel = staticmethod(expert_plan)

    def __init__(self, rng: np.ndarray, **params: float | str) -> None:
        self.rng = rng
        self.params = params
        self._row: np.ndarray | None = None
        self._queue: list[str] = []
        self._plan = np.empty(agents.MAX_PLAN, dtype=np.int64)

    def choose(self, game: KamakuraGame, state: KamakuraState) -> str:
        if self._row is None:  # the model is read once, for the game's player count
            spec = AgentSpec(self.agent, dict(self.params))
            self._row = np.array(agent_row(spec, ROSTER, game.players), dtype=np.float64)
        if not self._queue:
            n = self.kernel(state.vector.copy(), self.rng, self._row, self._plan)
            self._queue = [action_to_string(int(code)) for code in self._plan[:n]]
        return self._queue.pop(0)


class SearchPolicy(ExpertPolicy):
    """The compiled `search` agent (puct.py), as ExpertPolicy plays the expert: a fresh search a turn, as in
    the batch, so both play the same games. Parameters: the `search` agent's."""

    agent = "search"
    kernel = staticmethod(search_plan)


POLICIES = {"random": RandomPolicy, "greedy": GreedyPolicy, "mcts": MctsPolicy, "expert": ExpertPolicy,
            "search": SearchPolicy}
