"""Sakura's batch logs hold together: one card per painter and round in resolution order, and the tokens
gained at the trees explain the final tokens up to the bumps (R-15). (That the batch path and the readable
API play the same games is tests/test_game_conformance.py, run on every registered game.)"""

from __future__ import annotations

import numpy as np

from sim.core.rng import game_seeds
from sim.sakura.batch import run_batch
from sim.sakura.spec import SPEC


def test_log_rows_are_consistent() -> None:
    players, games = 4, 300
    out = run_batch(SPEC.default_rules(players), game_seeds(5, 0, games), [0, 1, 0, 1])
    cards = out["cards_played"]
    assert set(np.unique(cards[:, 0])) == set(range(games))
    keys = cards[:, 0] * 10000 + cards[:, 1]
    for key in np.unique(keys):  # each round: one card per painter, logged in resolution order
        chunk = cards[keys == key]
        assert list(chunk[:, 3]) == sorted(chunk[:, 3]) and sorted(chunk[:, 2]) == list(range(players))
    # sakura gains explain the final tokens: start 5 each, minus at most one token per bump
    sak = out["sakura_scored"]
    gained = np.bincount(sak[:, 0], weights=sak[:, 4], minlength=games)
    change = out["tokens"].sum(axis=1) - 5 * players
    assert np.all(gained >= change) and np.all(gained <= change + out["bumps"])
    assert np.all(np.bincount(sak[:, 0], minlength=games) == 3 * players)  # three trees, every painter


def test_games_table_logs_the_court_painters_final_tokens_and_position() -> None:
    """R-23 re-scoring input: with two players the games table holds the court painter's final tokens and
    path index (`court_tokens`, `court_position`), the batch's last column of tokens and positions (which
    tests/test_game_conformance.py holds to the readable API's final state); null with 3-6 players."""
    for players in (2, 3, 5):
        rules = SPEC.default_rules(players)
        seeds = game_seeds(9, 0, 40)
        out = run_batch(rules, seeds, [1] * players)
        games = SPEC.tables(0, seeds, [["greedy"] * players] * 40, out, rules)["games"]
        tokens, at = games["court_tokens"].to_pylist(), games["court_position"].to_pylist()
        if players == 2:
            assert tokens == out["tokens"][:, 2].tolist() and at == out["positions"][:, 2].tolist()
            assert all(0 <= a < 30 for a in at) and len(set(at)) > 1
        else:
            assert tokens == [None] * 40 and at == [None] * 40
