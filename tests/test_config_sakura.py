"""Sakura config loading: the shipped configs match docs/rules.md (R-10 board, R-11 deck, R-14 tie-break), the
played board is expanded for 5-6 players, and every bad config is refused with the file and the dotted key
(docs/reference/configs.md), before any game could run."""

from __future__ import annotations

import dataclasses
import shutil
from collections import Counter
from pathlib import Path

import pytest

from sim import ConfigError
from sim.core.config import load_toml
from sim.sakura.params import (
    DEFAULT_CONFIG,
    GARDEN_ACTIONS,
    PAINTER_ACTIONS,
    SakuraRules,
    rules_from_mapping,
)
from sim.sakura.spec import SPEC

REPO = Path(__file__).resolve().parents[1]
CONFIGS = REPO / "configs" / "sakura"
BASE = CONFIGS / "base.toml"

# R-11, reconstructed, in the order base.toml documents for its pairing rule.
R11_GARDEN = {"E+1": 20, "E+2": 10, "E-1": 6, "E+-1": 8, "closest-2": 8, "furthest+2": 8}
R11_PAINTER = {"P+1": 12, "P+2": 12, "P+3": 8, "P+-1": 6, "P+-2": 6, "P+-3": 4, "leapfrog": 6, "count": 6}
EMPEROR_MOVES = ("E+1", "E+2", "E-1", "E+-1")


def expand(counts: dict[str, int]) -> list[str]:
    return [name for name, n in counts.items() for _ in range(n)]


def cards_toml(n: int = 60, at: int = 0, **override: object) -> str:
    """``cards = [...]`` with n valid cards ordered 1..n; ``override`` replaces fields (as TOML text) of
    the card at index ``at``."""
    items = []
    for i in range(n):
        fields = {"order": str(i + 1), "garden": '"E+1"', "painter": '"P+1"'}
        if i == at:
            fields.update({k: str(v) for k, v in override.items()})
        items.append("{" + ", ".join(f"{k} = {v}" for k, v in fields.items()) + "}")
    return "cards = [\n" + ",\n".join(items) + ",\n]\n"


@pytest.fixture
def variant(tmp_path: Path):
    """Write a variant ``bad.toml`` extending a copy of base.toml in tmp_path; return its path."""
    shutil.copy(BASE, tmp_path / "base.toml")

    def write(body: str, name: str = "bad.toml") -> Path:
        path = tmp_path / name
        path.write_text('extends = "base.toml"\n' + body, encoding="utf-8")
        return path

    return write


# ------------------------------------------------------------------------------------------------------
# The shipped configs


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_base_matches_rules_of_record(players: int) -> None:
    rules = SPEC.load_rules(BASE, players)
    assert rules.players == players
    assert rules.tie_break == "closest_to_emperor"
    assert rules.two_player_variant == "court"
    assert rules.bump_from == "emperor"  # R-15 (R-21 is "painter")
    assert rules.lineup_from_gate is False  # R-18 (R-22 is true)
    assert rules.court_can_win is False  # R-23 is true
    assert rules.seats_decide
    # R-10, as printed
    assert (rules.length, rules.torii, rules.sakura, rules.bridges) == (30, 4, (12, 20, 28), (8, 16, 24, 26))
    assert len(rules.cards) == 60
    assert [order for order, _, _ in rules.cards] == list(range(1, 61))
    assert len(rules.config_hash) == 12 and int(rules.config_hash, 16) >= 0
    assert rules.source == str(BASE)


def test_default_rules_is_base_and_frozen() -> None:
    assert DEFAULT_CONFIG == BASE
    rules = SPEC.default_rules(3)
    assert isinstance(rules, SakuraRules)
    assert rules == SPEC.load_rules(BASE, 3)
    with pytest.raises(dataclasses.FrozenInstanceError):
        rules.players = 4  # type: ignore[misc]


def test_deck_has_r11_counts() -> None:
    rules = SPEC.default_rules(4)
    garden = Counter(GARDEN_ACTIONS[g] for _, g, _ in rules.cards)
    painter = Counter(PAINTER_ACTIONS[p] for _, _, p in rules.cards)
    assert garden == Counter(R11_GARDEN)
    assert painter == Counter(R11_PAINTER)
    assert sum(garden[a] for a in EMPEROR_MOVES) == 44  # 44 of the 60 garden actions move the Emperor


def test_deck_pairing_rule() -> None:
    """base.toml: card k has garden G[(7k) % 60] and painter P[(13k) % 60]."""
    g_list, p_list = expand(R11_GARDEN), expand(R11_PAINTER)
    assert len(g_list) == len(p_list) == 60
    for order, g, p in SPEC.default_rules(4).cards:
        assert GARDEN_ACTIONS[g] == g_list[(7 * order) % 60], order
        assert PAINTER_ACTIONS[p] == p_list[(13 * order) % 60], order


def test_action_codes_are_indices() -> None:
    assert GARDEN_ACTIONS == ("E+1", "E+2", "E-1", "E+-1", "closest-2", "furthest+2")
    assert PAINTER_ACTIONS == ("P+1", "P+2", "P+3", "P+-1", "P+-2", "P+-3", "leapfrog", "count")
    first = SPEC.default_rules(4).cards[0]
    assert first == (1, GARDEN_ACTIONS.index("E+1"), PAINTER_ACTIONS.index("P+2"))


@pytest.mark.parametrize("players", [2, 3, 4])
def test_played_board_unchanged_up_to_four(players: int) -> None:
    assert SPEC.default_rules(players).played_board() == (30, 4, (12, 20, 28), (8, 16, 24, 26))


@pytest.mark.parametrize("players", [5, 6])
def test_played_board_expands_bridges(players: int) -> None:
    """R-10: with 5-6 players each bridge is three spaces; everything past a bridge shifts by 2."""
    assert SPEC.default_rules(players).played_board() == (38, 4, (14, 24, 36), (8, 18, 28, 32))


def test_played_board_bridge_before_torii(variant) -> None:
    path = variant("[board]\nlength = 10\ntorii = 3\nsakura = [6, 10]\nbridges = [1, 7, 9]\n")
    assert SPEC.load_rules(path, 3).played_board() == (10, 3, (6, 10), (1, 7, 9))
    # printed 3 -> 3 + 2; 6 -> 6 + 2; 10 -> 10 + 6; bridge 7 -> 9, bridge 9 -> 13
    assert SPEC.load_rules(path, 6).played_board() == (16, 5, (8, 16), (1, 9, 13))


def test_bridges_sorted(variant) -> None:
    rules = SPEC.load_rules(variant("[board]\nbridges = [26, 8, 24, 16]\n"), 5)
    assert rules.bridges == (8, 16, 24, 26)
    assert rules.config_hash == SPEC.default_rules(5).config_hash


def test_tactical_variant_extends_base() -> None:
    base = SPEC.load_rules(BASE, 2)
    tactical = SPEC.load_rules(CONFIGS / "two-player-tactical.toml", 2)
    merged, _ = load_toml(CONFIGS / "two-player-tactical.toml")
    assert "extends" not in merged and merged["rules"]["two_player_variant"] == "tactical"
    assert tactical.two_player_variant == "tactical"
    assert tactical == dataclasses.replace(
        base, two_player_variant="tactical", source=tactical.source, config_hash=tactical.config_hash
    )
    assert tactical.config_hash != base.config_hash


def test_hash_tracks_rules_not_spelling(variant) -> None:
    base = SPEC.load_rules(BASE, 4)
    same_body = 'description = "renamed"\n[rules]\ntie_break = "closest_to_emperor"\n'
    same = SPEC.load_rules(variant(same_body), 4)
    assert same.config_hash == base.config_hash
    other = SPEC.load_rules(variant('[rules]\ntie_break = "shared"\n', name="v2.toml"), 4)
    assert other.config_hash != base.config_hash and other.tie_break == "shared"


def test_defaults_when_rules_and_board_missing() -> None:
    merged, _ = load_toml(BASE)
    del merged["rules"], merged["board"]
    rules = rules_from_mapping(merged, 4, "<defaults>")
    assert rules.source == "<defaults>"
    assert rules == dataclasses.replace(SPEC.default_rules(4), source="<defaults>")


def test_cards_in_any_file_order_are_sorted(variant) -> None:
    items = [f'{{order = {61 - k}, garden = "E+2", painter = "count"}}' for k in range(1, 61)]
    rules = SPEC.load_rules(variant("cards = [" + ", ".join(items) + "]\n"), 3)
    assert rules.cards == tuple((k, 1, 7) for k in range(1, 61))


def test_missing_cards(tmp_path: Path) -> None:
    path = tmp_path / "nocards.toml"
    path.write_text('game = "sakura"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"nocards\.toml: cards: missing"):
        SPEC.load_rules(path, 3)


# ------------------------------------------------------------------------------------------------------
# Refused configs: one case each; the message names the file and the exact dotted key.

BAD_CASES = [
    # id, TOML body (over base.toml), players, dotted key, a fragment of what is wrong
    ("59-cards", cards_toml(59), 4, "cards", "got 59"),
    ("61-cards", cards_toml(61), 4, "cards", "got 61"),
    ("repeated-order", cards_toml(at=17, order=5), 4, "cards[17].order",
     "order number 5 repeated (first at cards[4])"),
    ("order-0", cards_toml(at=3, order=0), 4, "cards[3].order", "1..60, got 0"),
    ("order-61", cards_toml(at=59, order=61), 4, "cards[59].order", "1..60, got 61"),
    ("order-bool", cards_toml(at=2, order="true"), 4, "cards[2].order", "boolean"),
    ("unknown-garden", cards_toml(at=7, garden='"E+3"'), 4, "cards[7].garden", '"E+3"'),
    ("unknown-painter", cards_toml(at=8, painter='"P+4"'), 4, "cards[8].painter", '"leapfrog"'),
    ("card-missing-field", cards_toml().replace(', painter = "P+1"}', "}", 1), 4, "cards[0].painter",
     "missing key"),
    ("card-not-table", "cards = [" + ", ".join(str(k) for k in range(1, 61)) + "]\n", 4, "cards[0]",
     "table"),
    ("cards-not-array", "[cards]\norder = 1\n", 4, "cards", "array"),
    ("sakura-not-increasing", "[board]\nsakura = [12, 12, 28]\n", 4, "board.sakura[1]",
     "strictly increasing"),
    ("sakura-decreasing", "[board]\nsakura = [20, 12, 28]\n", 4, "board.sakura[1]", "got 12 after 20"),
    ("sakura-beyond-length", "[board]\nsakura = [12, 20, 31]\n", 4, "board.sakura[2]",
     "off the path (path spaces are 1..30), got 31"),
    ("sakura-empty", "[board]\nsakura = []\n", 4, "board.sakura", "at least one"),
    ("sakura-not-list", "[board]\nsakura = 12\n", 4, "board.sakura", "array"),
    ("torii-at-sakura", "[board]\ntorii = 12\n", 4, "board.torii", "before the first sakura (12), got 12"),
    ("torii-after-sakura", "[board]\ntorii = 13\n", 4, "board.torii", "got 13"),
    ("torii-0", "[board]\ntorii = 0\n", 4, "board.torii", "1..30, got 0"),
    ("bridge-0", "[board]\nbridges = [8, 16, 0, 26]\n", 4, "board.bridges[2]", "bridge off the path"),
    ("bridge-beyond-length", "[board]\nbridges = [8, 16, 31]\n", 4, "board.bridges[2]",
     "bridge off the path (path spaces are 1..30), got 31"),
    ("bridge-repeated", "[board]\nbridges = [8, 16, 8]\n", 4, "board.bridges[2]",
     "bridge 8 repeated (first at board.bridges[0])"),
    ("bridge-on-torii", "[board]\nbridges = [4]\n", 4, "board.bridges[0]", "torii"),
    ("bridge-on-sakura", "[board]\nbridges = [8, 20]\n", 4, "board.bridges[1]", "sakura"),
    ("length-1", "[board]\nlength = 1\n", 4, "board.length", "2..1000, got 1"),
    # ranges that keep positions within the logs' int16 and the state's trees
    ("length-1e8", "[board]\nlength = 100000000\n", 4, "board.length", "2..1000, got 100000000"),
    ("sakura-nine", "[board]\nlength = 60\nsakura = [10, 15, 20, 25, 30, 35, 40, 45, 50]\nbridges = []\n",
     4, "board.sakura", "at most 8 sakura spaces"),
    ("length-string", '[board]\nlength = "30"\n', 4, "board.length", 'got a string ("30")'),
    ("unknown-variant", '[rules]\ntwo_player_variant = "solo"\n', 2, "rules.two_player_variant", '"solo"'),
    ("unknown-tie-break", '[rules]\ntie_break = "coin_flip"\n', 4, "rules.tie_break", '"coin_flip"'),
    # R-21..R-23: a reading is one of its values; booleans must be TOML booleans (not 0/1 or strings)
    ("r21-unknown-bump-from", '[rules]\nbump_from = "both"\n', 4, "rules.bump_from",
     'must be one of "emperor", "painter", got a string ("both")'),
    ("r21-bump-from-bool", "[rules]\nbump_from = true\n", 6, "rules.bump_from", "got a boolean"),
    ("r22-lineup-int", "[rules]\nlineup_from_gate = 1\n", 4, "rules.lineup_from_gate",
     "must be a boolean (true or false), got an integer (1)"),
    ("r22-lineup-string", '[rules]\nlineup_from_gate = "true"\n', 3, "rules.lineup_from_gate",
     'got a string ("true")'),
    ("r23-court-string", '[rules]\ncourt_can_win = "yes"\n', 2, "rules.court_can_win", "boolean"),
    ("r23-court-int-at-4", "[rules]\ncourt_can_win = 0\n", 4, "rules.court_can_win", "boolean"),
    ("r23-misspelt", "[rules]\ncourt_wins = true\n", 2, "rules.court_wins", "unknown key"),
    ("players-1", "", 1, "players", "Sakura is for 2 to 6 players, got 1"),
    ("players-7", "", 7, "players", "Sakura is for 2 to 6 players, got 7"),
    ("unknown-top-key", "foo = 1\n", 4, "foo", "unknown key"),
    ("unknown-rules-key", "[rules]\nfoo = 1\n", 4, "rules.foo", "unknown key"),
    ("unknown-board-key", "[board]\nfoo = 1\n", 4, "board.foo", "unknown key"),
    ("unknown-card-key", cards_toml(at=3, colour='"red"'), 4, "cards[3].colour", "unknown key"),
    ("game-kamakura", 'game = "kamakura"\n', 4, "game", '"kamakura"'),
    ("description-int", "description = 3\n", 4, "description", "string"),
]


@pytest.mark.parametrize(("body", "players", "key", "what"), [c[1:] for c in BAD_CASES],
                         ids=[c[0] for c in BAD_CASES])
def test_bad_config_is_refused(variant, body: str, players: int, key: str, what: str) -> None:
    path = variant(body)
    with pytest.raises(ConfigError) as info:
        SPEC.load_rules(path, players)
    message = str(info.value)
    assert message.startswith(f"{path}: {key}: "), message
    assert what in message, message


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_readings_are_accepted_at_every_player_count(variant, players: int) -> None:
    """R-21..R-23 load at every player count; court_can_win is kept as written but acts only with two
    (seats_decide), as two_player_variant is."""
    path = variant('[rules]\nbump_from = "painter"\nlineup_from_gate = true\ncourt_can_win = true\n')
    rules = SPEC.load_rules(path, players)
    assert (rules.bump_from, rules.lineup_from_gate, rules.court_can_win) == ("painter", True, True)
    assert rules.seats_decide is (players != 2)


def test_game_key_required(tmp_path: Path) -> None:
    text = BASE.read_text(encoding="utf-8").replace('game = "sakura"\n', "")
    path = tmp_path / "nogame.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError, match=r"nogame\.toml: game: missing key"):
        SPEC.load_rules(path, 4)
