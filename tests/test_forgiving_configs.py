"""Configs that forgive: a config's dotted keys take the wildcards a tune file's space
keys take, an unknown key or name comes with the near one meant, a missing `extends` says where it looked
(and where the shipped file of that name is), and a share typed as a percentage says how to write it."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from sim import ConfigError
from sim.core.config import load_toml
from sim.design.tune_file import load_tune
from sim.kamakura.spec import SPEC as KAMAKURA
from sim.sakura.spec import SPEC as SAKURA

REPO = Path(__file__).resolve().parents[1]
KAMAKURA_BASE = REPO / "configs" / "kamakura" / "base.toml"
SAKURA_BASE = REPO / "configs" / "sakura" / "base.toml"


@pytest.fixture
def variant(tmp_path: Path):
    """Write a variant extending a copy of a game's base.toml in tmp_path; return its path."""

    def write(body: str, base: Path = KAMAKURA_BASE, name: str = "variant.toml") -> Path:
        shutil.copy(base, tmp_path / "base.toml")
        path = tmp_path / name
        path.write_text('extends = "base.toml"\n' + body, encoding="utf-8")
        return path

    return write


def refusal(load, *args) -> str:
    with pytest.raises(ConfigError) as info:
        load(*args)
    return str(info.value)


# ---- 1. wildcards in a config's dotted keys ----------------------------------------------------------------
def test_star_index_sets_every_element_of_an_array(variant) -> None:
    rules = KAMAKURA.load_rules(variant('"chits.blue[*].points" = 1\n'), 3)
    base = KAMAKURA.load_rules(KAMAKURA_BASE, 3)
    assert [chit[1] for chit in rules.chits[3]] == [1] * 10
    assert rules.chits[:3] == base.chits[:3]
    assert [chit[0] for chit in rules.chits[3]] == [chit[0] for chit in base.chits[3]]


def test_star_key_runs_over_every_key_of_a_table(variant) -> None:
    rules = KAMAKURA.load_rules(variant('"chits.*[*].power" = 0\n'), 3)
    assert all(chit[2] == 0 for colour in rules.chits for chit in colour)
    merged, _ = load_toml(variant('"cards[*].painter" = "P+2"\n', base=SAKURA_BASE))
    assert {card["painter"] for card in merged["cards"]} == {"P+2"}


def test_wildcard_keys_apply_in_the_order_written_over_the_files_own_tables(variant) -> None:
    path = variant('"chits.red[*].points" = 2\n"chits.red[0].points" = 9\n'
                   '[chits]\nred = [' + ", ".join(["{icons = 1, points = 5, power = 1}"] * 10) + "]\n")
    rules = KAMAKURA.load_rules(path, 3)
    assert [chit[1] for chit in rules.chits[0]] == [9] + [2] * 9
    assert [chit[0] for chit in rules.chits[0]] == [1] * 10  # the file's own table, then the keys


def test_a_config_and_a_tune_file_expand_wildcards_with_one_implementation() -> None:
    import sim.core.config
    import sim.design.search_space as search_space

    assert search_space.expand is sim.core.config.expand
    assert search_space.parse_pattern is sim.core.config.parse_pattern
    assert search_space.ANY_INDEX == sim.core.config.ANY_INDEX


def test_a_wildcard_that_matches_nothing_is_refused_by_file_and_key(tmp_path: Path, variant) -> None:
    path = tmp_path / "empty.toml"
    path.write_text('"board.bridges[*]" = 5\n[board]\nbridges = []\n', encoding="utf-8")
    message = refusal(load_toml, path)
    assert message.startswith(f"{path}: board.bridges[*]: ") and "names no value" in message, message
    path = variant('"chits.purple[*].points" = 1\n')
    message = refusal(KAMAKURA.load_rules, path, 3)
    assert message.startswith(f"{path}: chits.purple[*].points: ") and "chits.purple" in message, message
    path = variant('"chits.red[*][*]" = 1\n')
    message = refusal(KAMAKURA.load_rules, path, 3)
    assert message.startswith(f"{path}: chits.red[*][*]: ") and "not an array" in message, message


# ---- 2. did you mean ...? ----------------------------------------------------------------------------------
@pytest.mark.parametrize(("body", "base", "key", "meant"), [
    ("[chits]\nblu = []\n", KAMAKURA_BASE, "chits.blu", "did you mean blue?"),
    ('[rules]\ntie_brake = "shared"\n', KAMAKURA_BASE, "rules.tie_brake", "did you mean tie_break?"),
    ('"chits.red[0].pointz" = 1\n', KAMAKURA_BASE, "chits.red[0].pointz", "did you mean points?"),
    ('"chits.blu[*].points" = 1\n', KAMAKURA_BASE, "chits.blu[*].points", "did you mean blue?"),
    ("[bord]\nlength = 20\n", SAKURA_BASE, "bord", "did you mean board?"),
    ('[rules]\ntie_break = "shraed"\n', SAKURA_BASE, "rules.tie_break", 'did you mean "shared"?'),
    ('"cards[0].garden" = "E+3"\n', SAKURA_BASE, "cards[0].garden", 'did you mean "E+1"'),
    ('[rules]\ntie_break = "last_in_ordr"\n', KAMAKURA_BASE, "rules.tie_break",
     'did you mean "last_in_order"?'),
])
def test_an_unknown_key_or_name_suggests_the_near_one(variant, body: str, base: Path, key: str,
                                                      meant: str) -> None:
    path = variant(body, base=base)
    spec = KAMAKURA if base == KAMAKURA_BASE else SAKURA
    message = refusal(spec.load_rules, path, 3)
    assert message.startswith(f"{path}: {key}: "), message
    assert meant in message, message


def test_a_far_off_key_has_no_suggestion(variant) -> None:
    message = refusal(KAMAKURA.load_rules, variant("[rules]\nspeed = 2\n"), 3)
    assert "rules.speed: unknown key" in message and "did you mean" not in message, message


# ---- 3. a missing extends ----------------------------------------------------------------------------------
def test_a_missing_extends_names_the_folder_and_the_shipped_file(tmp_path: Path) -> None:
    folder = tmp_path / "mine"
    folder.mkdir()
    path = folder / "variant.toml"
    path.write_text('extends = "base.toml"\ngame = "sakura"\n', encoding="utf-8")
    message = refusal(load_toml, path)
    shipped = os.path.relpath(SAKURA_BASE, folder.resolve())
    assert message.startswith(f"{path}: extends: file not found: base.toml (looked in {folder.resolve()})")
    assert f'did you mean extends = "{shipped}"?' in message, message
    assert "kamakura" not in message  # the file says its game
    path.write_text('extends = "../x/two-player-tactical.toml"\n', encoding="utf-8")
    message = refusal(load_toml, path)
    assert f"looked in {(tmp_path / 'x').resolve()})" in message, message
    assert os.path.relpath(REPO / "configs" / "sakura" / "two-player-tactical.toml", folder.resolve()) \
        in message
    path.write_text('extends = "nowhere.toml"\n', encoding="utf-8")
    message = refusal(load_toml, path)
    assert message == f"{path}: extends: file not found: nowhere.toml (looked in {folder.resolve()})"


# ---- 4. shares ---------------------------------------------------------------------------------------------
def _tune(tmp_path: Path, target: str = "tolerance = 0.02\n", extra: str = "") -> Path:
    path = tmp_path / "tune.toml"
    path.write_text(f"""base = "{KAMAKURA_BASE.as_posix()}"
players = 3
agents = "random"
budget = 200000
[space]
"rules.tie_break" = {{choices = ["last_in_order", "shared"]}}
[target]
{target}{extra}""", encoding="utf-8")
    return path


@pytest.mark.parametrize(("target", "extra", "message"), [
    ("tolerance = 2\n", "", "target.tolerance: a share of games, 0.02 = 2 percentage points; got 2 "
                            "(did you mean 0.02?)"),
    ("tolerance = 2.5\n", "", "target.tolerance: a share of games, 0.02 = 2 percentage points; got 2.5 "
                              "(did you mean 0.025?)"),
    ("tolerance = 1\n", "", "target.tolerance: a share of games, 0.02 = 2 percentage points; got 1 "
                            "(did you mean 0.01?)"),
    ("tolerance = 250\n", "", "target.tolerance: a share of games, 0.02 = 2 percentage points; got 250"),
    ("chit_cap = 15\n", "", "target.chit_cap: a share of games, 0.15 = 15 percentage points; got 15 "
                            "(did you mean 0.15?)"),
    ("", "[racing]\nconfidence = 95\n", "racing.confidence: a confidence level, 0.95 = 95%; got 95 "
                                        "(did you mean 0.95?)"),
    ("", '[search]\nmethod = "model"\nconfidence = 99\n', "search.confidence: a confidence level, 0.95 = "
                                                          "95%; got 99 (did you mean 0.99?)"),
])
def test_a_share_typed_as_a_percentage_says_how_to_write_it(tmp_path: Path, target: str, extra: str,
                                                            message: str) -> None:
    path = _tune(tmp_path, target, extra)
    found = refusal(load_tune, path)
    assert found.startswith(f"{path}: {message}"), found
    if "250" in message:
        assert "did you mean" not in found


def test_shares_below_one_are_accepted(tmp_path: Path) -> None:
    tune = load_tune(_tune(tmp_path, "tolerance = 0.5\nchit_cap = 0.2\n", "[racing]\nconfidence = 0.9\n"))
    assert (tune.target.tolerance, tune.target.chit_cap, tune.racing.confidence) == (0.5, 0.2, 0.9)
    message = refusal(load_tune, _tune(tmp_path, "tolerance = -0.1\n"))
    assert "target.tolerance: " in message and "got -0.1" in message and "did you mean" not in message


def test_a_misspelt_game_suggests_the_game(tmp_path: Path) -> None:
    from sim import games

    path = tmp_path / "game.toml"
    path.write_text('game = "kamakur"\n', encoding="utf-8")
    message = refusal(games.load_config, path, 3)
    assert message.startswith(f"{path}: game: must be one of ") and "did you mean kamakura?" in message
