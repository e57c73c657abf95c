"""Kamakura config loading: the shipped configs match docs/rules.md, and every bad config is refused with the
file and the dotted key (docs/reference/configs.md), before any game could run."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sim import ConfigError
from sim.core.config import config_hash, expect_int, load_toml
from sim.kamakura.params import (
    KamakuraRules,
    rules_from_mapping,
)
from sim.kamakura.spec import SPEC

REPO = Path(__file__).resolve().parents[1]
CONFIGS = REPO / "configs" / "kamakura"
BASE = CONFIGS / "base.toml"
R3_ICONS = (1, 1, 1, 1, 2, 2, 2, 3, 3, 4)


def chit_list(n: int = 10, **override: object) -> str:
    """A TOML array of n valid red-style chits; ``override`` replaces fields (as TOML text) of chit 0."""
    items = []
    for i in range(n):
        fields = {"icons": "1", "points": "1", "power": "1"}
        if i == 0:
            fields.update({k: str(v) for k, v in override.items()})
        items.append("{" + ", ".join(f"{k} = {v}" for k, v in fields.items()) + "}")
    return "[" + ", ".join(items) + "]"


@pytest.fixture
def variant(tmp_path: Path):
    """Write a variant ``bad.toml`` extending a copy of base.toml in tmp_path; return its path."""
    shutil.copy(BASE, tmp_path / "base.toml")

    def write(body: str, name: str = "bad.toml", extends: bool = True) -> Path:
        path = tmp_path / name
        path.write_text(('extends = "base.toml"\n' if extends else "") + body, encoding="utf-8")
        return path

    return write


# ------------------------------------------------------------------------------------------------------
# The shipped configs


@pytest.mark.parametrize("players", [2, 3, 4])
def test_base_matches_rules_of_record(players: int) -> None:
    rules = SPEC.load_rules(BASE, players)
    assert rules.players == players
    assert rules.layout == "RYGBGBRYBGYRYRBG"
    assert rules.order_chit_moves == (0, 2, 3, 4)[:players]
    assert rules.green_min_requirement == 1
    assert rules.tie_break == "last_in_order"
    assert rules.voluntary_pass is False
    #
    assert len(rules.chits) == 4
    assert all(len(colour) == 10 for colour in rules.chits)
    assert sum(points for colour in rules.chits for _, points, _ in colour) == 100
    for c, colour in enumerate(rules.chits):
        assert tuple(icons for icons, _, _ in colour) == R3_ICONS
        for icons, points, power in colour:
            assert points == (2 * icons if c == 3 else icons)
            assert power == (0 if c == 3 else icons)
    assert len(rules.config_hash) == 12 and int(rules.config_hash, 16) >= 0


def test_default_rules_is_base_and_frozen() -> None:
    rules = SPEC.default_rules(3)
    assert isinstance(rules, KamakuraRules)
    assert rules == SPEC.load_rules(BASE, 3)
    with pytest.raises(dataclasses.FrozenInstanceError):
        rules.players = 4  # type: ignore[misc]


def test_shipped_variants() -> None:
    base = SPEC.load_rules(BASE, 4)
    shared = SPEC.load_rules(CONFIGS / "tie-shared.toml", 4)
    rand = SPEC.load_rules(CONFIGS / "random-layout.toml", 4)
    assert shared.tie_break == "shared" and rand.layout == "random"
    for variant in (shared, rand):
        assert variant.chits == base.chits and variant.order_chit_moves == base.order_chit_moves
    assert len({base.config_hash, shared.config_hash, rand.config_hash}) == 3


def test_hash_tracks_rules_not_spelling(variant) -> None:
    """Same effective rules -> same hash (description, defaults spelt out or not); a rule change -> new."""
    base = SPEC.load_rules(BASE, 3)
    same = SPEC.load_rules(variant('description = "renamed"\n[rules]\nvoluntary_pass = false\n'), 3)
    assert same.config_hash == base.config_hash
    other = SPEC.load_rules(variant("[rules]\ngreen_min_requirement = 0\n", name="v2.toml"), 3)
    assert other.config_hash != base.config_hash


def test_r20_last_to_play_is_a_tie_break(variant) -> None:
    """R-20: `last_to_play` is accepted as a tie_break (a new rule, so a new config hash); a refusal of an
    unknown rule names it among the choices."""
    base = SPEC.load_rules(BASE, 3)
    other = SPEC.load_rules(variant('[rules]\ntie_break = "last_to_play"\n', name="r20.toml"), 3)
    assert other.tie_break == "last_to_play" and other.config_hash != base.config_hash
    with pytest.raises(ConfigError, match="last_to_play"):
        SPEC.load_rules(variant('[rules]\ntie_break = "coin_flip"\n', name="bad.toml"), 3)


def test_rules_defaults_when_rules_table_missing() -> None:
    merged, _ = load_toml(BASE)
    del merged["rules"]
    rules = rules_from_mapping(merged, 2, "<defaults>")
    assert rules.source == "<defaults>"
    assert (rules.layout, rules.order_chit_moves) == ("RYGBGBRYBGYRYRBG", (0, 2))
    assert rules.green_min_requirement == 1
    assert (rules.tie_break, rules.voluntary_pass) == ("last_in_order", False)


# ------------------------------------------------------------------------------------------------------
# extends and merging


def test_extends_merges_tables_and_replaces_arrays(variant) -> None:
    path = variant(
        "[rules]\norder_chit_moves = [0, 5]\n"
        "[chits]\nred = " + chit_list(icons=4) + "\n"
    )
    merged, resolved = load_toml(path)
    assert resolved == str(path.resolve())
    assert "extends" not in merged
    assert merged["game"] == "kamakura"
    # tables merge key by key: the other rules keys and colours come from base.toml
    assert merged["rules"]["order_chit_moves"] == [0, 5]  # arrays replace, no element-wise merge
    assert merged["rules"]["tie_break"] == "last_in_order"
    assert merged["chits"]["red"][0] == {"icons": 4, "points": 1, "power": 1}
    assert len(merged["chits"]["red"]) == 10 and merged["chits"]["blue"][9]["points"] == 8
    rules = SPEC.load_rules(path, 2)
    assert rules.order_chit_moves == (0, 5) and rules.chits[0][0] == (4, 1, 1)


def test_extends_chain_is_recursive(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "a.toml").write_text('x = 1\nlist = [1, 2]\n[t]\np = 1\nq = 1\n[t.deep]\nk = "a"\n')
    (tmp_path / "sub" / "b.toml").write_text('extends = "../a.toml"\n[t]\nq = 2\n[t.deep]\nm = "b"\n')
    (tmp_path / "c.toml").write_text('extends = "sub/b.toml"\nlist = [3]\n[t]\nr = 3\n')
    merged, _ = load_toml(tmp_path / "c.toml")
    assert merged == {"x": 1, "list": [3], "t": {"p": 1, "q": 2, "r": 3, "deep": {"k": "a", "m": "b"}}}


def test_variant_sets_one_element_by_dotted_key(variant) -> None:
    """A variant config changes one chit with the dotted key a sweep or tune file uses,
    with the same rules (and hash) as copying the colour's whole array with that one change; a bad dotted
    key is refused by file and key."""
    merged, _ = load_toml(BASE)
    blue = merged["chits"]["blue"]
    blue[9]["points"] = 6
    chits = ", ".join("{" + ", ".join(f"{k} = {v}" for k, v in chit.items()) + "}" for chit in blue)
    whole = variant(f"[chits]\nblue = [{chits}]\n", name="whole.toml")
    one = variant('"chits.blue[9].points" = 6\n"rules.tie_break" = "shared"\n'
                  '[rules]\ntie_break = "last_in_order"\n', name="one.toml")
    by_key, by_copy = SPEC.load_rules(one, 3), SPEC.load_rules(whole, 3)
    # the dotted key is applied after this file's own tables: "shared" wins over [rules] tie_break
    assert by_key.tie_break == "shared"
    assert by_key.chits == by_copy.chits and by_key.chits[3][9][1] == 6
    assert SPEC.load_rules(variant('"chits.blue[9].points" = 6\n', name="two.toml"), 3).config_hash \
        == by_copy.config_hash
    for body, message in [('"chits.blue[10].points" = 6\n', r"chits\.blue\[10\]\.points: index 10 is out"),
                          ('"chits.blue[2].pointz" = 6\n', r"chits\.blue\[2\]\.pointz: unknown key"),
                          ('"chits.blue[2].points" = -1\n', r"chits\.blue\[2\]\.points: must be"),
                          ('"chits..blue" = 1\n', r"not a dotted config key")]:
        path = variant(body, name="bad.toml")
        with pytest.raises(ConfigError, match=rf"^{path}: .*{message}"):
            SPEC.load_rules(path, 3)


def test_config_hash_is_canonical() -> None:
    a = {"b": 1, "a": {"y": [1, 2], "x": True}}
    b = {"a": {"x": True, "y": [1, 2]}, "b": 1}
    assert config_hash(a) == config_hash(b)
    assert len(config_hash(a)) == 12
    assert config_hash(a) != config_hash({**a, "b": 2})


# ------------------------------------------------------------------------------------------------------
# Refused configs: one case each; the message names the file and the exact dotted key.

BAD_CASES = [
    # id, TOML body (over base.toml), players, dotted key, a fragment of what is wrong
    ("unknown-top-key", "foo = 1\n", 3, "foo", "unknown key"),
    ("unknown-rules-key", "[rules]\nspeed = 2\n", 3, "rules.speed", "unknown key"),
    ("unknown-chit-key", "[chits]\nred = " + chit_list(colour=2) + "\n", 3, "chits.red[0].colour",
     "unknown key"),
    ("unknown-colour", "[chits]\npurple = " + chit_list() + "\n", 3, "chits.purple", "unknown key"),
    ("icons-string", "[chits]\ngreen = " + chit_list(icons='"3"') + "\n", 3, "chits.green[0].icons",
     "string"),
    ("points-bool", "[chits]\nyellow = " + chit_list(points="true") + "\n", 3, "chits.yellow[0].points",
     "boolean"),
    ("colour-is-table", "[chits.red]\nicons = 1\n", 3, "chits.red", "table"),
    ("chit-not-table", "[chits]\nred = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n", 3, "chits.red[0]", "integer"),
    ("chit-missing-field", "[chits]\nred = [" + ", ".join(["{icons = 1, points = 1}"] * 10) + "]\n", 3,
     "chits.red[0].power", "missing"),
    ("nine-chits", "[chits]\nred = " + chit_list(9) + "\n", 3, "chits.red", "got 9"),
    ("eleven-chits", "[chits]\nblue = " + chit_list(11, power=0) + "\n", 3, "chits.blue", "got 11"),
    ("icons-0", "[chits]\ngreen = " + chit_list(icons=0) + "\n", 3, "chits.green[0].icons", "1..4, got 0"),
    ("icons-5", "[chits]\ngreen = " + chit_list(icons=5) + "\n", 3, "chits.green[0].icons", "1..4, got 5"),
    ("negative-points", "[chits]\nblue = " + chit_list(points=-1, power=0) + "\n", 3,
     "chits.blue[0].points", "0..800, got -1"),
    ("negative-power", "[chits]\nred = " + chit_list(power=-1) + "\n", 3, "chits.red[0].power",
     "0..16, got -1"),
    ("order-too-short", "[rules]\norder_chit_moves = [0, 2]\n", 3, "rules.order_chit_moves", "3 players"),
    ("order-negative", "[rules]\norder_chit_moves = [0, -1, 3, 4]\n", 3, "rules.order_chit_moves[1]",
     "0..16, got -1"),
    ("order-bool", "[rules]\norder_chit_moves = [0, true, 3, 4]\n", 3, "rules.order_chit_moves[1]",
     "boolean"),
    ("order-entry0", "[rules]\norder_chit_moves = [1, 2, 3, 4]\n", 3, "rules.order_chit_moves[0]", "R-4"),
    ("order-not-list", "[rules]\norder_chit_moves = 3\n", 3, "rules.order_chit_moves", "array"),
    ("layout-15", '[rules]\nlayout = "RYGBGBRYBGYRYRB"\n', 3, "rules.layout", "got 15 letters"),
    ("layout-five-reds", '[rules]\nlayout = "RRGBGBRYBGYRYRBG"\n', 3, "rules.layout", "got 5 R (red)"),
    ("layout-bad-letter", '[rules]\nlayout = "RYGBGBRYBGYRYRBX"\n', 3, "rules.layout", "'X'"),
    ("layout-not-string", "[rules]\nlayout = 16\n", 3, "rules.layout", "string"),
    ("players-1", "", 1, "players", "2 to 4 players, got 1"),
    ("players-5", "", 5, "players", "Kamakura is for 2 to 4 players, got 5"),
    ("tie-break-unknown", '[rules]\ntie_break = "coin_flip"\n', 3, "rules.tie_break", '"coin_flip"'),
    # ranges that keep scores within the logs' int16 and powers within int8
    ("order-1e17", "[rules]\norder_chit_moves = [0, 100000000000000000, 3, 4]\n", 3,
     "rules.order_chit_moves[1]", "0..16"),
    ("points-40000", "[chits]\nblue = " + chit_list(points=40000) + "\n", 3, "chits.blue[0].points",
     "0..800, got 40000"),
    ("points-2-63", "[chits]\nblue = " + chit_list(points=2**63 - 1) + "\n", 3, "chits.blue[0].points",
     "0..800"),
    ("power-1e6", "[chits]\nred = " + chit_list(power=1000000) + "\n", 3, "chits.red[0].power", "0..16"),
    ("green-min-5", "[rules]\ngreen_min_requirement = 5\n", 3, "rules.green_min_requirement", "0..4"),
    ("voluntary-pass-int", "[rules]\nvoluntary_pass = 0\n", 3, "rules.voluntary_pass", "boolean"),
    ("blue-power", "[chits]\nblue = " + chit_list(power=2) + "\n", 3, "chits.blue[0].power", "R-3"),
    ("game-sakura", 'game = "sakura"\n', 3, "game", '"sakura"'),
    ("description-int", "description = 3\n", 3, "description", "string"),
    ("syntax-error", "[rules\nlayout = 1\n", 3, "", "TOML syntax error"),
]


@pytest.mark.parametrize(("body", "players", "key", "what"), [c[1:] for c in BAD_CASES],
                         ids=[c[0] for c in BAD_CASES])
def test_bad_config_is_refused(variant, body: str, players: int, key: str, what: str) -> None:
    path = variant(body)
    with pytest.raises(ConfigError) as info:
        SPEC.load_rules(path, players)
    message = str(info.value)
    assert message.startswith(f"{path}: "), message
    if key:
        assert f": {key}: " in message, message
    assert what in message, message


@pytest.mark.parametrize(("body", "what"), [
    ("extends = 3\n", "must be a non-empty string"),
    ('extends = ""\n', "must be a non-empty string"),
    ('extends = "../nowhere/x.toml"\n', "file not found: ../nowhere/x.toml"),
], ids=["not-string", "empty", "missing-target"])
def test_bad_extends(variant, body: str, what: str) -> None:
    path = variant(body, extends=False)
    with pytest.raises(ConfigError) as info:
        SPEC.load_rules(path, 3)
    assert str(info.value).startswith(f"{path}: extends: {what}")


def test_missing_colour_in_full_file(tmp_path: Path) -> None:
    """A file that lists only three colours (no extends, so nothing fills the gap) names the missing one."""
    text = BASE.read_text(encoding="utf-8")
    path = tmp_path / "three.toml"
    path.write_text(text[: text.index("blue = [")], encoding="utf-8")
    with pytest.raises(ConfigError, match=r"three\.toml: chits\.blue: missing colour"):
        SPEC.load_rules(path, 3)


def test_missing_chits_table(tmp_path: Path) -> None:
    path = tmp_path / "nochits.toml"
    path.write_text('game = "kamakura"\n[rules]\ntie_break = "shared"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"nochits\.toml: chits: missing"):
        SPEC.load_rules(path, 3)


def test_extends_cycle(tmp_path: Path) -> None:
    (tmp_path / "a.toml").write_text('extends = "b.toml"\n')
    (tmp_path / "b.toml").write_text('extends = "a.toml"\n')
    with pytest.raises(ConfigError) as info:
        SPEC.load_rules(tmp_path / "a.toml", 3)
    assert "b.toml: extends: cycle" in str(info.value)
    (tmp_path / "self.toml").write_text('extends = "self.toml"\n')
    with pytest.raises(ConfigError, match=r"self\.toml: extends: cycle"):
        load_toml(tmp_path / "self.toml")


def test_syntax_error_in_parent_names_parent(variant, tmp_path: Path) -> None:
    (tmp_path / "base.toml").write_text("game = \n")
    with pytest.raises(ConfigError) as info:
        load_toml(variant("[rules]\n"))
    assert str(info.value).startswith(f"{tmp_path / 'base.toml'}: TOML syntax error: ")


def test_missing_top_file(tmp_path: Path) -> None:
    missing = tmp_path / "nope.toml"
    with pytest.raises(ConfigError, match=r"nope\.toml: file not found"):
        SPEC.load_rules(missing, 3)
    with pytest.raises(ConfigError, match=r": not a file"):
        load_toml(tmp_path)


def test_config_error_is_value_error() -> None:
    with pytest.raises(ValueError, match=r"f\.toml: a\.b: must be an integer in 1\.\.4, got a boolean"):
        expect_int(True, "f.toml", "a.b", 1, 4)


# ------------------------------------------------------------------------------------------------------
# Layout property: any arrangement of four tiles per colour is accepted; any other count is refused.


@settings(max_examples=60, deadline=None)
@given(st.permutations(list("RRRRYYYYGGGGBBBB")))
def test_any_balanced_layout_is_accepted(tiles: list[str]) -> None:
    merged, _ = load_toml(BASE)
    merged["rules"]["layout"] = "".join(tiles)
    assert rules_from_mapping(merged, 2, "mem.toml").layout == "".join(tiles)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from("RYGB"), min_size=16, max_size=16).filter(
    lambda t: sorted(t) != sorted("RRRRYYYYGGGGBBBB")))
def test_unbalanced_layout_is_refused(tiles: list[str]) -> None:
    merged, _ = load_toml(BASE)
    merged["rules"]["layout"] = "".join(tiles)
    with pytest.raises(ConfigError, match=r"^mem\.toml: rules\.layout: must hold four tiles of each colour"):
        rules_from_mapping(merged, 2, "mem.toml")
