"""What a Kamakura seat observes, as one float32 tensor and as text: the observer that the OpenSpiel game
(openspiel_game.py) and the PettingZoo environment (pettingzoo_env.py) share.

It follows OpenSpiel's observer interface (``open_spiel/python/observation.py``): ``tensor`` is a 1-D
float32 array, ``dict`` names reshaped views of it (no copies), ``set_from(state, player)`` fills them in
place and ``string_from(state, player)`` gives the text. ``state`` is an API state (`KamakuraState`) or
anything with an ``api_state`` (the OpenSpiel state). It needs neither OpenSpiel nor PettingZoo: every value
is read off the kernels' state vector by field name (`kernels.FIELDS`), the scores by `kernels.scores`,
so no rule is restated here.

Kamakura is open information, so every seat observes the whole position. The tensor, in this order, for
P players (P = 2, 3, 4 gives 525, 573, 621 entries: 429 + 48 P):

==============  =========  ===================================================================================
name            shape      values
==============  =========  ===================================================================================
``player``      (P,)       one-hot: the observing seat
``to_move``     (P,)       one-hot: the seat to move (all 0 once the game is over)
``board``       (4, 16)    one-hot colour planes (red, yellow, green, blue) over the cells, row-major
``start_board`` (4, 16)    the same for the board at the turn's start (a void turn restores it, R-8)
``chits``       (40, 3)    per chit id (10 * colour + line): icons, points, power
``chit_owner``  (P, 40)    1 where seat p holds the chit (a column of zeros: still on the board)
``chit_flags``  (4, 40)    per chit: power used (spent), gained this turn, activated this turn, green used
                           for a gain this turn
``scores``      (P,)       each seat's points
``order_chits`` (P, 3)     each seat's order chit: moves, spent, activated this turn
``passed``      (P,)       1 once the seat has passed (it takes no more turns)
``last_turn``   (P,)       1 + the number of the seat's latest finished turn, 0 before its first (R-20)
``turn``        (5,)       turns finished, swaps left, gains made, gains allowed (this turn), game over
``gain_line``   (10,)      one-hot: the line of this turn's gains (all 0 before the first gain)
``rules``       (6,)       green_min_requirement, voluntary_pass, tie_break one-hot (the kernels' order)
==============  =========  ===================================================================================

The text is the terminal's view of the position (`terminal.kamakura_view`, ``balance play``'s), the
observing seat shown as "you".
"""

from __future__ import annotations

from typing import Any

import numpy as np

from sim.kamakura import kernels as K
from sim.kamakura.game import KamakuraGame, KamakuraState
from sim.kamakura.params import TIE_BREAKS
from sim.kamakura.terminal import kamakura_view

__all__ = ["KamakuraObserver", "max_game_length", "observation_pieces", "observation_size"]

#: (name, shape, whether its entries are one-hot or flags in 0..1): P stands for the player count
_PIECES: tuple[tuple[str, tuple[Any, ...], bool], ...] = (
    ("player", ("P",), True), ("to_move", ("P",), True),
    ("board", (4, 16), True), ("start_board", (4, 16), True),
    ("chits", (K.N_CHITS, 3), False), ("chit_owner", ("P", K.N_CHITS), True),
    ("chit_flags", (4, K.N_CHITS), True), ("scores", ("P",), False), ("order_chits", ("P", 3), False),
    ("passed", ("P",), True), ("last_turn", ("P",), False), ("turn", (5,), False),
    ("gain_line", (10,), True), ("rules", (2 + len(TIE_BREAKS),), False),
)


def observation_pieces(players: int) -> list[tuple[str, tuple[int, ...]]]:
    """The tensor's named pieces in order, with their shapes, for a player count."""
    return [(name, tuple(players if n == "P" else n for n in shape)) for name, shape, _ in _PIECES]


def observation_size(players: int) -> int:
    """The tensor's length for a player count (429 + 48 * players)."""
    return sum(int(np.prod(shape)) for _, shape in observation_pieces(players))


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


class KamakuraObserver:
    """OpenSpiel's observer interface over a Kamakura game's states (see the module's docstring)."""

    def __init__(self, api: KamakuraGame, params: dict[str, Any] | None = None) -> None:
        if params:
            raise ValueError(f"Kamakura's observer takes no parameters; passed {params}")
        self.api = api
        self.players = api.players
        self.tensor = np.zeros(observation_size(self.players), np.float32)
        self.dict: dict[str, np.ndarray] = {}
        offset = 0
        for name, shape in observation_pieces(self.players):
            size = int(np.prod(shape))
            self.dict[name] = self.tensor[offset:offset + size].reshape(shape)
            offset += size
        self._score = np.zeros(K.MAX_PLAYERS, dtype=np.int64)

    def high(self) -> np.ndarray:
        """An upper bound of every entry (all entries are >= 0): 1 for one-hot pieces and flags; the largest
        chit value for ``chits``, all points for ``scores``, `max_game_length` for the other counts."""
        rules = self.api.rules
        values = np.array(rules.chits, dtype=np.float32).reshape(-1, 3)
        bound = float(max(max_game_length(rules), values[:, 1].sum(), values.max(), 4))
        out = np.zeros_like(self.tensor)
        offset = 0
        for (_name, shape), (_, _, unit) in zip(observation_pieces(self.players), _PIECES, strict=True):
            size = int(np.prod(shape))
            out[offset:offset + size] = 1.0 if unit else bound
            offset += size
        return out

    def set_from(self, state: Any, player: int) -> None:
        """Fill ``tensor`` (and so ``dict``) with what ``player`` observes of ``state``."""
        v = getattr(state, "api_state", state).vector
        players, d, f = self.players, self.dict, K.FIELDS
        self.tensor.fill(0.0)
        d["player"][player] = 1.0
        over = bool(f.get(v, "over"))
        if not over:
            d["to_move"][f.get(v, "to_move")] = 1.0
        cells = np.arange(16)
        d["board"][f.view(v, "board"), cells] = 1.0
        d["start_board"][f.view(v, "start_board"), cells] = 1.0
        for column, name in enumerate(("icons", "points", "power")):
            d["chits"][:, column] = f.view(v, name)
        owner = f.view(v, "owner")
        held = np.flatnonzero(owner >= 0)
        d["chit_owner"][owner[held], held] = 1.0
        for row, name in enumerate(("spent", "gained_now", "active_now", "green_used")):
            d["chit_flags"][row] = f.view(v, name)
        K.scores(v, self._score)
        d["scores"][:] = self._score[:players]
        for column, name in enumerate(("order_moves", "order_spent", "order_active")):
            d["order_chits"][:, column] = f.view(v, name)[:players]
        d["passed"][:] = f.view(v, "passed")[:players]
        d["last_turn"][:] = f.view(v, "last_turn")[:players] + 1
        d["turn"][:] = [f.get(v, "turn"), f.get(v, "swaps_left"), f.get(v, "gains_done"),
                        f.get(v, "gains_allowed"), over]
        line = f.get(v, "gain_line")
        if line >= 0:
            d["gain_line"][line] = 1.0
        d["rules"][:2] = [f.get(v, "green_min"), f.get(v, "voluntary")]
        d["rules"][2 + f.get(v, "tie_break")] = 1.0

    def string_from(self, state: Any, player: int) -> str:
        """The position as the terminal shows it, the observing seat named "you"."""
        s: KamakuraState = getattr(state, "api_state", state)
        labels = ["you" if seat == player else f"player {seat}" for seat in range(self.players)]
        return kamakura_view(self.api.to_dict(s), labels, over=self.api.is_over(s))
