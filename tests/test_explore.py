"""`balance explore` (sim/design/explore.py): the same archive at --jobs 1 and 2, the same archive after a
kill and a rerun, bad [explore] tables refused by file and key with exit status 2 and nothing written, and
the archive's objective equal to one computed by hand from the design's play_chunk statistics."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pytest

from analysis.stats import seat_deviation
from sim.commands import main
from sim.core.agent_spec import parse_agents
from sim.core.config import load_toml
from sim.design.component_balance import SHARE_SCALE
from sim.design.explore import load_explore
from sim.design.files import validate
from sim.design.overrides import apply_overrides
from sim.design.trial_games import play_chunk

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "configs" / "tunes" / "kamakura-3p-chit-points-explore.toml"
GAMES, BATCH, BATCHES = 40, 4, 6


def _explore_file(folder: Path, explore: str | None = None, batches: int = BATCHES) -> Path:
    """The shipped example's space at a small budget: the base's games and `batches` batches."""
    text = EXAMPLE.read_text().replace('"../kamakura/base.toml"',
                                       json.dumps(str(ROOT / "configs" / "kamakura" / "base.toml")))
    head, _ = text.split("[explore]", 1)
    head = head.replace("budget = 60000", f"budget = {GAMES * (1 + BATCH * batches)}")
    head = head.replace("tolerance = 0.02", "tolerance = 0.1")  # 40 games a design: elites at 10 pp
    table = explore if explore is not None else (
        f'measures = ["length", "ties"]\ncells = [5, 4]\nranges = {{length = [25, 40], ties = [0.0, 0.3]}}\n'
        f"games = {GAMES}\nbatch = {BATCH}\nelites = 3\n")
    path = folder / "small-explore.toml"
    path.write_text(head + "[explore]\n" + table)
    return path


def _rows(out: Path) -> list[tuple]:
    with sqlite3.connect(out / "archive.db") as db:
        return db.execute("SELECT * FROM designs ORDER BY iteration, slot").fetchall()


def _elites(out: Path) -> dict[str, str]:
    return {p.name: p.read_text() for p in sorted(out.glob("elite-*.toml"))}


@pytest.fixture(scope="module")
def straight(tmp_path_factory) -> tuple[Path, Path]:
    """An explore run once, uninterrupted, at --jobs 1: (its file, its folder)."""
    folder = tmp_path_factory.mktemp("explore")
    file = _explore_file(folder)
    out = folder / "straight"
    assert main(["explore", str(file), "--jobs", "1", "--out", str(out), "--quiet"]) == 0
    return file, out


def test_jobs_1_and_2_give_the_same_archive(straight, tmp_path) -> None:
    file, out = straight
    rows = _rows(out)
    assert len({r[0] for r in rows}) == BATCHES and len(rows) == BATCH * BATCHES
    assert 1 <= len(_elites(out)) <= 3
    if (os.cpu_count() or 1) < 2:
        pytest.skip("--jobs 2 needs two cores")
    other = tmp_path / "two"
    assert main(["explore", str(file), "--jobs", "2", "--out", str(other), "--quiet"]) == 0
    assert _rows(other) == rows
    assert _elites(other) == _elites(out)


def _batches(out: Path) -> int:
    try:
        with sqlite3.connect(out / "archive.db", timeout=1) as db:
            return db.execute("SELECT COUNT(DISTINCT iteration) FROM designs").fetchone()[0]
    except sqlite3.Error:  # not made yet, or its tables not yet
        return 0


def test_a_killed_explore_resumes_to_the_same_archive(straight, tmp_path) -> None:
    file, out = straight
    killed = tmp_path / "killed"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "sim", "explore", str(file), "--jobs", "1", "--out",
                             str(killed), "--quiet"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 300
        while _batches(killed) < 1 and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert proc.poll() is None, "the explore ended before it could be killed"
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert 1 <= _batches(killed) < BATCHES
    assert main(["explore", str(file), "--jobs", "1", "--out", str(killed), "--quiet"]) == 0
    assert _rows(killed) == _rows(out)
    assert _elites(killed) == _elites(out)


def test_the_objective_is_the_largest_seat_deviation_of_the_designs_games(straight) -> None:
    file, out = straight
    tune, settings = load_explore(file)
    space = tune.search_space
    with sqlite3.connect(out / "archive.db") as db:
        design, seat_dev, objective, length, games = db.execute(
            "SELECT design, seat_dev, objective, length, games FROM designs WHERE valid = 1 AND played > 0 "
            "ORDER BY iteration, slot LIMIT 1 OFFSET 2").fetchone()
    values = json.loads(design)
    config = apply_overrides(space.base, {d.path: v for d, v in zip(space.dimensions, values, strict=True)},
                             "test")
    rules = validate(tune.spec, config, tune.players, "test")
    agents = tuple(str(a) for a in parse_agents(tune.agents, tune.players, tune.spec))
    stats = play_chunk(tune.spec, rules, agents, tune.seed, 0, settings.games)
    by_hand = max(abs(w / SHARE_SCALE / stats["games"] - 1 / tune.players) for w in stats["wins"])
    assert games == stats["games"] == GAMES
    assert seat_dev == pytest.approx(by_hand, abs=1e-12) and objective == -seat_dev
    assert seat_dev == seat_deviation([w / SHARE_SCALE for w in stats["wins"]], games)["value"]
    assert length == stats["length_sum"] / games


def test_an_elite_extends_the_base_with_the_keys_it_changes(straight) -> None:
    file, out = straight
    tune, _ = load_explore(file)
    space = tune.search_space
    summary = json.loads((out / "summary.json").read_text())
    with sqlite3.connect(out / "archive.db") as db:
        for elite in summary["elites"]:
            data = tomllib.loads(Path(elite["file"]).read_text())
            assert "extends" in data and len(data) == 2 + elite["changed"]  # extends, description, keys
            (design,) = db.execute("SELECT design FROM designs WHERE iteration = ? AND slot = ?",
                                   (elite["iteration"], elite["slot"])).fetchone()
            values = json.loads(design)
            want = apply_overrides(space.base, {d.path: v for d, v in zip(space.dimensions, values,
                                                                           strict=True)}, "test")
            merged, _ = load_toml(elite["file"])
            assert {k: v for k, v in merged.items() if k != "description"} == \
                {k: v for k, v in want.items() if k != "description"}
            assert "within the 10 pp tolerance by its point estimate, not confirmed" in elite["sentence"]


def test_a_finished_explore_run_again_plays_nothing(straight, capsys) -> None:
    file, out = straight
    before = _rows(out)
    assert main(["explore", str(file), "--jobs", "1", "--out", str(out)]) == 0
    printed = capsys.readouterr()
    assert "0 played now" in printed.out and "resumed:" in printed.err
    assert _rows(out) == before


@pytest.mark.parametrize(("table", "key", "words"), [
    ('mesures = ["length"]\n', "explore.mesures", "did you mean measures?"),
    ('measures = ["lenght", "ties"]\n', "explore.measures[0]", 'did you mean "length"?'),
    ('measures = ["lead_changes"]\n', "explore.measures[0]", "not available yet"),
    ('measures = ["length", "ties"]\ncells = [10]\n', "explore.cells", "1 count(s) for 2 measure(s)"),
    ("games = -5\n", "explore.games", "must be an integer in 2.."),
    ('ranges = {length = [40, 25]}\n', "explore.ranges.length", "min 40 must be below max 25"),
    ('ranges = {ties = [0.2, 0.2]}\n', "explore.ranges.ties", "min 0.2 must be below max 0.2"),
    ('measures = ["length"]\nranges = {ties = [0.0, 0.3]}\n', "explore.ranges.ties",
     "is not one of explore.measures"),
])
def test_a_bad_explore_table_is_refused_by_file_and_key(tmp_path, capsys, table, key, words) -> None:
    file = _explore_file(tmp_path, table)
    out = tmp_path / "out"
    assert main(["explore", str(file), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"balance: {file}: {key}: ") and words in err, err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert not out.exists()


def test_a_folder_of_another_explore_is_refused(straight, tmp_path, capsys) -> None:
    file, out = straight
    other = _explore_file(tmp_path, f'games = {GAMES}\nbatch = {BATCH}\nmeasures = ["length"]\ncells = [5]\n')
    assert main(["explore", str(other), "--out", str(out)]) == 2
    assert "another explore" in capsys.readouterr().err
