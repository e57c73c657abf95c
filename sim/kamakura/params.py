"""Kamakura rule knobs (docs/rules.md, Kamakura): loading and validating a config into a frozen
``KamakuraRules``.

Everything a designer can change lives in the TOML config (docs/reference/configs.md); this module refuses a
bad one with the file, the dotted key and what is wrong, before any game runs, and hands the engine plain,
already-checked values.
"""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sim.core.config import (
    check_header,
    check_unknown_keys,
    config_hash,
    dotted,
    expect_bool,
    expect_int,
    expect_list,
    expect_str,
    expect_str_choice,
    expect_table,
    fail,
    load_rules_file,
)
from sim.kamakura.board import COLOURS

__all__ = [
    "COLOURS",
    "DEFAULT_CONFIG",
    "KamakuraRules",
    "TIE_BREAKS",
    "load_rules",
    "rules_from_mapping",
]

#: Layout letters in colour-number order.
LETTERS = "RYGB"
#: R-9's tie-break rules and R-20's other reading of it, in the kernels' code order (kernels.TIE_*).
TIE_BREAKS: tuple[str, ...] = ("last_in_order", "first_in_order", "shared", "last_to_play")
CHITS_PER_COLOUR = 10  # one per line
# Ranges of the numeric knobs, so that every score, count and logged value fits its
# type: 40 chits of at most MAX_POINTS keep a score within the logs' int16 (40 * 800 = 32,000 < 32,767);
# a power or an order chit's moves beyond MAX_MOVES buys nothing on a 4x4 board (24 swaps, 10 lines) and
# stays within the events table's int8.
MAX_POINTS = 800
MAX_MOVES = 16
MIN_PLAYERS, MAX_PLAYERS = 2, 4
DEFAULT_CONFIG: Path = Path(__file__).resolve().parents[2] / "configs" / "kamakura" / "base.toml"

#: docs/rules.md defaults for keys a config may leave out of ``[rules]``.
RULE_DEFAULTS: dict[str, Any] = {
    "layout": "RYGBGBRYBGYRYRBG",
    "order_chit_moves": [0, 2, 3, 4],
    "green_min_requirement": 1,
    "tie_break": "last_in_order",
    "voluntary_pass": False,
}
_TOP_KEYS = {"game", "description", "rules", "chits"}
_CHIT_KEYS = ("icons", "points", "power")

Chit = tuple[int, int, int]


@dataclass(frozen=True)
class KamakuraRules:
    """Validated Kamakura rules for one player count.

    ``chits[c][i]`` is ``(icons, points, power)`` of the i-th chit of colour c (0 red .. 3 blue), in config
    order; ``order_chit_moves`` has exactly ``players`` entries, entry 0 always 0 (R-4). ``config_hash``
    identifies the effective rules (defaults filled in, description left out), not the file's spelling.
    """

    players: int
    layout: str
    order_chit_moves: tuple[int, ...]
    green_min_requirement: int
    tie_break: str
    voluntary_pass: bool
    chits: tuple[tuple[Chit, ...], ...]
    source: str
    config_hash: str


def rules_from_mapping(cfg: dict[str, Any], players: int, source: str) -> KamakuraRules:
    """Validate an already-merged config table; ``source`` names the file in every message."""
    file = source
    check_header(cfg=cfg, file=file, game="kamakura", players=players,
                 player_range=(MIN_PLAYERS, MAX_PLAYERS), top_keys=_TOP_KEYS)

    rules_in = expect_table(cfg.get("rules", {}), file, "rules")
    check_unknown_keys(rules_in, RULE_DEFAULTS.keys(), file, "rules")
    rules = {**RULE_DEFAULTS, **rules_in}

    layout = _layout(rules["layout"], file)
    moves = _order_chit_moves(rules["order_chit_moves"], players, file)
    green_min = expect_int(rules["green_min_requirement"], file, "rules.green_min_requirement", 0, 4)
    tie_break = expect_str_choice(rules["tie_break"], file, "rules.tie_break", TIE_BREAKS)
    voluntary_pass = expect_bool(rules["voluntary_pass"], file, "rules.voluntary_pass")

    if "chits" not in cfg:
        fail(file, "chits", "missing table: the chit set must be listed explicitly (RULES R-3)")
    chits = _chits(cfg["chits"], file)

    effective = {
        "game": "kamakura",
        "rules": {
            "layout": layout,
            "order_chit_moves": list(moves),
            "green_min_requirement": green_min,
            "tie_break": tie_break,
            "voluntary_pass": voluntary_pass,
        },
        "chits": {name: [list(c) for c in chits[i]] for i, name in enumerate(COLOURS)},
    }
    return KamakuraRules(
        players=players,
        layout=layout,
        order_chit_moves=moves[:players],
        green_min_requirement=green_min,
        tie_break=tie_break,
        voluntary_pass=voluntary_pass,
        chits=chits,
        source=source,
        config_hash=config_hash(effective),
    )


def load_rules(config: str | os.PathLike[str] | None, players: int,
               overrides: dict[str, Any] | None = None) -> KamakuraRules:
    """A config file's rules (None or "": base.toml) for ``players``, with ``overrides`` (keys of
    ``[rules]``: the OpenSpiel game's and the PettingZoo environment's knobs) over its ``[rules]`` table,
    validated as if the file held them (`load_rules_file`, as the registry reads them)."""
    return load_rules_file(rules_from_mapping, config, DEFAULT_CONFIG, players, overrides)


def _layout(value: object, file: str) -> str:
    """R-1: ``"random"`` or 16 letters R/Y/G/B, row-major, four tiles of each colour."""
    key = "rules.layout"
    text = expect_str(value, file, key)
    if text == "random":
        return text
    if len(text) != 16:
        fail(file, key, f'must be 16 letters of R, Y, G, B (4x4 board, row-major) or "random", '
                        f"got {len(text)} letters")
    for pos, letter in enumerate(text):
        if letter not in LETTERS:
            fail(file, key, f"letter {letter!r} at position {pos} is not one of R, Y, G, B")
    counts = Counter(text)
    for letter, name in zip(LETTERS, COLOURS, strict=True):
        if counts[letter] != 4:
            fail(file, key, f"must hold four tiles of each colour, got {counts[letter]} {letter} ({name})")
    return text


def _order_chit_moves(value: object, players: int, file: str) -> tuple[int, ...]:
    """R-4: extra moves per seat, start player first; seat 0's chit never acts, so its entry must be 0."""
    key = "rules.order_chit_moves"
    items = expect_list(value, file, key)
    moves = tuple(expect_int(v, file, dotted(key, i), 0, MAX_MOVES) for i, v in enumerate(items))
    if len(moves) < players:
        fail(file, key, f"needs one entry per seat: at least {players} for {players} players, "
                        f"got {len(moves)}")
    if moves[0] != 0:
        fail(file, dotted(key, 0), f"must be 0: the start player's order chit never acts (RULES R-4), "
                                   f"got {moves[0]}")
    return moves


def _chits(value: object, file: str) -> tuple[tuple[Chit, ...], ...]:
    """R-3: exactly the four colours, each exactly ten chits ``{icons, points, power}``."""
    table = expect_table(value, file, "chits")
    check_unknown_keys(table, COLOURS, file, "chits")
    out: list[tuple[Chit, ...]] = []
    for name in COLOURS:
        ckey = dotted("chits", name)
        if name not in table:
            fail(file, ckey, f"missing colour: [chits] needs {', '.join(COLOURS)}")
        items = expect_list(table[name], file, ckey)
        if len(items) != CHITS_PER_COLOUR:
            fail(file, ckey, f"must hold exactly {CHITS_PER_COLOUR} chits (one per line, RULES R-2), "
                             f"got {len(items)}")
        out.append(tuple(_chit(item, name, file, dotted(ckey, i)) for i, item in enumerate(items)))
    return tuple(out)


def _chit(value: object, colour: str, file: str, key: str) -> Chit:
    chit = expect_table(value, file, key)
    check_unknown_keys(chit, _CHIT_KEYS, file, key)
    for field in _CHIT_KEYS:
        if field not in chit:
            fail(file, dotted(key, field), "missing key (a chit is {icons, points, power})")
    icons = expect_int(chit["icons"], file, dotted(key, "icons"), 1, 4)
    points = expect_int(chit["points"], file, dotted(key, "points"), 0, MAX_POINTS)
    power = expect_int(chit["power"], file, dotted(key, "power"), 0, MAX_MOVES)
    if colour == "blue" and power != 0:
        # The engine never lets a blue chit be used, so a nonzero power would be a knob with no effect.
        fail(file, dotted(key, "power"), f"must be 0: blue chits have no power (RULES R-3), got {power}")
    return (icons, points, power)
