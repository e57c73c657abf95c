"""Verdicts (docs/explanation/statistics.md): the equivalence test against a margin, its statuses and words,
`--margin`, and `balance compare`'s paired verdicts on real runs."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from analysis.tally import SHARE_SCALE
from analysis.verdicts import (
    BEYOND,
    EVERY_QUESTION,
    MIN_GAMES,
    SMALL,
    TOO_FEW,
    UNDECIDED,
    WITHIN,
    Margins,
    classify,
    family,
    games_for,
    half_width,
    parse_margins,
    seat_verdict,
    start_verdict,
)
from sim.core.errors import ConfigError

ROOT = Path(__file__).resolve().parents[1]
BASE = "configs/kamakura/base.toml"


def tally(wins: list[int], games: int) -> dict:
    """A common tally of `games` games with one winner each, seat s winning wins[s] of them."""
    units = np.array(wins, dtype=np.int64) * SHARE_SCALE
    k = len(wins)
    return {"games": games, "seat_games": np.full(k, games), "seat_units": units,
            "seat_squares": units * SHARE_SCALE, "ties": np.zeros(3, dtype=np.int64)}


def test_statuses_follow_the_interval_against_the_margin() -> None:
    def fam(value: float, half: float) -> object:
        f = family(np.array([value]), np.array([0.4]), np.array([5000.0]), 0.02)
        f.low, f.high = f.value - half, f.value + half
        f.eq_low, f.eq_high = f.value - 0.8 * half, f.value + 0.8 * half
        return f

    assert classify(fam(0.0, 0.01), 0.02) == WITHIN
    assert classify(fam(0.012, 0.005), 0.02) == SMALL  # excludes 0, inside the margin
    assert classify(fam(0.05, 0.01), 0.02) == BEYOND
    assert classify(fam(-0.05, 0.01), 0.02) == BEYOND
    assert classify(fam(0.015, 0.01), 0.02) == UNDECIDED  # straddles the margin
    assert classify(fam(0.0155, 0.005), 0.02) == SMALL  # the shown interval reaches past it, the
    # equivalence interval (one-sided bounds) does not: equivalence is decided by the latter
    assert classify(fam(0.0, 0.05), 0.02) == UNDECIDED  # wide: a non-significant result is no verdict


def test_the_sequence_narrows_with_games_and_is_wider_than_a_fixed_interval() -> None:
    widths = half_width(0.47, np.array([500, 5000, 50000]), 0.05 / 3, 3000)
    assert widths[0] > widths[1] > widths[2]
    fixed = 2.394 * 0.47 / np.sqrt(5000)  # Bonferroni over 3 seats, one look
    assert widths[1] > fixed
    n = games_for(0.02, 0.47, 0.05 / 3, 3000)
    assert half_width(0.47, n, 0.05 / 3, 3000) <= 0.02 < half_width(0.47, n - 1, 0.05 / 3, 3000)


def test_seat_verdicts_in_words() -> None:
    fair = seat_verdict(tally([6700, 6650, 6650], 20000), 1 / 3, Margins())
    assert fair.status == WITHIN and fair.sentence.startswith("Seats: fair within the 2 pp margin")
    assert "n = 20,000 games" in fair.sentence and "[" in fair.sentence
    unfair = seat_verdict(tally([8000, 6000, 6000], 20000), 1 / 3, Margins())
    assert unfair.status == BEYOND and "Seat 0 is favoured: it wins 40.0% of games" in unfair.sentence
    assert "seat 1 is disadvantaged: it wins 30.0%" in unfair.sentence
    assert "pp" in unfair.sentence and " points" not in unfair.sentence
    open_question = seat_verdict(tally([680, 660, 660], 2000), 1 / 3, Margins())
    assert open_question.status == UNDECIDED and open_question.needed > 2000
    assert "more games" in open_question.sentence
    start = start_verdict(tally([8000, 6000, 6000], 20000), 1 / 3, EVERY_QUESTION)
    assert start.status == BEYOND and "an advantage beyond the 2 pp margin" in start.sentence


def test_no_verdict_on_too_few_games() -> None:
    few = seat_verdict(tally([MIN_GAMES - 1, 0, 0], MIN_GAMES - 1), 1 / 3, Margins())
    assert few.status == TOO_FEW and "too few games" in few.sentence


@pytest.mark.parametrize("text, expected", [("2", Margins()), ("1pp", Margins(0.01, 0.01, 0.01, 0.01)),
                                             ("seats=3,length=2", Margins(seats=0.03, length=2.0)),
                                             ("worth=1.5", Margins(worth=1.5))])
def test_margins_as_a_designer_types_them(text: str, expected: Margins) -> None:
    assert parse_margins(text) == expected


@pytest.mark.parametrize("text, says", [("0", "positive"), ("two", "expected a number"),
                                        ("seat=2", "unknown question 'seat'"), ("200", "percentage points"),
                                        ("nan", "positive")])
def test_bad_margins_are_refused(text: str, says: str) -> None:
    with pytest.raises(ConfigError, match=says):
        parse_margins(text)


def balance(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "sim", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=900)


def test_compare_of_a_config_with_itself_says_no_game_changed_and_repeats_itself(tmp_path: Path) -> None:
    """Identical configs play identical games: the answer is that none differs, not a verdict of "no
    change" on intervals of width 0."""
    args = ("compare", BASE, BASE, "--players", "3", "--agents", "greedy", "--games", "400", "--jobs", "1",
            "--quiet", "--questions", "all", "--out", str(tmp_path / "cmp"))
    first = balance(*args)
    assert first.returncode == 0, first.stderr
    lines = [line.strip() for line in first.stdout.splitlines() if line.startswith("  ") and ":" in line]
    assert any(line.startswith("0 of 400 paired games differ: no agent at this level used what the variant "
                               "changes, so there is no fairness verdict to give") for line in lines), lines
    assert not any(line.split(":")[0] in ("Seats", "Start player (seat 0)", "Ties", "Length", "Seat gap")
                   for line in lines), lines
    assert "nothing (the same rules)" in first.stdout
    assert balance(*args).stdout == first.stdout  # the second finds the games played: the same text


def test_compare_reports_the_tie_break_by_seat(tmp_path: Path) -> None:
    # 5,000 games: the bounded sequences (valid at any n) decide a 3.5 pp change of a seat at 5,000 paired
    # games where the normal mixture did at 1,500
    done = balance("compare", BASE, "configs/kamakura/tie-shared.toml", "--players", "3", "--agents",
                   "greedy", "--games", "5000", "--jobs", "1", "--quiet", "--out", str(tmp_path / "cmp"))
    assert done.returncode == 0, done.stderr
    assert 'rules.tie_break: "last_in_order" -> "shared"' in done.stdout
    seats = next(line for line in done.stdout.splitlines() if line.strip().startswith("Seats:"))
    assert "seat " in seats and "Seats: changed beyond the margin" in seats
    gap = next(line for line in done.stdout.splitlines() if line.strip().startswith("Seat gap:"))
    assert "the seat gap is the largest minus" in gap and "pp [" in gap
    page = (tmp_path / "cmp" / "report" / "index.html").read_text()
    assert page.index("The answer: what the change did") < page.index("The runs")


def test_compare_refuses_two_games(tmp_path: Path) -> None:
    done = balance("compare", BASE, "configs/sakura/base.toml", "--players", "3", "--agents", "greedy",
                   "--out", str(tmp_path / "cmp"))
    assert done.returncode == 2 and "cannot be compared" in done.stderr
    assert "Traceback" not in done.stderr and not (tmp_path / "cmp").exists()


def test_a_chit_of_no_points_and_no_power_is_worth_nothing_and_priced_right(tmp_path: Path) -> None:
    from analysis.causal_values import read_values_run
    from analysis.worth_verdicts import worth_verdicts
    from sim.app.runner import simulate
    from sim.app.values_run import plan_values
    from tests.test_component_values import ZERO_BLUE

    config = tmp_path / "zero-blue.toml"
    config.write_text(ZERO_BLUE.format(base=(ROOT / BASE).as_posix()))
    simulate(plan_values(config, 3, "greedy", 5, "0"), 36, tmp_path / "run", jobs=1, chunk_size=12)
    verdicts = worth_verdicts(read_values_run(tmp_path / "run"))
    zero = next(v for v in verdicts if v.key.startswith("worth:blue 1"))
    assert zero.status == WITHIN and (zero.low, zero.value, zero.high) == (0, 0, 0)
    assert "worth 0 score points [0, 0], face value 0; priced right" in zero.sentence
    assert verdicts[0].key == "components" and "over-valued" in verdicts[0].sentence


@pytest.mark.parametrize("wins, games", [([3, 0, 3], 6), ([0, 6, 0], 6), ([6, 0, 0], 6), ([1, 1], 2),
                                         ([40, 30, 30], 100)])
def test_a_win_rate_interval_never_leaves_what_a_win_rate_can_be(wins: list[int], games: int) -> None:
    """A 6-game run said "+16.7 pp [-354.5, +387.8] against the fair share": a win rate's difference from
    the fair share lies in [-fair, 1 - fair], and its interval is cut to it (coverage kept)."""
    fair = 1 / len(wins)
    start = start_verdict(tally(wins, games), fair, Margins())
    assert -fair - 1e-12 <= start.low <= start.value <= start.high <= 1 - fair + 1e-12, start.sentence
    numbers = [float(x) for x in re.findall(r"[-+]?\d+\.\d", start.sentence.split("wins", 1)[1])]
    assert all(-100 * fair - 0.05 <= x <= 100 for x in numbers), start.sentence
    seats = seat_verdict(tally(wins, games), fair, Margins())
    assert all(-fair - 1e-12 <= x <= 1 - fair + 1e-12 for x in (seats.low, seats.high)), seats.sentence


def test_a_two_player_compare_leads_with_the_seats_and_says_each_config_s_own_verdict(tmp_path: Path) -> None:
    """The newcomer's 2-player Sakura compare: with two players the seat gap is twice a seat's distance
    from half, so the first line is the seats' change and the gap a description; each config's own seats
    verdict follows."""
    done = balance("compare", "configs/sakura/base.toml", "configs/sakura/two-player-tactical.toml",
                   "--players", "2", "--agents", "greedy", "--games", "400", "--jobs", "1", "--quiet",
                   "--out", str(tmp_path / "cmp"))
    assert done.returncode == 0, done.stderr
    said = [line.strip() for line in done.stdout.splitlines() if line.startswith("  ")]
    verdicts = [line for line in said if line.split(":")[0] in ("Seats", "Seat gap", "Start player (seat 0)")]
    assert verdicts[0].startswith("Seats: "), said
    gap = next(line for line in said if line.startswith("Seat gap:"))
    assert "a description, with two players the gap is twice a seat's distance from half" in gap
    assert any(line.startswith("The base on its own (its own 5% error rate): Seats: ") for line in said)
    assert any(line.startswith("The variant on its own (its own 5% error rate): Seats: ") for line in said)
    assert "5% for the seat changes" in done.stdout and "for the seat gap" not in done.stdout
