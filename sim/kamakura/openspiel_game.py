"""Kamakura as an OpenSpiel game (`pyspiel`), over the readable API of game.py, with an observer.

Importing this module registers the Python game ``python_kamakura``::

    import pyspiel
    from sim.kamakura import openspiel_game  # noqa: F401  (registers the game)
    game = pyspiel.load_game("python_kamakura", {"players": 3, "seed": 7})

It only translates: every rule (legality, effects, end, winners) comes from `KamakuraGame`, which is itself
a face over the numba kernels. Needs the optional dependency ``open-spiel``
(``pip install -e '.[openspiel]'``).

Parameters
    ``players`` (2-4, default 3); ``config``: path of a Kamakura TOML config, ``""`` (the default) for
    ``configs/kamakura/base.toml``; ``seed`` (default 0): the seed of the setup (chit deal, random layout).
    Four of the config's ``[rules]`` knobs may be set here, overriding the config file's value (their
    defaults leave the file's): ``tie_break`` (a string, ``""``: the file's; ``"last_in_order"``,
    ``"first_in_order"``, ``"shared"`` or ``"last_to_play"``), ``voluntary_pass`` (an int, -1: the
    file's; 0 or 1), ``green_min_requirement`` (an int, -1: the file's; 0-4) and ``layout`` (a string,
    ``""``: the file's; ``"random"`` or 16 letters of RYGB). The chit set and the order chits stay the
    file's. The overridden config is validated as the file itself would be (`params.rules_from_mapping`).

Modelling
    Sequential, perfect information, chance mode DETERMINISTIC: the seeded setup happens inside
    ``new_initial_state`` (the seed is a game parameter), so there are no chance nodes and MCTSBot needs
    no chance handling. One OpenSpiel move is one micro-action of a turn (a swap, a power used, a chit
    gained, the turn's end or a pass), and its id is the kernels' own action code
    (``num_distinct_actions`` = ``kernels.N_ACTIONS`` = 107; `_action_to_string` gives the readable API's
    strings, ``"swap 0 1"``, ``"gain 12"``): that keeps the action space the kernels' own and small,
    where whole turns as moves would be combinatorial (every order of swaps, uses and gains a turn may
    chain) and would need a second enumeration of the rules. A turn is then several consecutive moves by
    the same player, as OpenSpiel allows.

Observation (``provides_observation_tensor`` and ``_string``)
    `observer.KamakuraObserver`, made by ``make_py_observer`` (and used by ``state.observation_tensor()``,
    ``observation_string()`` and ``open_spiel.python.observation.make_observation``): the whole public
    state, 429 + 48 * players float32 entries (the layout is in observer.py's docstring), and the terminal's
    text view. The information state (perfect recall) is the history: ``information_state_string`` is
    the starting position's key and the move history (OpenSpiel's `IIGObserverForPublicInfoGame`, whose
    string is the history alone, with the key before it: a state made by `from_state_dict` counts its
    history from that position, so two such states at different positions, both with an empty history,
    still differ), and there is no information state tensor.

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

import hashlib
import json
import math
import os
import statistics
import time
from typing import Any

import numpy as np
import pyspiel
from open_spiel.python.algorithms import mcts
from open_spiel.python.observation import IIGObserverForPublicInfoGame

from sim.kamakura import kernels as K
from sim.kamakura.game import KamakuraGame, KamakuraState
from sim.kamakura.observer import KamakuraObserver, max_game_length
from sim.kamakura.params import MAX_PLAYERS, MIN_PLAYERS, load_rules

__all__ = [
    "GAME_TYPE",
    "KamakuraSpielGame",
    "KamakuraSpielState",
    "SHORT_NAME",
    "from_state_dict",
    "load",
    "max_game_length",
    "openspiel_mcts_iters_per_s",
    "to_state_dict",
]

SHORT_NAME = "python_kamakura"
#: the rule knobs a game parameter may override, with the value that leaves the config file's
_KNOBS: dict[str, Any] = {"tie_break": "", "voluntary_pass": -1, "green_min_requirement": -1, "layout": ""}
_DEFAULT_PARAMS: dict[str, Any] = {"players": 3, "config": "", "seed": 0, **_KNOBS}

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
    provides_information_state_string=True,
    provides_information_state_tensor=False,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=_DEFAULT_PARAMS,
)


class _Shared:
    """A handle that `copy.deepcopy` passes through unchanged: per-game objects a cloned state shares."""

    __slots__ = ("api",)

    def __init__(self, api: KamakuraGame) -> None:
        self.api = api

    def __deepcopy__(self, memo: dict) -> _Shared:
        return self


class KamakuraSpielGame(pyspiel.Game):
    """Kamakura for one player count, config and setup seed (the game parameters)."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = {**_DEFAULT_PARAMS, **(params or {})}
        players, config, seed = int(params["players"]), str(params["config"]), int(params["seed"])
        rules = load_rules(config, players, _overrides(params))
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
        knobs = {key: type(default)(params[key]) for key, default in _KNOBS.items()}
        super().__init__(GAME_TYPE, info, {"players": players, "config": config, "seed": seed, **knobs})

    def make_py_observer(self, iig_obs_type: pyspiel.IIGObservationType | None = None,
                         params: dict[str, Any] | None = None) -> Any:
        """The observer of a state (the whole position, see observer.py); for a perfect-recall
        (information state) type, OpenSpiel's observer whose string is the move history."""
        if iig_obs_type is None or (iig_obs_type.public_info and not iig_obs_type.perfect_recall):
            return KamakuraObserver(self.api, params)
        return HistoryFromStartObserver(iig_obs_type, params)

    def new_initial_state(self, state: dict[str, Any] | None = None) -> KamakuraSpielState:
        """The seeded start, or the position of ``state``, a dict of `KamakuraGame.to_dict`'s form."""
        start = self._start if state is None else self.api.from_dict(state)
        return KamakuraSpielState(self, start)

    def state_from_dict(self, d: dict[str, Any]) -> KamakuraSpielState:
        """A state at the position of a state dict (`KamakuraGame.to_dict`'s form; its history is empty)."""
        return self.new_initial_state(d)


class HistoryFromStartObserver(IIGObserverForPublicInfoGame):
    """OpenSpiel's perfect-recall observer of a public-information game, its string (the move history)
    after the state's starting position's key (`KamakuraSpielState.start_key`)."""

    def string_from(self, state: KamakuraSpielState, player: int) -> str:
        history = super().string_from(state, player)  # "" without public information: nothing to show
        return f"{state.start_key} {history}".rstrip() if self._iig_obs_type.public_info else history


class KamakuraSpielState(pyspiel.State):
    """An OpenSpiel state wrapping one immutable API state (`KamakuraState`)."""

    def __init__(self, game: KamakuraSpielGame, start: KamakuraState) -> None:
        super().__init__(game)
        self._shared = game._shared
        self._s = start
        position = json.dumps(game._shared.api.to_dict(start), sort_keys=True, default=str)
        #: the starting position's key, the first word of the information state string
        self.start_key = hashlib.sha256(position.encode()).hexdigest()[:16]

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


def _overrides(params: dict[str, Any]) -> dict[str, Any]:
    """The ``[rules]`` keys the game parameters set (those not at their "the file's" value), as the config
    holds them: voluntary_pass 0/1 becomes a boolean."""
    out = {key: params[key] for key, keep in _KNOBS.items() if params[key] != keep}
    if "voluntary_pass" in out:
        value = out["voluntary_pass"]
        if value not in (0, 1):
            raise ValueError(f"voluntary_pass must be 0, 1 or -1 (the config's), got {value!r}")
        out["voluntary_pass"] = bool(value)
    return out


pyspiel.register_game(GAME_TYPE, KamakuraSpielGame)


def load(players: int = 3, config: str | os.PathLike[str] | None = None, seed: int = 0,
         **knobs: Any) -> KamakuraSpielGame:
    """``pyspiel.load_game(SHORT_NAME, ...)`` with this module's parameters (config None: base.toml;
    ``knobs``: the rule knobs the module's docstring lists, e.g. ``tie_break="shared"``)."""
    unknown = set(knobs) - set(_KNOBS)
    if unknown:
        raise ValueError(f"unknown Kamakura game parameters {sorted(unknown)}; knobs: {sorted(_KNOBS)}")
    params = {"players": players, "config": os.fspath(config or ""), "seed": seed, **knobs}
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
