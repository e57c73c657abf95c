"""Kamakura as an OpenSpiel game (`pyspiel`), over the readable API of game.py.

Importing this module registers the Python game ``python_kamakura``::

    import pyspiel
    from sim.kamakura import openspiel_game  # noqa: F401  (registers the game)
    game = pyspiel.load_game("python_kamakura", {"players": 3, "seed": 7})

It only translates: every rule (legality, effects, end, winners) comes from `KamakuraGame`, which is itself
a face over the numba kernels. Needs the optional dependency ``open-spiel`` (``pip install -e .[openspiel]``).

Parameters
    ``players`` (2-4, default 3); ``config``: path of a Kamakura TOML config, ``""`` (the default) for
    ``configs/kamakura/base.toml``; ``seed`` (default 0): the seed of the setup (chit deal, random layout).

Modelling
    Sequential, perfect information, chance mode DETERMINISTIC: the seeded setup happens inside
    ``new_initial_state`` (the seed is a game parameter), so there are no chance nodes and MCTSBot needs
    no chance handling. Action ids are the kernels' micro-action codes (``num_distinct_actions`` =
    ``kernels.N_ACTIONS``); `_action_to_string` gives the readable API's strings
    (``"swap 0 1"``, ``"gain 12"``).

Utility (CONSTANT_SUM, terminal rewards, each return in [0, 1], sum 1 at the end)
    the win share of `KamakuraGame.returns`: the winner after the R-9 tie-break gets 1, everyone else 0;
    with ``tie_break = "shared"`` each of the k tied leaders gets 1/k. Before the end every return is 0.

Cloning
    pyspiel clones a Python state by building ``game.new_initial_state()`` and setting on it a
    ``copy.deepcopy`` of every entry of the original's ``__dict__`` (history and move number are copied on
    the C++ side). A state's ``__dict__`` holds the API state (`KamakuraState`, whose deepcopy copies its
    numpy vector) and a by-reference handle on the game's `KamakuraGame` (deepcopy returns the handle
    itself: it holds no per-state data). ``new_initial_state`` is cheap (the seeded start is computed once
    per game object).
"""

from __future__ import annotations

import math
import os
import statistics
import time
from pathlib import Path
from typing import Any

import numpy as np
import pyspiel
from open_spiel.python.algorithms import mcts

from sim.core.config import load_toml
from sim.kamakura import kernels as K
from sim.kamakura.game import KamakuraGame, KamakuraState
from sim.kamakura.params import DEFAULT_CONFIG, MAX_PLAYERS, MIN_PLAYERS, rules_from_mapping

__all__ = [
    "GAME_TYPE",
    "KamakuraSpielGame",
    "KamakuraSpielState",
    "SHORT_NAME",
    "from_state_dict",
    "load",
    "openspiel_mcts_iters_per_s",
    "to_state_dict",
]

SHORT_NAME = "python_kamakura"
_DEFAULT_PARAMS: dict[str, Any] = {"players": 3, "config": "", "seed": 0}

GAME_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="Python Kamakura",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.DETERMINISTIC,
    information=pyspiel.GameType.Information.PERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.CONSTANT_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=MAX_PLAYERS,
    min_num_players=MIN_PLAYERS,
    provides_information_state_string=False,
    provides_information_state_tensor=False,
    provides_observation_string=False,
    provides_observation_tensor=False,
    parameter_specification=_DEFAULT_PARAMS,
)


class _Shared:
    """A handle that `copy.deepcopy` passes through unchanged: per-game objects a cloned state shares."""

    __slots__ = ("api",)

    def __init__(self, api: KamakuraGame) -> None:
        self.api = api

    def __deepcopy__(self, memo: dict) -> _Shared:
        return self


def max_game_length(rules) -> int:
    """An upper bound on the number of micro-actions in a game (OpenSpiel's ``max_game_length``).

    Every turn ends with `end` (after at least one gain) or `pass` (the player is out): at most
    40 + players turns and 40 gains. A `use` spends a chit or an order chit, given back only by a void
    turn (at most one per player); each turn has one free swap, and further swaps are bought by used red
    powers and order chits.
    """
    players = rules.players
    turns = K.N_CHITS + players
    lives = players + 1  # a power may be used again after each void turn
    uses = (30 + players) * lives
    bought = sum(power for _icons, _points, power in rules.chits[0]) + sum(rules.order_chit_moves)
    swaps = turns + bought * lives
    return turns + K.N_CHITS + uses + swaps


class KamakuraSpielGame(pyspiel.Game):
    """Kamakura for one player count, config and setup seed (the game parameters)."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = {**_DEFAULT_PARAMS, **(params or {})}
        players, config, seed = int(params["players"]), str(params["config"]), int(params["seed"])
        path = Path(config) if config else DEFAULT_CONFIG
        rules = rules_from_mapping(load_toml(path)[0], players, str(path))  # as GameSpec.load_rules
        self.api = KamakuraGame(rules)
        self._shared = _Shared(self.api)
        self._start = self.api.new_state(seed)
        info = pyspiel.GameInfo(
            num_distinct_actions=K.N_ACTIONS,
            max_chance_outcomes=0,
            num_players=players,
            min_utility=0.0,
            max_utility=1.0,
            utility_sum=1.0,
            max_game_length=max_game_length(rules),
        )
        super().__init__(GAME_TYPE, info, {"players": players, "config": config, "seed": seed})

    def new_initial_state(self, state: dict[str, Any] | None = None) -> KamakuraSpielState:
        """The seeded start, or the position of ``state``, a dict of `KamakuraGame.to_dict`'s form."""
        start = self._start if state is None else self.api.from_dict(state)
        return KamakuraSpielState(self, start)

    def state_from_dict(self, d: dict[str, Any]) -> KamakuraSpielState:
        """A state at the position of a state dict (`KamakuraGame.to_dict`'s form; its history is empty)."""
        return self.new_initial_state(d)


class KamakuraSpielState(pyspiel.State):
    """An OpenSpiel state wrapping one immutable API state (`KamakuraState`)."""

    def __init__(self, game: KamakuraSpielGame, start: KamakuraState) -> None:
        super().__init__(game)
        self._shared = game._shared
        self._s = start

    @property
    def api_state(self) -> KamakuraState:
        """The position as a readable-API state (for `KamakuraGame` calls)."""
        return self._s

    def current_player(self) -> int:
        api = self._shared.api
        return pyspiel.PlayerId.TERMINAL if api.is_over(self._s) else api.to_move(self._s)

    def _legal_actions(self, player: int) -> list[int]:
        return self._shared.api.legal_action_codes(self._s).tolist()

    def _apply_action(self, action: int) -> None:
        self._s = self._shared.api.apply_code(self._s, int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        return self._shared.api.action_to_string(int(action))

    def is_terminal(self) -> bool:
        return self._shared.api.is_over(self._s)

    def returns(self) -> list[float]:
        api = self._shared.api
        if not api.is_over(self._s):
            return [0.0] * api.players
        return api.returns(self._s)

    def __str__(self) -> str:
        api, v = self._shared.api, self._s.vector
        d = api.to_dict(self._s)
        rows = " / ".join(" ".join(d["board"][r * 4:r * 4 + 4]) for r in range(4))
        res = api.result(self._s)
        head = f"winners {res['winners']}" if res["over"] else f"to move {d['to_move']}"
        return (f"board {rows} | {head} | turn {d['turn']} | scores {res['scores']} | "
                f"chits left {K.FIELDS.get(v, 'chits_left')} | passed {d['passed']}")


pyspiel.register_game(GAME_TYPE, KamakuraSpielGame)


def load(players: int = 3, config: str | os.PathLike[str] | None = None, seed: int = 0) -> KamakuraSpielGame:
    """``pyspiel.load_game(SHORT_NAME, ...)`` with this module's parameters (config None: base.toml)."""
    params = {"players": players, "config": os.fspath(config or ""), "seed": seed}
    return pyspiel.load_game(SHORT_NAME, params)


def from_state_dict(state_dict: dict[str, Any],
                    config: str | os.PathLike[str] | None = None) -> KamakuraSpielState:
    """An OpenSpiel state at the position of a state dict (`KamakuraGame.to_dict`'s form), in a game of that
    dict's player count.

    ``config`` fills in only the rule knobs the dict leaves out (chits, board and knobs in the dict win).
    The state's history is empty: it starts at that position.
    """
    players = state_dict.get("players") if isinstance(state_dict, dict) else None
    if isinstance(players, bool) or not isinstance(players, int):
        raise ValueError(f"state dict: players must be an integer, got {players!r}")
    return load(players, config).state_from_dict(state_dict)


def to_state_dict(spiel_state: KamakuraSpielState) -> dict[str, Any]:
    """The state dict of an OpenSpiel Kamakura state (`KamakuraGame.to_dict`)."""
    return spiel_state._shared.api.to_dict(spiel_state.api_state)


def openspiel_mcts_iters_per_s(state_dict: dict, iterations: int = 1000, repeats: int = 3,
                               seed: int = 0) -> float:
    """Median MCTS iterations per second of OpenSpiel's Python `MCTSBot` on this adapter.

    At the position of ``state_dict``: plain UCT (c = sqrt(2), no MCTS-solver, so every step runs exactly
    ``iterations`` simulations), one uniform random rollout per leaf; times ``bot.step(state)``
    ``repeats`` times (each step searches a fresh tree) and returns ``iterations / median seconds``.
    """
    if iterations < 1 or repeats < 1:
        raise ValueError(f"iterations and repeats must be >= 1, got {iterations}, {repeats}")
    state = from_state_dict(state_dict)
    if state.is_terminal():
        raise ValueError("state dict: the game is over; there is nothing to search")
    game = state.get_game()
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(seed))
    bot = mcts.MCTSBot(game, uct_c=math.sqrt(2), max_simulations=iterations, evaluator=evaluator,
                       solve=False, random_state=np.random.RandomState(seed))
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        bot.step(state)
        times.append(time.perf_counter() - t0)
    return iterations / statistics.median(times)
