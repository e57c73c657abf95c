"""The Sakura `search` agent (sim/sakura/search.py): legal play, no peeking (a redeal of what the
seat cannot see leaves every decision unchanged), the same games per seed, through the readable API and the
batch loop, at any --jobs and after a kill and resume, and its parameters refused past their ranges."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sim import games
from sim.core.agent_spec import AgentSpec, agent_arrays, agent_row, parse_spec
from sim.core.errors import ConfigError
from sim.core.rng import game_seeds, new_rng
from sim.sakura.game import SakuraGame, action_to_string
from sim.sakura.search import search_action
from sim.sakura.spec import SPEC
from tests.test_runner import SAKURA, assert_same_tables, simulate
from tests.test_sakura_agents import reshuffle_hidden
from tests.test_sakura_mcts import hidden_cards

ROOT = Path(__file__).resolve().parents[1]
CHEAP = {"samples": 2, "most": 4, "inner": 1}  # a small budget: the same code paths, test speed
CHEAP_TEXT = "search:samples=2,most=4,inner=1"


def search_row(players: int, **params) -> np.ndarray:
    """The parameter row of a search seat with the shipped model (as the batch loop gets it)."""
    return np.array(agent_row(AgentSpec("search", params), games.spec("sakura"), players), dtype=np.float64)


def rules_of(players: int, config: str | None):
    return SPEC.load_rules(config, players) if config else SPEC.default_rules(players)


@settings(deadline=None, max_examples=25)
@given(st.sampled_from([(2, None), (2, "configs/sakura/two-player-tactical.toml"), (4, None), (6, None)]),
       st.integers(0, 2**31 - 1), st.integers(0, 60),
       st.sampled_from([{"depth": 0}, {"depth": 1}]))
def test_search_plays_a_legal_action_anywhere(case, seed: int, moves: int, design: dict) -> None:
    """From a position reached by random moves, the search's action is legal there."""
    players, config = case
    game = SakuraGame(rules_of(players, config))
    row = search_row(players, **design, **CHEAP)
    state = game.new_state(seed)
    rng = random.Random(seed)
    for _ in range(moves):
        if game.is_over(state):
            return
        state = game.apply(state, rng.choice(game.legal_actions(state)))
    if not game.is_over(state):
        action = int(search_action(state.vector.copy(), new_rng(seed, 1), row))
        assert action_to_string(action) in game.legal_actions(state)


@pytest.mark.parametrize(("players", "config"), [(4, None), (5, None), (2, None),
                                                 (2, "configs/sakura/two-player-tactical.toml")])
@pytest.mark.parametrize("design", [{"depth": 0}, {"depth": 1}], ids=["depth0", "depth1"])
def test_search_decides_from_the_observation_only(players: int, config: str | None, design: dict) -> None:
    """At every decision of several games (moves at random to reach varied positions), the search returns
    the same action on the true state and on a twin whose hidden information (other hands, deck order,
    reshuffle generator, unrevealed selections) is redealt from the same cards, with the same generator
    seed; the twin really differs where a peeking agent would look."""
    game = SakuraGame(rules_of(players, config))
    row = search_row(players, **design, **CHEAP)
    rng = random.Random(20 + players)
    checked = redealt = 0
    for seed in range(3):
        state = game.new_state(seed)
        while not game.is_over(state):
            d = game.to_dict(state)
            seat = d["to_move"]
            want = search_action(state.vector.copy(), new_rng(seed, 1), row)
            twin = reshuffle_hidden(d, seat, rng)
            t = game.from_dict(twin)
            assert game.observe(t, seat) == game.observe(state, seat)
            assert sorted(hidden_cards(twin, seat)) == sorted(hidden_cards(d, seat)) and t != state
            redealt += twin["hands"] != d["hands"]
            assert search_action(t.vector.copy(), new_rng(seed, 1), row) == want, (seed, d["round"])
            checked += 1
            state = game.apply(state, rng.choice(game.legal_actions(state)))
    assert checked > 50 and redealt > 0.8 * checked


def test_search_games_are_the_same_per_seed_and_replay_through_the_readable_api() -> None:
    """The batch loop plays the same games for the same seeds (and others for other seeds), split or
    whole; the readable API's policy, one generator per game shared by the seats as the batch loop draws,
    plays them again to the same tokens, every action legal."""
    rules = SPEC.default_rules(4)
    game = SakuraGame(rules)
    agents = [CHEAP_TEXT, "expert", "greedy", "expert"]
    kinds, params = agent_arrays([agents] * 6, games.spec("sakura"))
    seeds = game_seeds(5, 0, 6)
    whole = SPEC.run_batch(rules, seeds, kinds, params)
    again = SPEC.run_batch(rules, seeds, kinds, params)
    halves = [SPEC.run_batch(rules, seeds[a:a + 3], kinds[a:a + 3], params[a:a + 3]) for a in (0, 3)]
    assert np.array_equal(whole["tokens"], again["tokens"])
    assert np.array_equal(whole["tokens"], np.concatenate([h["tokens"] for h in halves]))
    other = SPEC.run_batch(rules, game_seeds(6, 0, 6), kinds, params)
    assert not np.array_equal(whole["tokens"], other["tokens"])
    specs = [parse_spec(a, games.spec("sakura")) for a in agents]
    for g, seed in enumerate(seeds[:3]):
        state = game.new_state(int(seed))
        rng = new_rng(int(seed), 1)
        seats = [SPEC.policies[s.name](rng, **s.params) for s in specs]
        while not game.is_over(state):
            action = seats[game.to_move(state)].choose(game, state)
            assert action in game.legal_actions(state)
            state = game.apply(state, action)
        assert game.result(state)["scores"] == whole["tokens"][g, :4].tolist()


def test_search_tables_are_identical_at_any_jobs_and_after_kill_and_resume(tmp_path: Path) -> None:
    args = [SAKURA, "--players", "4", "--agents", f"{CHEAP_TEXT},expert,expert,expert", "--rotate-seats",
            "--games", "240", "--seed", "12", "--chunk-size", "20"]
    one = simulate(*args, "--jobs", "1", "--out", str(tmp_path / "one"))
    assert one.returncode == 0, one.stderr
    two = simulate(*args, "--jobs", "2", "--out", str(tmp_path / "two"))
    assert two.returncode == 0, two.stderr
    assert_same_tables(tmp_path / "one", tmp_path / "two")
    cut = tmp_path / "cut"
    proc = subprocess.Popen([sys.executable, "-m", "sim", "simulate", *args, "--jobs", "1", "--out", str(cut),
                             "--quiet"], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    deadline = time.time() + 300
    parts = cut / "games.parquet"
    while time.time() < deadline and (not parts.is_dir() or len(list(parts.glob("part-*"))) < 2):
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    finished = len(list(parts.glob("part-*")))
    assert 2 <= finished < 12, "killed in the middle of the run"
    again = simulate(*args, "--jobs", "1", "--out", str(cut))
    assert again.returncode == 0, again.stderr
    assert f"({20 * finished} were already there)" in again.stdout
    assert_same_tables(tmp_path / "one", cut)


@pytest.mark.parametrize("key", ["samples", "most", "z", "depth", "inner", "temp"])
def test_search_parameters_past_their_range_are_refused(key: str) -> None:
    kind = games.spec("sakura").agents["search"]
    number = kind.params[key][0]
    for value in (number(kind.lowest[key]) - 1, number(kind.highest[key]) + 1):
        with pytest.raises(ConfigError, match=f"search:{key} must be at"):
            parse_spec(f"search:{key}={value}", games.spec("sakura"))
    assert parse_spec(f"search:{key}={number(kind.highest[key])}", games.spec("sakura")).params[key] == \
        kind.highest[key]
