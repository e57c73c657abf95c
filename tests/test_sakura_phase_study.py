"""The paired phase study (sim/sakura/phase_study.py, its kernels in phase_play.py): its positions sit
right after a tree scores, the rest of a game replays exactly from a position, an arm compared with itself
differs nowhere, and the shares do not depend on --jobs."""

from __future__ import annotations

import numpy as np
import pytest

from sim import games
from sim.core.agent_spec import agent_arrays
from sim.sakura import kernels as K
from sim.sakura import phase_play, phase_study
from sim.sakura.batch import run_batch
from sim.sakura.game import SakuraGame, kernel_rules
from sim.sakura.spec import SPEC


def test_positions_are_taken_right_after_a_tree_scores() -> None:
    for left in (1, 2):
        states = phase_study.positions(4, "greedy", 12, seed=3, trees_left=left)
        assert 0 < len(states) <= 12
        for s in states:
            assert s[K.PHASE] != K.PH_OVER
            assert sum(1 - s[K.SCORED + k] for k in range(s[K.N_SAKURA])) == left
            assert s[K.TOKENS:K.TOKENS + 4].sum() > 20  # 4 x 5 at the start, and a tree's award since


def test_the_whole_game_from_its_start_is_the_batch_loops_game() -> None:
    """finish() plays the same game as the runner from the same state and generator stream."""
    rules = SakuraGame(SPEC.default_rules(4)).rules
    seeds = np.array([11, 12, 13], dtype=np.uint64)
    kinds, params = agent_arrays([["greedy", "random", "greedy", "random"]], games.spec("sakura"))
    batch = run_batch(rules, seeds, kinds[0], params[0])
    for g, seed in enumerate(seeds):
        start = K.new_game(kernel_rules(rules), seed)
        shares = [phase_play.finish(start, seed, kinds[0], params[0], seat, phase_play.COLLECT_STREAM)
                  for seat in range(4)]
        assert shares == batch["winners"][g].tolist()


def test_an_arm_against_itself_differs_nowhere_and_jobs_do_not_matter() -> None:
    states = phase_study.positions(4, "greedy", 16, seed=5, trees_left=1)
    arms = ["greedy", "random", "greedy"]
    one = phase_study.play_arms(states, arms, "greedy", 4, seed=9, jobs=1)
    two = phase_study.play_arms(states, arms, "greedy", 4, seed=9, jobs=2)
    assert np.array_equal(one, two)
    assert np.array_equal(one[:, 0], one[:, 2])
    assert set(np.unique(one)) <= {0.0, 1.0}
    lines = phase_study.report(one, arms)
    assert lines[-1].startswith("greedy - greedy: +0.00 pp [+0.00, +0.00]")


def test_bad_input_is_refused_with_status_2(capsys) -> None:
    for argv in (["--arms", "expert;nobody"], ["--trees-left", "0"], ["--players", "9"],
                 ["--positions", "2", "--trees-left", "7"]):
        with pytest.raises(SystemExit) as stop:
            phase_study.main([*argv, "--source", "greedy"])
        assert stop.value.code == 2, argv
    err = capsys.readouterr().err
    assert "unknown agent 'nobody'" in err and "must be at least 1" in err
    assert "fewer than 2 of 2 games reached 7 tree(s) left" in err
