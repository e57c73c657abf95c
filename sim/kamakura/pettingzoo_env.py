"""Kamakura as a PettingZoo AEC environment (agent-environment cycle), over the readable API of game.py.

::

    from sim.kamakura.pettingzoo_env import env
    e = env(players=3, seed=7)
    e.reset(seed=7)
    for agent in e.agent_iter():
        observation, reward, termination, truncation, info = e.last()
        mask = observation["action_mask"]
        action = None if termination or truncation else e.action_space(agent).sample(mask)
        e.step(action)

It only translates, as the OpenSpiel game does (openspiel_game.py): legality, effects, the end and the
winners come from `KamakuraGame`, a face over the numba kernels. Needs the optional dependencies
``pettingzoo`` and ``gymnasium`` (``pip install -e '.[pettingzoo]'``); not OpenSpiel.

Agents
    ``"player_0"`` .. ``"player_{P-1}"``, seat order (player_0 starts). A turn is several consecutive
    steps of the same agent: one step is one micro-action.
Actions
    ``Discrete(107)``: the kernels' action codes, the same ids as the OpenSpiel game's (0-23 swaps, 24-63
    use a chit's power, 64 use the order chit, 65-104 gain a chit, 105 end the turn, 106 pass;
    `game.action_to_string` reads one). An illegal action raises ValueError.
Observations
    a ``Dict``: ``"observation"``, a float32 ``Box`` of the OpenSpiel observer's tensor
    (`observer.KamakuraObserver`: the whole position, 429 + 48 P entries, from the observing agent's seat),
    and ``"action_mask"``, an int8 ``Box`` of 107 zeros and ones: the legal actions of the agent to move
    (all zeros for every other agent, and once the game is over).
Rewards
    0 until the end; at the end each agent's win share (`KamakuraGame.returns`, OpenSpiel's returns): 1 to
    the winner after the R-9 tie-break, 1/k each to k tied leaders under ``tie_break = "shared"``. The game
    always ends (no truncation).
Seeding
    ``reset(seed=s)`` deals the setup of seed ``s`` (`KamakuraGame.new_state(s)`); ``reset()`` without a
    seed deals the next seed after the last one (the first: the constructor's ``seed``), so a run of
    resets is deterministic.
Rendering
    ``render_mode="ansi"``: ``render()`` returns the terminal's text view of the position
    (`terminal.kamakura_view`, ``balance play``'s).
"""

from __future__ import annotations

import os
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from sim.core.aec_env import SeatsAECEnv
from sim.kamakura import kernels as K
from sim.kamakura.game import KamakuraGame, KamakuraState
from sim.kamakura.observer import KamakuraObserver
from sim.kamakura.params import load_rules
from sim.kamakura.terminal import kamakura_view

__all__ = ["env", "raw_env"]


def env(**kwargs: Any) -> AECEnv:
    """The environment (`raw_env`'s arguments) in PettingZoo's usual wrappers: actions out of range are
    refused, and ``step``/``observe`` before ``reset`` too."""
    wrapped = wrappers.AssertOutOfBoundsWrapper(raw_env(**kwargs))
    return wrappers.OrderEnforcingWrapper(wrapped)


class raw_env(SeatsAECEnv):  # noqa: N801  (PettingZoo's name for the unwrapped environment)
    """Kamakura for one player count and config (see the module's docstring); the AEC bookkeeping of
    `step` and `reset` is the base class's (sim/core/aec_env.py).

    ``players`` 2-4; ``config`` a Kamakura TOML config (None: configs/kamakura/base.toml); ``seed`` the
    first reset's setup seed; ``rules`` keys of the config's ``[rules]`` table to override (e.g.
    ``{"tie_break": "shared"}``), validated as the file's; ``render_mode`` None or ``"ansi"``.
    """

    metadata = {"render_modes": ["ansi"], "name": "kamakura_v0", "is_parallelizable": False}

    def __init__(self, players: int = 3, config: str | os.PathLike[str] | None = None, seed: int = 0,
                 rules: dict[str, Any] | None = None, render_mode: str | None = None) -> None:
        super().__init__()
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(f"render_mode must be None or 'ansi', got {render_mode!r}")
        self.render_mode = render_mode
        self.api = KamakuraGame(load_rules(config, players, rules))
        self._observer = KamakuraObserver(self.api)
        self._next_seed = seed
        self.possible_agents = [f"player_{seat}" for seat in range(players)]
        observation = spaces.Dict({
            "observation": spaces.Box(low=0.0, high=self._observer.high(), dtype=np.float32),
            "action_mask": spaces.Box(low=0, high=1, shape=(K.N_ACTIONS,), dtype=np.int8),
        })
        self.observation_spaces = {agent: observation for agent in self.possible_agents}
        self.action_spaces = {agent: spaces.Discrete(K.N_ACTIONS) for agent in self.possible_agents}
        self.position: KamakuraState = self.api.new_state(seed)

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None:
            self._next_seed = seed
        self.position = self.api.new_state(self._next_seed)
        self._next_seed += 1
        self._start()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """The observer's tensor from ``agent``'s seat, and its legal actions' mask."""
        seat = self.possible_agents.index(agent)
        self._observer.set_from(self.position, seat)
        mask = np.zeros(K.N_ACTIONS, dtype=np.int8)
        if not self.api.is_over(self.position) and seat == self.api.to_move(self.position):
            mask[self.api.legal_action_codes(self.position)] = 1
        return {"observation": self._observer.tensor.copy(), "action_mask": mask}

    def _play(self, agent: str, action: int) -> None:
        self.position = self.api.apply_code(self.position, action)

    def _to_move(self) -> int:
        return self.api.to_move(self.position)

    def _returns(self) -> list[float] | None:
        return self.api.returns(self.position) if self.api.is_over(self.position) else None

    def render(self) -> str | None:
        """The position as text (``render_mode="ansi"``); None, with Gymnasium's warning, without a mode."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() without a render_mode: make the env with render_mode='ansi'")
            return None
        return kamakura_view(self.api.to_dict(self.position), self.possible_agents,
                             over=self.api.is_over(self.position))
