"""`balance simulate`: identical tables whatever --jobs or backend, resumable after SIGKILL, refusals."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from analysis.runs import TABLES, read_run

ROOT = Path(__file__).resolve().parents[1]
KAMAKURA = str(ROOT / "configs" / "kamakura" / "base.toml")
SAKURA = str(ROOT / "configs" / "sakura" / "base.toml")
TACTICAL = str(ROOT / "configs" / "sakura" / "two-player-tactical.toml")


def simulate(*args: str, timeout: int = 600) -> subprocess.CompletedProcess:
    """`balance simulate` with random agents unless the arguments name others (the command's default is
    expert, which these runner tests do not need)."""
    agents = () if "--agents" in args else ("--agents", "random")
    return subprocess.run([sys.executable, "-m", "sim", "simulate", *args, *agents, "--quiet"], cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout)


def assert_same_tables(a: Path, b: Path) -> None:
    run_a, run_b = read_run(a), read_run(b)
    for name in TABLES:
        pd.testing.assert_frame_equal(getattr(run_a, name), getattr(run_b, name), obj=name)


def test_tables_identical_for_jobs_and_backends(tmp_path: Path) -> None:
    common = (KAMAKURA, "--players", "3", "--games", "1500", "--agents", "random,greedy,random",
              "--seed", "4")
    runs = {
        "jobs1": ("--jobs", "1"),
        "jobs2": ("--jobs", "2", "--chunk-size", "350"),
        "dask": ("--jobs", "2", "--backend", "dask", "--chunk-size", "500"),
    }
    for name, extra in runs.items():
        run = simulate(*common, *extra, "--out", str(tmp_path / name))
        assert run.returncode == 0, run.stderr
        assert "1500 games played" in run.stdout and "games/s" in run.stdout
    assert_same_tables(tmp_path / "jobs1", tmp_path / "jobs2")
    assert_same_tables(tmp_path / "jobs1", tmp_path / "dask")
    run = read_run(tmp_path / "jobs1")
    assert len(run.games) == 1500 and run.games["game_id"].tolist() == list(range(1500))
    assert len(run.players) == 4500 and set(run.players["agent"]) == {"random", "greedy"}
    assert run.manifest.games_finished == 1500 and run.manifest.config_hash
    # scores in players agree with the gains logged in events (every figure can come from the logs)
    gains = run.events[run.events["kind"] == "gain"].groupby(["game_id", "seat"])["points"].sum()
    scores = run.players.set_index(["game_id", "seat"])["score"]
    assert (gains.reindex(scores.index, fill_value=0).astype(int) == scores.astype(int)).all()


def test_killed_run_resumes_to_the_same_tables(tmp_path: Path) -> None:
    args = [KAMAKURA, "--players", "3", "--games", "1500", "--agents", "greedy", "--seed", "9",
            "--jobs", "1", "--chunk-size", "100"]
    whole = simulate(*args, "--out", str(tmp_path / "whole"))
    assert whole.returncode == 0, whole.stderr
    cut = tmp_path / "cut"
    proc = subprocess.Popen([sys.executable, "-m", "sim", "simulate", *args, "--out", str(cut), "--quiet"],
                            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    deadline = time.time() + 300
    games_dir = cut / "games.parquet"
    while time.time() < deadline and (not games_dir.is_dir() or len(list(games_dir.glob("part-*"))) < 3):
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    finished = len(list(games_dir.glob("part-*")))
    assert 3 <= finished < 15, "killed in the middle of the run"
    kept = read_run(cut)
    assert len(kept.games) == 100 * finished and kept.games["game_id"].is_unique
    again = simulate(*args, "--out", str(cut))
    assert again.returncode == 0, again.stderr
    assert f"({100 * finished} were already there)" in again.stdout
    assert_same_tables(tmp_path / "whole", cut)
    assert not list(cut.rglob(".tmp-*"))
    rerun = simulate(*args, "--out", str(cut))  # nothing left to play, nothing duplicated
    assert rerun.returncode == 0 and rerun.stdout.startswith("0 games played")
    assert_same_tables(tmp_path / "whole", cut)


def test_more_games_extend_a_run(tmp_path: Path) -> None:
    base = (SAKURA, "--players", "4", "--seed", "2", "--jobs", "1")
    assert simulate(*base, "--games", "500", "--out", str(tmp_path / "grown")).returncode == 0
    assert simulate(*base, "--games", "1200", "--out", str(tmp_path / "grown")).returncode == 0
    assert simulate(*base, "--games", "1200", "--out", str(tmp_path / "direct")).returncode == 0
    assert_same_tables(tmp_path / "grown", tmp_path / "direct")


def test_sakura_runs_with_rotated_seats(tmp_path: Path) -> None:
    out = tmp_path / "sakura"
    run = simulate(SAKURA, "--players", "4", "--games", "800", "--agents", "greedy,random,random,random",
                   "--rotate-seats", "--jobs", "2", "--out", str(out))
    assert run.returncode == 0, run.stderr
    r = read_run(out)
    assert r.game == "sakura" and len(r.games) == 800 and r.manifest.rotate_seats is True
    greedy_seats = r.players[r.players["agent"] == "greedy"]["seat"].value_counts()
    assert sorted(greedy_seats.index) == [0, 1, 2, 3] and set(greedy_seats) == {200}
    cards = r.events[r.events["kind"] == "card"]
    assert set(cards.columns) >= {"game_id", "round", "seat", "card", "garden", "painter", "bumped",
                                  "tokens_after"}
    assert (cards.groupby(["game_id", "round"]).size() == 4).all()
    final = r.players.set_index(["game_id", "seat"])["score"]
    assert (final >= 0).all() and r.games["rounds"].min() >= 3
    two = simulate(TACTICAL, "--players", "2", "--games", "300", "--agents", "greedy,random",
                   "--out", str(tmp_path / "two"))
    assert two.returncode == 0, two.stderr
    r2 = read_run(tmp_path / "two")
    assert r2.games["court_tokens"].notna().all() and set(r2.players["seat"]) == {0, 1}
    assert set(r2.events["seat"]) == {0, 1, 2}  # the court painter's cards are logged as seat 2


def test_logs_are_small(tmp_path: Path) -> None:
    out = tmp_path / "size"
    run = simulate(KAMAKURA, "--players", "3", "--games", "20000", "--jobs", "2", "--out", str(out))
    assert run.returncode == 0, run.stderr
    size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    assert size / 20000 < 200, f"{size / 20000:.0f} bytes a game"


BASE_ARGS = ("--players", "3", "--games", "100", "--agents", "random")
BAD = {
    "unknown agent": (("--players", "3", "--games", "100", "--agents", "wizard"), "unknown agent 'wizard'"),
    "agent parameter": (("--players", "3", "--games", "100", "--agents", "greedy:depth=2"), "'depth'"),
    "players": (("--players", "5", "--games", "100"), "players"),
    "games": (("--players", "3", "--games", "0"), "--games"),
    "scheduler without dask": (BASE_ARGS + ("--scheduler", "tcp://127.0.0.1:9"), "--scheduler"),
    "unreachable scheduler": (BASE_ARGS + ("--backend", "dask", "--scheduler", "tcp://127.0.0.1:9"),
                              "--scheduler"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_input_refused_before_any_game(case: str, tmp_path: Path) -> None:
    args, fragment = BAD[case]
    run = simulate(KAMAKURA, *args, "--out", str(tmp_path / "out"))
    assert run.returncode == 2, run.stdout
    assert fragment in run.stderr and "Traceback" not in run.stderr
    assert not (tmp_path / "out" / "games.parquet").exists()


def test_bad_config_refused(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text(f'extends = "{KAMAKURA}"\n[rules]\ntie_break = "dice"\n')
    run = simulate(str(bad), "--players", "3", "--games", "10", "--out", str(tmp_path / "out"))
    assert run.returncode == 2 and "rules.tie_break" in run.stderr and "Traceback" not in run.stderr


def test_other_runs_directory_refused_unless_forced(tmp_path: Path) -> None:
    out = tmp_path / "run"
    assert simulate(KAMAKURA, "--players", "3", "--games", "200", "--out", str(out)).returncode == 0
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    others = [("--players", "3", "--seed", "1"), ("--players", "4"), ("--players", "3", "--agents", "greedy"),
              ("--players", "3", "--rotate-seats")]
    for args in others:
        run = simulate(KAMAKURA, "--games", "200", *args, "--out", str(out))
        assert run.returncode == 2 and "different run" in run.stderr, (args, run.stderr)
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before, "nothing overwritten"
    forced = simulate(KAMAKURA, "--players", "3", "--games", "200", "--seed", "1", "--force",
                      "--out", str(out))
    assert forced.returncode == 0 and json.loads((out / "manifest.json").read_text())["seed"] == 1
    # The same agent string under other defaults is another agent: the manifest records them resolved.
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["resolved_agents"] == ["random"] * 3
    search = tmp_path / "search"
    assert simulate(KAMAKURA, "--players", "3", "--games", "2", "--agents", "mcts:iters=5,greedy,greedy",
                    "--out", str(search)).returncode == 0
    manifest = json.loads((search / "manifest.json").read_text())
    assert manifest["resolved_agents"][0].startswith("mcts:iters=5,c=0.1,rollout=greedy")
    first = manifest["resolved_agents"][0]
    manifest["resolved_agents"][0] = first.replace("rollout=greedy", "rollout=random")
    (search / "manifest.json").write_text(json.dumps(manifest))
    run = simulate(KAMAKURA, "--players", "3", "--games", "4", "--agents", "mcts:iters=5,greedy,greedy",
                   "--out", str(search))
    assert run.returncode == 2 and "resolved_agents" in run.stderr, run.stderr
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "todo.txt").write_text("mine")
    run = simulate(KAMAKURA, "--players", "3", "--games", "10", "--out", str(tmp_path / "notes"))
    assert run.returncode == 2 and "not a run directory" in run.stderr
    assert (tmp_path / "notes" / "todo.txt").read_text() == "mine"


def test_same_seed_same_games_in_study_and_simulate(tmp_path: Path) -> None:
    """The study command and simulate derive game seeds the same way."""
    from sim.core.rng import game_seeds

    out = tmp_path / "run"
    run = simulate(KAMAKURA, "--players", "3", "--games", "50", "--seed", "5", "--out", str(out))
    assert run.returncode == 0, run.stderr
    seeds = read_run(out).games["seed"].to_numpy(dtype=np.uint64)
    assert np.array_equal(seeds, game_seeds(5, 0, 50))
