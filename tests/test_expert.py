"""The `expert` agents (docs/reference/agents.md): model files and their refusals, determinism per seed,
replay through the readable API with legality at every action, the features on built positions, and
`balance train`."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from sim import games
from sim.commands import main
from sim.core.agent_spec import agent_arrays, parse_spec, resolved
from sim.core.errors import ConfigError
from sim.core.expert_model import ExpertModel, default_model_path, load_model, read_model, save_model
from sim.core.rng import game_seeds, new_rng
from tests.kamakura_helpers import make_state

ROOT = Path(__file__).resolve().parents[1]
EXPERT_GAMES = [name for name in games.names() if "expert" in games.spec(name).agents]
CASES = [(name, players) for name in EXPERT_GAMES
         for players in range(games.spec(name).min_players, games.spec(name).max_players + 1)]
IDS = [f"{name}-{players}p" for name, players in CASES]


def _model(game: str, players: int, **changes) -> ExpertModel:
    spec = games.spec(game)
    features = spec.agents["expert"].features
    fields = {"game": game, "players": players, "features": features,
              "weights": tuple(0.1 * (i % 5) for i in range(len(features))), "config": "c.toml",
              "config_hash": spec.default_rules(players).config_hash, "training": {"games_per_round": 1},
              "strength": {"win_share": 0.5}}
    fields.update(changes)
    return ExpertModel(**fields)


# ---- shipped models ----------------------------------------------------------------------------------
@pytest.mark.parametrize(("name", "players"), CASES, ids=IDS)
def test_a_default_model_ships_for_every_player_count(name: str, players: int) -> None:
    features = games.spec(name).agents["expert"].features
    model = load_model(default_model_path(name, players), name, players, features)
    assert model.config_hash == games.spec(name).default_rules(players).config_hash
    assert model.training["positions"] > 10_000 and model.strength["games"] >= 300
    assert model.strength["win_share"] > model.strength["fair_share"]


# ---- the model file ----------------------------------------------------------------------------------
def test_model_file_round_trip(tmp_path: Path) -> None:
    model = _model("kamakura", 3)
    path = save_model(model, tmp_path / "m.json")
    assert read_model(path) == model
    assert json.loads(path.read_text())["features"] == list(model.features)
    assert not list(tmp_path.glob(".tmp-*"))


@pytest.mark.parametrize(("change", "message"), [
    ({"game": "sakura"}, "game: the model is for sakura, not kamakura"),
    ({"players": 4}, "players: the model is for 4 players, not 3"),
    ({"features": "renamed"}, "features:"),
])
def test_a_model_for_another_game_players_or_features_is_refused(tmp_path: Path, change, message) -> None:
    model = _model("kamakura", 3)
    if change.get("features") == "renamed":  # as many features, another list
        change = {"features": tuple(f"{name}_old" for name in model.features)}
    path = save_model(ExpertModel(**{**model.__dict__, **change}), tmp_path / "m.json")
    with pytest.raises(ConfigError, match=message):
        load_model(path, "kamakura", 3, games.spec("kamakura").agents["expert"].features)


@pytest.mark.parametrize("text", ["{", "[]", '{"format": 1}',
                                  '{"format": 9, "game": "kamakura", "players": 3, "features": [], '
                                  '"weights": [], "config_hash": ""}'])
def test_a_malformed_model_file_is_refused(tmp_path: Path, text: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(ConfigError, match="bad.json"):
        read_model(path)


def test_the_cli_refuses_a_bad_model_in_one_line(tmp_path: Path, capsys) -> None:
    path = save_model(_model("kamakura", 4), tmp_path / "four.json")
    out = tmp_path / "run"
    code = main(["simulate", str(ROOT / "configs/kamakura/base.toml"), "--players", "3", "--games", "5",
                 "--agents", f"expert:model={path}", "--out", str(out), "--quiet", "--jobs", "1"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "players: the model is for 4 players, not 3" in err
    assert not out.exists()
    code = main(["simulate", str(ROOT / "configs/kamakura/base.toml"), "--players", "3", "--games", "5",
                 "--agents", f"expert:model={tmp_path / 'missing.json'}", "--out", str(out), "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and "no such model file" in err and "Traceback" not in err


def test_a_model_of_another_config_plays_with_a_one_line_warning(tmp_path: Path, capsys) -> None:
    path = save_model(_model("kamakura", 2, config_hash="0123456789ab"), tmp_path / "other.json")
    out = tmp_path / "run"
    code = main(["simulate", str(ROOT / "configs/kamakura/random-layout.toml"), "--players", "2", "--games",
                 "4", "--agents", f"expert:model={path}", "--out", str(out), "--quiet", "--jobs", "1"])
    captured = capsys.readouterr()
    warnings = [line for line in captured.err.splitlines() if "warning" in line]
    assert code == 0 and len(warnings) == 1 and "0123456789ab" in warnings[0]


def test_the_run_identity_names_the_model_bytes(tmp_path: Path) -> None:
    path = save_model(_model("kamakura", 3), tmp_path / "m.json")
    spec = parse_spec(f"expert:model={path}", games.spec("kamakura"))
    before = resolved(spec, games.spec("kamakura"), 3)
    save_model(_model("kamakura", 3, weights=(0.0,) * len(_model("kamakura", 3).weights)), path)
    assert resolved(spec, games.spec("kamakura"), 3) != before and str(path) in before


@pytest.mark.parametrize(("name", "players"), CASES, ids=IDS)
def test_the_shipped_model_is_named_by_its_place_in_the_repository(name: str, players: int) -> None:
    """Not by an absolute path: the same run made in another clone or a moved checkout is the same run."""
    agent = resolved(parse_spec("expert", games.spec(name)), games.spec(name), players)
    assert f",model=sim/{name}/models/expert-{players}p.json@" in agent


# ---- playing -------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("name", "players"), CASES, ids=IDS)
def test_expert_games_are_the_same_per_seed_and_split(name: str, players: int) -> None:
    spec = games.spec(name)
    rules = spec.default_rules(players)
    seating = [["expert"] + ["greedy"] * (players - 1)] * 12
    kinds, params = agent_arrays(seating, games.spec(name))
    seeds = game_seeds(8, 0, 12)
    scores = spec.vocabulary.batch_scores
    whole = spec.run_batch(rules, seeds, kinds, params)
    again = spec.run_batch(rules, seeds, kinds, params)
    halves = [spec.run_batch(rules, seeds[a:a + 6], kinds[a:a + 6], params[a:a + 6]) for a in (0, 6)]
    assert np.array_equal(whole[scores], again[scores]) and np.array_equal(whole["winners"], again["winners"])
    assert np.array_equal(whole[scores], np.concatenate([h[scores] for h in halves]))
    other = spec.run_batch(rules, game_seeds(9, 0, 12), kinds, params)
    assert not np.array_equal(whole[scores], other[scores])


@pytest.mark.parametrize(("name", "players"), CASES, ids=IDS)
def test_expert_games_replay_through_the_readable_api(name: str, players: int) -> None:
    """Batch expert games, replayed by the API policy (one generator per game shared by the seats, as
    the batch loop draws), give the same results, and every action the policy picks is legal there."""
    spec = games.spec(name)
    rules = spec.default_rules(players)
    game = spec.game_class(rules)
    agents = ["expert"] + ["greedy"] * (players - 1)
    seeds = game_seeds(21, 0, 4)
    kinds, params = agent_arrays([agents], games.spec(name))
    batch = spec.run_batch(rules, seeds, kinds[0], params[0])
    for g, seed in enumerate(seeds):
        state = game.new_state(int(seed))
        rng = new_rng(int(seed), 1)
        seats = [spec.policies[agent](rng) for agent in agents]
        while not game.is_over(state):
            action = seats[game.to_move(state)].choose(game, state)
            assert action in game.legal_actions(state)
            state = game.apply(state, action)
        assert game.result(state)["scores"] == batch[spec.vocabulary.batch_scores][g, :players].tolist()


# ---- Kamakura features ---------------------------------------------------------------------------------
def test_kamakura_features_read_points_powers_and_distances() -> None:
    from sim.kamakura.expert import FEATURES, features

    game = games.load("kamakura", players=3)
    # Latin square: every line holds one tile of each colour, so a 1-icon chit is eligible as it stands
    # and a 2-icon chit is one swap away; chit 30 (blue, line 0) is worth 7 and eligible now.
    chits = {30: {"icons": 1, "points": 7, "power": 0}, 1: {"icons": 2, "points": 3, "power": 0},
             12: {"icons": 1, "points": 2, "power": 2}}
    state = game.from_dict(make_state(chits=chits, owners={12: 1, 5: 2}, to_move=0, players=3))
    out = np.zeros(len(FEATURES))
    named = {}
    for seat in range(3):
        features(state.vector, seat, out)
        named[seat] = dict(zip(FEATURES, out.tolist(), strict=True))
    points_left = 7 + 3 + 36  # 38 chits on the board: chits 5 and 12 are held
    assert named[0]["points_left"] == points_left and named[0]["chits_left"] == 38
    assert named[0]["next_0"] == 1 and named[0]["reach_points_0"] == 7 and named[0]["near_points_0"] == 7 + 3
    assert named[0]["claim_points_0"] == 7  # no yellow: one chit a turn
    assert named[0]["chits_left_per_player"] == 38 / 3
    assert named[1]["next_1"] == 1 and named[1]["reach_points_1"] == 7 and named[1]["next_0"] == 0
    assert named[1]["yellow_power"] == 2 and named[1]["red_power"] == 0
    assert named[2]["next_2"] == 1 and named[2]["order_moves"] == 3
    # the same position with another chit id holding the 7 points: the features do not see ids
    moved = {31: {"icons": 1, "points": 7, "power": 0}, 1: {"icons": 2, "points": 3, "power": 0},
             12: {"icons": 1, "points": 2, "power": 2}}
    state2 = game.from_dict(make_state(chits=moved, owners={12: 1, 5: 2}, to_move=0, players=3))
    features(state2.vector, 0, out)
    assert dict(zip(FEATURES, out.tolist(), strict=True)) == named[0]


# ---- balance train -------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", EXPERT_GAMES)
def test_train_writes_a_model_the_agent_plays(name: str, tmp_path: Path, capsys) -> None:
    players = games.spec(name).min_players
    out = tmp_path / "model.json"
    code = main(["train", name, "--players", str(players), "--games", "30", "--rounds", "2",
                 "--strength-games", "20", "--jobs", "1", "--seed", "3", "--out", str(out)])
    assert code == 0 and "model written" in capsys.readouterr().out
    model = read_model(out)
    assert (model.game, model.players) == (name, players)
    assert model.training["rounds"] == 2 and model.training["positions"] > 30
    assert model.strength["games"] == 20 and 0 <= model.strength["interval"][0] <= model.strength["win_share"]
    assert any(w != 0 for w in model.weights)
    code = main(["study", str(games.spec(name).default_config), "--players", str(players), "--games", "6",
                 "--agents", f"expert:model={out}"])
    assert code == 0


def test_train_refuses_mixed_agents_and_other_games_configs(capsys) -> None:
    assert main(["train", "kamakura", "--players", "3", "--agents", "greedy,random,greedy"]) == 2
    assert "self-play" in capsys.readouterr().err
    sakura = str(ROOT / "configs/sakura/base.toml")
    assert main(["train", "kamakura", "--players", "3", "--config", sakura]) == 2
    assert "game: the config is for sakura" in capsys.readouterr().err


def test_train_gives_the_same_model_at_any_jobs(tmp_path: Path) -> None:
    from sim.app.train import train

    kamakura = games.spec("kamakura")
    one = train(kamakura, 2, games_per_round=300, rounds=1, jobs=1, seed=4, out=tmp_path / "one.json",
                strength_games=12)
    two = train(kamakura, 2, games_per_round=300, rounds=1, jobs=2, seed=4, out=tmp_path / "two.json",
                strength_games=12)
    assert one.model.weights == two.model.weights and one.model.strength == two.model.strength
