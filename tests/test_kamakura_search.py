"""The Kamakura `search` agent (sim/kamakura/puct.py): PUCT over whole turns, the expert's
evaluation at the leaves.

It plays only legal whole turns (a property test over positions reached by play); the same seed gives the
same turn and the same games whatever the batching, through the readable API too, at any --jobs and after
a kill and resume; it plays a winning finishing turn where there is one; its budget parameters are
refused past their ranges."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analysis.runs import read_run
from sim import games
from sim.core.agent_spec import AgentSpec, agent_arrays, agent_row, parse_spec
from sim.core.errors import ConfigError
from sim.core.rng import game_seeds, new_rng
from sim.kamakura import kernels as K
from sim.kamakura.agents import MAX_PLAN
from sim.kamakura.expert import expert_plan
from sim.kamakura.game import action_to_string
from sim.kamakura.planner import greedy_plan, turn_candidates
from sim.kamakura.puct import S_ITERS, S_WIDTH, search_plan
from tests.kamakura_helpers import game, load
from tests.test_kamakura_turn_mcts import turn_points, turn_start_after
from tests.test_runner import KAMAKURA, assert_same_tables, simulate

SPEC = games.spec("kamakura")


def row(players: int, **params) -> np.ndarray:
    return np.array(agent_row(AgentSpec("search", params), SPEC, players), dtype=np.float64)


def plan_of(s: np.ndarray, seed: int, params: np.ndarray) -> list[int]:
    plan = np.empty(MAX_PLAN, dtype=np.int64)
    n = search_plan(s.copy(), new_rng(seed, 1), params, plan)
    return [int(code) for code in plan[:n]]


@settings(max_examples=30, deadline=None)
@given(players=st.integers(2, 4), seed=st.integers(0, 10_000), turns=st.integers(0, 40),
       iters=st.integers(1, 24), width=st.integers(1, 10))
def test_plays_only_legal_whole_turns(players, seed, turns, iters, width):
    s = turn_start_after(players, seed, turns)
    if s[K.OVER]:
        return
    codes = plan_of(s, seed, row(players, iters=iters, width=width))
    turn_points(s, codes)  # every action legal where it is played, and the turn ends with the plan


def test_same_seed_same_turn_and_the_parameters_are_read():
    s = turn_start_after(3, 5, 6)
    params = row(3, iters=40)
    assert params[S_ITERS] == 40 and params[S_WIDTH] == 16
    assert plan_of(s, 1, params) == plan_of(s, 1, params)


def _wins_outright(s: np.ndarray, codes, me: int) -> bool:
    st_ = s.copy()
    for code in codes:
        K.apply_action(st_, code)
    score, win = np.zeros(K.MAX_PLAYERS, dtype=np.int64), np.zeros(K.MAX_PLAYERS, dtype=np.int64)
    K.scores(st_, score)
    K.winners(st_, score, win)
    return bool(st_[K.OVER] == 1 and win[me] == 1 and win.sum() == 1)


# greedy games (agent stream 3) with a turn start where some of the planner's 16 best turns end the game
# with the mover the only winner and some do not (10 such positions in 1,500 games)
FINISHES = [23, 369, 519, 573, 865, 901, 965, 1029, 1195, 1367]


def test_plays_a_winning_finishing_turn_where_there_is_one():
    """The leaves at a finished game are valued by its result, so a turn that ends the game with the
    mover the only winner is played rather than one that plays on (or loses)."""
    found = 0
    for seed in FINISHES:
        players = 2 + seed % 3
        s = game(players).new_state(seed=seed).vector.copy()
        rng = new_rng(seed, 3)
        plan = np.empty(MAX_PLAN, dtype=np.int64)
        cand = np.empty((16, MAX_PLAN), dtype=np.int64)
        while not s[K.OVER]:
            me = s[K.TO_MOVE]
            n, lengths = turn_candidates(s.copy(), new_rng(seed, 5), 16, cand)
            finishing = [_wins_outright(s, cand[i, :lengths[i]], me) for i in range(n)]
            if any(finishing) and not all(finishing):
                found += 1
                assert _wins_outright(s, plan_of(s, seed, row(players)), me), seed
            for code in plan[:greedy_plan(s, rng, plan)]:
                K.apply_action(s, code)
    assert found == len(FINISHES)


def test_expert_and_search_agree_where_one_turn_stands_out():
    """A lone 10-point claim behind one swap: both play it."""
    from tests.test_kamakura_mcts import one_swap_claim

    g, s = load(one_swap_claim())
    plan = np.empty(MAX_PLAN, dtype=np.int64)
    expert_row = np.array(agent_row(AgentSpec("expert"), SPEC, 3), dtype=np.float64)
    n = expert_plan(s.vector.copy(), new_rng(0, 1), expert_row, plan)
    expert = [action_to_string(int(c)) for c in plan[:n]]
    search = [action_to_string(c) for c in plan_of(s.vector, 0, row(3))]
    assert search == expert == ["swap 1 5", "gain 30", "end"]


def test_games_are_the_same_per_seed_and_split_and_through_the_readable_api():
    rules = SPEC.default_rules(3)
    agents = ["search:iters=6,width=6", "expert", "greedy"]
    kinds, params = agent_arrays([agents] * 6, SPEC)
    seeds = game_seeds(8, 0, 6)
    whole = SPEC.run_batch(rules, seeds, kinds, params)
    halves = [SPEC.run_batch(rules, seeds[a:a + 3], kinds[a:a + 3], params[a:a + 3]) for a in (0, 3)]
    assert np.array_equal(whole["scores"], np.concatenate([h["scores"] for h in halves]))
    other = SPEC.run_batch(rules, game_seeds(9, 0, 6), kinds, params)
    assert not np.array_equal(whole["scores"], other["scores"])
    game = SPEC.game_class(rules)
    for g, seed in enumerate(seeds[:2]):
        state = game.new_state(int(seed))
        rng = new_rng(int(seed), 1)
        seats = [SPEC.policies["search"](rng, iters=6, width=6), SPEC.policies["expert"](rng),
                 SPEC.policies["greedy"](rng)]
        while not game.is_over(state):
            action = seats[game.to_move(state)].choose(game, state)
            assert action in game.legal_actions(state)
            state = game.apply(state, action)
        assert game.result(state)["scores"] == whole["scores"][g].tolist()


def test_same_tables_at_any_jobs_and_after_kill_and_resume(tmp_path: Path):
    args = [KAMAKURA, "--players", "3", "--games", "60", "--agents", "search:iters=6,width=6,expert,greedy",
            "--rotate-seats", "--seed", "3", "--chunk-size", "10"]
    for jobs in ("1", "2"):
        run = simulate(*args, "--jobs", jobs, "--out", str(tmp_path / jobs))
        assert run.returncode == 0, run.stderr
    assert_same_tables(tmp_path / "1", tmp_path / "2")
    cut = tmp_path / "cut"
    proc = subprocess.Popen([sys.executable, "-m", "sim", "simulate", *args, "--jobs", "1", "--out", str(cut),
                             "--quiet"], cwd=Path(KAMAKURA).parents[2], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    parts = cut / "games.parquet"
    deadline = time.time() + 300
    while time.time() < deadline and (not parts.is_dir() or len(list(parts.glob("part-*"))) < 2):
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    assert 2 <= len(read_run(cut).games) // 10 < 6, "killed in the middle of the run"
    again = simulate(*args, "--jobs", "1", "--out", str(cut))
    assert again.returncode == 0, again.stderr
    assert_same_tables(tmp_path / "1", cut)


@pytest.mark.parametrize(("text", "words"), [
    ("search:iters=0", "search:iters must be at least 1"),
    ("search:iters=20001", "search:iters must be at most 20000"),
    ("search:width=33", "search:width must be at most 32"),
    ("search:width=0", "search:width must be at least 1"),
    ("search:c=-1", "search:c must be at least 0.0"),
    ("search:temp=0", "search:temp must be at least 0.01"),
    ("search:spread=nan", "search:spread must be a finite number"),
])
def test_budget_parameters_refused_past_their_ranges(text: str, words: str) -> None:
    with pytest.raises(ConfigError) as err:
        parse_spec(text, SPEC)
    assert words in str(err.value)
