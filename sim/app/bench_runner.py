"""`balance bench --runner`: how `balance simulate` scales from one job to two, and what its logs cost.

Runs the command line itself (fresh processes, start-up included) for --jobs 1 and --jobs 2, alternating so
that a noisy neighbour hurts both alike (the first registered game, random agents), and reports the median
wall time of each, their ratio, and the run directory's size per game.
"""

from __future__ import annotations

import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from sim import games

SPEC = games.specs()[0]  # the first registered game, at its base config and bench player count


def _run(games: int, jobs: int, out: Path) -> float:
    shutil.rmtree(out, ignore_errors=True)
    cmd = [sys.executable, "-m", "sim", "simulate", str(SPEC.default_config), "--players",
           str(SPEC.bench_players), "--games", str(games),
           "--agents", "random", "--seed", "1", "--jobs", str(jobs), "--out", str(out), "--quiet"]
    start = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True)
    return time.perf_counter() - start


def run_runner_bench(games: int = 100_000, repeats: int = 3) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "run"
        _run(min(games, 1000), 2, out)  # numba caches and file-system warm-up, not timed
        walls: dict[int, list[float]] = {1: [], 2: []}
        for _ in range(repeats):
            for jobs in (1, 2):
                walls[jobs].append(_run(games, jobs, out))
        size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    one, two = statistics.median(walls[1]), statistics.median(walls[2])
    return {"simulate_games": games, "repeats": repeats,
            "simulate_jobs1_wall_s": round(one, 2), "simulate_jobs2_wall_s": round(two, 2),
            "simulate_jobs2_speedup": round(one / two, 3),
            "simulate_jobs1_walls_s": [round(x, 2) for x in walls[1]],
            "simulate_jobs2_walls_s": [round(x, 2) for x in walls[2]],
            "log_bytes_per_game": round(size / games, 1)}


def format_runner_bench(figures: dict) -> str:
    return (f"balance simulate, {figures['simulate_games']:,} random {SPEC.bench_players}-player "
            f"{SPEC.vocabulary.title} games, median of "
            f"{figures['repeats']} alternating runs (wall time, start-up included):\n"
            f"  --jobs 1: {figures['simulate_jobs1_wall_s']:.2f} s   {figures['simulate_jobs1_walls_s']}\n"
            f"  --jobs 2: {figures['simulate_jobs2_wall_s']:.2f} s   {figures['simulate_jobs2_walls_s']}\n"
            f"  speed-up: {figures['simulate_jobs2_speedup']:.2f}x; logs: {figures['log_bytes_per_game']} "
            f"bytes a game on disk")
