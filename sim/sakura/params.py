"""Sakura rule knobs (docs/rules.md, Sakura): loading and validating a config into a frozen ``SakuraRules``.

Everything a designer can change lives in the TOML config (docs/reference/configs.md): the tie-break (R-14),
the two-player variant, the three alternative readings (R-21 `bump_from`, R-22 `lineup_from_gate`, R-23
`court_can_win`), the board geometry (R-10) and the whole 60-card deck (R-11). This module refuses a bad
config with the file, the dotted key and what is wrong, before any game runs, and hands the engine plain,
already-checked values: action ids become their index in ``GARDEN_ACTIONS`` / ``PAINTER_ACTIONS``.
"""

from __future__ import annotations

import os
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
    expect_str_choice,
    expect_table,
    fail,
    load_rules_file,
)
from sim.sakura.codes import (
    BUMP_FROM,
    DECK_SIZE,
    GARDEN_ACTIONS,
    MAX_PLAYERS,
    MAX_SAKURA,
    MIN_PLAYERS,
    PAINTER_ACTIONS,
    TIE_BREAKS,
    VARIANTS,
)

__all__ = [
    "BUMP_FROM",
    "DEFAULT_CONFIG",
    "DECK_SIZE",
    "GARDEN_ACTIONS",
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "PAINTER_ACTIONS",
    "SakuraRules",
    "TIE_BREAKS",
    "VARIANTS",
    "rules_from_mapping",
]

#: the garden actions that can move the Emperor forward: a deck needs one, or no game ends
EMPEROR_FORWARD: tuple[str, ...] = ("E+1", "E+2", "E+-1")
# Ranges: the state holds MAX_SAKURA trees; a path of MAX_PATH spaces (three times its
# bridges longer with 5-6 players) keeps every position within the logs' int16.
MAX_PATH = 1000
BRIDGE_SPACES = 3  # with 5 or 6 players each bridge counts as three spaces
DEFAULT_CONFIG: Path = Path(__file__).resolve().parents[2] / "configs" / "sakura" / "base.toml"

#: docs/rules.md defaults for keys a config may leave out.
RULE_DEFAULTS: dict[str, Any] = {
    "tie_break": "closest_to_emperor",
    "two_player_variant": "court",  # Two players
    "bump_from": "emperor",  # R-15; "painter" is R-21
    "lineup_from_gate": False,  # R-18; true is R-22
    "court_can_win": False,  # Two players; true is R-23
}
#: The knobs docs/rules.md added after the first rules of record (R-21..R-23). A config leaves them out of its
#: hash while they hold their default, so a config at the defaults keeps the hash it had before they
#: existed: its run directories still resume and the shipped expert models still match it.
_LATER_KNOBS = ("bump_from", "lineup_from_gate", "court_can_win")
BOARD_DEFAULTS: dict[str, Any] = {  # R-10, reconstructed
    "length": 30,
    "torii": 4,
    "sakura": [12, 20, 28],
    "bridges": [8, 16, 24, 26],
}
_TOP_KEYS = {"game", "description", "rules", "board", "cards"}
_CARD_KEYS = ("order", "garden", "painter")

Card = tuple[int, int, int]


@dataclass(frozen=True)
class SakuraRules:
    """Validated Sakura rules for one player count.

    The board fields are as printed (one space per bridge, as played with 2-4 players); ``played_board``
    gives the path as played with this player count. ``bridges`` is sorted. ``cards`` holds
    ``(order, garden code, painter code)`` sorted by order, so ``cards[k - 1][0] == k``. ``config_hash``
    identifies the effective rules (defaults filled in, description left out; the R-21..R-23 knobs only
    when they differ from their defaults), not the file's spelling.
    """

    players: int
    tie_break: str
    two_player_variant: str
    bump_from: str  # R-15 "emperor" | R-21 "painter"
    lineup_from_gate: bool  # R-22 when true
    court_can_win: bool  # R-23 when true; two players only (ignored with 3-6: there is no court painter)
    length: int
    torii: int
    sakura: tuple[int, ...]
    bridges: tuple[int, ...]
    cards: tuple[Card, ...]
    source: str
    config_hash: str

    @property
    def seats_decide(self) -> bool:
        """Whether the seats' final tokens and positions alone decide who wins: not with two players
        under court_can_win (R-23), where the court painter competes. Analyses that re-score a run from
        the seats' scores (token equivalents, seat handicaps) hold only when this is true."""
        return not (self.players == 2 and self.court_can_win)

    def played_board(self) -> tuple[int, int, tuple[int, ...], tuple[int, ...]]:
        """``(path_length, torii, sakura, bridge_first_spaces)`` on the path as played (R-10).

        With 5 or 6 players each bridge is three spaces: printed index i moves up by 2 for each bridge
        printed below it, and bridge b occupies the three spaces from its own mapped index. With 2-4
        players the printed board is the played one.
        """
        if self.players < 5:
            return self.length, self.torii, self.sakura, self.bridges
        extra = BRIDGE_SPACES - 1

        def mapped(i: int) -> int:
            return i + extra * sum(1 for b in self.bridges if b < i)

        return (
            self.length + extra * len(self.bridges),
            mapped(self.torii),
            tuple(mapped(s) for s in self.sakura),
            tuple(mapped(b) for b in self.bridges),
        )


def rules_from_mapping(cfg: dict[str, Any], players: int, source: str) -> SakuraRules:
    """Validate an already-merged config table; ``source`` names the file in every message."""
    file = source
    check_header(cfg=cfg, file=file, game="sakura", players=players, player_range=(MIN_PLAYERS, MAX_PLAYERS),
                 top_keys=_TOP_KEYS)

    rules_in = expect_table(cfg.get("rules", {}), file, "rules")
    check_unknown_keys(rules_in, RULE_DEFAULTS.keys(), file, "rules")
    rules = {**RULE_DEFAULTS, **rules_in}
    tie_break = expect_str_choice(rules["tie_break"], file, "rules.tie_break", TIE_BREAKS)
    variant = expect_str_choice(rules["two_player_variant"], file, "rules.two_player_variant", VARIANTS)
    # Like two_player_variant, court_can_win is accepted at every player count and only acts with two
    # (docs/rules.md "Two players"), so one config file serves every player count.
    knobs = {"bump_from": expect_str_choice(rules["bump_from"], file, "rules.bump_from", BUMP_FROM),
             "lineup_from_gate": expect_bool(rules["lineup_from_gate"], file, "rules.lineup_from_gate"),
             "court_can_win": expect_bool(rules["court_can_win"], file, "rules.court_can_win")}

    board_in = expect_table(cfg.get("board", {}), file, "board")
    check_unknown_keys(board_in, BOARD_DEFAULTS.keys(), file, "board")
    length, torii, sakura, bridges = _board({**BOARD_DEFAULTS, **board_in}, file)

    if "cards" not in cfg:
        fail(file, "cards", f"missing: the deck of {DECK_SIZE} cards must be listed explicitly (RULES R-11)")
    cards = _cards(cfg["cards"], file)

    effective = {
        "game": "sakura",
        "rules": {"tie_break": tie_break, "two_player_variant": variant,
                  **{k: v for k, v in knobs.items() if k in _LATER_KNOBS and v != RULE_DEFAULTS[k]}},
        "board": {"length": length, "torii": torii, "sakura": list(sakura), "bridges": list(bridges)},
        "cards": [
            {"order": o, "garden": GARDEN_ACTIONS[g], "painter": PAINTER_ACTIONS[p]} for o, g, p in cards
        ],
    }
    return SakuraRules(
        players=players,
        tie_break=tie_break,
        two_player_variant=variant,
        **knobs,
        length=length,
        torii=torii,
        sakura=sakura,
        bridges=bridges,
        cards=cards,
        source=source,
        config_hash=config_hash(effective),
    )


def _board(board: dict[str, Any], file: str) -> tuple[int, int, tuple[int, ...], tuple[int, ...]]:
    """R-10: gate 0, path spaces 1..length; torii before the first sakura; bridges on plain spaces."""
    length = expect_int(board["length"], file, "board.length", 2, MAX_PATH)
    torii = expect_int(board["torii"], file, "board.torii", 1, length)
    on_path = f"path spaces are 1..{length}"

    key = "board.sakura"
    items = expect_list(board["sakura"], file, key)
    if not items:
        fail(file, key, "must list at least one sakura space")
    if len(items) > MAX_SAKURA:
        fail(file, key, f"at most {MAX_SAKURA} sakura spaces (the engine's state holds {MAX_SAKURA}), "
                        f"got {len(items)}")
    sakura: list[int] = []
    for i, value in enumerate(items):
        ikey = dotted(key, i)
        s = expect_int(value, file, ikey)
        if not 1 <= s <= length:
            fail(file, ikey, f"sakura off the path ({on_path}), got {s}")
        if sakura and s <= sakura[-1]:
            fail(file, ikey, f"sakura spaces must be strictly increasing, got {s} after {sakura[-1]}")
        sakura.append(s)
    if torii >= sakura[0]:
        fail(file, "board.torii", f"the torii must lie before the first sakura ({sakura[0]}), got {torii}")

    key = "board.bridges"
    items = expect_list(board["bridges"], file, key)
    first_at: dict[int, int] = {}
    for i, value in enumerate(items):
        ikey = dotted(key, i)
        b = expect_int(value, file, ikey)
        if not 1 <= b <= length:
            fail(file, ikey, f"bridge off the path ({on_path}), got {b}")
        if b in first_at:
            fail(file, ikey, f"bridge {b} repeated (first at {dotted(key, first_at[b])})")
        if b == torii:
            fail(file, ikey, f"a bridge cannot be the torii space ({torii})")
        if b in sakura:
            fail(file, ikey, f"a bridge cannot be a sakura space ({b})")
        first_at[b] = i
    return length, torii, tuple(sakura), tuple(sorted(first_at))


def _cards(value: object, file: str) -> tuple[Card, ...]:
    """R-11: exactly 60 cards ``{order, garden, painter}``, order numbers 1..60 once each."""
    items = expect_list(value, file, "cards")
    if len(items) != DECK_SIZE:
        fail(file, "cards", f"must hold exactly {DECK_SIZE} cards (order numbers 1..{DECK_SIZE} once each, "
                            f"RULES R-11), got {len(items)}")
    first_at: dict[int, int] = {}
    cards: list[Card] = []
    for i, item in enumerate(items):
        key = dotted("cards", i)
        card = expect_table(item, file, key)
        check_unknown_keys(card, _CARD_KEYS, file, key)
        for field in _CARD_KEYS:
            if field not in card:
                fail(file, dotted(key, field), "missing key (a card is {order, garden, painter})")
        order = expect_int(card["order"], file, dotted(key, "order"), 1, DECK_SIZE)
        if order in first_at:
            fail(file, dotted(key, "order"),
                 f"order number {order} repeated (first at {dotted('cards', first_at[order])})")
        first_at[order] = i
        garden = expect_str_choice(card["garden"], file, dotted(key, "garden"), GARDEN_ACTIONS)
        painter = expect_str_choice(card["painter"], file, dotted(key, "painter"), PAINTER_ACTIONS)
        cards.append((order, GARDEN_ACTIONS.index(garden), PAINTER_ACTIONS.index(painter)))
    # 60 distinct order numbers in 1..60: each appears once.
    if not any(GARDEN_ACTIONS[g] in EMPEROR_FORWARD for _, g, _ in cards):
        fail(file, "cards", "no card's garden action moves the Emperor forward "
                            f"({', '.join(EMPEROR_FORWARD)}): he never reaches a sakura, so no game could "
                            "end (R-11)")
    return tuple(sorted(cards))


def load_rules(config: str | os.PathLike[str] | None, players: int,
               overrides: dict[str, Any] | None = None) -> SakuraRules:
    """A config file's rules (None or "": base.toml) for ``players``, with ``overrides`` (keys of
    ``[rules]``: the OpenSpiel game's knobs) over its ``[rules]`` table, validated as if the file held them
    (`load_rules_file`, as the registry reads them)."""
    return load_rules_file(rules_from_mapping, config, DEFAULT_CONFIG, players, overrides)
