"""What every game's PettingZoo AEC environment (sim/<game>/pettingzoo_env.py) shares: the agents are the
seats (``player_0`` .. ``player_{P-1}``), one agent moves at a time, and the rewards come at the end only,
each seat's win share. This base class keeps the bookkeeping PettingZoo's AEC contract asks of every
environment: the agents' rewards, cumulative rewards, terminations, truncations and infos after a reset, a
step of an agent that is done (`_was_dead_step`), the cumulative reward of the agent that moves, the end's
rewards and the next agent selected. A game's environment says how to play an action, whose seat is to
move and what the seats' returns are at the end (`_play`, `_to_move`, `_returns`).

Needs the optional dependency ``pettingzoo`` (``pip install -e '.[pettingzoo]'``): only the games'
environment modules import this one, and nothing imports them but their users and the bench (by reference,
sim/core/interop_bench.py), which reports a missing extra.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pettingzoo import AECEnv

__all__ = ["SeatsAECEnv"]


class SeatsAECEnv(AECEnv):
    """A turn-taking game as an AEC environment whose agents are its seats, rewarded at the end.

    A subclass sets ``possible_agents`` (seat order), ``observation_spaces`` and ``action_spaces`` (agent ->
    space), deals the game in ``reset`` and then calls `_start`; it implements `_play`, `_to_move`,
    `_returns`, ``observe`` and ``render``.
    """

    def observation_space(self, agent: str) -> Any:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> Any:
        return self.action_spaces[agent]

    def _play(self, agent: str, action: int) -> None:
        """Play `agent`'s `action` on the position (ValueError if it is illegal)."""
        raise NotImplementedError

    def _to_move(self) -> int:
        """The seat to move."""
        raise NotImplementedError

    def _returns(self) -> Sequence[float] | None:
        """Each seat's return (win share) once the game is over; None while it goes on."""
        raise NotImplementedError

    def _start(self) -> None:
        """A reset's bookkeeping, once the new game is dealt: every agent in play, nothing earned, nobody
        done, the seat to move selected."""
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict] = {agent: {} for agent in self.agents}
        self.agent_selection = self.possible_agents[self._to_move()]

    def step(self, action: int | None) -> None:
        """The selected agent's action: None for an agent that is done (it leaves the game), else a legal
        action; at the end every seat's return is its reward and every agent is done."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        self._play(agent, int(action))
        returns = self._returns()
        if returns is not None:
            self.rewards = {a: float(returns[seat]) for seat, a in enumerate(self.possible_agents)}
            self.terminations = dict.fromkeys(self.agents, True)
        else:
            self.rewards = dict.fromkeys(self.agents, 0.0)
            self.agent_selection = self.possible_agents[self._to_move()]
        self._accumulate_rewards()

    def close(self) -> None:
        pass
