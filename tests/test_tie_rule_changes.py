"""What a tie-break rule changes for a seat, paired over the same games (issue 13, item 4): the mean of
the per-game differences of re-scored win shares, with its normal interval, for both games."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from analysis import kamakura as K
from analysis import sakura as S
from analysis.stats import Z95
from analysis.ties import rule_changes


def _kamakura_players(scores: list[list[int]]) -> pd.DataFrame:
    games, seats = len(scores), len(scores[0])
    return pd.DataFrame({"game_id": np.repeat(np.arange(games), seats),
                         "seat": np.tile(np.arange(seats), games), "agent": "greedy",
                         "score": np.array(scores).reshape(-1), "rank": 1, "win_share": 0.0})


def test_kamakura_changes_are_the_paired_mean_with_its_interval():
    rng = np.random.default_rng(0)
    scores = rng.integers(28, 32, size=(400, 3)).tolist()  # many ties on top
    table = K.rescore_ties(_kamakura_players(scores), reference="last_in_order")
    first = table[table["rule"] == "first_in_order"].set_index("seat")
    # by hand: seat 0 wins under first_in_order when it is among the top; under last_in_order only alone
    s = np.array(scores)
    top = s.max(axis=1, keepdims=True)
    is_top = s == top
    first_win = np.argmax(is_top, axis=1)
    last_win = 2 - np.argmax(is_top[:, ::-1], axis=1)
    d = (first_win == 0).astype(float) - (last_win == 0).astype(float)
    half = Z95 * d.std(ddof=1) / np.sqrt(len(d))
    assert first.loc[0, "win_rate_change"] == pytest.approx(d.mean())
    assert first.loc[0, "change_ci_low"] == pytest.approx(d.mean() - half)
    assert first.loc[0, "change_ci_high"] == pytest.approx(d.mean() + half)
    # each game's shares sum to 1 under every rule, so the seats' changes sum to 0
    for _, rows in table.groupby("rule"):
        assert rows["win_rate_change"].sum() == pytest.approx(0.0, abs=1e-12)
    reference = table[table["rule"] == "last_in_order"]
    assert (reference["win_rate_change"] == 0).all() and (reference["change_ci_high"] == 0).all()


def test_sakura_changes_use_the_configured_rule_as_reference():
    players = pd.DataFrame({"game_id": np.repeat(np.arange(4), 2), "seat": np.tile([0, 1], 4),
                            "agent": "greedy", "score": [5, 5, 6, 4, 5, 5, 3, 7],
                            "position": [3, 1, 0, 0, 0, 0, 2, 2], "rank": 1, "win_share": 0.0})
    table = S.rescore_ties(players, reference="shared").set_index(["rule", "seat"])
    # game 0: closest gives seat 0 the win (1 vs 0.5 shared); game 2: both on the gate share either way
    assert table.loc[("closest_to_emperor", 0), "win_rate_change"] == pytest.approx(0.5 / 4)
    assert table.loc[("closest_to_emperor", 1), "win_rate_change"] == pytest.approx(-0.5 / 4)
    assert table.loc[("shared", 0), "win_rate_change"] == 0


def test_an_unknown_reference_is_refused():
    with pytest.raises(ValueError, match="reference rule"):
        rule_changes({"shared": np.zeros((3, 2))}, "nobody")
