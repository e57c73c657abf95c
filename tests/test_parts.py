"""A run's summary by parts (analysis/parts.py): the same text as the in-memory path, at any
--jobs or backend; each chunk's statistics cached beside its parts, so a run that grew is read only where
it is new, and a replaced part is read again."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from analysis.parts import CACHE
from analysis.run_tally import read_run_tally
from analysis.runs import read_run
from analysis.summary_text import format_run
from tests.oracles import tally_of_run


def format_summary(run) -> str:
    """`balance summary`'s text of tables held in memory (the same computation, on one part)."""
    return format_run(tally_of_run(run))

ROOT = Path(__file__).resolve().parents[1]
KAMAKURA = str(ROOT / "configs" / "kamakura" / "base.toml")
SAKURA = str(ROOT / "configs" / "sakura" / "base.toml")


def simulate(out: Path, config: str, players: str, games: int, *extra: str) -> None:
    done = subprocess.run([sys.executable, "-m", "sim", "simulate", config, "--players", players, "--games",
                           str(games), "--jobs", "1", "--seed", "3", "--chunk-size", "400", "--out", str(out),
                           "--quiet", *extra], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr


def by_parts(path: Path, jobs: int = 1, backend: str = "loky", cache: bool = True) -> tuple[str, int]:
    """`balance summary`'s text from the run's report tally, chunk by chunk, and the parts read."""
    run = read_run_tally(path, False, jobs, backend, cache)
    return format_run(run), run.parts_read


@pytest.mark.parametrize("config, players, extra", [
    (KAMAKURA, "3", ("--agents", "greedy,random,random", "--rotate-seats")),
    (KAMAKURA, "2", ("--agents", "random",)),
    (SAKURA, "4", ("--agents", "random,random,greedy,random")),
])
def test_the_summary_by_parts_is_the_in_memory_summary(tmp_path: Path, config: str, players: str,
                                                       extra: tuple[str, ...]) -> None:
    out = tmp_path / "run"
    simulate(out, config, players, 1800, *extra)
    text, read = by_parts(out, cache=False)
    assert read == 5  # 400-game chunks: 4 full, and 200 games
    assert text == format_summary(read_run(out))


def test_chunks_are_cached_read_once_and_again_when_replaced(tmp_path: Path) -> None:
    out = tmp_path / "run"
    simulate(out, KAMAKURA, "3", 1200, "--agents", "random")
    first, read = by_parts(out)
    assert read == 3 and len(list((out / CACHE).glob("report-*.json"))) == 3
    assert by_parts(out) == (first, 0)  # all from the cache
    simulate(out, KAMAKURA, "3", 2000, "--agents", "random")  # the run grows by two chunks
    grown, read = by_parts(out)
    assert read == 2 and grown == format_summary(read_run(out))
    # a replaced part (here rewritten with another modification time) is read again, and only it
    part = sorted((out / "players.parquet").glob("part-*"))[1]
    stat = part.stat()
    os.utime(part, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    assert by_parts(out) == (grown, 1)
    # a cache entry that does not parse is recomputed, not trusted
    entry = sorted((out / CACHE).glob("report-*.json"))[0]
    entry.write_text("{not json")
    assert by_parts(out) == (grown, 1)
    assert json.loads(entry.read_text())["stats"]["common"]["games"] == 400


def test_jobs_and_dask_give_the_same_summary(tmp_path: Path) -> None:
    out = tmp_path / "run"
    simulate(out, SAKURA, "3", 1600, "--agents", "random")
    one, _ = by_parts(out, cache=False)
    assert by_parts(out, cache=False, jobs=2) == (one, 4)
    assert by_parts(out, cache=False, jobs=2, backend="dask") == (one, 4)
    done = subprocess.run([sys.executable, "-m", "sim", "summary", str(out), "--jobs", "2"], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0 and done.stdout.strip() == one, done.stderr


def test_the_notebook_reader_selects_columns_and_games_and_warns_before_too_much(tmp_path: Path,
                                                                               monkeypatch) -> None:
    import warnings

    import analysis.runs as runs

    out = tmp_path / "run"
    simulate(out, KAMAKURA, "3", 1200, "--agents", "random")
    whole = runs.read_table(out, "players")
    some = runs.read_table(out, "players", columns=["seat", "score"], games=(350, 820))
    expect = whole[(whole["game_id"] >= 350) & (whole["game_id"] < 820)][["seat", "score"]]
    assert some.reset_index(drop=True).equals(expect.reset_index(drop=True))
    assert runs.read_table(out, "games", games=range(0, 400))["game_id"].tolist() == list(range(400))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning while it fits
        runs.read_table(out, "events", columns=["kind"])
    monkeypatch.setattr(runs, "available_memory", lambda: 1000)
    with pytest.warns(runs.MemoryWarning, match="events.parquet: reading 3 parts needs about"):
        runs.read_table(out, "events")
