"""A fixed number of games that takes long says its plan first (sim/app/plain_run.py): `balance simulate`,
`compare` and `profile` without --until-decided time their first games, then say "Plan: N games by ...,
about T at R measured on the first M games" before the rest is played, and progress lines as chunks land;
a quick run says no plan; the first batch is the run's own first games, so the tables are those of the
same run without it.

The agents are slowed by a known sleep a game (RunPlan.play wrapped in this process, `--jobs 1`: every
chunk plays here), and the plan's threshold and the lines' spacing are lowered, so that a run of seconds
stands for one of minutes; nothing here asserts a time."""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path

import pytest

from sim.app import plain_run
from sim.app.runner import RunPlan
from sim.commands import main
from storage.run_dir import RunDirectory
from tests.test_runner import KAMAKURA, assert_same_tables

VARIANT = str(Path(KAMAKURA).parent / "tie-shared.toml")
#: a searching agent at a few iterations: chunks of 10 games, a first batch of 10 on one lane
AGENT = "mcts:iters=4"
SLEEP = 0.02  # seconds added to each game
PLAN = re.compile(r"^Plan: ([\d,]+) games( \(([\d,]+) of each config\))? by (.+), about \d+ (s|min|h) at "
                  r"[\d.,]+ (games/s|s a game) measured on the first ([\d,]+) games$")


class Said:
    """stderr line by line, each with the games the watched run directories held when it was written."""

    def __init__(self, *runs: Path) -> None:
        self.runs, self.lines = runs, []

    def write(self, text: str) -> int:
        for line in text.splitlines():
            if line.strip():
                self.lines.append((line, sum(RunDirectory(run).finished_total() for run in self.runs)))
        return len(text)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False

    def text(self) -> str:
        return "\n".join(line for line, _ in self.lines)


@pytest.fixture(scope="module")
def warm(tmp_path_factory: pytest.TempPathFactory) -> None:
    """The kernels loaded in this process before any run is slowed."""
    where = tmp_path_factory.mktemp("warm")
    assert main(["simulate", KAMAKURA, "--players", "3", "--agents", AGENT, "--games", "2", "--jobs", "1",
                 "--out", str(where / "run"), "--quiet"]) == 0


@pytest.fixture
def slow(warm: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every game SLEEP seconds longer; a run said long from a second on, a progress line per chunk."""
    original = RunPlan.play

    def play(self: RunPlan, start: int, end: int) -> dict[str, bytes]:
        out = original(self, start, end)
        time.sleep(SLEEP * (end - start))
        return out

    monkeypatch.setattr(RunPlan, "play", play)
    monkeypatch.setattr(plain_run, "PLAN_SECONDS", 1.0)
    monkeypatch.setattr(plain_run, "EVERY", 0.0)


def said(monkeypatch: pytest.MonkeyPatch, argv: list[str], *runs: Path) -> Said:
    lines = Said(*runs)
    monkeypatch.setattr(sys, "stderr", lines)
    assert main(argv) == 0, lines.text()
    return lines


def assert_planned(lines: Said, games: int, who: str, progress: str) -> None:
    """One plan line, said when the runs held only the first batch, naming the games, the players and the
    first batch; then at least one progress line of the games in all."""
    plans = [(i, line, held) for i, (line, held) in enumerate(lines.lines)
             if line.startswith("Plan:") and f" by {who}, " in line]
    assert len(plans) == 1, lines.text()
    at, line, held = plans[0]
    found = PLAN.match(line)
    assert found, line
    assert int(found.group(1).replace(",", "")) == games and found.group(4) == who
    assert held == int(found.group(7).replace(",", "")) < games, lines.text()  # before the rest is played
    after = [line for line, _ in lines.lines[at + 1:]]
    shown = [line for line in after if re.match(rf"{re.escape(progress)}: [\d,]+ of {games:,} games played "
                                                r"now, \d+ s, about \d+ (s|min) left$", line)]
    assert shown, lines.text()


def test_a_long_simulate_says_its_plan_then_progress(slow: None, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "run"
    lines = said(monkeypatch, ["simulate", KAMAKURA, "--players", "3", "--agents", AGENT, "--games", "150",
                               "--jobs", "1", "--out", str(out)], out)
    assert_planned(lines, 150, f"{AGENT} in every seat", "kamakura")


def test_a_long_compare_says_its_plan_then_progress(slow: None, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "cmp"
    lines = said(monkeypatch, ["compare", KAMAKURA, VARIANT, "--players", "3", "--agents", AGENT, "--games",
                               "80", "--jobs", "1", "--out", str(out)], out / "base", out / "variant")
    assert_planned(lines, 160, f"{AGENT} in every seat", "compare")
    assert "(80 of each config)" in lines.text()


def test_a_long_profile_level_says_its_plan_then_progress(slow: None, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "profile"
    lines = said(monkeypatch, ["profile", KAMAKURA, "--players", "3", "--levels", f"{AGENT},mcts:iters=8",
                               "--games", "80", "--jobs", "1", "--out", str(out)], out / "mcts-iters-4")
    assert_planned(lines, 80, f"{AGENT} in every seat", f"[1/2] {AGENT}")


def test_a_quick_run_says_no_plan(warm: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "quick"
    lines = said(monkeypatch, ["simulate", KAMAKURA, "--players", "3", "--agents", "random", "--games", "300",
                               "--jobs", "1", "--out", str(out)], out)
    assert "Plan:" not in lines.text() and "played now" not in lines.text(), lines.text()


def test_the_first_batch_is_the_runs_own_first_games(warm: None, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """Planned (a first batch timed) or --quiet (none), from nothing or resumed: the same tables; the
    games counted as played now, those there before as there."""
    monkeypatch.setattr(plain_run, "PLAN_SECONDS", 0.0)  # every run that times a first batch says its plan
    common = ["simulate", KAMAKURA, "--players", "3", "--agents", AGENT, "--seed", "7", "--jobs", "1"]
    planned, quiet, resumed = tmp_path / "planned", tmp_path / "quiet", tmp_path / "resumed"
    lines = said(monkeypatch, [*common, "--games", "120", "--out", str(planned)], planned)
    assert "Plan:" in lines.text()
    assert len(RunDirectory(planned).read_manifest().sessions) == 2  # the first batch, then the rest
    assert main([*common, "--games", "120", "--quiet", "--out", str(quiet)]) == 0
    assert len(RunDirectory(quiet).read_manifest().sessions) == 1
    assert_same_tables(planned, quiet)
    assert main([*common, "--games", "30", "--quiet", "--out", str(resumed)]) == 0
    capsys.readouterr()
    lines = said(monkeypatch, [*common, "--games", "120", "--out", str(resumed)], resumed)
    assert "(30 already there)" in lines.text()
    assert capsys.readouterr().out.startswith("90 games played (30 were already there)")
    assert_same_tables(planned, resumed)
