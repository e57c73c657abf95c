"""Nothing silently wrong (storage/run_parts.py): a truncated or deleted part is named by
`summary` and `report` (exit 2, no traceback) unless --allow-partial, moved to quarantine/ and replayed by
the next `simulate`, after which the tables equal an uninterrupted run; a run being written reads as one
consistent snapshot and says "partial: N of M"; the manifest counts every game on disk."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from analysis.runs import read_run
from storage.run_parts import RECORDS
from tests.test_runner import KAMAKURA, ROOT, assert_same_tables, simulate

ARGS = [KAMAKURA, "--players", "3", "--agents", "random", "--seed", "3", "--jobs", "1", "--chunk-size", "200"]
PART = "part-0000000200-0000000400.parquet"


def balance(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "sim", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=600)


def made(tmp_path: Path, name: str, games: int = 1000) -> Path:
    out = tmp_path / name
    done = simulate(*ARGS, "--games", str(games), "--out", str(out))
    assert done.returncode == 0, done.stderr
    return out


def refused(done: subprocess.CompletedProcess, *words: str) -> None:
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and all(w in done.stderr for w in words), done.stderr


def test_a_truncated_part_is_named_quarantined_and_replayed(tmp_path: Path) -> None:
    whole = made(tmp_path, "whole")
    run = made(tmp_path, "run")
    damaged = run / "players.parquet" / PART
    damaged.write_bytes(damaged.read_bytes()[:1000])  # truncate -s 1000
    refused(balance("summary", str(run)), f"players.parquet/{PART}", "cannot be read", "--allow-partial")
    refused(balance("report", str(run), "--out", str(tmp_path / "rep")), PART)
    assert not (tmp_path / "rep").exists()
    partial = balance("summary", str(run), "--allow-partial")
    assert partial.returncode == 0 and "800 games (partial: 800 of 1,000 games asked)" in partial.stdout
    again = simulate(*ARGS, "--games", "1000", "--out", str(run))
    assert again.returncode == 0 and "200 games played (800 were already there)" in again.stdout
    assert "damaged part(s) moved to" in again.stderr and PART in again.stderr
    assert (next((run / "quarantine").iterdir()) / "players.parquet" / PART).is_file()
    assert_same_tables(whole, run)
    assert balance("summary", str(run)).returncode == 0


def test_a_deleted_part_is_not_a_smaller_sample(tmp_path: Path) -> None:
    whole = made(tmp_path, "whole")
    run = made(tmp_path, "run")
    (run / "events.parquet" / PART).unlink()
    refused(balance("summary", str(run)), f"events.parquet/{PART} is missing")
    assert len(read_run(run, allow_partial=True).games) == 800
    assert simulate(*ARGS, "--games", "1000", "--out", str(run)).returncode == 0
    assert_same_tables(whole, run)


def test_a_run_without_records_is_adopted(tmp_path: Path) -> None:
    """Runs written before chunks.jsonl existed read as before and get their records on resume."""
    run = made(tmp_path, "run")
    (run / RECORDS).unlink()
    assert len(read_run(run).games) == 1000
    assert simulate(*ARGS, "--games", "1000", "--out", str(run)).returncode == 0
    assert len((run / RECORDS).read_text().splitlines()) == 5


def test_fewer_games_keep_the_manifest_true(tmp_path: Path) -> None:
    run = made(tmp_path, "run", 1000)
    again = simulate(*ARGS, "--games", "200", "--out", str(run))
    assert again.returncode == 0 and "(200 were already there)" in again.stdout
    assert json.loads((run / "manifest.json").read_text())["games_finished"] == 1000


def test_reading_a_run_while_it_is_written_gives_one_snapshot(tmp_path: Path) -> None:
    out = tmp_path / "run"
    proc = subprocess.Popen([sys.executable, "-m", "sim", "simulate", *ARGS, "--games", "20000", "--out",
                             str(out), "--quiet"], cwd=ROOT, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    reads = 0
    deadline = time.time() + 300
    try:
        while proc.poll() is None and time.time() < deadline:
            if (out / "games.parquet").is_dir() and (out / "events.parquet").is_dir():
                run = read_run(out)
                ids = set(run.games["game_id"].astype(int))
                assert set(run.players["game_id"].astype(int)) == ids
                assert set(run.events["game_id"].astype(int)) <= ids and len(run.players) == 3 * len(ids)
                if len(ids) < 20000:
                    assert run.partial_note == f"partial: {len(ids):,} of 20,000 games asked"
                reads += 1
            time.sleep(0.05)
    finally:
        proc.wait(timeout=600)
    assert proc.returncode == 0 and reads >= 3


def test_a_lost_manifest_is_rebuilt_from_the_parts_with_force(tmp_path: Path) -> None:
    """Parts without manifest.json are refused (exit 2, saying how to recover); --force
    with other arguments is refused too (a replayed chunk differs), and with the run's own arguments
    rebuilds the manifest and goes on."""
    whole = made(tmp_path, "whole")
    run = made(tmp_path, "run", 600)
    (run / "manifest.json").unlink()
    refused(simulate(*ARGS, "--games", "1000", "--out", str(run)), "manifest.json is missing", "--force")
    other = [a if a != "3" or i != ARGS.index("--seed") + 1 else "4" for i, a in enumerate(ARGS)]
    refused(simulate(*other, "--games", "1000", "--out", str(run), "--force"), "were not made by this")
    assert not (run / "manifest.json").exists() and len(list((run / "games.parquet").iterdir())) == 3
    again = simulate(*ARGS, "--games", "1000", "--out", str(run), "--force")
    assert again.returncode == 0 and "400 games played (600 were already there)" in again.stdout, again.stderr
    assert_same_tables(whole, run)
