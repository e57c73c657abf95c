"""`balance bench`'s designer figures (sim/app/bench.py): the games and seconds that decide the seat
questions at a 2 percentage-point margin, computed from fake self-play rates (the timed figures themselves
are not asserted: the machine is shared)."""

from __future__ import annotations

import math

import pytest

from analysis.sequences import Design
from analysis.verdicts import ALPHA, MIN_GAMES
from sim.app import bench


def _direct(players: int, margin: float) -> int:
    """The seats' family's plan written out: k seats, each equivalence bound one-sided at alpha/k, with a
    win-or-lose sd at the fair share."""
    fair = 1 / players
    sd = math.sqrt(fair * (1 - fair))
    d = Design(alpha=ALPHA, members=players, sd=sd, margin=margin, outcome=(-fair, 1 - fair))
    return d.games_for(margin, sd)


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_the_games_are_the_seat_family_plan(players: int) -> None:
    got = bench.seat_question_games(players)
    assert got >= MIN_GAMES
    assert abs(got - _direct(players, 0.02)) <= 0.001 * got  # the tally's sample sd is n/(n-1) off


def test_half_the_margin_takes_four_times_the_games() -> None:
    wide = bench.seat_question_games(3, 0.04)
    # about four times: the bounded sequence's psi(bet) is bet^2 / 2 and more (bet^3 / 3 ...), larger at the
    # larger bet a wider margin is planned for, so a little less than four
    assert 3.6 * wide <= bench.seat_question_games(3, 0.02) <= 4 * wide


def test_seconds_from_fake_rates() -> None:
    out = bench.seat_question("kamakura", 3, games_per_s=20.0, cores=4)
    games = bench.seat_question_games(3)
    assert out["kamakura_seat_question_games"] == games
    assert out["kamakura_seat_question_seconds_one_core"] == round(games / 20.0, 1)
    assert out["kamakura_seat_question_seconds_all_cores"] == round(games / 80.0, 1)
    assert out["seat_question_margin_pp"] == 2 and out["seat_question_cores"] == 4
    slower = bench.seat_question("kamakura", 3, games_per_s=10.0, cores=4)
    assert slower["kamakura_seat_question_seconds_one_core"] == pytest.approx(
        2 * out["kamakura_seat_question_seconds_one_core"], abs=0.2)


def test_the_lines_speak_of_percentage_points_and_cores() -> None:
    figures = {"kamakura_players": 3, "sakura_players": 4,
               **bench.seat_question("kamakura", 3, 20.0, 2), **bench.seat_question("sakura", 4, 600.0, 2)}
    text = "\n".join(bench.seat_question_lines(figures))
    games = bench.seat_question_games(3)
    assert "2 percentage points" in text and " 2 points" not in text
    assert f"about {float(f'{games:.2g}'):,.0f} games" in text and "on 2 cores" in text
    assert "Kamakura (3 players)" in text and "Sakura (4 players)" in text
    assert bench.seat_question_lines({"kamakura_players": 3}) == []
