"""`balance summary` of a strength run (different agents in the seats) leads with the agents' shares, each
with n and its 95% interval, before the seat verdict; a self-play run keeps its seat verdict first."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from analysis.run_tally import read_run_tally
from analysis.summary_text import format_run
from sim.app.runner import plan_run, simulate

ROOT = Path(__file__).resolve().parents[1]
BASE = ROOT / "configs" / "kamakura" / "base.toml"


@pytest.fixture(scope="module")
def strength_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("strength") / "run"
    simulate(plan_run(BASE, 3, "greedy,random,random", 4, rotate_seats=True), 60, out, jobs=1)
    return out


def test_a_strength_run_leads_with_the_agents_shares(strength_run: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "sim", "summary", str(strength_run)], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    lines = [line.strip() for line in done.stdout.splitlines()]
    lead = lines[1]
    share = r"\d+\.\d% \[[\d.]+, [\d.]+\]"
    assert re.match(rf"Agents: greedy \(1 seat of 3\) wins {share} of games, above its fair share of 33\.3%; "
                    rf"random \(2 seats of 3\) wins {share} of games, below its fair share of 66\.7%\. "
                    r"n = 60 games \(", lead), lead
    assert "summed game by game, so a game counts once" in lead
    assert lines[2].startswith("agent ") and lines[3].startswith("greedy ")  # the agents' table follows
    first_seats = next(i for i, line in enumerate(lines) if line.startswith("Seats:"))
    assert first_seats > 3 and not any(line.startswith("agent ") for line in lines[first_seats:])


def test_self_play_keeps_the_seat_verdict_first(tmp_path: Path) -> None:
    out = tmp_path / "run"
    simulate(plan_run(BASE, 3, "random", 4, rotate_seats=False), 30, out, jobs=1)
    lines = format_run(read_run_tally(out)).splitlines()
    assert lines[1].strip().startswith("Seats: ") and "Agents:" not in "\n".join(lines)


def test_unrotated_seats_say_the_share_carries_the_seats(tmp_path: Path) -> None:
    out = tmp_path / "run"
    simulate(plan_run(BASE, 3, "greedy,random,random", 4, rotate_seats=False), 30, out, jobs=1)
    lead = format_run(read_run_tally(out)).splitlines()[1]
    assert lead.strip().startswith("Agents: greedy (1 seat of 3) wins ")
    assert "the seats were not rotated, so each agent's share carries its seats' advantage too" in lead
