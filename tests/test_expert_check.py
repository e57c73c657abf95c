"""The expert on a variant, measured (sim/app/expert_check.py, docs/reference/agents.md): a level that plays
a learned model is checked on a config its model was not trained on, against greedy, and warned about with
the figures when it plays more than the tolerance weaker there; `balance train --from-config` fits a model
for a variant, which the tool then plays on it and records in the run's manifest.

The weak variant is a real one, measured: every blue chit worth 20 points (the base model's expert wins
76.0% [72.4, 79.2] of 600 games against greedy there, against 94.5% [92.4, 96.1] on the base config). The
checks here play 100 to 200 games a config (expert: about 2 s; search: about 10 s)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sim import games
from sim.app import expert_check
from sim.app.expert_check import cached_checks, check_expert, check_json, check_level, check_of_json
from sim.app.runner import plan_run
from sim.commands import main
from sim.core.expert_model import read_model, variant_model_path

ROOT = Path(__file__).resolve().parents[1]
BASE = ROOT / "configs" / "kamakura" / "base.toml"
BLUE_20 = "".join(f'"chits.blue[{i}].points" = 20\n' for i in range(10))


def _variant(folder: Path, name: str = "blue20", body: str = BLUE_20) -> Path:
    path = folder / f"{name}.toml"
    path.write_text(f'extends = "{BASE.as_posix()}"\ndescription = "every blue chit 20 points"\n{body}')
    return path


@pytest.mark.parametrize(("level", "n"), [("expert", 200), ("search", 100)])
def test_a_level_that_plays_the_base_model_badly_on_a_variant_is_warned(tmp_path: Path, level: str,
                                                                          n: int) -> None:
    checks = check_expert(_variant(tmp_path), 3, level, jobs=1, games=n, cache=tmp_path / "cache")
    assert len(checks) == 1
    check = checks[0]
    assert check.agent == level and check.weak and check.measured
    assert check.trained_on == "configs/kamakura/base.toml" and check.model.endswith("expert-3p.json")
    assert 100 * check.drop > check.tolerance + 5 and check.intervals()["drop"][0] > 0
    sentence = check.sentence()
    assert f"{level} on this variant" in sentence and f"n = {n}" in sentence
    assert "beyond the 5 pp tolerance" in sentence and "balance train --from-config" in sentence
    assert check_of_json(json.loads(json.dumps(check_json(check)))) == check


def test_the_models_own_config_is_not_checked(tmp_path: Path) -> None:
    """On the config its model was trained on a level has nothing to be compared with: no check, no game
    (and agents without a model are never checked)."""
    for level in ("expert", "search", "greedy,random,mcts"):
        assert check_expert(BASE, 3, level, games=20, cache=False) == []
    assert check_level(BASE, 3, "expert", games=20, cache=False) is None


def test_a_check_is_measured_once_and_a_cache_that_cannot_be_written_is_passed_over(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    variant = _variant(tmp_path)
    blocked = tmp_path / "a-file"
    blocked.write_text("")
    unwritable = check_level(variant, 3, "expert", games=60, cache=blocked / "cache")  # mkdir fails
    first = check_level(variant, 3, "expert", games=60, cache=tmp_path / "cache")
    assert first == unwritable and first.weak
    monkeypatch.setattr(expert_check, "level_shares", lambda *a, **k: pytest.fail("played again"))
    assert check_level(variant, 3, "expert", games=60, cache=tmp_path / "cache") == first
    assert len(list((tmp_path / "cache").glob("*.json"))) == 2  # the variant's shares and the base's


def test_simulate_warns_with_the_figures_and_summary_repeats_it(tmp_path: Path, capsys,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(expert_check, "GAMES", 150)
    variant, out = _variant(tmp_path), tmp_path / "run"
    assert main(["simulate", str(variant), "--players", "3", "--games", "2", "--jobs", "1", "--quiet",
                 "--out", str(out)]) == 0
    warned = [line for line in capsys.readouterr().err.splitlines() if "expert on this variant" in line]
    assert len(warned) == 1 and warned[0].startswith("balance: warning: ") and "n = 150" in warned[0]
    assert main(["summary", str(out)]) == 0
    text = capsys.readouterr().out
    assert "trained on another config, configs/kamakura/base.toml" in text
    assert f"  warning: {warned[0].removeprefix('balance: warning: ')}" in text
    assert main(["simulate", str(variant), "--players", "3", "--games", "2", "--jobs", "1", "--quiet",
                 "--out", str(tmp_path / "again"), "--no-model-check"]) == 0
    assert "on this variant" not in capsys.readouterr().err


def test_train_from_config_fits_a_model_the_tool_then_plays_and_records(tmp_path: Path, capsys) -> None:
    variant = _variant(tmp_path)
    assert main(["train", "--from-config", str(variant), "--players", "3", "--games", "30", "--rounds", "1",
                 "--strength-games", "0", "--jobs", "1", "--seed", "2"]) == 0
    model_path = variant_model_path(variant, 3)
    assert model_path == tmp_path / "blue20.expert-3p.json" and str(model_path) in capsys.readouterr().out
    model = read_model(model_path)
    plan = plan_run(variant, 3, "expert", 0, False)
    assert model.config_hash == plan.config_hash
    assert f"model={model_path}@" in plan.resolved_agents[0]  # the fitted model, not the shipped one
    assert check_expert(variant, 3, "expert,search,greedy", games=20, cache=False) == []  # its own config
    out = tmp_path / "run"
    assert main(["simulate", str(variant), "--players", "3", "--games", "2", "--jobs", "1", "--quiet",
                 "--out", str(out)]) == 0
    assert "on this variant" not in capsys.readouterr().err
    (record,) = json.loads((out / "manifest.json").read_text())["models"]
    assert record == {"agent": "expert", "seats": [0, 1, 2], "file": str(model_path),
                      "digest": record["digest"], "identity": model.identity, "trained_on": str(variant),
                      "trained_on_hash": plan.config_hash}
    assert main(["summary", str(out)]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert f"expert's model {model_path} (identity {model.identity}, trained on {variant})" in first
    # on the base config the shipped model plays, and the manifest says so
    shipped = plan_run(BASE, 3, "expert", 0, False).identity().models
    assert shipped[0]["file"] == "sim/kamakura/models/expert-3p.json"
    assert shipped[0]["trained_on_hash"] == plan_run(BASE, 3, "expert", 0, False).config_hash


def test_train_from_config_refuses_a_mix_of_ways(tmp_path: Path, capsys) -> None:
    variant = _variant(tmp_path)
    for argv, words in ((["--config", str(BASE)], "--config: not with --from-config"),
                        (["--out", str(tmp_path / "m.json")], "--out: not with --from-config"),
                        (["sakura"], "the config is for kamakura, not sakura")):
        assert main(["train", "--from-config", str(variant), "--players", "3", *argv]) == 2
        assert words in capsys.readouterr().err
    assert main(["train", "--players", "3"]) == 2
    assert "--from-config VARIANT.toml" in capsys.readouterr().err


def test_a_stale_fitted_model_is_not_played(tmp_path: Path) -> None:
    """A model next to the variant that was trained before the variant changed is passed over: the shipped
    model plays, and the check measures it."""
    variant = _variant(tmp_path)
    assert main(["train", "--from-config", str(variant), "--players", "3", "--games", "30", "--rounds", "1",
                 "--strength-games", "0", "--jobs", "1"]) == 0
    _variant(tmp_path, body=BLUE_20.replace("= 20", "= 19"))
    plan = plan_run(variant, 3, "expert", 0, False)
    assert ",model=sim/kamakura/models/expert-3p.json@" in plan.resolved_agents[0]


def test_cached_checks_read_the_cache_alone(tmp_path: Path) -> None:
    """What `balance summary` shows: the checks kept for a run's models, found without playing a game."""
    variant, kamakura = _variant(tmp_path), games.spec("kamakura")
    models = plan_run(variant, 3, "expert", 0, False).identity().models
    kept = check_level(variant, 3, "expert", games=60, cache=tmp_path / "cache")
    config = (str(variant), kept.config_hash)
    assert cached_checks(kamakura, 3, config, models, tmp_path / "nothing", games=60) == []
    assert cached_checks(kamakura, 3, config, models, tmp_path / "cache") == []  # kept at 60 games, not 600
    (again,) = cached_checks(kamakura, 3, config, models, tmp_path / "cache", games=60)
    assert again == kept
    assert cached_checks(kamakura, 3, (str(BASE), models[0]["trained_on_hash"]), models,
                         tmp_path / "cache", games=60) == []  # on the model's own config: nothing to say
