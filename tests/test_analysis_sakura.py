"""Sakura statistics (analysis.sakura) and run comparison (analysis.run_labels) on small constructed tables
with known answers, plus a smoke test on a real run."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from analysis import sakura as sk
from analysis import seats as common_seats
from analysis.page import side_by_side
from analysis.run_labels import run_label, run_labels
from analysis.runs import read_run
from analysis.stats import wilson_interval
from sim import games
from storage.run_record import RunManifest
from tests import oracles

ROOT = Path(__file__).resolve().parents[1]
BASE = ROOT / "configs" / "sakura" / "base.toml"
EVENT_COLUMNS = ["game_id", "round", "seat", "kind", "card", "garden", "painter", "resolved", "bumped",
                 "tokens_after", "sakura", "tokens_gained"]


# ---- builders: the run tables' columns and nullable dtypes ---------------------------------------------
def players_frame(rows: list[tuple]) -> pd.DataFrame:
    """rows: (game_id, seat, score, position, win_share); rank and agent filled in."""
    frame = pd.DataFrame(rows, columns=["game_id", "seat", "score", "position", "win_share"])
    frame["agent"] = pd.Categorical(["random"] * len(frame))
    frame["rank"] = frame.groupby("game_id")["score"].rank(method="min", ascending=False).astype("Int8")
    frame["out_turn"] = pd.array([None] * len(frame), dtype="Int16")
    return frame.astype({"game_id": "Int64", "seat": "Int8", "score": "Int16", "position": "Int8",
                         "win_share": "float32"})[
        ["game_id", "seat", "agent", "score", "rank", "win_share", "out_turn", "position"]]


def card(game: int, rnd: int, seat: int, order: int, garden: str, painter: str, tokens: int,
         bumped: int = 0, resolved: bool = True) -> dict:
    return {"game_id": game, "round": rnd, "seat": seat, "kind": "card", "card": order, "garden": garden,
            "painter": painter, "resolved": resolved, "bumped": bumped, "tokens_after": tokens}


def sakura(game: int, rnd: int, seat: int, index: int, gained: int) -> dict:
    return {"game_id": game, "round": rnd, "seat": seat, "kind": "sakura", "sakura": index,
            "tokens_gained": gained}


def events_frame(rows: list[dict]) -> pd.DataFrame:
    frame = pd.DataFrame(rows).reindex(columns=EVENT_COLUMNS)
    return frame.astype({"game_id": "Int64", "round": "Int16", "seat": "Int8", "kind": "category",
                         "card": "Int8", "garden": "category", "painter": "category", "resolved": "boolean",
                         "bumped": "Int8", "tokens_after": "Int16", "sakura": "Int8",
                         "tokens_gained": "Int8"})


def games_frame(rows: list[dict]) -> pd.DataFrame:
    defaults = {"tie": False, "decided_by_tiebreak": False, "end_reason": "last_sakura", "bumps": 0,
                "rounds": 10, "winner": 0, "court_tokens": None}
    frame = pd.DataFrame([{**defaults, **row} for row in rows])
    return frame.astype({"game_id": "Int64", "players": "Int8", "winner": "Int8", "tie": "boolean",
                         "decided_by_tiebreak": "boolean", "end_reason": "category", "rounds": "Int16",
                         "bumps": "Int16", "court_tokens": "Int16"})


# ---- the report's figures of tables held whole: each figure's tally of them, one chunk -------------------
def seat_win_rates(players: pd.DataFrame) -> pd.DataFrame:
    return common_seats.seat_win_rates(players).rename(columns={"mean_score": "mean_tokens"})


def rescore_ties(players: pd.DataFrame, rules: tuple[str, ...] | None = None, reference: str | None = None,
                 games: pd.DataFrame | None = None) -> pd.DataFrame:
    tally = sk.rescore_tally(players, rules, reference, games)
    return sk.rescore_ties_from(tally, tuple(tally["rules"]))


def tie_stats(games: pd.DataFrame) -> dict:
    return sk.tie_stats_from(sk.tie_tally(games))


def card_values(events: pd.DataFrame, players: pd.DataFrame) -> pd.DataFrame:
    return sk.card_values_from(sk.card_tally(events, players))


def action_values(events: pd.DataFrame, players: pd.DataFrame) -> pd.DataFrame:
    return sk.action_values_from(sk.action_tally(events, players))


def bump_stats(games: pd.DataFrame, events: pd.DataFrame, players: pd.DataFrame | None = None) -> dict:
    return sk.bump_stats_from(sk.bump_tally(games, events, players))


def sakura_tokens(events: pd.DataFrame, players: int) -> pd.DataFrame:
    return sk.sakura_tokens_from(sk.sakura_tokens_tally(events, players))


def round_stats(games: pd.DataFrame) -> dict:
    return sk.round_stats_from(sk.round_tally(games))


def court_win_rate(players: pd.DataFrame, games: pd.DataFrame) -> pd.DataFrame:
    return sk.court_win_rate_from(sk.court_tally(players, games))


# ---- seats ---------------------------------------------------------------------------------------------
def test_a_seat_that_always_wins():
    players = players_frame([(g, s, 10 if s == 0 else 4, s, 1.0 if s == 0 else 0.0)
                             for g in range(5) for s in range(3)])
    table = seat_win_rates(players)
    assert list(table["seat"]) == [0, 1, 2]
    assert list(table["games"]) == [5, 5, 5]
    assert list(table["win_rate"]) == [1.0, 0.0, 0.0]
    assert (table.loc[0, "ci_low"], table.loc[0, "ci_high"]) == pytest.approx(wilson_interval(5, 5))
    assert table.loc[0, "ci_high"] == pytest.approx(1.0)
    assert list(table["mean_tokens"]) == [10.0, 4.0, 4.0]


# ---- ties ----------------------------------------------------------------------------------------------
def tied_players() -> pd.DataFrame:
    # win_share is deliberately wrong (all 0): re-scoring must use only scores and positions
    return players_frame([
        (0, 0, 10, 3, 0), (0, 1, 10, 7, 0), (0, 2, 5, 9, 0),  # tie 0-1: seat 1 stands closer (7 > 3)
        (1, 0, 8, 0, 0), (1, 1, 8, 0, 0), (1, 2, 8, 0, 0),    # three-way tie, all on the gate: shared
        (2, 0, 4, 5, 0), (2, 1, 9, 0, 0), (2, 2, 9, 2, 0),    # tie 1-2: seat 2 (2 > gate)
        (3, 0, 6, 0, 0), (3, 1, 6, 0, 0), (3, 2, 6, 4, 0),    # three-way tie, two on the gate: seat 2
        (4, 0, 12, 1, 0), (4, 1, 3, 8, 0), (4, 2, 2, 9, 0),   # no tie: seat 0
    ])


def test_rescore_ties_closest_to_emperor_and_shared():
    table = rescore_ties(tied_players()).set_index(["rule", "seat"])
    third = 1 / 3
    closest = [(third + 1) / 5, (1 + third) / 5, (third + 1 + 1) / 5]
    shared = [(0.5 + third + third + 1) / 5, (0.5 + third + 0.5 + third) / 5, (third + 0.5 + third) / 5]
    for seat in range(3):
        assert table.loc[("closest_to_emperor", seat), "win_rate"] == pytest.approx(closest[seat])
        assert table.loc[("shared", seat), "win_rate"] == pytest.approx(shared[seat])
        assert table.loc[("shared", seat), "games"] == 5
    for rule in ("closest_to_emperor", "shared"):  # every game hands out exactly one win
        assert table.loc[rule, "win_rate"].sum() == pytest.approx(1.0)
    low, high = wilson_interval(closest[2] * 5, 5)
    assert table.loc[("closest_to_emperor", 2), "ci_low"] == pytest.approx(low)
    assert table.loc[("closest_to_emperor", 2), "ci_high"] == pytest.approx(high)


def test_rescore_ties_row_order_does_not_matter_and_unknown_rule_is_refused():
    players = tied_players()
    shuffled = players.sample(frac=1, random_state=3).reset_index(drop=True)
    pd.testing.assert_frame_equal(rescore_ties(players), rescore_ties(shuffled))
    with pytest.raises(ValueError, match="last_in_order"):
        rescore_ties(players, rules=("last_in_order",))


def test_tie_stats_counts_and_intervals():
    games = games_frame([{"game_id": g, "players": 3, "tie": g < 2, "decided_by_tiebreak": g < 1,
                          "winner": None if g == 1 else 0} for g in range(4)])
    ties = tie_stats(games)
    assert ties["n"] == 4
    assert ties["top_tied"] == 2 and ties["top_tied_rate"] == 0.5
    assert ties["decided_by_tiebreak"] == 1 and ties["decided_by_tiebreak_rate"] == 0.25
    assert (ties["top_tied_ci_low"], ties["top_tied_ci_high"]) == pytest.approx(wilson_interval(2, 4))
    assert ties["shared_win"] == 1
    assert ties["decided_share_of_ties"] == 0.5


# ---- card and action values ----------------------------------------------------------------------------
def card_game() -> tuple[pd.DataFrame, pd.DataFrame]:
    """Two-player games with a court painter (seat 2). Card 7 is played only by winners (once twice in the
    same player-game); card 9 only by losers; card 4 by the court painter only."""
    players = players_frame([(0, 0, 9, 20, 1.0), (0, 1, 6, 18, 0.0),
                             (1, 0, 5, 15, 0.0), (1, 1, 8, 19, 1.0),
                             (2, 0, 7, 10, 0.5), (2, 1, 7, 0, 0.5)])
    events = events_frame([
        card(0, 1, 0, 7, "E+1", "P+2", 5), card(0, 1, 1, 9, "E-1", "P+1", 5),
        card(0, 1, 2, 4, "E+2", "count", 5),
        card(0, 2, 0, 7, "E+1", "P+2", 5), card(0, 2, 1, 12, "E+1", "P+1", 5),
        card(0, 2, 2, 9, "E-1", "P+1", 5),  # the court painter's card 9 does not count
        card(1, 1, 0, 9, "E-1", "P+1", 5), card(1, 1, 1, 7, "E+1", "P+2", 5),
        card(1, 1, 2, 4, "E+2", "count", 5),
        card(2, 1, 0, 12, "E+1", "P+1", 5, resolved=False), card(2, 1, 1, 3, "closest-2", "P+1", 5),
        sakura(2, 1, 0, 0, 3), sakura(2, 1, 1, 0, 2), sakura(2, 1, 2, 0, 0),
    ])
    return events, players


def test_card_played_only_by_winners_has_rate_one():
    events, players = card_game()
    table = card_values(events, players).set_index("card")
    assert sorted(table.index) == [3, 7, 9, 12]  # card 4 went to the court painter only
    overall = players["win_share"].mean()
    assert overall == pytest.approx(0.5)
    seven = table.loc[7]
    assert (seven["played"], seven["player_games"]) == (3, 2)  # twice in game 0, once in game 1
    assert seven["win_rate"] == 1.0 and seven["win_added"] == pytest.approx(0.5)
    assert (seven["ci_low"], seven["ci_high"]) == pytest.approx(wilson_interval(2, 2))
    assert seven["added_ci_low"] == pytest.approx(seven["ci_low"] - 0.5)
    assert (seven["garden"], seven["painter"]) == ("E+1", "P+2")
    nine = table.loc[9]
    assert (nine["played"], nine["player_games"], nine["win_rate"]) == (2, 2, 0.0)
    twelve = table.loc[12]  # a win, and a shared win (1/2), one play of them discarded unresolved
    assert twelve["win_rate"] == pytest.approx(0.25) and twelve["resolved_share"] == pytest.approx(0.5)


def test_action_values_group_by_garden_and_painter_action():
    events, players = card_game()
    table = action_values(events, players)
    assert list(table["half"]) == ["garden"] * 3 + ["painter"] * 2
    assert list(table["action"]) == ["E+1", "E-1", "closest-2", "P+1", "P+2"]  # R-11's order, unused out
    rows = table.set_index(["half", "action"])
    # E+1: card 7 (g0 s0 twice, g1 s1) and card 12 (g0 s1, g2 s0) -> player-games g0s0 g0s1 g1s1 g2s0
    assert rows.loc[("garden", "E+1"), "played"] == 5
    assert rows.loc[("garden", "E+1"), "player_games"] == 4
    assert rows.loc[("garden", "E+1"), "win_rate"] == pytest.approx((1 + 0 + 1 + 0.5) / 4)
    # P+1: cards 9, 12 and 3 -> g0s1 (9, 12), g1s0, g2s0, g2s1
    assert rows.loc[("painter", "P+1"), "played"] == 5
    assert rows.loc[("painter", "P+1"), "player_games"] == 4
    assert rows.loc[("painter", "P+1"), "win_rate"] == pytest.approx((0 + 0 + 0.5 + 0.5) / 4)
    assert rows.loc[("painter", "P+2"), "win_rate"] == 1.0
    assert rows.loc[("garden", "E-1"), "win_added"] == pytest.approx(-0.5)


# ---- bumps ---------------------------------------------------------------------------------------------
def bump_game() -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """One 3-player game of two rounds. Round 1: seat 0 bumps itself (5 -> 4). Round 2: card 3 (seat 1)
    bumps seat 2 with E-1 (5 -> 4); card 7 (seat 2) stops the Emperor on the first sakura, which scores
    seat 0: 1, seat 1: 3, seat 2: 2; card 30 (seat 0) is discarded unresolved. Final tokens 5, 8, 6."""
    events = events_frame([
        card(0, 1, 0, 5, "E+1", "P+3", 4, bumped=1), card(0, 1, 1, 10, "E+1", "P+1", 5),
        card(0, 1, 2, 20, "E+2", "P+1", 5),
        card(0, 2, 1, 3, "E-1", "P+1", 5, bumped=1),       # resolved before the stop: without the sakura
        card(0, 2, 2, 7, "E+1", "P+2", 6),                 # the stopping card: 5 - 1 + 2
        card(0, 2, 0, 30, "E+1", "P+1", 5, resolved=False),  # after the stop: 4 + 1
        sakura(0, 2, 0, 0, 1), sakura(0, 2, 1, 0, 3), sakura(0, 2, 2, 0, 2),
    ])
    games = games_frame([{"game_id": 0, "players": 3, "rounds": 2, "bumps": 2}])
    players = players_frame([(0, 0, 5, 9, 0.0), (0, 1, 8, 12, 1.0), (0, 2, 6, 10, 0.0)])
    return games, events, players


def test_bump_stats_tokens_lost_from_card_rows_and_from_final_scores():
    games, events, players = bump_game()
    from_cards = bump_stats(games, events)
    exact = bump_stats(games, events, players)
    assert from_cards["tokens_lost_method"] == "card rows" and exact["tokens_lost_method"] == "final scores"
    for stats in (from_cards, exact):
        assert stats["n"] == 1 and stats["bumps_mean"] == 2.0
        assert stats["games_with_bump"] == 1 and stats["games_with_bump_rate"] == 1.0
        assert stats["tokens_lost_total"] == 2 and stats["tokens_lost_per_bump"] == 1.0
        assert list(stats["by_painter"]["tokens_lost_mean"]) == [1.0, 0.0, 1.0]
        assert not stats["by_painter"]["court"].any()
    by_action = from_cards["by_action"].set_index(["half", "action"])
    assert by_action.loc[("garden", "E-1"), "bumps"] == 1
    assert by_action.loc[("painter", "P+3"), "bumps_per_card"] == 1.0
    assert by_action.loc[("garden", "E+1"), "cards"] == 3  # card 30 was not resolved


def test_bump_stats_distribution_over_games():
    games, events, players = bump_game()
    # game 1: one round, no bump; card 8 stops the Emperor (seat 0's card 2 resolved before the stop,
    # seat 2's card 11 after it); the sakura gives 2, 3, 1
    events = pd.concat([events, events_frame([
        card(1, 1, 0, 2, "E+2", "P+1", 5), card(1, 1, 1, 8, "E+1", "P+1", 8),
        card(1, 1, 2, 11, "E+1", "P+2", 6, resolved=False),
        sakura(1, 1, 0, 0, 2), sakura(1, 1, 1, 0, 3), sakura(1, 1, 2, 0, 1)])], ignore_index=True)
    games = pd.concat([games, games_frame([{"game_id": 1, "players": 3, "rounds": 1, "bumps": 0}])],
                      ignore_index=True)
    players = pd.concat([players, players_frame([(1, 0, 7, 9, 0.0), (1, 1, 8, 12, 1.0), (1, 2, 6, 3, 0.0)])],
                        ignore_index=True)
    for stats in (bump_stats(games, events), bump_stats(games, events, players)):
        assert stats["distribution"].to_dict("list") == {"bumps": [0, 2], "games": [1, 1],
                                                         "share": [0.5, 0.5]}
        assert stats["games_with_bump_rate"] == 0.5 and stats["bumps_median"] == 1.0
        assert stats["tokens_lost_total"] == 2 and stats["tokens_lost_mean"] == 1.0
        assert list(stats["by_painter"]["tokens_lost_mean"]) == [0.5, 0.0, 0.5]


def test_bump_stats_card_rows_miss_a_bump_after_the_painters_own_last_card():
    games, events, players = bump_game()
    # card 7 (seat 2, after seat 1's card 3 in the last round) also bumps seat 1: 5 + 3 - 1 = 7 at the end
    events.loc[4, "bumped"] = 1
    games.loc[0, "bumps"] = 3
    players.loc[1, "score"] = 7
    assert bump_stats(games, events, players)["tokens_lost_total"] == 3
    assert bump_stats(games, events)["tokens_lost_total"] == 2  # a lower bound, as documented


# ---- sakura scoring ------------------------------------------------------------------------------------
def test_sakura_tokens_by_rank():
    rows = [sakura(0, 4, 0, 0, 2), sakura(0, 4, 1, 0, 0), sakura(0, 4, 2, 0, 1), sakura(0, 4, 3, 0, 3),
            sakura(1, 5, 0, 0, 3), sakura(1, 5, 1, 0, 0), sakura(1, 5, 2, 0, 2), sakura(1, 5, 3, 0, 0),
            sakura(0, 9, 0, 2, 4), sakura(0, 9, 1, 2, 1), sakura(0, 9, 2, 2, 2), sakura(0, 9, 3, 2, 0)]
    events = events_frame([card(0, 1, 0, 5, "E+1", "P+1", 5), *rows])
    table = sakura_tokens(events, 4)
    assert list(zip(table["sakura"], table["rank"], strict=True)) == [(0, r) for r in range(1, 5)] + [
        (2, r) for r in range(1, 5)]
    first = table[table["sakura"] == 0].set_index("rank")
    assert list(first["mean_tokens"]) == [3.0, 2.0, 0.5, 0.0]
    assert list(first["zero_share"]) == [0.0, 0.0, 0.5, 1.0]
    assert list(first["scorings"]) == [2, 2, 2, 2]
    assert first["sakura_zero_share"].iloc[0] == pytest.approx(3 / 8)
    last = table[table["sakura"] == 2].set_index("rank")
    assert list(last["mean_tokens"]) == [4.0, 2.0, 1.0, 0.0]
    # rows in any order give the same table
    shuffled = events_frame([card(0, 1, 0, 5, "E+1", "P+1", 5), *rows[::-1]])
    pd.testing.assert_frame_equal(sakura_tokens(shuffled, 4), table)


def test_sakura_tokens_two_players_rank_the_court_painter():
    events = events_frame([sakura(0, 3, 0, 0, 1), sakura(0, 3, 1, 0, 3), sakura(0, 3, 2, 0, 2)])
    table = sakura_tokens(events, 2)
    assert list(table["rank"]) == [1, 2, 3] and list(table["mean_tokens"]) == [3.0, 2.0, 1.0]


# ---- game length ---------------------------------------------------------------------------------------
def test_round_stats():
    games = games_frame([{"game_id": g, "players": 4, "rounds": r} for g, r in enumerate([10, 12, 12, 14])])
    stats = round_stats(games)
    assert (stats["n"], stats["mean"], stats["median"], stats["min"], stats["max"]) == (4, 12.0, 12.0, 10, 14)
    assert (stats["q1"], stats["q3"]) == (11.5, 12.5)
    assert stats["histogram"].to_dict("list") == {"rounds": [10, 12, 14], "games": [1, 2, 1],
                                                  "share": [0.25, 0.5, 0.25]}
    assert stats["end_reasons"] == {"last_sakura": 4}


# ---- several runs --------------------------------------------------------------------------------------
def seat_tables() -> dict[str, pd.DataFrame]:
    four = pd.DataFrame({"seat": [0, 1, 2, 3], "win_rate": [0.3, 0.25, 0.25, 0.2], "ci_low": [0.2] * 4})
    two = pd.DataFrame({"seat": [1, 0], "win_rate": [0.4, 0.6], "ci_low": [0.3, 0.5]})
    return {"sakura 4p random": four, "sakura 2p random": two}


def test_side_by_side_two_runs():
    wide = side_by_side(seat_tables(), "seat", ["win_rate", "ci_low"])
    assert wide.shape == (4, 5)
    assert list(wide.columns) == ["seat", "win_rate [sakura 4p random]", "ci_low [sakura 4p random]",
                                  "win_rate [sakura 2p random]", "ci_low [sakura 2p random]"]
    assert list(wide["seat"]) == [0, 1, 2, 3]
    assert list(wide["win_rate [sakura 2p random]"][:2]) == [0.6, 0.4]  # matched by key, not position
    assert wide["win_rate [sakura 2p random]"][2:].isna().all()
    by_value = side_by_side(seat_tables(), "seat", ["win_rate", "ci_low"], by="value")
    assert list(by_value.columns)[1:3] == ["win_rate [sakura 4p random]", "win_rate [sakura 2p random]"]
    multi = side_by_side(seat_tables(), ["seat"], ["win_rate"], flat=False)
    assert multi.shape == (4, 3)
    assert list(multi.columns) == [("seat", ""), ("sakura 4p random", "win_rate"),
                                   ("sakura 2p random", "win_rate")]


def test_side_by_side_refuses_ambiguous_keys():
    tables = seat_tables()
    tables["dup"] = pd.DataFrame({"seat": [0, 0], "win_rate": [0.5, 0.5], "ci_low": [0.1, 0.1]})
    with pytest.raises(ValueError, match="not unique"):
        side_by_side(tables, "seat", ["win_rate"])


def test_run_labels():
    sakura, kamakura_spec = games.spec("sakura"), games.spec("kamakura")
    base = RunManifest(game="sakura", players=4, agents=["random"] * 4, rotate_seats=False,
                       config_path="configs/sakura/base.toml", config={"rules": {}}, seed=1)
    assert run_label(base, "/runs/a", sakura) == "sakura 4p random"
    kamakura = RunManifest(game="kamakura", players=3, agents=["greedy", "random", "random"],
                           rotate_seats=True, config_path="configs/kamakura/base.toml", config={}, seed=1)
    assert run_label(kamakura, "/runs/k", kamakura_spec) == "kamakura 3p greedy,random,random rotated"
    tactical = replace(base, players=2, agents=["greedy", "random"],
                       config={"rules": {"two_player_variant": "tactical"}})
    assert run_label(tactical, "/runs/t", sakura) == "sakura 2p greedy,random tactical"
    assert run_label(tactical, "/runs/t") == "sakura 2p greedy,random"  # no spec: no words of its rules
    assert run_label(None, "/runs/odd") == "odd"
    labels = run_labels([(base, "/runs/a", sakura), (base, "/runs/b", sakura), (tactical, "/runs/t", sakura)])
    assert labels == ["a", "b", "sakura 2p greedy,random tactical"]
    assert len(set(run_labels([(base, "/x/a", sakura), (base, "/y/a", sakura)]))) == 2


# ---- a real run ----------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def real_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("sakura") / "r"
    done = subprocess.run([sys.executable, "-m", "sim", "simulate", str(BASE), "--players", "4", "--games",
                           "300", "--agents", "random", "--out", str(out), "--quiet"], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return read_run(out)


def test_smoke_on_a_real_run(real_run):
    games, players, events = real_run.games, real_run.players, real_run.events
    seats = seat_win_rates(players)
    assert list(seats["seat"]) == [0, 1, 2, 3] and (seats["games"] == 300).all()
    assert seats["win_rate"].sum() == pytest.approx(1.0)
    assert ((seats["ci_low"] <= seats["win_rate"]) & (seats["win_rate"] <= seats["ci_high"])).all()

    cards = card_values(events, players)
    assert set(cards["card"]) <= set(range(1, 61)) and len(cards) > 50
    assert cards["played"].sum() == (events["kind"] == "card").sum()
    assert cards["win_rate"].between(0, 1).all() and cards["resolved_share"].between(0, 1).all()
    assert (cards["player_games"] <= cards["played"]).all()
    actions = action_values(events, players)
    assert set(actions["half"]) == {"garden", "painter"} and len(actions) == 14
    for half in ("garden", "painter"):
        assert actions.loc[actions["half"] == half, "played"].sum() == cards["played"].sum()

    estimate, exact = bump_stats(games, events), bump_stats(games, events, players)
    assert 0 <= estimate["tokens_lost_total"] <= exact["tokens_lost_total"] <= games["bumps"].sum()
    assert estimate["tokens_lost_total"] >= 0.98 * exact["tokens_lost_total"]
    assert exact["distribution"]["games"].sum() == 300
    by_half = exact["by_action"].groupby("half")["bumps"].sum()  # every bump happens as some card resolves
    assert list(by_half) == [games["bumps"].sum()] * 2

    tokens = sakura_tokens(events, 4)
    assert list(tokens["sakura"].unique()) == [0, 1, 2] and (tokens["scorings"] == 300).all()
    top = tokens[tokens["rank"] == 1].set_index("sakura")["mean_tokens"]
    assert top[2] == pytest.approx(4.0, abs=0.05) and top[0] == pytest.approx(3.0, abs=0.05)

    rescored = rescore_ties(players).set_index(["rule", "seat"])
    configured = players.groupby("seat")["win_share"].mean().to_numpy()
    assert np.allclose(rescored.loc["closest_to_emperor", "win_rate"].to_numpy(), configured)
    ties = tie_stats(games)
    assert ties["n"] == 300 and 0 <= ties["top_tied_rate"] <= 1
    rounds = round_stats(games)
    assert rounds["histogram"]["games"].sum() == 300 and rounds["q1"] <= rounds["median"] <= rounds["q3"]
    expect = oracles.round_stats(games)  # numpy's figures of the rounds held whole
    plain = [k for k in expect if k not in ("histogram", "end_reasons")]
    assert [rounds[k] for k in plain] == pytest.approx([expect[k] for k in plain])
    assert rounds["end_reasons"] == expect["end_reasons"]
    pd.testing.assert_frame_equal(rounds["histogram"], expect["histogram"], check_dtype=False)
    pd.testing.assert_frame_equal(common_seats.seat_win_rates(players), oracles.seat_win_rates(players),
                                  check_dtype=False, check_exact=False, rtol=1e-12)

    label = run_label(real_run.manifest, real_run.path, real_run.spec)
    assert label == "sakura 4p random"
    wide = side_by_side({label: seats, "copy": seats}, "seat", ["win_rate"])
    assert wide.shape == (4, 3)


# ---- R-23: the court painter re-scored from the logs ----------------------------------------------------
def court_games(rows: list[tuple]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Two-player tables from rows (game_id, seat 0 (tokens, position), seat 1 (tokens, position), court
    (tokens, position)); win_share deliberately 0: re-scoring must use tokens and positions only."""
    players = players_frame([(g, s, *p[s], 0.0) for g, *p in rows for s in (0, 1)])
    games = games_frame([{"game_id": g, "players": 2, "court_tokens": c[0]} for g, _a, _b, c in rows])
    games["court_position"] = pd.array([c[1] for *_, c in rows], dtype="Int8")
    return players, games


COURT_ROWS = [
    (0, (10, 5), (8, 7), (12, 9)),   # the court painter has the most tokens: under R-23 no player wins
    (1, (10, 5), (10, 7), (10, 9)),  # three-way tie: the court painter stands closest (9)
    (2, (10, 5), (10, 9), (10, 7)),  # three-way tie: seat 1 closest
    (3, (10, 0), (6, 7), (10, 0)),   # seat 0 and the court tie, both on the gate: they share
    (4, (11, 5), (6, 7), (10, 9)),   # seat 0 ahead of everyone
]


def test_rescore_r23_both_readings_and_both_tie_breaks():
    """R-23 re-scored from the logged tokens and positions of every painter: under +court_can_win the court
    painter competes (R-14 among all three, or shared), its own win rate is the row of seat 2, and each
    game hands out exactly one win; without it the court never wins and has no row."""
    players, games = court_games(COURT_ROWS)
    table = rescore_ties(players, games=games).set_index(["rule", "seat"])
    assert list(dict.fromkeys(table.index.get_level_values("rule"))) == list(sk.COURT_RULES)
    expect = {  # per game (seat 0, seat 1, court)
        "closest_to_emperor": [(1, 0, 0), (0, 1, 0), (0, 1, 0), (1, 0, 0), (1, 0, 0)],
        "shared": [(1, 0, 0), (.5, .5, 0), (.5, .5, 0), (1, 0, 0), (1, 0, 0)],
        "closest_to_emperor+court_can_win": [(0, 0, 1), (0, 0, 1), (0, 1, 0), (.5, 0, .5), (1, 0, 0)],
        "shared+court_can_win": [(0, 0, 1), (1 / 3, 1 / 3, 1 / 3), (1 / 3, 1 / 3, 1 / 3), (.5, 0, .5),
                                 (1, 0, 0)],
    }
    for rule, per_game in expect.items():
        for painter in (0, 1, 2):
            if painter == 2 and not rule.endswith(sk.ties.COURT_CAN_WIN):
                assert (rule, 2) not in table.index  # the court painter never wins: no row
                continue
            want = sum(g[painter] for g in per_game) / 5
            assert table.loc[(rule, painter), "win_rate"] == pytest.approx(want), (rule, painter)
        assert table.loc[rule, "win_rate"].sum() == pytest.approx(1.0)  # one win a game, whoever has it
    # paired changes against the default reading, the court painter's too (0 -> its R-23 share)
    change = table.loc[("shared+court_can_win", 2), "win_rate_change"]
    assert change == pytest.approx((1 + 1 / 3 + 1 / 3 + .5) / 5)
    assert table.loc[("closest_to_emperor", 0), "win_rate_change"] == 0.0


def test_rescore_r23_win_shares_of_a_bonus_and_old_logs():
    """`win_shares` (the values study's re-scoring) takes the court painter's columns per game or per
    seat; logs without court_position (written before R-23 was logged) re-score R-14 only."""
    players, games = court_games(COURT_ROWS)
    score = np.array([[r[1][0], r[2][0]] for r in COURT_ROWS], dtype=float)
    at = np.array([[r[1][1], r[2][1]] for r in COURT_ROWS], dtype=float)
    court = {"court_tokens": np.array([r[3][0] for r in COURT_ROWS], float),
             "court_at": np.array([r[3][1] for r in COURT_ROWS], float)}
    per_seat = {k: np.repeat(v[:, None], 2, axis=1) for k, v in court.items()}
    for cols in (court, per_seat):
        got = sk.ties.win_shares(score, {"painter_at": at, **cols}, "shared+court_can_win")
        assert got[1] == pytest.approx([1 / 3, 1 / 3]) and got[0] == pytest.approx([0, 0])
    with pytest.raises(ValueError, match="court_tokens"):
        sk.ties.win_shares(score, {"painter_at": at}, "shared+court_can_win")
    old = games.drop(columns=["court_position"])
    table = rescore_ties(players, games=old)
    assert list(dict.fromkeys(table["rule"])) == list(sk.TIE_RULES) and set(table["seat"]) == {0, 1}
    pd.testing.assert_frame_equal(table, rescore_ties(players))


@pytest.fixture(scope="module")
def court_runs(tmp_path_factory):
    """Two-player runs through `balance simulate`: the default reading and court_can_win (both with the
    shared tie-break, so three-way ties occur)."""
    folder = tmp_path_factory.mktemp("r23")
    runs = {}
    for name, extra in (("default", ""), ("court", "court_can_win = true\n")):
        config = folder / f"{name}.toml"
        config.write_text(f'extends = "{BASE}"\n[rules]\ntie_break = "shared"\n{extra}', encoding="utf-8")
        out = folder / name
        done = subprocess.run([sys.executable, "-m", "sim", "simulate", str(config), "--players", "2",
                               "--games", "400", "--agents", "random", "--out", str(out), "--quiet"],
                              cwd=ROOT, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        runs[name] = read_run(out)
    return runs


@pytest.mark.parametrize("name", ["default", "court"])
def test_rescoring_a_logged_run_under_its_own_rule_reproduces_its_win_shares(court_runs, name):
    """R-23: re-scored from the logged tokens and positions under the rule the run was played under
    (`run_rule`), every seat's win share equals the logged one, game by game; the court painter's own
    re-scored share is what the seats leave (`court_win_rate`). The other reading differs."""
    run = court_runs[name]
    own = sk.run_rule(run.rules)
    assert own == ("shared+court_can_win" if name == "court" else "shared")
    from analysis._arrays import seat_matrix

    seats, m = seat_matrix(run.players, ["score", "position", "win_share"])
    columns = {"painter_at": m["position"], **sk.ties.court_columns(run.players, run.games)}
    shares, court = sk.ties.shares_with_court(m["score"], columns, own)
    assert np.allclose(shares, m["win_share"], atol=1e-6)
    assert np.allclose(court, 1 - m["win_share"].sum(axis=1), atol=1e-6)
    table = rescore_ties(run.players, reference=own, games=run.games).set_index(["rule", "seat"])
    logged = run.players.groupby("seat")["win_share"].mean().to_numpy()
    assert np.allclose(table.loc[own, "win_rate"].to_numpy()[:2], logged, atol=1e-6)
    assert (table.loc[own, "win_rate_change"] == 0).all()
    other = "shared" if name == "court" else "shared+court_can_win"
    assert not np.allclose(table.loc[other, "win_rate"].to_numpy()[:2], logged)
    court_row = court_win_rate(run.players, run.games).iloc[0]
    if name == "court":
        assert court_row["win_rate"] == pytest.approx(table.loc[(own, 2), "win_rate"])
        assert 0.2 < court_row["win_rate"] < 0.6  # docs/rules.md: roughly four games in ten under random play
    else:
        assert court_row["win_rate"] == 0.0


def test_report_of_two_player_runs_shows_both_readings_of_r23(court_runs, tmp_path):
    """A two-player report re-scores both readings of R-23; under court_can_win it shows the court
    painter's own win rate beside the seats' (seat 2) and in summary.json; a run whose logs lack
    court_position still reports, without the R-23 re-scoring."""
    import json
    import shutil

    import pyarrow.parquet as pq

    from analysis.run_report import build_report

    old = tmp_path / "old"
    shutil.copytree(court_runs["default"].path, old)
    for part in (old / "games.parquet").glob("part-*.parquet"):
        pq.write_table(pq.read_table(part).drop_columns(["court_position"]), part)
    page = build_report([court_runs["default"].path, court_runs["court"].path, old], tmp_path / "report")
    summary = json.loads((page.parent / "summary.json").read_text())
    text = page.read_text()
    assert "+court_can_win" in text and "court_can_win (R-23)" in text and "no court_position" in text
    records = {r["run"]: r for r in summary["runs"]} if "runs" in summary else None
    assert records is not None, list(summary)
    court = records[str(court_runs["court"].path)]
    assert set(court["tiebreak_rescoring"]) == set(sk.COURT_RULES)
    assert len(court["tiebreak_rescoring"]["shared+court_can_win"]) == 3  # two seats and the court painter
    assert 0 < court["court_win_rate"]["win_rate"] < 1
    assert [s["seat"] for s in court["seats"]] == [0, 1, 2]
    assert "court_win_rate" not in records[str(court_runs["default"].path)]
    assert set(records[str(old)]["tiebreak_rescoring"]) == set(sk.TIE_RULES)


def test_a_game_the_court_painter_won_alone_is_not_a_shared_win():
    """R-23: a game the court painter won alone has no `winner` either, but only a tie the tie-break did
    not decide is a shared win."""
    games = games_frame([{"game_id": 0, "players": 2, "tie": False, "winner": None},  # the court alone
                         {"game_id": 1, "players": 2, "tie": True, "decided_by_tiebreak": True,
                          "winner": None},  # the court won the tie-break
                         {"game_id": 2, "players": 2, "tie": True, "winner": None},  # shared (with it)
                         {"game_id": 3, "players": 2, "tie": False, "winner": 1}])
    ties = tie_stats(games)
    assert ties["shared_win"] == 1 and ties["shared_win_rate"] == 0.25
    assert (ties["shared_win_ci_low"], ties["shared_win_ci_high"]) == pytest.approx(wilson_interval(1, 4))


# ---- the report by parts (docs/howto/scale.md) -----------------------------------------------------
@pytest.mark.parametrize("players, rules", [(4, ""), (2, 'tie_break = "shared"\ncourt_can_win = true\n')])
def test_report_by_parts_equals_the_report_of_the_whole_run(tmp_path, players, rules):
    """The report of a run read by parts (each of its 4 chunks tallied, the tallies merged: what `balance
    report` does) has exactly the tables, notes and summary of the report of the same games held whole as
    one part: chunking changes nothing. Two players under court_can_win and the shared tie-break cover
    the court painter's row, the R-23 re-scoring and shared wins."""
    import matplotlib.pyplot as plt

    from analysis.run_tally import read_run_tally
    from analysis.sakura.report import sakura_sections
    from tests.oracles import tally_of_run

    config = tmp_path / "config.toml"
    config.write_text(f'extends = "{BASE}"\n[rules]\n{rules}', encoding="utf-8")
    out = tmp_path / "run"
    agents = ["--agents", "greedy,random" if players == 2 else "random"]
    done = subprocess.run([sys.executable, "-m", "sim", "simulate", str(config), "--players", str(players),
                           "--games", "1200", "--chunk-size", "300", *agents, "--seed", "3",
                           "--out", str(out), "--quiet"], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    by_parts = read_run_tally(out, cache=False)
    assert by_parts.parts_read == 4 and by_parts.n_games == 1200
    whole = tally_of_run(read_run(out))
    parts_sections, parts_summary = sakura_sections({"run": by_parts})
    whole_sections, whole_summary = sakura_sections({"run": whole})
    plt.close("all")
    assert [s.title for s in parts_sections] == [s.title for s in whole_sections]
    for a, b in zip(parts_sections, whole_sections, strict=True):
        assert a.notes == b.notes
        assert [name for name, _, _ in a.tables] == [name for name, _, _ in b.tables]
        for (name, _, x), (_, _, y) in zip(a.tables, b.tables, strict=True):
            pd.testing.assert_frame_equal(x, y, check_exact=True, obj=name)
    assert parts_summary == whole_summary
    names = {name for s in parts_sections for name, _, _ in s.tables}
    assert {"sakura_seats", "sakura_tiebreak_rescoring", "sakura_card_values", "sakura_action_values",
            "sakura_tree_tokens"} <= names
    if players == 2:
        seats = next(frame for s in parts_sections for name, _, frame in s.tables if name == "sakura_seats")
        assert list(seats["seat"]) == [0, 1, 2]  # the court painter's own row, R-23
        assert "court_win_rate" in parts_summary[0]
