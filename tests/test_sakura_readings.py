"""Scenario tests of the three alternative readings of the Sakura rules (docs/rules.md, Sakura), each
knob under both of its values, from state dicts through the public readable API (tests/sakura_helpers.py):

- R-21 `bump_from`: when a painter's own move bumps, its three empty spaces back are counted from the
  Emperor's space ("emperor", R-15) or from where its move stopped ("painter": the last empty space it
  counted, or its starting space if none; that space does not count). The Emperor moving back onto a
  painter bumps it the same way under both.
- R-22 `lineup_from_gate`: after a scoring, a painter alone on the gate (ranked, R-13) stays there (false,
  R-18) or lines up behind the previous one (true); painters sharing the gate stay under both.
- R-23 `court_can_win` (two players): the court painter never wins (false) or competes like a third
  player (true): with the most tokens (ties by R-14 among all three painters) it wins and neither player
  does; under `shared` it shares with the tied players.

Cards used (configs/sakura/base.toml; order: garden, painter): 10 E+1 P+1, 13 E-1 leapfrog, 19 E+1 P+1,
27 E+1 leapfrog, 31 E+-1 P+-2, 42 furthest+2 P+1, 45 E+1 P+-3, 48 / 49 / 57 E+-1 stoppers, 60 E+1 P+1.
"""

from __future__ import annotations

import copy

import pytest

from sim import ConfigError, games
from tests.sakura_helpers import CONFIG, game, garden, load, make_state, painter, run
from tests.test_sakura_rules import choose_painter_state, stopped_at_first_stopper, stoppers

BOTH = ("emperor", "painter")


def test_cards_used_here_are_what_the_docstring_says():
    table = {10: ("E+1", "P+1"), 13: ("E-1", "leapfrog"), 19: ("E+1", "P+1"), 27: ("E+1", "leapfrog"),
             31: ("E+-1", "P+-2"), 42: ("furthest+2", "P+1"), 45: ("E+1", "P+-3"), 48: ("E+-1", "P+3"),
             49: ("E+-1", "P+-1"), 57: ("E+-1", "P+2"), 60: ("E+1", "P+1")}
    for card, (g, p) in table.items():
        assert (garden(card), painter(card)) == (g, p), card


# --------------------------------------------------------------------------------------------------------
# bump_from


@pytest.mark.parametrize(("bump_from", "landing"), [("emperor", 10), ("painter", 9)])
def test_r21_forward_bump_counts_back_from_the_emperor_or_from_the_stop(bump_from, landing):
    """R-21, a forward move that counted spaces: seat 0 on 10 plays P+-3 forward with the Emperor on 16
    and painters on 12, 14, 15: 11 (1), 12 taken, 13 (2), 14 and 15 taken, 16 the Emperor: bump, one
    token lost. "emperor" (R-15): back from 16: 15 14 taken, 13 1, 12 taken, 11 2, 10 (own) 3 -> 10.
    "painter": from its stop, 13 (not counted): 12 taken, 11 1, 10 (own, empty) 2, 9 3 -> 9."""
    d = choose_painter_state(45, 0, [10, 12, 14, 15], rules={"bump_from": bump_from})
    out = run(d, "forward")
    assert out["painters"] == [landing, 12, 14, 15]
    assert out["tokens"] == [4, 5, 5, 5] and out["emperor"] == 16
    assert out["rules"]["bump_from"] == bump_from


@pytest.mark.parametrize(("bump_from", "landing"), [("emperor", 10), ("painter", 9)])
def test_r21_forward_bump_that_counted_no_space_counts_from_the_start(bump_from, landing):
    """R-21, a forward move that counted none: seat 0 on 14 over 15 (taken) reaches the Emperor on 16.
    "emperor": 15 taken, 14 (own) 1, 13 2, 12 11 taken, 10 3 -> 10 (as test_r15_bump_by_a_painter).
    "painter": from its starting space 14 (not counted): 13 1, 12 11 taken, 10 2, 9 3 -> 9."""
    d = choose_painter_state(45, 0, [14, 15, 12, 11], rules={"bump_from": bump_from})
    out = run(d, "forward")
    assert out["painters"] == [landing, 15, 12, 11]
    assert out["tokens"] == [4, 5, 5, 5]


@pytest.mark.parametrize(("bump_from", "landing"), [("emperor", 12), ("painter", 10)])
def test_r21_leapfrog_bump_counts_from_the_emperor_or_from_its_start(bump_from, landing):
    """R-21, leapfrog: card 13 (E-1, leapfrog) by seat 3: the Emperor 17 -> 16; seat 3 on 13 leaps the
    painter on 15 onto 16, the Emperor's: bump. "emperor": back from 16: 15 taken, 14 1, 13 (own) 2, 12 3
    -> 12 (as test_r17_leapfrog_into_the_emperor_bumps). "painter": a leapfrog counts no space, so from
    its start 13 (not counted): 12, 11, 10 -> 10."""
    d = make_state(4, emperor=17, painters=[5, 15, 0, 13], selected=stoppers(4), hands={3: [13]},
                   rules={"bump_from": bump_from})
    out = run(d, "play 13")
    assert out["emperor"] == 16
    assert out["painters"] == [5, 15, 0, landing]
    assert out["tokens"] == [5, 5, 5, 4]
    stopped_at_first_stopper(out)


@pytest.mark.parametrize(("bump_from", "after"), [("emperor", [15, 11, 12]), ("painter", [15, 10, 11])])
def test_r21_furthest_plus_2_and_the_cards_painter_move_are_own_moves(bump_from, after):
    """R-21 names furthest+2 among a painter's own moves. Card 42 (furthest+2, P+1) by seat 2, the Emperor
    on 16. The furthest painter, seat 1 on 12, moves 2: 13 (1), 14 and 15 taken, 16 the Emperor: bump.
    "emperor": 15 14 taken, 13 1, 12 (own) 2, 11 3 -> 11; "painter": from its stop 13: 12 (own) 1, 11 2,
    10 3 -> 10. Then seat 2's P+1 from 14: 15 taken, 16: bump, having counted none. "emperor": 15 taken,
    14 (own) 1, 13 2, 12 3 -> 12; "painter": from its start 14: 13, 12, 11 -> 11."""
    d = make_state(3, emperor=16, painters=[15, 12, 14], selected={0: 48, 1: 49}, hands={2: [42]},
                   rules={"bump_from": bump_from})
    out = run(d, "play 42")
    assert out["painters"] == after
    assert out["tokens"] == [5, 4, 4]


@pytest.mark.parametrize("bump_from", BOTH)
def test_r21_emperor_moving_back_bumps_the_same_under_both_readings(bump_from):
    """R-21: when the Emperor moves back onto a painter the two readings agree (his space is the
    painter's own): E+-1 back, 16 -> 15 onto seat 1: 14 1, 13 12 taken, 11 2, 10 taken, 9 3 -> 9."""
    d = make_state(4, emperor=16, painters=[13, 15, 12, 10], selected={0: 31, 1: 1, 2: 2, 3: 10},
                   pending=[[31, 0]], phase="choose", choosing="garden", rules={"bump_from": bump_from})
    out = run(d, "back")
    assert out["emperor"] == 15
    assert out["painters"] == [13, 9, 12, 10] and out["tokens"] == [5, 4, 5, 5]


# --------------------------------------------------------------------------------------------------------
# lineup_from_gate


@pytest.mark.parametrize(("lineup_from_gate", "gate_painter"), [(False, 0), (True, 6)])
def test_r22_lone_gate_painter_lines_up_or_stays(lineup_from_gate, gate_painter):
    """R-22: card 27 (seat 0, E+1, leapfrog: closest, no move) brings the Emperor onto 12. Ranks: 9 (+3),
    6 (+2), 2 (+1), then seat 3 alone on the gate (ranked fourth, R-13; no award with 4 players). Line-up:
    9 stays, 6 -> 8, 2 -> 7; the lone gate painter stays (false, R-18) or lines up behind, 6 (true)."""
    d = make_state(4, emperor=11, painters=[9, 2, 6, 0], selected={0: 27, 1: 48, 2: 49}, hands={3: [57]},
                   rules={"lineup_from_gate": lineup_from_gate})
    out = run(d, "play 57")
    assert out["emperor"] == 12 and out["scored"] == [True, False, False]
    assert out["tokens"] == [8, 6, 7, 5]
    assert out["painters"] == [9, 7, 8, gate_painter]


@pytest.mark.parametrize(("lineup_from_gate", "gate_painter"), [(False, 0), (True, 3)])
def test_r22_lone_gate_painter_ranked_third_scores_then_lines_up(lineup_from_gate, gate_painter):
    """R-22 with three players: the painter alone on the gate is ranked third (+1, R-13) under both; under
    true it then lines up behind the second: 5 stays, 3 -> 4, gate -> 3."""
    d = make_state(3, emperor=11, painters=[5, 3, 0], selected={0: 27, 1: 48}, hands={2: [49]},
                   rules={"lineup_from_gate": lineup_from_gate})
    out = run(d, "play 49")
    assert out["tokens"] == [8, 7, 6]
    assert out["painters"] == [5, 4, gate_painter]


@pytest.mark.parametrize("lineup_from_gate", [False, True])
def test_r22_painters_sharing_the_gate_stay_under_both(lineup_from_gate):
    """R-22: painters sharing the gate are not ranked (R-13) and stay there under both readings."""
    d = make_state(4, emperor=11, painters=[5, 3, 0, 0], selected={0: 27, 1: 48, 2: 49}, hands={3: [57]},
                   rules={"lineup_from_gate": lineup_from_gate})
    out = run(d, "play 57")
    assert out["tokens"] == [8, 7, 5, 5]
    assert out["painters"] == [5, 4, 0, 0]


def test_r22_lone_gate_painter_lines_up_onto_the_gate_when_the_line_reaches_it():
    """R-22: the line-up counts down from the closest; below index 1 is the gate (R-18), so a lone gate
    painter behind painters on 2 and 1 ends on the gate again."""
    d = make_state(3, emperor=11, painters=[2, 1, 0], selected={0: 27, 1: 48}, hands={2: [49]},
                   rules={"lineup_from_gate": True})
    out = run(d, "play 49")
    assert out["painters"] == [2, 1, 0]


# --------------------------------------------------------------------------------------------------------
# court_can_win


def court_ending(tokens: list[int], court_tokens: int, rules: dict) -> tuple:
    """Two players, the last round: card 10 (seat 0, E+1 P+1) brings the Emperor from 27 onto the last
    sakura; seat 0's P+1 moves 20 -> 21; ranks: the court painter on 26 (+4), seat 1 on 22 (+2), seat 0
    on 21 (+1); the game ends (cards 19 and 60 are discarded unresolved). Returns (game, final state)."""
    d = make_state(2, emperor=27, painters=[20, 22], tokens=tokens,
                   court={"painter": 26, "tokens": court_tokens}, selected={0: 10}, hands={1: [19]},
                   deck=[60, 50], rules=rules)
    g, s = load(d)
    s = g.apply(s, "play 19")
    assert g.to_dict(s)["phase"] == "over"
    return g, s


@pytest.mark.parametrize("tie_break", ["closest_to_emperor", "shared"])
def test_r23_the_court_painter_wins_and_neither_player_does(tie_break):
    """R-23: the court painter ends on 24 tokens against 6 and 7: under court_can_win it wins, so no
    player wins and both players' win shares are 0; under the default the better player (seat 1) wins."""
    g, s = court_ending([5, 5], 20, {"court_can_win": True, "tie_break": tie_break})
    r = g.result(s)
    assert r["scores"] == [6, 7] and g.to_dict(s)["court"]["tokens"] == 24
    assert r["winners"] == [] and r["court_wins"] is True
    assert r["tie"] is False and r["decided_by_tiebreak"] is False
    assert g.returns(s) == [0.0, 0.0]
    g, s = court_ending([5, 5], 20, {"court_can_win": False, "tie_break": tie_break})
    r = g.result(s)
    assert r["winners"] == [1] and r["court_wins"] is False and g.returns(s) == [0.0, 1.0]


def test_r23_three_way_tie_shared():
    """R-23 under tie_break "shared": seats end on 10 (9 + 1) and 10 (8 + 2), the court painter on 10
    (6 + 4): all three share, each player's win share 1/3 (the court painter holds the third). Without
    court_can_win the two players share halves."""
    g, s = court_ending([9, 8], 6, {"court_can_win": True, "tie_break": "shared"})
    r = g.result(s)
    assert r["scores"] == [10, 10] and g.to_dict(s)["court"]["tokens"] == 10
    assert r["winners"] == [0, 1] and r["court_wins"] is True
    assert r["tie"] is True and r["decided_by_tiebreak"] is False
    assert g.returns(s) == pytest.approx([1 / 3, 1 / 3])
    g, s = court_ending([9, 8], 6, {"court_can_win": False, "tie_break": "shared"})
    assert g.result(s)["winners"] == [0, 1] and g.returns(s) == [0.5, 0.5]


def test_r23_three_way_tie_broken_by_r14_among_all_three_painters():
    """R-23 with R-14: all three on 10 tokens; the court painter (26) is the tied painter closest to the
    Emperor, so it wins and neither player does. Without court_can_win seat 1 (22) beats seat 0 (21)."""
    g, s = court_ending([9, 8], 6, {"court_can_win": True, "tie_break": "closest_to_emperor"})
    r = g.result(s)
    assert r["winners"] == [] and r["court_wins"] is True
    assert r["tie"] is True and r["decided_by_tiebreak"] is True
    assert g.returns(s) == [0.0, 0.0]
    g, s = court_ending([9, 8], 6, {"court_can_win": False, "tie_break": "closest_to_emperor"})
    r = g.result(s)
    assert r["winners"] == [1] and r["decided_by_tiebreak"] is True and r["court_wins"] is False


def test_r23_a_player_closer_than_the_tied_court_painter_wins():
    """R-23 with R-14: the tie goes to the tied painter closest to the Emperor, a player here. Seat 1 on
    26 (+4 = 10) and the court painter on 22 (+2 = 10) tie; seat 1 wins, the court painter does not."""
    d = make_state(2, emperor=27, painters=[20, 26], tokens=[5, 6], court={"painter": 22, "tokens": 8},
                   selected={0: 10}, hands={1: [19]}, deck=[60, 50], rules={"court_can_win": True})
    g, s = load(d)
    s = g.apply(s, "play 19")
    r = g.result(s)
    assert r["scores"] == [6, 10] and g.to_dict(s)["court"]["tokens"] == 10
    assert r["winners"] == [1] and r["court_wins"] is False and r["decided_by_tiebreak"] is True


def test_r23_is_ignored_without_a_court_painter():
    """R-23 is a two-player knob: with 3-6 players there is no court painter, so court_can_win changes
    nothing (the config accepts it, as it does two_player_variant, so one file serves every count)."""
    d = make_state(4, emperor=27, painters=[25, 26, 21, 0], tokens=[7, 5, 8, 4],
                   selected={0: 48, 1: 27, 2: 49}, hands={3: [57]}, rules={"court_can_win": True})
    g, s = load(d)
    s = g.apply(s, "play 57")
    r = g.result(s)
    assert r["winners"] == [1] and "court_wins" not in r  # as test_r14_tie_goes_to_the_tied_painter_...


# --------------------------------------------------------------------------------------------------------
# The knobs in the readable API: to_dict / from_dict


@pytest.mark.parametrize("players", [2, 4])
def test_to_dict_exposes_each_knob_under_its_config_key_and_from_dict_accepts_it(players):
    """Rule knobs appear in to_dict under their config keys (docs/howto/rule-readings.md); from_dict accepts
    them and the round trip keeps them."""
    g = game(players)
    d = g.to_dict(g.new_state(seed=3))
    assert {k: d["rules"][k] for k in ("bump_from", "lineup_from_gate", "court_can_win")} == {
        "bump_from": "emperor", "lineup_from_gate": False, "court_can_win": False}  # the rules of record
    for knobs in ({"bump_from": "painter"}, {"lineup_from_gate": True}, {"court_can_win": True},
                  {"bump_from": "painter", "lineup_from_gate": True, "court_can_win": True}):
        e = copy.deepcopy(d)
        e["rules"] = {**e["rules"], **knobs}
        s = g.from_dict(e)
        assert g.to_dict(s) == e
        assert g.to_dict(g.from_dict(g.to_dict(s))) == e


def test_from_dict_without_the_knobs_takes_the_games_config(tmp_path):
    """A state dict without "rules" (or with some knobs only) takes the rest from the game's config."""
    path = tmp_path / "painter.toml"
    path.write_text(f'extends = "{CONFIG}"\n[rules]\nbump_from = "painter"\nlineup_from_gate = true\n'
                    'court_can_win = true\n', encoding="utf-8")
    g = games.load("sakura", config=str(path), players=2)
    d = g.to_dict(g.new_state(seed=1))
    assert d["rules"]["bump_from"] == "painter" and d["rules"]["lineup_from_gate"] is True
    assert d["rules"]["court_can_win"] is True
    del d["rules"]
    assert g.to_dict(g.from_dict(d))["rules"]["bump_from"] == "painter"
    d["rules"] = {"bump_from": "emperor"}
    out = g.to_dict(g.from_dict(d))["rules"]
    assert out["bump_from"] == "emperor" and out["court_can_win"] is True


@pytest.mark.parametrize(("knobs", "what"), [
    ({"bump_from": "both"}, "rules.bump_from"),
    ({"bump_from": None}, "rules.bump_from"),
    ({"lineup_from_gate": 1}, "rules.lineup_from_gate"),
    ({"lineup_from_gate": "true"}, "rules.lineup_from_gate"),
    ({"court_can_win": 0}, "rules.court_can_win"),
    ({"tie_break": "coin_flip"}, "rules.tie_break"),
    ({"two_player_variant": "solo"}, "rules.two_player_variant"),
    ({"bump_frm": "painter"}, "unknown knob"),
])
def test_from_dict_refuses_bad_knob_values(knobs, what):
    """from_dict refuses a knob value outside its choices (booleans must be booleans) and a misspelt knob,
    naming it, as a config does."""
    g = game(2)
    d = g.to_dict(g.new_state(seed=3))
    d["rules"] = {**d["rules"], **knobs}
    with pytest.raises(ValueError, match=what):
        g.from_dict(d)


# --------------------------------------------------------------------------------------------------------
# The knobs in configs


def test_readings_load_everywhere_and_only_non_defaults_change_the_config_hash(tmp_path):
    """court_can_win = true is accepted at every player count (acting only with two); a config at the
    docs/rules.md defaults keeps the hash it had before R-21..R-23 existed, any other reading changes it."""
    spec = games.spec("sakura")
    base = {n: spec.load_rules(CONFIG, n) for n in (2, 4)}
    # the hash of base.toml before R-21..R-23 existed (logged in the pinned tables of table_hashes.json)
    assert base[2].config_hash == "20a967bf8e13"
    for knob in ('bump_from = "painter"', "lineup_from_gate = true", "court_can_win = true"):
        path = tmp_path / "variant.toml"
        path.write_text(f'extends = "{CONFIG}"\n[rules]\n{knob}\n', encoding="utf-8")
        for n in (2, 4, 6):
            rules = spec.load_rules(path, n)
            assert rules.config_hash != spec.load_rules(CONFIG, n).config_hash
    path.write_text(f'extends = "{CONFIG}"\n[rules]\nbump_from = "emperor"\nlineup_from_gate = false\n'
                    'court_can_win = false\n', encoding="utf-8")
    assert spec.load_rules(path, 2).config_hash == base[2].config_hash


def test_bad_knob_in_config_is_refused_with_file_and_key(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text(f'extends = "{CONFIG}"\n[rules]\nbump_from = "Emperor"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"bad\.toml: rules\.bump_from: must be one of"):
        games.spec("sakura").load_rules(path, 4)


# --------------------------------------------------------------------------------------------------------
# R-23 where the agents and the studies score a finished game (they call kernels.winners, never a copy)


@pytest.mark.parametrize(("court_tokens", "tokens", "tie_break", "want"), [
    (20, [5, 5], "closest_to_emperor", [0.0, 0.0]),  # the court painter wins alone
    (6, [9, 8], "shared", [1 / 3, 1 / 3]),  # three-way tie, shared
    (6, [9, 8], "closest_to_emperor", [0.0, 0.0]),  # three-way tie, the court painter closest
])
def test_r23_agents_score_a_finished_game_with_the_court_painter(court_tokens, tokens, tie_break, want):
    """R-23: the expert's final_value (temp > 0: its win share), MCTS's win reward and score reward see the
    court painter as a rival under court_can_win (entry `players` is the court's and no mover's)."""
    import numpy as np

    from sim.sakura.expert import final_value
    from sim.sakura.mcts import REWARD_SCORE, REWARD_WIN, SCORE_SCALE, rewards_at

    g, s = court_ending(tokens, court_tokens, {"court_can_win": True, "tie_break": tie_break})
    v = s.vector.copy()
    win = np.zeros(6, dtype=np.int64)
    assert [final_value(v, me, 2.0, win) for me in (0, 1)] == pytest.approx(want)
    out = np.zeros(6)
    rewards_at(v, REWARD_WIN, win, out)
    assert list(out[:2]) == pytest.approx(want)
    rewards_at(v, REWARD_SCORE, win, out)
    final = [*g.result(s)["scores"], g.to_dict(s)["court"]["tokens"]]
    best_other = [max(final[q] for q in range(3) if q != p) for p in range(2)]
    lead = [min(1.0, max(0.0, 0.5 + (final[p] - best_other[p]) / (2 * SCORE_SCALE))) for p in range(2)]
    assert list(out[:2]) == pytest.approx(lead)
    g2, s2 = court_ending(tokens, court_tokens, {"court_can_win": False, "tie_break": tie_break})
    assert [final_value(s2.vector.copy(), me, 2.0, win) for me in (0, 1)] == pytest.approx(g2.returns(s2))


def test_r23_batch_and_values_win_shares_count_the_court_painter(tmp_path):
    """R-23 in the compiled studies: self-play's log tables and `balance values`' arms give each seat its
    win share with the court painter among the winners (seat shares of a game sum to 1 minus the court's
    share), and agree with the readable API game by game, under every reading at once (R-21 and R-22
    too: the batch path plays the same kernels)."""
    import numpy as np

    from sim.core.agent_spec import agent_arrays
    from sim.core.rng import game_seeds
    from tests.test_game_conformance import play_api

    path = tmp_path / "court.toml"
    path.write_text(f'extends = "{CONFIG}"\n[rules]\ncourt_can_win = true\ntie_break = "shared"\n'
                    'bump_from = "painter"\nlineup_from_gate = true\n', encoding="utf-8")
    spec = games.spec("sakura")
    rules = spec.load_rules(path, 2)
    seeds = game_seeds(4, 0, 60)
    kinds, params = agent_arrays([["random", "random"]], games.spec("sakura"))
    batch = spec.run_batch(rules, seeds, kinds[0], params[0])
    tables = spec.tables(0, seeds, [["random", "random"]] * 60, batch, rules)
    share = np.array(tables["players"]["win_share"].to_pylist()).reshape(60, 2)
    court = batch["other_winners"]
    assert court.sum() > 5  # the court painter wins a fair share of random games
    g = spec.game_class(rules)
    for i, seed in enumerate(seeds):
        _, state = play_api(g, int(seed), ["random", "random"])
        final = g.to_dict(state)
        assert final["tokens"] == batch["tokens"][i, :2].tolist(), i
        assert [*final["painters"], final["court"]["painter"]] == batch["positions"][i].tolist(), i
        assert g.returns(state) == pytest.approx(share[i].tolist()), i
        assert g.result(state)["court_wins"] == bool(court[i])
    n = batch["winners"].sum(axis=1) + court
    assert np.allclose(share.sum(axis=1), batch["winners"].sum(axis=1) / n)
    from analysis.seats import win_shares  # `balance study` and the expert's strength measure

    assert np.allclose(win_shares(batch["winners"], batch["other_winners"]), share)
    winner = tables["games"]["winner"].to_pylist()
    assert all((w is None) == (n[i] != 1) for i, w in enumerate(winner))
    values = spec.values.run(rules, seeds[:3], kinds[0], params[0])
    base = values["base"][:, :, 1]  # the seeds' own games: the same games as the batch's
    assert np.allclose(base, share[:3])
