"""Every long study on a Dask cluster (docs/howto/scale.md): `balance sheet`, `profile`, `sweep`, `ladder`
and `explore` with `--backend dask --scheduler ADDRESS` (a LocalCluster of two worker processes started
here) write the same tables and figures as with `--jobs 2` on this machine, every run of the study playing
on the cluster; `--scheduler` without `--backend dask` is refused in one line."""

from __future__ import annotations

import json
import re
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from distributed import LocalCluster

from sim.commands import main
from storage.backends import StudyCluster

ROOT = Path(__file__).resolve().parents[1]
KAMAKURA = str(ROOT / "configs" / "kamakura" / "base.toml")
SAKURA = str(ROOT / "configs" / "sakura" / "base.toml")
EXAMPLE = ROOT / "configs" / "tunes" / "kamakura-3p-chit-points-explore.toml"
#: what a sentence says of the time left ("about 7 s at this run's pace"): the machine's, not the games'
PACE = re.compile(r"about \d[\d.,]* (?:s|min|h) at this run's pace")
#: the keys of a JSON file that hold times or where the files are, not figures
NOT_FIGURES = re.compile(r"seconds|wall_time|created|started|report|^out$|^run$|folder|^config$|^path$")


@pytest.fixture(scope="module")
def scheduler() -> Iterator[str]:
    """The address of a Dask cluster of two single-threaded worker processes, for this module's tests."""
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster:
        yield cluster.scheduler_address


def balance(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "sim", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=600)


def both(tmp_path: Path, scheduler: str, *args: str) -> tuple[Path, Path]:
    """`balance ARGS` into tmp/jobs/study with --jobs 2, then into tmp/dask/study on the cluster (the same
    folder name, so that the names a report quotes are alike): the two folders."""
    outs = []
    for how, extra in (("jobs", ()), ("dask", ("--backend", "dask", "--scheduler", scheduler))):
        out = tmp_path / how / "study"
        done = balance(*args, "--jobs", "2", *extra, "--out", str(out), "--quiet")
        assert done.returncode == 0, done.stderr
        outs.append(out)
    return outs[0], outs[1]


def _masked(value: Any, out: Path) -> Any:
    """A JSON value with its keys of times and places left out, its folder named OUT, its paces masked."""
    if isinstance(value, dict):
        return {k: _masked(v, out) for k, v in value.items() if not NOT_FIGURES.search(k)}
    if isinstance(value, list):
        return [_masked(v, out) for v in value]
    if isinstance(value, str):
        return PACE.sub("about T at this run's pace", value.replace(str(out), "OUT"))
    return value


def figures(out: Path) -> dict[str, Any]:
    """Every table and summary a study wrote: its reports' CSV tables and summary.json, its own summary and
    manifest (not the runs' manifests: their sessions are timings), masked (`_masked`)."""
    found: dict[str, Any] = {}
    for path in sorted(out.rglob("*")):
        name = str(path.relative_to(out))
        if path.suffix == ".csv" and "report" in path.parts:
            found[name] = _masked(path.read_text(), out)
        elif path.suffix == ".json" and path.name != "manifest.json" and "summaries" not in path.parts:
            found[name] = _masked(json.loads(path.read_text()), out)
    assert found, f"{out}: no tables"
    return found


def backends(out: Path) -> set[str]:
    """The backends every run of a study played its sessions on (its run directories' manifests)."""
    return {session["backend"] for path in out.rglob("manifest.json")
            for session in json.loads(path.read_text()).get("sessions", [])}


# ---- sheet, profile, sweep, ladder -------------------------------------------------------------------------
def _sweep_file(folder: Path) -> Path:
    path = folder / "sweep.toml"
    path.write_text(f'base = {json.dumps(KAMAKURA)}\nplayers = [3]\nagents = ["random"]\ngames = 2000\n'
                    '[grid]\n"rules.tie_break" = ["last_in_order", "shared"]\n')
    return path


STUDIES = {
    "sheet": lambda _: ["sheet", SAKURA, "--players", "2", "--levels", "random,greedy", "--games", "400"],
    "profile": lambda _: ["profile", KAMAKURA, "--players", "3", "--levels", "random,greedy", "--games",
                          "2000"],
    "sweep": lambda folder: ["sweep", str(_sweep_file(folder))],
    "ladder": lambda _: ["ladder", "kamakura", "--players", "3", "--games", "20", "--iters", "none",
                         "--no-expert"],
}


@pytest.mark.parametrize("study", list(STUDIES))
def test_a_study_on_the_cluster_writes_the_same_tables_as_jobs_2(study: str, scheduler: str, tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    args = STUDIES[study](tmp_path)
    jobs, dask = both(tmp_path, scheduler, *args)
    assert backends(jobs) == {"loky"} and backends(dask) == {"dask"}  # every run played on the cluster
    assert figures(dask) == figures(jobs)
    # run again, finished: no game, so no LocalCluster is started (one would be, at the first game)
    monkeypatch.setattr(StudyCluster, "client", lambda self: pytest.fail("a cluster was started"))
    assert main([*args, "--backend", "dask", "--jobs", "2", "--out", str(dask), "--quiet"]) == 0


# ---- explore -----------------------------------------------------------------------------------------------
GAMES, BATCH, BATCHES = 40, 4, 3
#: refining 4 designs to 80 games, confirming at most 2 candidates and the base on 400 fresh games, all at
#: the search's level (greedy), with no witness
AFTER = 'refine = 4\nrefine_games = 80\nconfirm_games = 400\ntries = 2\njudge = "greedy"\nwitness = ""\n'
RESERVE = 4 * (80 - GAMES) + 400 * (1 + 2)


def _explore_file(folder: Path) -> Path:
    """The shipped example's space at a small budget: the base's games and BATCHES batches of BATCH designs
    of GAMES games (two chunks of 20 on two workers), elites at a 25 pp tolerance (400 fresh games)."""
    text = EXAMPLE.read_text().replace('"../kamakura/base.toml"', json.dumps(KAMAKURA))
    head, _ = text.split("[explore]", 1)
    head = re.sub(r"(?m)^budget = \d+", f"budget = {GAMES * (1 + BATCH * BATCHES) + RESERVE}", head)
    head = head.replace("tolerance = 0.02", "tolerance = 0.25")
    path = folder / "small-explore.toml"
    path.write_text(head + '[explore]\nmeasures = ["length", "ties"]\ncells = [5, 4]\n'
                    f"ranges = {{length = [25, 40], ties = [0.0, 0.3]}}\ngames = {GAMES}\nbatch = {BATCH}\n"
                    f"reach = 2\nelites = 2\n{AFTER}")
    return path


def _archive(out: Path) -> list[tuple]:
    with sqlite3.connect(out / "archive.db") as db:
        return db.execute("SELECT * FROM designs ORDER BY iteration, slot").fetchall()


def test_an_explore_on_the_cluster_finds_the_same_archive_and_elites_as_jobs_2(
        scheduler: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    file = str(_explore_file(tmp_path))
    jobs, dask = both(tmp_path, scheduler, "explore", file)
    assert len(_archive(jobs)) == BATCH * BATCHES and _archive(dask) == _archive(jobs)
    summary = json.loads((jobs / "summary.json").read_text())
    assert summary["tried"] and summary["played_now"] == summary["games"]
    assert figures(dask) == figures(jobs)
    elites = sorted(p.name for p in jobs.glob("elite-*.toml"))
    assert elites == sorted(p.name for p in dask.glob("elite-*.toml"))
    assert all((jobs / name).read_text() == (dask / name).read_text() for name in elites)
    assert backends(jobs) == {"loky"} and backends(dask) == {"dask"}  # the confirmation runs too
    monkeypatch.setattr(StudyCluster, "client", lambda self: pytest.fail("a cluster was started"))
    assert main(["explore", file, "--backend", "dask", "--jobs", "2", "--out", str(dask), "--quiet"]) == 0


# ---- refusals ----------------------------------------------------------------------------------------------
REFUSED = {
    "sheet": ["sheet", KAMAKURA],
    "profile": ["profile", KAMAKURA, "--players", "3"],
    "sweep": ["sweep", str(ROOT / "configs" / "sweeps" / "kamakura-tie-break.toml")],
    "ladder": ["ladder", "kamakura", "--players", "3"],
    "explore": ["explore", str(EXAMPLE)],
}


@pytest.mark.parametrize("study", list(REFUSED))
def test_scheduler_without_backend_dask_is_refused_in_one_line(study: str, tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    assert main([*REFUSED[study], "--scheduler", "tcp://127.0.0.1:9", "--out", str(out)]) == 2
    said = capsys.readouterr()
    assert said.out == "" and said.err == "balance: --scheduler: only used with --backend dask\n"
    assert not out.exists()
