"""Agent parameters: NaN, infinities and a key given twice are refused in one line,
for every game's searching agents; finite values within range still parse."""

from __future__ import annotations

import pytest

from sim import games
from sim.core.agent_spec import parse_spec
from sim.core.errors import ConfigError


@pytest.mark.parametrize("game", ["kamakura", "sakura"])
@pytest.mark.parametrize("text, words", [
    ("mcts:c=nan", "mcts:c must be a finite number, got 'nan'"),
    ("mcts:c=inf", "mcts:c must be a finite number, got 'inf'"),
    ("mcts:c=-inf", "finite number"),
    ("mcts:iters=5,iters=7", "mcts:iters is given twice (5 and '7')"),
])
def test_non_finite_and_duplicate_parameters_refused(game: str, text: str, words: str) -> None:
    with pytest.raises(ConfigError, match="^--agents: ") as err:
        parse_spec(text, games.spec(game))
    assert words in str(err.value) and "\n" not in str(err.value)


def test_kamakura_prior_nan_refused_and_finite_values_kept() -> None:
    with pytest.raises(ConfigError, match="finite"):
        parse_spec("mcts:prior=nan", games.spec("kamakura"))
    with pytest.raises(ConfigError, match="expert:temp must be a finite number"):
        parse_spec("expert:temp=nan", games.spec("sakura"))
    spec = parse_spec("mcts:iters=40,c=0.5", games.spec("kamakura"))
    assert spec.params == {"iters": 40, "c": 0.5}


def test_kamakura_search_parameters_parse_and_non_finite_refused() -> None:
    spec = parse_spec("search:iters=40,c=0.5,width=12,temp=3,spread=1.5", games.spec("kamakura"))
    assert spec.params == {"iters": 40, "c": 0.5, "width": 12, "temp": 3.0, "spread": 1.5}
    for key in ("c", "temp", "spread"):
        with pytest.raises(ConfigError, match=f"search:{key} must be a finite number"):
            parse_spec(f"search:{key}=inf", games.spec("kamakura"))


def test_sakura_search_nan_refused_and_finite_values_kept() -> None:
    with pytest.raises(ConfigError, match="search:temp must be a finite number"):
        parse_spec("search:temp=nan", games.spec("sakura"))
    with pytest.raises(ConfigError, match="search:depth must be at most 10"):
        parse_spec("search:depth=11", games.spec("sakura"))
    spec = parse_spec("search:samples=4,depth=0,z=1.5", games.spec("sakura"))
    assert spec.params == {"samples": 4, "depth": 0, "z": 1.5}
