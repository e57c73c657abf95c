"""Time caps held, plans printed.

With `--minutes M` no round starts that the time left cannot pay for at the pace of the level being
played, measured on that level's own games: simulate, compare, the sheet (its "stable at the top" stage
too) and values end within M plus 10%, plus a fixed allowance for what is outside the rounds. The agents
are slowed here by a known sleep a game (RunPlan.play and ValuesPlan.play wrapped in this process,
`--jobs 1`: every chunk plays in this process), so a cap of a few seconds holds a few hundred games and
the test takes seconds; the kernels are loaded before any clock starts (a first compile of the kernels is
announced by the command and is not a pace).

The allowance, ALLOWANCE seconds: what a command does outside its rounds, which no pace can size — before
the first round, reading the config and planning (well under a second here, the imports and kernels
being loaded already); after the last look, printing the verdicts, and for the sheet and compare writing
their HTML reports (one to two seconds each on this machine; the sheet writes one per table and one of
its own). Measured end to end on these runs it stayed under 4 s; 6 s leaves room for a busy machine.
"""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from analysis.tally import SHARE_SCALE
from analysis.verdicts import Margins, seat_verdict
from sim.app.rounds import play_in_rounds
from sim.app.runner import RunPlan
from sim.app.until_decided import play_until_decided, progress_lines, verdict_seat
from sim.app.values_run import ValuesPlan
from sim.commands import main
from sim.commands.playing import ProgressLines
from tests.test_runner import KAMAKURA

ROOT = Path(__file__).resolve().parents[1]
VARIANT = str(ROOT / "configs" / "kamakura" / "tie-shared.toml")
#: seconds a game added to each agent's own (the levels of the sheet test differ twentyfold)
SLOW = {"random": 0.001, "greedy": 0.02}
#: seconds a base game added in a values run (about a hundred games each)
VALUES_SLOW = 0.15
ALLOWANCE = 6.0


def _slowed(original, per_game):
    def play(self, start: int, end: int):
        out = original(self, start, end)
        time.sleep(per_game(self) * (end - start))
        return out
    return play


@pytest.fixture(scope="module")
def warm(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Load every kernel these tests play in this process, before any clock starts."""
    where = tmp_path_factory.mktemp("warm")
    for agent in SLOW:
        assert main(["simulate", KAMAKURA, "--players", "3", "--agents", agent, "--games", "10",
                     "--jobs", "1", "--out", str(where / agent), "--quiet"]) == 0
    assert main(["values", KAMAKURA, "--players", "3", "--agents", "greedy", "--games", "1", "--jobs", "1",
                 "--out", str(where / "values"), "--quiet"]) == 0


@pytest.fixture
def slow(warm: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(RunPlan, "play", _slowed(RunPlan.play, lambda plan: SLOW[plan.agents[0]]))
    monkeypatch.setattr(ValuesPlan, "play", _slowed(ValuesPlan.play, lambda plan: VALUES_SLOW))


class Lines:
    """stderr, line by line, each with the time it was written."""

    def __init__(self) -> None:
        self.lines: list[tuple[float, str]] = []
        self.start = time.monotonic()

    def write(self, text: str) -> int:
        for line in text.splitlines():
            if line.strip():
                self.lines.append((time.monotonic() - self.start, line))
        return len(text)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False

    def text(self) -> str:
        return "\n".join(line for _, line in self.lines)


def timed(monkeypatch: pytest.MonkeyPatch, *argv: str) -> tuple[float, Lines]:
    lines = Lines()
    monkeypatch.setattr(sys, "stderr", lines)
    start = time.monotonic()
    assert main(list(argv)) == 0, lines.text()
    seconds = time.monotonic() - start
    print(f"{argv[0]}: {seconds:.1f} s\n{lines.text()}")  # shown with -s: the figures of the report
    return seconds, lines


def held(seconds: float, minutes: float, lines: Lines) -> None:
    assert seconds <= 1.1 * 60 * minutes + ALLOWANCE, f"{seconds:.1f} s for {minutes} min:\n{lines.text()}"


# ---- the commands, slowed ---------------------------------------------------------------------------------
def test_simulate_ends_within_its_time_cap_and_prices_its_first_round(
        slow: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    minutes = 0.1  # 6 s: about 300 slowed greedy games, where the first round alone would be 1,000 (20 s)
    seconds, lines = timed(monkeypatch, "simulate", KAMAKURA, "--players", "3", "--agents", "greedy",
                           "--until-decided", "--minutes", str(minutes), "--jobs", "1", "--out",
                           str(tmp_path / "run"))
    held(seconds, minutes, lines)
    text = lines.text()
    assert "until decided: timing a first batch of 100 games" in text
    first = re.search(r"until decided: round 1 to ([\d,]+) games, about", text)
    assert first and int(first.group(1).replace(",", "")) < 1000, text
    assert "until decided: stopped: the time cap (0.1 min) reached" in text


def test_compare_ends_within_its_time_cap(slow: None, tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    minutes = 0.1
    seconds, lines = timed(monkeypatch, "compare", KAMAKURA, VARIANT, "--players", "3", "--agents", "greedy",
                           "--until-decided", "--minutes", str(minutes), "--jobs", "1", "--out",
                           str(tmp_path / "cmp"))
    held(seconds, minutes, lines)
    assert "time cap (0.1 min) reached" in lines.text()


def test_the_sheet_ends_within_its_time_cap_each_level_at_its_own_pace(
        slow: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The two levels differ twentyfold: the stable-at-the-top stage prices the slow level's games at the
    slow level's pace, not at the cheap one's."""
    minutes = 0.25
    seconds, lines = timed(monkeypatch, "sheet", KAMAKURA, "--players", "3", "--levels", "random,greedy",
                           "--minutes", str(minutes), "--jobs", "1", "--out", str(tmp_path / "sheet"))
    held(seconds, minutes, lines)
    assert "stable at the top (random -> greedy)" in lines.text()


def test_values_ends_within_its_time_cap(slow: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    minutes = 0.1
    seconds, lines = timed(monkeypatch, "values", KAMAKURA, "--players", "3", "--agents", "greedy",
                           "--games", "900", "--minutes", str(minutes), "--jobs", "1", "--out",
                           str(tmp_path / "values"))
    held(seconds, minutes, lines)
    assert "values: stopped: the time cap (0.1 min) reached" in lines.text()


def test_values_says_its_plan_with_an_estimate_before_the_long_play(slow: None, tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """900 slowed base games would take minutes: the plan (games and time) comes within seconds, after a
    first timed batch, before any long round; then a line a round."""
    lines = Lines()
    monkeypatch.setattr(sys, "stderr", lines)
    assert main(["values", KAMAKURA, "--players", "3", "--agents", "greedy", "--games", "900", "--minutes",
                 "0.15", "--jobs", "1", "--out", str(tmp_path / "values")]) == 0
    said = [line for _, line in lines.lines]
    plan = next(i for i, line in enumerate(said) if line.startswith("values: plan:"))
    assert re.search(r"values: plan: 890 more base games to 900, about \d+ (s|min)", said[plan]), said[plan]
    when = lines.lines[plan][0]
    assert when < 10, lines.text()
    progress = [i for i, line in enumerate(said) if re.match(r"values: [\d,]+ of 900 base games", line)]
    assert progress and min(progress) > plan


# ---- the loop ---------------------------------------------------------------------------------------------
def tally_of(wins: np.ndarray) -> dict:
    n = int(wins.sum())
    units = np.asarray(wins, dtype=np.int64) * SHARE_SCALE
    return {"games": n, "seat_games": np.full(len(wins), n, dtype=np.int64), "seat_units": units,
            "seat_squares": units * SHARE_SCALE, "ties": np.zeros(3, dtype=np.int64),
            "sizes": {str(len(wins)): n}}


class Slow:
    """Synthetic games on a clock: `pace` seconds a game (per level: the first `cheap` games of the run cost
    `cheap_pace`, as the fill-in of another level would), fair seats, seat verdicts."""

    def __init__(self, pace: float, seed: int = 1) -> None:
        self.pace, self.rng = pace, np.random.default_rng(seed)
        self.wins = np.zeros(3, dtype=np.int64)
        self.now, self.targets = 0.0, []

    def play_to(self, games: int) -> int:
        self.targets.append(games)
        more = max(0, games - int(self.wins.sum()))
        self.wins += self.rng.multinomial(more, [1 / 3] * 3)
        self.now += self.pace * more + 0.05  # a round's start-up
        return more

    def judge(self) -> list:
        self.now += 0.02
        return [seat_verdict(tally_of(self.wins), 1 / 3, Margins(seats=0.02, asked=("seats",)))]


@pytest.mark.parametrize("pace, minutes", [(0.05, 0.2), (0.5, 0.5), (0.002, 0.05)])
def test_the_loop_never_starts_a_round_the_cap_cannot_pay_for(pace: float, minutes: float) -> None:
    run = Slow(pace)
    lines: list[str] = []
    done = play_until_decided(run.play_to, run.judge, 10_000_000, minutes, lines.append, first=1000,
                              probe=10, clock=lambda: run.now)
    assert done.reason == "time cap" and run.now <= 1.1 * 60 * minutes, (run.now, lines)
    assert run.targets[0] == 10  # the first batch, timed, then the first round sized by it
    assert lines[0].startswith("until decided: timing a first batch of 10 games")


def test_the_loop_prices_a_round_at_the_callers_per_level_cost() -> None:
    """The loop's own pace can be misled (a stage whose first round was cheap fill-in): a caller's cost,
    each level at its own pace, is believed when it is the slower."""
    run = Slow(0.001)
    dear = 0.05  # what the games really cost from the second round on

    def play_to(games: int) -> int:
        more = run.play_to(games)
        if len(run.targets) > 1:
            run.now += (dear - 0.001) * more
        return more

    lines: list[str] = []
    done = play_until_decided(play_to, run.judge, 10_000_000, 0.2, lines.append, first=1000,
                              clock=lambda: run.now, cost=lambda n: dear * max(0, n - int(run.wins.sum())))
    assert done.reason == "time cap" and run.now <= 1.1 * 12, (run.now, lines)


def test_rounds_of_a_fixed_count_hold_the_cap_and_say_the_plan_first() -> None:
    state = {"have": 0, "now": 0.0}

    def play_to(n: int) -> int:
        more = max(0, n - state["have"])
        state["have"] += more
        state["now"] += 0.3 * more + 0.1
        return more

    lines: list[str] = []
    done = play_in_rounds(play_to, lambda: state["have"], 900, minutes=0.5, say=lines.append, probe=2,
                          clock=lambda: state["now"])
    assert done.capped and state["now"] <= 33 and 50 < done.games < 100
    assert lines[0].startswith("values: timing a first batch of 2 base games")
    assert lines[1].startswith("values: plan: 898 more base games to 900, about")
    assert lines[-1].startswith("values: stopped: the time cap (0.5 min)")


# ---- the progress lines name their seat ------------------------------------------------------------------
def test_a_progress_line_names_the_seat_its_figure_is_for() -> None:
    wins = np.array([1500, 1200, 1300])
    verdict = seat_verdict(tally_of(wins), 1 / 3, Margins(seats=0.02, asked=("seats",)))
    seat = verdict_seat(verdict)
    assert seat == 0
    line = progress_lines([verdict])[0]
    assert re.search(r"^  seats +\w.*: seat 0 [+-]\d+\.\d pp \[", line), line


# ---- a long run off a terminal is never silent -----------------------------------------------------------
def test_off_a_terminal_a_long_run_says_a_line_every_ten_seconds(capsys: pytest.CaptureFixture[str]) -> None:
    now = [0.0]
    lines = ProgressLines("kamakura", 1000, "games", clock=lambda: now[0])
    for _ in range(10):  # a chunk of 100 games every 4 s
        now[0] += 4
        lines(100)
    said = capsys.readouterr().err.splitlines()
    assert said == ["kamakura: 300 of 1,000 games played now, 12 s, about 28 s left",
                    "kamakura: 600 of 1,000 games played now, 24 s, about 16 s left",
                    "kamakura: 900 of 1,000 games played now, 36 s, about 4 s left"], said
