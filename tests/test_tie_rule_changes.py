"""What a tie-break rule changes for a seat, paired over the same games: the mean of
the per-game differences of re-scored win shares, with its normal interval, for both games."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from analysis import kamakura as K
from analysis import sakura as S
from analysis.kamakura.ties import win_shares
from analysis.stats import Z95
from tests.oracles import rule_changes


def _kamakura_players(scores: list[list[int]]) -> pd.DataFrame:
    games, seats = len(scores), len(scores[0])
    return pd.DataFrame({"game_id": np.repeat(np.arange(games), seats),
                         "seat": np.tile(np.arange(seats), games), "agent": "greedy",
                         "score": np.array(scores).reshape(-1), "rank": 1, "win_share": 0.0})


def test_kamakura_changes_are_the_paired_mean_with_its_interval():
    rng = np.random.default_rng(0)
    scores = rng.integers(28, 32, size=(400, 3)).tolist()  # many ties on top
    rules = K.TIE_RULES[:3]  # the players table has no last_turn (R-20's column)
    table = K.rescore_ties_from(K.rescore_tally(_kamakura_players(scores), reference="last_in_order"), rules)
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
    # the paired changes from the tally's sums are those of the re-scored shares held whole
    score = np.array(scores, dtype=float)
    expect = rule_changes({rule: win_shares(score, None, rule) for rule in rules}, "last_in_order")
    got = table[["rule", "seat", "win_rate_change", "change_ci_low", "change_ci_high"]]
    pd.testing.assert_frame_equal(got.reset_index(drop=True), expect, check_dtype=False, check_exact=False,
                                  rtol=1e-9, atol=1e-12)


def test_sakura_changes_use_the_configured_rule_as_reference():
    players = pd.DataFrame({"game_id": np.repeat(np.arange(4), 2), "seat": np.tile([0, 1], 4),
                            "agent": "greedy", "score": [5, 5, 6, 4, 5, 5, 3, 7],
                            "position": [3, 1, 0, 0, 0, 0, 2, 2], "rank": 1, "win_share": 0.0})
    tally = S.rescore_tally(players, reference="shared")
    table = S.rescore_ties_from(tally, tuple(tally["rules"])).set_index(["rule", "seat"])
    # game 0: closest gives seat 0 the win (1 vs 0.5 shared); game 2: both on the gate share either way
    assert table.loc[("closest_to_emperor", 0), "win_rate_change"] == pytest.approx(0.5 / 4)
    assert table.loc[("closest_to_emperor", 1), "win_rate_change"] == pytest.approx(-0.5 / 4)
    assert table.loc[("shared", 0), "win_rate_change"] == 0


def test_an_unknown_reference_is_refused():
    with pytest.raises(ValueError, match="reference rule"):
        K.rescore_tally(_kamakura_players([[1, 2], [2, 2]]), reference="nobody")
