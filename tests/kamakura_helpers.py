"""Builders and small reference helpers for the Kamakura rule tests (docs/rules.md, Kamakura).

Everything here works on the public, readable API only: state dicts, `from_dict`, `legal_actions`, `apply`.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from sim import games

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "configs" / "kamakura" / "base.toml"

COLOURS = "RYGB"  # colour index 0..3
RED, YELLOW, GREEN, BLUE = range(4)

# R-1 default layout (diagonal Latin square):
#   R Y G B    cells  0  1  2  3
#   G B R Y           4  5  6  7
#   B G Y R           8  9 10 11
#   Y R B G          12 13 14 15
LATIN = "RYGBGBRYBGYRYRBG"

# Line ids: 0..3 rows, 4..7 columns, 8 main diagonal, 9 anti-diagonal.
LINES: tuple[tuple[int, ...], ...] = (
    (0, 1, 2, 3),
    (4, 5, 6, 7),
    (8, 9, 10, 11),
    (12, 13, 14, 15),
    (0, 4, 8, 12),
    (1, 5, 9, 13),
    (2, 6, 10, 14),
    (3, 7, 11, 15),
    (0, 5, 10, 15),
    (3, 6, 9, 12),
)

# The 24 orthogonally adjacent cell pairs (a < b): 12 horizontal, 12 vertical.
ADJACENT: tuple[tuple[int, int], ...] = tuple(
    sorted([(c, c + 1) for c in range(16) if c % 4 != 3] + [(c, c + 4) for c in range(12)])
)

DEFAULT_RULES = {"green_min_requirement": 1, "tie_break": "last_in_order", "voluntary_pass": False}
DEFAULT_ORDER_MOVES = (0, 2, 3, 4)

# Default chit used by `make_state` for every chit not overridden: needs 4 tiles of its colour in its line
# (never eligible on a board whose lines hold at most 2 of a colour and hard to reach), 1 point, no power.
DEFAULT_CHIT = {"icons": 4, "points": 1, "power": 0}


def chit_id(colour: int | str, line: int) -> int:
    c = COLOURS.index(colour) if isinstance(colour, str) else colour
    return 10 * c + line


def colour_of(cid: int) -> int:
    return cid // 10


def line_of(cid: int) -> int:
    return cid % 10


def count(board: str, colour: int | str, line: int) -> int:
    """Tiles of `colour` in `line` on `board`."""
    letter = colour if isinstance(colour, str) else COLOURS[colour]
    return sum(board[c] == letter for c in LINES[line])


def swapped(board: str, a: int, b: int) -> str:
    cells = list(board)
    cells[a], cells[b] = cells[b], cells[a]
    return "".join(cells)


def swap_actions(board: str) -> set[str]:
    """Every `swap A B` the board allows (adjacent, different colours) - a reference, not the engine."""
    return {f"swap {a} {b}" for a, b in ADJACENT if board[a] != board[b]}


def check_board(board: str) -> None:
    assert len(board) == 16, board
    assert Counter(board) == Counter({c: 4 for c in COLOURS}), board


def chit(icons: int = 4, points: int = 1, power: int = 0) -> dict:
    return {"icons": icons, "points": points, "power": power}


def off_board(keep: Iterable[int], owner: int) -> dict[int, int]:
    """Owners map that takes every chit except `keep` off the board, owned by `owner`."""
    keep = set(keep)
    return {cid: owner for cid in range(40) if cid not in keep}


def make_state(
    board: str = LATIN,
    chits: dict[int, dict] | list[dict] | None = None,
    owners: dict[int, int] | None = None,
    spent: Iterable[int] = (),
    players: int = 3,
    to_move: int = 0,
    order_moves: list[int] | None = None,
    order_spent: list[bool] | None = None,
    passed: list[bool] | None = None,
    rules: dict | None = None,
) -> dict:
    """A turn-boundary state dict in `to_dict`'s form.

    chits: None (every chit DEFAULT_CHIT), a dict {id: partial chit dict} overriding DEFAULT_CHIT, or a full
    list of 40 chit dicts. owners: {id: seat}; unlisted chits lie on the board. rules: partial knob dict,
    completed from DEFAULT_RULES; None leaves the "rules" key out (the game's config applies).
    order_moves default: the config default [0, 2, 3, 4][:players]; order_spent default: seat 0 spent only.
    """
    check_board(board)
    owners = dict(owners or {})
    spent = set(spent)
    if isinstance(chits, list):
        assert len(chits) == 40
        base = [dict(c) for c in chits]
    else:
        overrides = chits or {}
        base = [{**DEFAULT_CHIT, **overrides.get(cid, {})} for cid in range(40)]
    out_chits = []
    for cid, c in enumerate(base):
        out_chits.append(
            {
                "id": cid,
                "icons": c["icons"],
                "points": c["points"],
                "power": c["power"],
                "owner": owners.get(cid),
                "spent": cid in spent,
            }
        )
    d = {
        "game": "kamakura",
        "players": players,
        "to_move": to_move,
        "board": board,
        "chits": out_chits,
        "order_moves": list(order_moves if order_moves is not None else DEFAULT_ORDER_MOVES[:players]),
        "order_spent": list(order_spent if order_spent is not None else [True] + [False] * (players - 1)),
        "passed": list(passed if passed is not None else [False] * players),
    }
    assert len(d["order_moves"]) == len(d["order_spent"]) == len(d["passed"]) == players
    if rules is not None:
        d["rules"] = {**DEFAULT_RULES, **rules}
    return d


@functools.cache
def game(players: int = 3, config: str = str(CONFIG)):
    return games.load("kamakura", config=config, players=players)


def load(d: dict):
    """(game, state) for a state dict."""
    g = game(d["players"])
    return g, g.from_dict(d)


def legal(g, s) -> set[str]:
    acts = g.legal_actions(s)
    assert len(acts) == len(set(acts)), f"duplicate legal actions: {acts}"
    return set(acts)


def play(g, s, *actions: str):
    for a in actions:
        s = g.apply(s, a)
    return s


def owned_points(d: dict, seat: int) -> int:
    return sum(c["points"] for c in d["chits"] if c["owner"] == seat)
