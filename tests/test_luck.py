"""How much is luck (analysis/variance_parts.py, sim/app/luck.py, `balance luck`): the variance components are
unbiased at known truths, other streams keep the deal and change what they say, the command answers first
and refuses designs it cannot estimate."""

from __future__ import annotations

import numpy as np
import pytest

from analysis.variance_parts import components, luck_table
from sim import games
from sim.app.luck import LuckPlan, luck_text, play_luck
from sim.commands import main
from sim.core.agent_spec import agent_arrays
from sim.core.rng import game_seeds, new_rng
from sim.sakura import kernels as SK
from sim.sakura.game import kernel_rules


def _nested(rng: np.random.Generator, deals: int, draws: int, replays: int,
            sd: tuple[float, float, float]) -> np.ndarray:
    """Normal data of a nested design with standard deviations (deal, draws, play), 2 seats."""
    deal = rng.normal(0, sd[0], (deals, 1, 1, 2))
    draw = rng.normal(0, sd[1], (deals, draws, 1, 2))
    play = rng.normal(0, sd[2], (deals, draws, replays, 2))
    return 0.5 + deal + draw + play


@pytest.mark.parametrize("draws,replays", [(1, 4), (2, 2), (3, 3)])
def test_components_are_unbiased_at_known_truths(draws, replays):
    rng = np.random.default_rng(5)
    sd = (0.1, 0.15 if draws > 1 else 0.0, 0.4)
    estimates = np.mean([components(_nested(rng, 200, draws, replays, sd)) for _ in range(400)], axis=0)
    truth = np.array([s * s for s in sd])
    # 400 replicates: the mean of the estimates within a few of its standard errors of the truth
    assert np.allclose(estimates[:, 0], truth, atol=0.004), (estimates[:, 0], truth)
    assert np.allclose(estimates[:, 1], truth, atol=0.004)


def test_table_shares_add_up_and_bracket_their_estimates():
    rng = np.random.default_rng(1)
    table = luck_table(_nested(rng, 300, 2, 2, (0.2, 0.1, 0.3)), resamples=300)
    for _, row in table.iterrows():
        assert row["deal_share"] + row["draws_share"] + row["play_share"] == pytest.approx(1.0)
        for part in ("deal", "draws", "play", "chance"):
            assert row[f"{part}_low"] <= row[f"{part}_share"] <= row[f"{part}_high"]
        assert row["most_saved"] == pytest.approx(1 / (1 - row["chance_share"]))
    every = table[table["seat"] == "all"].iloc[0]
    # truth: deal 0.04, draws 0.01, play 0.09 of 0.14
    assert every["deal_low"] < 0.04 / 0.14 < every["deal_high"]
    assert every["play_low"] < 0.09 / 0.14 < every["play_high"]


def _batch(game: str, players: int, **streams):
    spec, _, rules = games.load_config(f"configs/{game}/base.toml", players)
    seating, params = agent_arrays([["greedy"] * players], spec)
    return spec.run_batch(rules, game_seeds(3, 0, 60), seating[0], params[0], **streams)


def test_the_study_stream_is_the_default_and_others_keep_the_deal():
    plain, same = _batch("kamakura", 3), _batch("kamakura", 3, play_stream=1)
    other = _batch("kamakura", 3, play_stream=2)
    assert all(np.array_equal(plain[k], same[k]) for k in ("winners", "scores", "turns"))
    assert np.array_equal(plain["chits"], other["chits"])  # the same deal ...
    assert not np.array_equal(plain["winners"], other["winners"])  # ... played otherwise
    s_plain, s_same = _batch("sakura", 4), _batch("sakura", 4, play_stream=1, draw_stream=0)
    assert np.array_equal(s_plain["winners"], s_same["winners"])
    assert not np.array_equal(s_plain["winners"], _batch("sakura", 4, draw_stream=1001)["winners"])


def test_other_draws_keep_the_hands_and_the_cards():
    _, _, rules = games.load_config("configs/sakura/base.toml", 4)
    dealt = SK.new_game(kernel_rules(rules), np.uint64(99))
    redealt = dealt.copy()
    SK.redeal_draws(redealt, new_rng(99, 1001))
    hands = slice(SK.HAND, SK.HAND + SK.MAX_PLAYERS * SK.HAND_SIZE)
    assert np.array_equal(dealt[hands], redealt[hands])
    deck = slice(SK.DECK, SK.DECK + dealt[SK.DECK_N])
    assert sorted(dealt[deck]) == sorted(redealt[deck]) and not np.array_equal(dealt[deck], redealt[deck])


def test_luck_answers_first_and_is_the_same_at_any_jobs():
    plan = LuckPlan("configs/kamakura/base.toml", 3, "greedy", deals=120, seed=4)
    one, two = play_luck(plan), play_luck(LuckPlan(**{**plan.__dict__, "jobs": 2}))
    assert one.table.equals(two.table)
    text = luck_text(one)
    assert text.startswith("The deal decides ") and "of the variance of who wins at greedy" in text
    assert "cannot cut the games an answer needs by more than" in text
    assert "120 deals x 1 draw order(s) x 4 replays = 480 games" in text


@pytest.mark.parametrize("extra,says", [
    (["--draws", "2"], "draws nothing after its setup"),
    (["--replays", "1"], "at least twice"),
    (["--deals", "5"], "at least 20"),
])
def test_designs_it_cannot_estimate_are_refused(capsys, extra, says):
    status = main(["luck", "configs/kamakura/base.toml", "--players", "3", "--agents", "random", *extra])
    err = capsys.readouterr().err
    assert status == 2 and says in err and err.count("\n") == 1
