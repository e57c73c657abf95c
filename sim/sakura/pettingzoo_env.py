"""Sakura as a PettingZoo AEC environment, over the OpenSpiel adapter (openspiel_game.py) and its observer.

::

    from sim.sakura.pettingzoo_env import env
    e = env(players=4)
    e.reset(seed=1)
    for agent in e.agent_iter():
        observation, reward, termination, truncation, info = e.last()
        mask = observation["action_mask"]
        e.step(None if termination or truncation else int(mask.nonzero()[0][0]))

Agents ``player_0`` .. ``player_{n-1}`` are the seats. Every round each agent picks a card in turn, in seat
order; a pick is hidden from the others (their observations show only that it was made) until every card is
chosen and revealed: the simultaneous choice as AEC turns. The owner of a forward-or-back card chooses when
it resolves (tactical two-player variant: the further player also gives the court painter a card). The
deals and draws are chance: the environment samples them from the generator `reset(seed=...)` seeds.

Spaces: ``Discrete(202)`` actions (the kernels' codes: ``N`` plays card N, ``100 + N`` gives card N to the
court painter, 200 forward, 201 back); observations ``Dict(observation=Box, action_mask=Box(0, 1, (202,),
int8))``, the observation being the OpenSpiel observer's per-seat observation tensor (its layout:
`openspiel_game.SakuraObserver`). Rewards come at the end only: each seat's win share (`SakuraGame.returns`).
``render_mode="ansi"``: `render` returns the text view of the seat to move (sim/sakura/terminal.py).
Needs the optional dependencies ``pettingzoo`` and ``open-spiel``
(``pip install -e '.[pettingzoo,openspiel]'``).
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from sim.core.aec_env import SeatsAECEnv
from sim.sakura import kernels as K
from sim.sakura import openspiel_game as og
from sim.sakura.terminal import sakura_view

__all__ = ["SakuraAECEnv", "env", "raw_env"]


class SakuraAECEnv(SeatsAECEnv):
    """Sakura for one player count and config; the agents are the seats. The AEC bookkeeping of `step` and
    `reset` is the base class's (sim/core/aec_env.py)."""

    metadata = {"render_modes": ["ansi"], "name": "sakura_v0", "is_parallelizable": False}

    def __init__(self, players: int = 4, config: str | os.PathLike[str] | None = None,
                 render_mode: str | None = None) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}, "
                             f"got {render_mode!r}")
        self.render_mode = render_mode
        self.game = og.load(players, config)
        self._observer = self.game.make_py_observer()
        self.possible_agents = [f"player_{seat}" for seat in range(players)]
        size = len(self._observer.tensor)
        space = spaces.Dict({
            "observation": spaces.Box(0.0, float(K.MAX_ROUNDS), (size,), np.float32),
            "action_mask": spaces.Box(0, 1, (og.NUM_ACTIONS,), np.int8),
        })
        self.observation_spaces = {agent: space for agent in self.possible_agents}
        self.action_spaces = {agent: spaces.Discrete(og.NUM_ACTIONS) for agent in self.possible_agents}
        self._rng = np.random.default_rng()
        self.position: og.SakuraSpielState | None = None

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self._rng = np.random.default_rng(seed)
        self.position = self.game.new_initial_state()
        self._deal()
        self._start()

    def _deal(self) -> None:
        """Play chance (deals, draws, the court card) with the seeded generator up to a seat's move."""
        while self.position.is_chance_node():
            outcomes = self.position.chance_outcomes()
            self.position.apply_action(outcomes[int(self._rng.integers(len(outcomes)))][0])

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self.possible_agents.index(agent)
        self._observer.set_from(self.position, seat)
        mask = np.zeros(og.NUM_ACTIONS, dtype=np.int8)
        if self.position.current_player() == seat:
            mask[self.position.legal_actions()] = 1
        return {"observation": self._observer.tensor.copy(), "action_mask": mask}

    def _play(self, agent: str, action: int) -> None:
        if action not in self.position.legal_actions():
            raise ValueError(f"illegal action {action} for {agent}; legal: {self.position.legal_actions()}")
        self.position.apply_action(action)
        self._deal()

    def _to_move(self) -> int:
        return self.position.current_player()

    def _returns(self) -> list[float] | None:
        return self.position.returns() if self.position.is_terminal() else None

    def render(self) -> str | None:
        if self.render_mode is None or self.position is None:
            return None
        who = self.position.current_player()
        seat = who if who >= 0 else 0
        obs = self.game.api.observe(self.position.api_state, seat)
        obs.setdefault("has_selected", [card is not None for card in obs["selected"]])
        obs["to_move"] = who if who >= 0 else "nobody (the game is over)"
        return sakura_view(obs, self.possible_agents)


def raw_env(players: int = 4, config: str | os.PathLike[str] | None = None,
            render_mode: str | None = None) -> SakuraAECEnv:
    """The environment without PettingZoo's checking wrappers."""
    return SakuraAECEnv(players, config, render_mode)


def env(players: int = 4, config: str | os.PathLike[str] | None = None,
        render_mode: str | None = None) -> AECEnv:
    """The environment in PettingZoo's usual wrappers (an illegal action ends the game for the agent that
    made it, with reward -1; steps out of order are refused)."""
    wrapped = wrappers.TerminateIllegalWrapper(raw_env(players, config, render_mode), illegal_reward=-1)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)

