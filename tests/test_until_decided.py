"""`--until-decided`: play in rounds until every verdict is decided, or a cap.

The acceptance simulations run the stopping rule's own code (`tally_statuses`, `decided`) on per-game
outcomes drawn from known distributions (3 seats, one winner a game), looked at after every chunk of 500
games up to 60,000, at a 2 percentage-point margin, 300 seeded runs each:
(a) seats truly equal: called unfair in at most 5% of runs, fair within the margin in at least 80%;
(b) seat 0 planted 4 pp above its fair share: called unfair in at least 80%;
(c) seat 0 exactly at the margin (+2 pp): an ordinary fixed-size interval (Bonferroni over the seats,
    normal) looked at after every chunk calls it within the margin in more than 5% of runs, the confidence
    sequences in at most 5%. These run to the command's default cap, 200,000 games: up to 60,000 the
    fixed-size interval's rate is about 5.5% (2,000 runs), too close to 5% for 300 runs to show; up to
    200,000 it is about 8%.
Then the loop itself on synthetic games (its rounds, caps and lines), and the real command: a run until
decided whose tables equal a plain run of as many games, a profile, and bad input refused in one line.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from statistics import NormalDist

import numpy as np
import pytest

from analysis.run_tally import read_run_tally
from analysis.tally import SHARE_SCALE
from analysis.verdicts import (
    BEYOND,
    MIN_GAMES,
    SMALL,
    TOO_FEW,
    UNDECIDED,
    WITHIN,
    Margins,
    all_decided,
    parse_margins,
    run_verdicts,
    seat_verdict,
    start_verdict,
)
from sim.app.until_decided import (
    DEFAULT_CAP,
    GROWTH_LEAST,
    GROWTH_MOST,
    check_caps,
    decided,
    games_if_no_difference,
    next_target,
    play_until_decided,
    progress_lines,
    tally_statuses,
)
from sim.core.errors import ConfigError
from tests.test_runner import KAMAKURA, assert_same_tables

ROOT = Path(__file__).resolve().parents[1]
RUNS, CHUNK, CAP, MARGIN = 300, 500, 60_000, 0.02
EDGE_CAP = DEFAULT_CAP  # (c): the fixed-size interval's looks add up to more than 5% by 200,000 games
FAIR = 1 / 3
MARGINS = Margins(seats=MARGIN, start=MARGIN, asked=("seats", "start"))
FAIR_CALLS = (WITHIN, SMALL)


def tally_of(wins: np.ndarray) -> dict:
    """A common tally as analysis.run_tally.common_tally builds it, of games with one winner each (`wins`
    per seat): games, seat_games, seat_units and seat_squares in 1/SHARE_SCALE, ties, sizes."""
    n = int(wins.sum())
    units = np.asarray(wins, dtype=np.int64) * SHARE_SCALE
    return {"games": n, "seat_games": np.full(len(wins), n, dtype=np.int64), "seat_units": units,
            "seat_squares": units * SHARE_SCALE, "ties": np.zeros(3, dtype=np.int64),
            "sizes": {str(len(wins)): n}}


def wins_after_chunks(p: list[float], seed: int, runs: int = RUNS, cap: int = CAP) -> np.ndarray:
    """(runs, cap // CHUNK, seats): every run's wins per seat after each chunk; each game has one winner,
    seat s with probability p[s]."""
    rng = np.random.default_rng(seed)
    k, looks = len(p), cap // CHUNK
    edges = np.cumsum(p)[:-1]
    chunk_of = np.repeat(np.arange(looks), CHUNK) * k
    out = np.empty((runs, looks, k), dtype=np.int64)
    for r in range(runs):
        winners = np.searchsorted(edges, rng.random(cap), side="right")
        out[r] = np.bincount(chunk_of + winners, minlength=looks * k).reshape(looks, k).cumsum(axis=0)
    return out


def rule_statuses(run: np.ndarray, margins: Margins = MARGINS) -> tuple[np.ndarray, np.ndarray]:
    """The stopping rule at every look of one run at once (`run`: its wins per seat after each chunk): the
    seats' status and whether every asked question is decided, per look. The families are those of
    `tally_statuses` (analysis.verdicts.seat_family and start_family: each seat's win rate minus the fair
    share, bounded in [-fair, 1 - fair], at its share of the error rate), built over all looks in one call;
    test_the_vectorised_rule_is_the_rule holds it to `tally_statuses` look by look."""
    from analysis.sequences import DECIDED, family, statuses
    from analysis.verdicts import run_split

    split = run_split(margins)
    n = run.sum(axis=1).astype(float)[:, None]
    rate = run / n
    sd = np.sqrt(rate * (1 - rate) * n / (n - 1))
    design = np.sqrt(FAIR * (1 - FAIR))
    out = {}
    for key, cols, margin in (("seats", slice(None), margins.seats), ("start", slice(0, 1), margins.start)):
        fam = family(rate[:, cols] - FAIR, sd[:, cols], np.broadcast_to(n, rate[:, cols].shape), margin,
                     split[key], sd_design=design, members=rate[:, cols].shape[1], within=(-FAIR, 1 - FAIR))
        out[key] = np.where(n[:, 0] < MIN_GAMES, TOO_FEW, statuses(fam.value, (fam.low, fam.high),
                                                                    (fam.eq_low, fam.eq_high), margin))
    return out["seats"], np.isin(out["seats"], DECIDED) & np.isin(out["start"], DECIDED)


def sequence_rule(wins: np.ndarray, every_look: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The stopping rule looked at after every chunk: per run, the seats' status where it stops (every
    judged question decided, or the cap), whether the seats were called within the margin at any look
    (up to the stop; with `every_look`, at any look up to the cap, as a designer who looks on for a
    verdict of fair would), and the games at the stop."""
    status, ever, games = [], [], []
    for run in wins:
        seats, done = rule_statuses(run)
        stop = int(done.argmax()) if done.any() else len(run) - 1
        called = np.isin(seats if every_look else seats[: stop + 1], FAIR_CALLS).any()
        status.append(seats[stop])
        ever.append(called)
        games.append(int(run[stop].sum()))
    return np.array(status), np.array(ever), np.array(games)


def test_the_vectorised_rule_is_the_rule() -> None:
    """`rule_statuses` (the acceptance simulations' rule over all looks at once) gives `tally_statuses`."""
    wins = wins_after_chunks([FAIR + 0.015, FAIR - 0.0075, FAIR - 0.0075], seed=344, runs=3, cap=20_000)
    for run in wins:
        seats, done = rule_statuses(run)
        for look in range(0, len(run), 7):
            statuses = tally_statuses(tally_of(run[look]), MARGINS)
            assert (seats[look], bool(done[look])) == (statuses["seats"], decided(statuses))


def fixed_n_rule(wins: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The ordinary fixed-size interval (normal, Bonferroni over the 3 seats: z at 0.05/3 two-sided)
    looked at after every chunk: per run, whether it called the seats within the margin at any look up
    to the cap (a designer looking on for a verdict of fair), and, stopping at its first decision of
    either kind, whether that decision was within the margin or beyond it."""
    z = NormalDist().inv_cdf(1 - 0.05 / 3 / 2)
    n = ((np.arange(wins.shape[1]) + 1.0) * CHUNK)[None, :, None]
    rate = wins / n
    half = z * np.sqrt(rate * (1 - rate) / (n - 1))  # the sample sd over sqrt(n)
    low, high = rate - FAIR - half, rate - FAIR + half
    beyond = ((low > MARGIN) | (high < -MARGIN)).any(axis=2)
    within = ((low >= -MARGIN) & (high <= MARGIN)).all(axis=2)
    first = (beyond | within).argmax(axis=1)
    rows = np.arange(len(wins))
    return within.any(axis=1), within[rows, first], beyond[rows, first]


def test_acceptance_fair_seats_planted_imbalance_and_a_difference_at_the_margin() -> None:
    # (a) seats truly equal
    null, _, null_games = sequence_rule(wins_after_chunks([FAIR] * 3, seed=341))
    unfair_a, fair_a = np.mean(null == BEYOND), np.mean(np.isin(null, FAIR_CALLS))
    # (b) seat 0 planted 4 pp above the fair share
    planted, _, _ = sequence_rule(wins_after_chunks([FAIR + 0.04, FAIR - 0.02, FAIR - 0.02], seed=342))
    unfair_b = np.mean(planted == BEYOND)
    # (c) seat 0 exactly at the margin: the same outcomes judged by both rules
    edge = wins_after_chunks([FAIR + MARGIN, FAIR - MARGIN / 2, FAIR - MARGIN / 2], seed=343, cap=EDGE_CAP)
    naive_ever, naive_within, naive_beyond = (np.mean(x) for x in fixed_n_rule(edge))
    at_stop, ever, _ = sequence_rule(edge, every_look=True)
    sequence, sequence_ever = np.mean(np.isin(at_stop, FAIR_CALLS)), np.mean(ever)
    print(f"\n(a) equal seats: unfair {unfair_a:.1%}, fair within the margin {fair_a:.1%} (median "
          f"{np.median(null_games):,.0f} games); (b) +4 pp: unfair {unfair_b:.1%}; (c) at the margin, "
          f"called within it at any look: fixed-n {naive_ever:.1%}, confidence sequences {sequence_ever:.1%} "
          f"(at the first decision: fixed-n {naive_within:.1%} within and {naive_beyond:.1%} beyond, "
          f"sequences {sequence:.1%} within)")
    assert unfair_a <= 0.05 and fair_a >= 0.80
    assert unfair_b >= 0.80
    assert naive_ever > 0.05 and sequence_ever <= 0.05 and sequence <= 0.05


def test_the_rule_on_a_tally_is_the_verdicts_statuses() -> None:
    """`tally_statuses` (the stopping rule, pure) gives what `analysis.verdicts` judges, tally by tally."""
    rng = np.random.default_rng(7)
    seen = set()
    for _ in range(150):
        n = int(np.exp(rng.uniform(np.log(100), np.log(30_000))))
        shift = rng.choice([0.0, 0.01, 0.02, 0.04, 0.1])
        p = np.array([FAIR + shift, FAIR - shift / 2, FAIR - shift / 2])
        c = tally_of(rng.multinomial(n, p))
        margins = Margins(seats=float(rng.choice([0.02, 0.05])), start=float(rng.choice([0.01, 0.03])),
                          asked=("seats", "start"))
        statuses = tally_statuses(c, margins)
        verdicts = [seat_verdict(c, FAIR, margins), start_verdict(c, FAIR, margins)]
        assert statuses == {v.key: v.status for v in verdicts}
        assert decided(statuses) == all_decided(verdicts)
        seen |= set(statuses.values())
    assert {WITHIN, BEYOND, UNDECIDED, TOO_FEW} <= seen


def test_the_plan_is_where_the_seat_intervals_reach_the_margin() -> None:
    c = tally_of(np.array([3000, 3000, 3000]))
    planned = games_if_no_difference(c, MARGINS)
    # at the plan, equal seats are judged within the margin; a little before it, not yet
    assert tally_statuses(tally_of(np.full(3, planned // 3 + 1)), MARGINS)["seats"] == WITHIN
    assert tally_statuses(tally_of(np.full(3, int(planned * 0.9) // 3)), MARGINS)["seats"] == UNDECIDED
    assert 5_000 < planned < 30_000


# ---- the loop ---------------------------------------------------------------------------------------------
class Synthetic:
    """A run of synthetic games for the loop: play_to draws the missing games, judge gives the seat and
    start verdicts of the tally, the clock moves 1 ms a game."""

    def __init__(self, p: list[float], seed: int) -> None:
        self.p, self.rng = p, np.random.default_rng(seed)
        self.wins = np.zeros(3, dtype=np.int64)
        self.targets: list[int] = []
        self.now = 0.0

    def play_to(self, games: int) -> int:
        self.targets.append(games)
        more = max(0, games - int(self.wins.sum()))
        self.wins += self.rng.multinomial(more, self.p)
        self.now += 0.001 * more
        return more

    def judge(self) -> list:
        c = tally_of(self.wins)
        return [seat_verdict(c, FAIR, MARGINS), start_verdict(c, FAIR, MARGINS)]

    def plan(self) -> int:
        return games_if_no_difference(tally_of(self.wins), MARGINS)

    def clock(self) -> float:
        return self.now


def _loop(run: Synthetic, cap: int, minutes: float | None = None) -> tuple:
    lines: list[str] = []
    done = play_until_decided(run.play_to, run.judge, cap, minutes, lines.append, first=1000, plan=run.plan,
                              clock=run.clock)
    return done, lines


@pytest.mark.parametrize("p, seed", [([FAIR] * 3, 1), ([FAIR + 0.05, FAIR - 0.025, FAIR - 0.025], 2)])
def test_the_loop_stops_once_decided_growing_at_most_by_growth_most(p: list[float], seed: int) -> None:
    run = Synthetic(p, seed)
    done, lines = _loop(run, 60_000)
    assert done.reason == "decided" and done.decided and all_decided(done.verdicts)
    assert run.targets[0] == 1000 and done.looks == run.targets and done.games == run.targets[-1]
    assert all(b <= GROWTH_MOST * a and b > a for a, b in zip(run.targets, run.targets[1:], strict=False))
    assert done.played == done.games == int(run.wins.sum()) and done.rounds == len(run.targets)
    # the look before the last was undecided: it stopped at its first decided look
    assert decided(tally_statuses(tally_of(run.wins), MARGINS))
    # the plan once, then per round a header and one line per verdict (status, estimate, interval)
    assert sum(line.startswith("until decided: plan:") for line in lines) == 1
    assert sum(line.startswith("until decided: ") and "after round" in line for line in lines) == done.rounds
    verdict_lines = [line for line in lines if line.startswith(("  seats ", "  start "))]
    assert len(verdict_lines) == 2 * done.rounds
    assert all(re.search(r"[+-]\d+\.\d pp \[[+-]\d+\.\d+, [+-]\d+\.\d+\]", line) for line in verdict_lines)
    assert lines[-1].startswith("until decided: stopped: every verdict decided")


def test_a_resumed_loop_says_its_first_games_were_already_there() -> None:
    """Run again after Ctrl-C, the first look finds the kept games: no pace is claimed for them."""
    run = Synthetic([FAIR] * 3, 6)
    run.play_to(1500)
    done, lines = _loop(run, 60_000)
    rounds = [line for line in lines if "after round" in line]
    assert rounds[0].startswith("until decided: 1,500 games after round 1 (1,500 already there; ")
    assert "games/s" in rounds[1] and done.looks[0] == 1500


def test_the_loop_stops_at_the_games_cap_and_the_time_cap() -> None:
    edge = [FAIR + MARGIN, FAIR - MARGIN / 2, FAIR - MARGIN / 2]  # never decided in expectation
    run = Synthetic(edge, 3)
    done, lines = _loop(run, 5_000)
    assert done.reason == "games cap" and done.games == 5_000 and max(run.targets) == 5_000
    assert "games cap (5,000) reached" in lines[-1]
    run = Synthetic(edge, 4)  # 1 ms a game: a 0.5 minute cap holds about 30,000 games
    done, lines = _loop(run, 10_000_000, minutes=0.5)
    assert done.reason == "time cap" and run.now <= 30.01 and done.games >= 20_000
    assert "time cap (0.5 min) reached" in lines[-1]


def test_next_target_follows_the_undecided_verdicts_needs() -> None:
    run = Synthetic([FAIR + 0.01, FAIR - 0.005, FAIR - 0.005], 5)
    run.play_to(4000)
    verdicts = run.judge()
    soon = max(v.soon for v in verdicts if not v.decided)
    target = next_target(verdicts, 4000, 60_000)
    least, most = GROWTH_LEAST * 4000, GROWTH_MOST * 4000
    assert least <= target <= most and (target == most or 0 <= target - max(soon, least) < 100)
    assert next_target(verdicts, 4000, 5000) == 5000  # never past the cap


@pytest.mark.parametrize("cap, minutes, word", [(100, None, "--games"), (MIN_GAMES - 1, None, "--games"),
                                                (1000, 0.0, "--minutes"), (1000, -2.0, "--minutes"),
                                                (1000, float("nan"), "--minutes")])
def test_caps_that_cannot_work_are_refused(cap: int, minutes: float | None, word: str) -> None:
    with pytest.raises(ConfigError, match=word):
        check_caps(cap, minutes)


# ---- the commands -----------------------------------------------------------------------------------------
def balance(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "sim", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=900)


def one_line(done: subprocess.CompletedProcess, *words: str) -> None:
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and all(w in done.stderr for w in words), done.stderr


def test_simulate_until_decided_stops_decided_with_the_tables_of_a_plain_run(tmp_path: Path) -> None:
    out, plain = tmp_path / "until", tmp_path / "plain"
    done = balance("simulate", KAMAKURA, "--players", "3", "--agents", "greedy", "--until-decided",
                   "--games", "8000", "--margin", "2", "--questions", "all", "--jobs", "1", "--seed", "5",
                   "--out", str(out))
    assert done.returncode == 0, done.stderr
    stopped = re.search(r"until decided: every verdict decided at ([\d,]+) games", done.stdout)
    assert stopped, done.stdout
    games = int(stopped.group(1).replace(",", ""))
    assert MIN_GAMES <= games < 8000
    # the summary with its verdicts, on stdout; the plan and the verdicts round by round, on stderr
    assert "Seats: unfair" in done.stdout and "Start player (seat 0):" in done.stdout
    assert f"{games:,} games" in done.stdout.splitlines()[0]
    assert "until decided: plan:" in done.stderr and re.search(r"^  seats +unfair", done.stderr, re.M)
    assert "until decided: stopped: every verdict decided" in done.stderr
    # the stopping rule on the run's tally agrees with the verdicts it printed
    run = read_run_tally(out)
    margins = parse_margins("2", "all")
    statuses = tally_statuses(run.common, margins, run.own.get("rescore"))
    assert statuses == {v.key: v.status for v in run_verdicts(run, margins) if v.status != "info"}
    assert decided(statuses) and set(statuses) == {"seats", "start", "tiebreak"}
    made = balance("simulate", KAMAKURA, "--players", "3", "--agents", "greedy", "--games", str(games),
                   "--jobs", "2", "--seed", "5", "--out", str(plain), "--quiet")
    assert made.returncode == 0, made.stderr
    assert_same_tables(out, plain)
    # again: decided already, nothing played
    again = balance("simulate", KAMAKURA, "--players", "3", "--agents", "greedy", "--until-decided",
                    "--games", "8000", "--margin", "2", "--jobs", "1", "--seed", "5", "--out", str(out),
                    "--quiet")
    assert again.returncode == 0 and f"decided at {games:,} games, 1 round(s); 0 games played" in again.stdout


def test_profile_until_decided_plays_each_level_to_its_caps(tmp_path: Path) -> None:
    out = tmp_path / "profile"
    args = ("profile", KAMAKURA, "--players", "3", "--levels", "random,greedy", "--until-decided", "--games",
            "2000", "--margin", "2", "--jobs", "1", "--out", str(out))
    done = balance(*args)
    assert done.returncode == 0, done.stderr
    line = next(line for line in done.stdout.splitlines() if line.startswith("until decided: "))
    found = re.findall(r"(random|greedy) (?:decided|undecided at the games cap) at ([\d,]+) games", line)
    counts = dict(found)
    assert set(counts) == {"random", "greedy"}, line
    paired = re.search(r"stable at the top (?:decided|undecided at the games cap) at ([\d,]+) paired games",
                       line)
    assert paired, line  # then the two top levels play on together, on the same deals
    paired_games = int(paired.group(1).replace(",", ""))
    for level, games in counts.items():
        assert 1000 <= int(games.replace(",", "")) <= paired_games <= 2000
        assert read_run_tally(out / level).n_games == paired_games
    assert "[1/2] random: until every verdict is decided" in done.stderr
    assert (out / "report" / "index.html").is_file()
    again = balance(*args, "--quiet")
    assert again.returncode == 0 and "2 levels (2 finished already), 0 games played" in again.stdout


@pytest.mark.parametrize("extra, words", [
    (("--until-decided", "--minutes", "0"), ("--minutes",)),
    (("--until-decided", "--minutes", "-3"), ("--minutes",)),
    (("--until-decided", "--games", "150"), ("--games", str(MIN_GAMES))),
    (("--games", "500", "--minutes", "5"), ("--minutes", "--until-decided")),
    ((), ("--games",)),
])
def test_simulate_refuses_bad_caps_in_one_line(extra: tuple[str, ...], words: tuple[str, ...],
                                               tmp_path: Path) -> None:
    one_line(balance("simulate", KAMAKURA, "--players", "3", *extra, "--out", str(tmp_path / "run")), *words)
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("extra, words", [
    (("--until-decided", "--minutes", "0"), ("--minutes",)),
    (("--until-decided", "--games", "199"), ("--games",)),
])
def test_profile_refuses_bad_caps_in_one_line(extra: tuple[str, ...], words: tuple[str, ...],
                                              tmp_path: Path) -> None:
    one_line(balance("profile", KAMAKURA, "--players", "3", *extra, "--out", str(tmp_path / "p")), *words)
    assert not (tmp_path / "p").exists()


def test_a_progress_line_never_shows_a_decisive_bound_on_the_margin() -> None:
    """The 4-player start player decided "unfair ... [-6.8, -2.0]": its upper bound lay just below -2 pp,
    and the line rounded it onto the margin it had decided against; it shows "-2.03" now."""
    from analysis.verdicts import Verdict

    decided = Verdict("start", "?", BEYOND, "...", value=-0.044, low=-0.0681, high=-0.02031, unit="pp",
                      margin=0.02, n=3600)
    [line] = progress_lines([decided])
    assert "-4.4 pp [-6.9, -2.03], decided" in line, line
