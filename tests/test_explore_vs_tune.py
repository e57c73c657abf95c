"""scripts/explore_vs_tune.py without games: the tune files it writes copy the explore file's space,
constraints and target, split its budget and pass the tune's validator (a budget too small is refused), and
the largest set of designs that differ pairwise follows analysis.explore_report.distinct_pairs's rule."""

from __future__ import annotations

import importlib.util
import tomllib
from pathlib import Path

import pytest

from sim.core.errors import ConfigError

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "configs" / "tunes" / "kamakura-3p-chit-points-explore.toml"


def _script():
    spec = importlib.util.spec_from_file_location("explore_vs_tune", ROOT / "scripts" / "explore_vs_tune.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_tune_files_copy_the_explore_space_and_split_the_budget(tmp_path) -> None:
    m = _script()
    files = m.write_tunes(EXAMPLE, tmp_path, 5, m.SEARCH)
    explore = tomllib.loads(EXAMPLE.read_text())
    assert [seed for seed, _ in files] == [2, 3, 4, 5, 6]
    for seed, path in files:
        tune = tomllib.loads(path.read_text())
        assert tune["seed"] == seed and tune["budget"] == explore["budget"] // 5
        assert Path(tune["base"]) == (EXAMPLE.parent / explore["base"]).resolve()
        for key in ("space", "constraints", "target", "players", "agents"):
            assert tune[key] == explore[key]
        assert tune["search"] == m.SEARCH
    runs = explore["budget"] // 20000 + 1  # so many runs that a tune's share pays no 20,000-game confirmation
    with pytest.raises(ConfigError, match="budget"):
        m.write_tunes(EXAMPLE, tmp_path / "many", runs, m.SEARCH)


def test_largest_distinct_set() -> None:
    m = _script()

    def design(slug: str, length: float, ties: float) -> dict:
        return {"slug": slug, "confirmation": {"length": length, "ties": ties}}

    # a and b differ by length, c is close to a (0.5 turn, 1 pp) but differs from b by ties
    a, b, c = design("a", 30.0, 0.10), design("b", 31.5, 0.10), design("c", 30.5, 0.11)
    assert m.largest_distinct([a, b, c]) == ["a", "b"]
    assert m.largest_distinct([a, c]) == ["a"]
    assert m.largest_distinct([]) == []
    d = design("d", 30.2, 0.20)
    assert m.largest_distinct([a, b, c, d]) == ["a", "b", "d"]
    assert len(m.unique([{"values": [1, 2]}, {"values": [1, 2]}, {"values": [2, 1]}], "values")) == 2
