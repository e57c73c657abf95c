"""The readable Kamakura API (docs/reference/python-api.md): a thin face over the kernels in kernels.py.

Nothing here decides a rule: strings are parsed into action codes, legality and effects come from
`kernels.legal_actions` / `kernels.apply_action`, and dicts are translated to and from the state vector,
whose fields are read and written by name through `kernels.FIELDS` (views of the vector).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from sim.core.game_face import KernelGame, KernelState
from sim.kamakura import kernels as K
from sim.kamakura.board import COLOUR_LETTERS, SWAPS
from sim.kamakura.kernels import FIELDS
from sim.kamakura.params import TIE_BREAKS, KamakuraRules

_SWAP_INDEX = {(int(a), int(b)): k for k, (a, b) in enumerate(SWAPS.tolist())}
_END_REASONS = {K.END_NONE: None, K.END_ALL_GAINED: "all_chits_gained", K.END_ALL_PASSED: "all_passed"}


def kernel_rules(rules: KamakuraRules) -> K.KernelRules:
    """The rules as the kernels take them (`kernels.KernelRules`) for a validated rules object."""
    random_layout = rules.layout == "random"
    layout = np.zeros(16, dtype=np.int64)
    if not random_layout:
        layout[:] = [COLOUR_LETTERS.index(ch) for ch in rules.layout]
    return K.KernelRules(players=rules.players, layout=layout, random_layout=random_layout,
                         chit_sets=np.array(rules.chits, dtype=np.int64).reshape(4, 10, 3),
                         order_moves=np.array(rules.order_chit_moves, dtype=np.int64),
                         green_min=rules.green_min_requirement, voluntary=int(rules.voluntary_pass),
                         tie_break=TIE_BREAKS.index(rules.tie_break))


class KamakuraState(KernelState):
    """A Kamakura position: the kernels' state vector (`sim.core.game_face.KernelState`: treat as immutable,
    equal when the vectors are equal). `KamakuraGame.apply` returns a new one."""


def action_to_string(code: int) -> str:
    if code < K.A_USE:
        a, b = SWAPS[code]
        return f"swap {a} {b}"
    if code < K.A_USE_ORDER:
        return f"use {code - K.A_USE}"
    if code == K.A_USE_ORDER:
        return "use order"
    if code < K.A_END:
        return f"gain {code - K.A_GAIN}"
    return "end" if code == K.A_END else "pass"


def action_from_string(action: str) -> int:
    """Parse an action string; ValueError if it names no action at all (legality is checked elsewhere)."""
    words = action.split() if isinstance(action, str) else []
    try:
        if words == ["end"]:
            return K.A_END
        if words == ["pass"]:
            return K.A_PASS
        if words == ["use", "order"]:
            return K.A_USE_ORDER
        if len(words) == 3 and words[0] == "swap":
            return K.A_SWAP + _SWAP_INDEX[(int(words[1]), int(words[2]))]
        if len(words) == 2 and words[0] in ("use", "gain"):
            chit = int(words[1])
            if 0 <= chit < K.N_CHITS:
                return (K.A_USE if words[0] == "use" else K.A_GAIN) + chit
    except (KeyError, ValueError):
        pass
    raise ValueError(f"not a Kamakura action: {action!r}")


class KamakuraGame(KernelGame):
    """Kamakura for one validated rules object (a player count and a config)."""

    name = "kamakura"
    kernels = K
    state_type = KamakuraState
    max_actions = K.N_ACTIONS
    kernel_rules = staticmethod(kernel_rules)
    action_to_string = staticmethod(action_to_string)
    action_from_string = staticmethod(action_from_string)

    def is_over(self, s: KamakuraState) -> bool:
        return bool(FIELDS.get(s.vector, "over"))

    # ---- outcome ----------------------------------------------------------------------------------
    def result(self, s: KamakuraState) -> dict[str, Any]:
        v = s.vector
        players = FIELDS.get(v, "players")
        score = np.zeros(K.MAX_PLAYERS, dtype=np.int64)
        K.scores(v, score)
        over = bool(FIELDS.get(v, "over"))
        out: dict[str, Any] = {"over": over, "scores": [int(x) for x in score[:players]], "winners": [],
                               "tie": False, "decided_by_tiebreak": False, "turns": FIELDS.get(v, "turn"),
                               "end_reason": _END_REASONS[FIELDS.get(v, "end_reason")]}
        if over:
            win = np.zeros(K.MAX_PLAYERS, dtype=np.int64)
            tie, decided = K.winners(v, score, win)
            out.update(winners=[i for i in range(players) if win[i]], tie=bool(tie),
                       decided_by_tiebreak=bool(decided))
        return out

    # ---- dicts ------------------------------------------------------------------------------------
    def observe(self, s: KamakuraState, seat: int) -> dict[str, Any]:
        """Kamakura is open information: every seat sees the whole state."""
        players = FIELDS.get(s.vector, "players")
        if not 0 <= seat < players:
            raise ValueError(f"no seat {seat} in a {players}-player game")
        return self.to_dict(s)

    def to_dict(self, s: KamakuraState) -> dict[str, Any]:
        return state_to_dict(s.vector)

    def from_dict(self, d: dict[str, Any]) -> KamakuraState:
        return KamakuraState(state_from_dict(d, self.rules))


def _letters(tiles: np.ndarray) -> str:
    return "".join(COLOUR_LETTERS[int(c)] for c in tiles)


def _chit_views(v: np.ndarray) -> tuple[np.ndarray, ...]:
    """The per-chit fields a state dict lists: icons, points, power, owner, spent (views of v)."""
    return tuple(FIELDS.view(v, name) for name in ("icons", "points", "power", "owner", "spent"))


def _ids(flags: np.ndarray) -> list[int]:
    """The chit ids whose entry of a per-chit field is set."""
    return [i for i in range(K.N_CHITS) if flags[i]]


def state_to_dict(v: np.ndarray) -> dict[str, Any]:
    players = FIELDS.get(v, "players")
    icons, points, power, owner, spent = _chit_views(v)
    d: dict[str, Any] = {
        "game": "kamakura",
        "players": players,
        "to_move": FIELDS.get(v, "to_move"),
        "board": _letters(FIELDS.view(v, "board")),
        "chits": [{"id": i, "icons": int(icons[i]), "points": int(points[i]), "power": int(power[i]),
                   "owner": None if owner[i] < 0 else int(owner[i]),
                   "spent": bool(spent[i])} for i in range(K.N_CHITS)],
        "order_moves": [int(x) for x in FIELDS.view(v, "order_moves")[:players]],
        "order_spent": [bool(x) for x in FIELDS.view(v, "order_spent")[:players]],
        "passed": [bool(x) for x in FIELDS.view(v, "passed")[:players]],
        "turn": FIELDS.get(v, "turn"),
        "out_turn": [None if x < 0 else int(x) for x in FIELDS.view(v, "out_turn")[:players]],
        "last_turn": [None if x < 0 else int(x) for x in FIELDS.view(v, "last_turn")[:players]],
        "rules": {"green_min_requirement": FIELDS.get(v, "green_min"),
                  "tie_break": TIE_BREAKS[FIELDS.get(v, "tie_break")],
                  "voluntary_pass": bool(FIELDS.get(v, "voluntary"))},
    }
    if _mid_turn(v):
        line = FIELDS.get(v, "gain_line")
        d["turn_state"] = {
            "start_board": _letters(FIELDS.view(v, "start_board")),
            "swaps_left": FIELDS.get(v, "swaps_left"),
            "gains_done": FIELDS.get(v, "gains_done"),
            "gains_allowed": FIELDS.get(v, "gains_allowed"),
            "gain_line": None if line < 0 else line,
            "gained": _ids(FIELDS.view(v, "gained_now")),
            "activated": _ids(FIELDS.view(v, "active_now")),
            "greens_assigned": _ids(FIELDS.view(v, "green_used")),
            "order_activated": bool(FIELDS.view(v, "order_active")[FIELDS.get(v, "to_move")]),
        }
    return d


def _mid_turn(v: np.ndarray) -> bool:
    return bool(FIELDS.get(v, "gains_done") or FIELDS.get(v, "swaps_left") != 1
                or FIELDS.get(v, "gains_allowed") != 1
                or FIELDS.view(v, "active_now").any() or FIELDS.view(v, "order_active").any()
                or not np.array_equal(FIELDS.view(v, "board"), FIELDS.view(v, "start_board")))


class _Reader:
    """Checked access to a state dict: every problem is a ValueError naming the key."""

    def __init__(self, d: Any) -> None:
        if not isinstance(d, dict):
            raise ValueError(f"a Kamakura state must be a dict, got {type(d).__name__}")
        self.d = d

    def get(self, key: str, kind: type | tuple, default: Any = ...) -> Any:
        if key not in self.d:
            if default is ...:
                raise ValueError(f"state dict: missing key {key!r}")
            return default
        value = self.d[key]
        if kind is int and (isinstance(value, bool) or not isinstance(value, int)):
            raise ValueError(f"state dict: {key} must be an integer, got {value!r}")
        if kind is not int and not isinstance(value, kind):
            raise ValueError(f"state dict: {key} has the wrong type: {value!r}")
        return value


def _board(text: Any, key: str) -> list[int]:
    if not isinstance(text, str) or len(text) != 16 or any(ch not in COLOUR_LETTERS for ch in text):
        raise ValueError(f"state dict: {key} must be 16 letters of RYGB, got {text!r}")
    if sorted(text) != sorted(COLOUR_LETTERS * 4):
        raise ValueError(f"state dict: {key} must hold four tiles of each colour, got {text!r}")
    return [COLOUR_LETTERS.index(ch) for ch in text]


def _per_seat(r: _Reader, key: str, players: int, kind: type, default: Any = ...) -> list:
    values = r.get(key, list, default)
    if values is None:
        return [None] * players
    if len(values) != players or any(
            (kind is int and (isinstance(x, bool) or not isinstance(x, int))) or
            (kind is bool and not isinstance(x, bool)) for x in values if x is not None):
        raise ValueError(f"state dict: {key} must list one {kind.__name__} per seat ({players}), "
                         f"got {values!r}")
    return values


def state_from_dict(d: dict[str, Any], rules: KamakuraRules) -> np.ndarray:
    """Build a state vector from a dict of `to_dict`'s form; knobs in d["rules"] override the config."""
    r = _Reader(d)
    if r.get("game", str) != "kamakura":
        raise ValueError(f"state dict: game must be 'kamakura', got {d.get('game')!r}")
    players = r.get("players", int)
    if not 2 <= players <= K.MAX_PLAYERS:
        raise ValueError(f"state dict: players must be 2..4, got {players}")
    v = np.zeros(K.STATE_SIZE, dtype=np.int64)
    FIELDS.set(v, "players", players)
    FIELDS.view(v, "board")[:] = _board(r.get("board", str), "board")
    _read_chits(v, r.get("chits", list), players)
    passed = _read_order(v, r, players)
    _read_turns(v, r, players)
    _read_knobs(v, r.get("rules", dict, {}), rules)
    FIELDS.set(v, "chits_left", int((FIELDS.view(v, "owner") < 0).sum()))
    to_move = r.get("to_move", int)
    if not 0 <= to_move < players:
        raise ValueError(f"state dict: to_move must be a seat 0..{players - 1}, got {to_move}")
    FIELDS.set(v, "to_move", to_move)
    K.refresh_masks(v)
    K.begin_turn(v)
    if passed[to_move] and not passed[:players].all():
        raise ValueError(f"state dict: to_move {to_move} has passed and takes no more turns (R-8)")
    if "turn_state" in d:
        # A turn in progress: the game ends only with its `end` (even if its gains emptied the board).
        _read_turn_state(v, _Reader(r.get("turn_state", dict)), to_move)
    elif FIELDS.get(v, "chits_left") == 0:
        FIELDS.set(v, "over", 1)
        FIELDS.set(v, "end_reason", K.END_ALL_GAINED)
    elif passed[:players].all():
        FIELDS.set(v, "over", 1)
        FIELDS.set(v, "end_reason", K.END_ALL_PASSED)
    return v


def _read_chits(v: np.ndarray, chits: list, players: int) -> None:
    """The 40 chits in id order: icons, points, power, owner (a seat, or null on the board) and spent."""
    if len(chits) != K.N_CHITS:
        raise ValueError(f"state dict: chits must list 40 chits in id order, got {len(chits)}")
    icons_v, points_v, power_v, owner_v, spent_v = _chit_views(v)
    for i, chit in enumerate(chits):
        c = _Reader(chit)
        if c.get("id", int) != i:
            raise ValueError(f"state dict: chits[{i}].id must be {i} (id order), got {chit.get('id')!r}")
        icons, points, power = c.get("icons", int), c.get("points", int), c.get("power", int)
        if not 1 <= icons <= 4 or points < 0 or power < 0:
            raise ValueError(f"state dict: chits[{i}] has icons {icons}, points {points}, power {power}")
        owner = c.get("owner", (int, type(None)), None)
        if owner is not None and (isinstance(owner, bool) or not 0 <= owner < players):
            raise ValueError(f"state dict: chits[{i}].owner must be a seat 0..{players - 1} or null")
        spent = c.get("spent", bool, False)
        if spent and owner is None:
            raise ValueError(f"state dict: chits[{i}] is spent but still on the board")
        icons_v[i], points_v[i], power_v[i] = icons, points, power
        owner_v[i] = -1 if owner is None else owner
        spent_v[i] = spent


def _read_order(v: np.ndarray, r: _Reader, players: int) -> np.ndarray:
    """Each seat's order-chit moves, whether its order chit is spent and whether it passed; the passed
    flags (seats beyond the players count as passed)."""
    order_moves = FIELDS.view(v, "order_moves")
    order_moves[:players] = _per_seat(r, "order_moves", players, int)
    if min(order_moves[:players]) < 0:
        raise ValueError("state dict: order_moves must be non-negative")
    FIELDS.view(v, "order_spent")[:players] = _per_seat(r, "order_spent", players, bool)
    passed = FIELDS.view(v, "passed")
    passed[:] = 1
    passed[:players] = _per_seat(r, "passed", players, bool)
    return passed


def _read_turns(v: np.ndarray, r: _Reader, players: int) -> None:
    """The turn, and each seat's out_turn (when it passed) and last_turn (R-20: its latest finished turn;
    left out, a seat that passed last played when it passed)."""
    out_turn = _per_seat(r, "out_turn", players, int, None)
    out_turn_v = FIELDS.view(v, "out_turn")
    out_turn_v[:] = -1
    out_turn_v[:players] = [-1 if x is None else x for x in out_turn]
    turn = r.get("turn", int, 0)
    FIELDS.set(v, "turn", turn)
    last_turn = _per_seat(r, "last_turn", players, int, None)
    for seat, (last, out) in enumerate(zip(last_turn, out_turn, strict=True)):
        if last is None:
            continue
        if not 0 <= last < turn:
            raise ValueError(f"state dict: last_turn[{seat}] must be a finished turn 0..{turn - 1} or null, "
                             f"got {last}")
        if out is not None and last != out:
            raise ValueError(f"state dict: last_turn[{seat}] must be its out_turn {out}: a seat that passed "
                             "takes no more turns (R-8)")
    last_turn = [out_turn[i] if x is None else x for i, x in enumerate(last_turn)]
    last_turn_v = FIELDS.view(v, "last_turn")
    last_turn_v[:] = -1
    last_turn_v[:players] = [-1 if x is None else x for x in last_turn]


def _read_knobs(v: np.ndarray, knobs: dict, rules: KamakuraRules) -> None:
    """The rule knobs a state dict may set (green_min_requirement, tie_break, voluntary_pass), each
    defaulting to the game's config."""
    unknown = set(knobs) - {"green_min_requirement", "tie_break", "voluntary_pass"}
    if unknown:
        raise ValueError(f"state dict: unknown rules keys {sorted(unknown)}")
    gmin = knobs.get("green_min_requirement", rules.green_min_requirement)
    tie_break = knobs.get("tie_break", rules.tie_break)
    voluntary = knobs.get("voluntary_pass", rules.voluntary_pass)
    if isinstance(gmin, bool) or not isinstance(gmin, int) or not 0 <= gmin <= 4:
        raise ValueError(f"state dict: rules.green_min_requirement must be 0..4, got {gmin!r}")
    if tie_break not in TIE_BREAKS:
        raise ValueError(f"state dict: rules.tie_break must be one of {TIE_BREAKS}, got {tie_break!r}")
    if not isinstance(voluntary, bool):
        raise ValueError(f"state dict: rules.voluntary_pass must be a boolean, got {voluntary!r}")
    FIELDS.set(v, "green_min", gmin)
    FIELDS.set(v, "tie_break", TIE_BREAKS.index(tie_break))
    FIELDS.set(v, "voluntary", voluntary)


def _read_turn_state(v: np.ndarray, t: _Reader, seat: int) -> None:
    FIELDS.view(v, "start_board")[:] = _board(t.get("start_board", str), "turn_state.start_board")
    FIELDS.set(v, "swaps_left", t.get("swaps_left", int))
    FIELDS.set(v, "gains_done", t.get("gains_done", int))
    FIELDS.set(v, "gains_allowed", t.get("gains_allowed", int))
    line = t.get("gain_line", (int, type(None)), None)
    FIELDS.set(v, "gain_line", -1 if line is None else line)
    per_chit = (("gained", "gained_now"), ("activated", "active_now"), ("greens_assigned", "green_used"))
    for key, name in per_chit:
        flags = FIELDS.view(v, name)
        for chit in t.get(key, list):
            if isinstance(chit, bool) or not isinstance(chit, int) or not 0 <= chit < K.N_CHITS:
                raise ValueError(f"state dict: turn_state.{key} holds {chit!r}, not a chit id")
            flags[chit] = 1
    FIELDS.view(v, "order_active")[seat] = t.get("order_activated", bool, False)
    K.refresh_masks(v)
