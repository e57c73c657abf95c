"""Bad run directories are refused in one line naming the file (and key or line), exit 2, no traceback,
before anything is written: a manifest that is not one, chunk records that are not records, a
run whose every chunk is damaged under --allow-partial, a report --out where a file stands, another run's
folder (its .lock untouched). A cache of chunk statistics that cannot be read is recomputed with a note.
Tiny runs report ("too few games"), and a Sakura deck whose Emperor cannot progress is refused when that
is plain from the deck, and counted (simulate's output, the report) when its games stop at the limit."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from sim.commands import main
from tests.test_runner import KAMAKURA, ROOT, SAKURA

STUCK = str(ROOT / "tests" / "data" / "sakura-stuck-emperor.toml")
ARGS = {"kamakura": [KAMAKURA, "--players", "3"], "sakura": [SAKURA, "--players", "4"]}


def simulate_args(game: str, out: Path, games: int = 5, seed: int = 0) -> list[str]:
    return ["simulate", *ARGS[game], "--agents", "random", "--games", str(games), "--seed", str(seed),
            "--jobs", "1", "--out", str(out), "--quiet"]


def listing(folder: Path) -> list[tuple[str, int, int]]:
    """Every file and folder under `folder` with its size and modification time."""
    return sorted((str(p.relative_to(folder)), p.stat().st_size if p.is_file() else 0, p.stat().st_mtime_ns)
                  for p in folder.rglob("*"))


def refused(capsys: pytest.CaptureFixture[str], argv: list[str], *words: str) -> str:
    """`balance argv` refuses in one line holding `words`, exit 2, no traceback."""
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err, err
    assert len(err.strip().splitlines()) == 1 and all(w in err for w in words), err
    return err


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A 5-game run of each game (random agents), made once and copied by each test."""
    folder = tmp_path_factory.mktemp("runs")
    made = {}
    for game in ARGS:
        assert main(simulate_args(game, folder / game)) == 0
        made[game] = folder / game
    return made


@pytest.fixture
def run(runs: dict[str, Path], tmp_path: Path) -> Path:
    """A fresh copy of the 5-game Kamakura run."""
    out = tmp_path / "run"
    shutil.copytree(runs["kamakura"], out)
    return out


def _argv(command: str, run: Path, tmp_path: Path) -> list[str]:
    """`report` (into tmp_path/report), `summary` or `simulate` (resuming to 10 games) of `run`."""
    return {"report": ["report", str(run), "--out", str(tmp_path / "report")],
            "summary": ["summary", str(run)],
            "simulate": simulate_args("kamakura", run, games=10)}[command]


def _edit_manifest(**changes: object) -> Callable[[Path], None]:
    def edit(run: Path) -> None:
        manifest = json.loads((run / "manifest.json").read_text())
        manifest.update(changes)
        for key in [k for k, v in changes.items() if v is _DROP]:
            del manifest[key]
        (run / "manifest.json").write_text(json.dumps(manifest))
    return edit


_DROP = object()
BAD_MANIFESTS: dict[str, tuple[Callable[[Path], None], str]] = {
    "random bytes": (lambda r: (r / "manifest.json").write_bytes(bytes(range(128, 256))), "not a readable"),
    "an array": (lambda r: (r / "manifest.json").write_text("[]"), "a JSON object is expected"),
    "an empty object": (lambda r: (r / "manifest.json").write_text("{}"), "game: missing"),
    "null": (lambda r: (r / "manifest.json").write_text("null"), "a JSON object is expected"),
    "deep nesting": (lambda r: (r / "manifest.json").write_text("[" * 50_000 + "]" * 50_000), "too deep"),
    "a NaN count": (lambda r: (r / "manifest.json").write_text(
        (r / "manifest.json").read_text().replace('"games_asked": 5', '"games_asked": NaN')), "NaN"),
    "a missing key": (_edit_manifest(players=_DROP), "players: missing"),
    "a wrong type": (_edit_manifest(players="3"), "players: wrong type"),
    "a negative count": (_edit_manifest(games_asked=-1), "games_asked: must not be negative"),
    "sessions not a list": (_edit_manifest(sessions="x"), "sessions: wrong type"),
    "a model record not an object": (_edit_manifest(models=["expert"]), "models: must list one record"),
    "agents not per player": (_edit_manifest(agents=["random"]), "agents:"),
    "a config its game refuses": (_edit_manifest(config={"game": "kamakura", "rules": 5}), "(config): rules"),
}


@pytest.mark.parametrize("command", ["report", "summary", "simulate"])
@pytest.mark.parametrize("case", list(BAD_MANIFESTS))
def test_a_bad_manifest_is_refused_by_name(run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                           case: str, command: str) -> None:
    spoil, words = BAD_MANIFESTS[case]
    spoil(run)
    before = listing(run)
    refused(capsys, _argv(command, run, tmp_path), f"{run / 'manifest.json'}", words)
    assert listing(run) == before and not (tmp_path / "report").exists()


BAD_RECORDS: dict[str, tuple[bytes, str]] = {
    "a garbage line": (b"garbage\n", "line 1: not a chunk record"),
    "a NaN row count": (b'{"start": 0, "end": 5, "rows": {"games": NaN}}\n', "line 1: not a chunk record"),
    "an array": (b"[0, 5]\n", "line 1: not a chunk record"),
    "an empty range": (b'{"start": 5, "end": 5, "rows": {"games": 5}}\n', "line 1: not a chunk record"),
    "random bytes": (bytes(range(128, 256)) + b"\n", "unreadable chunk records"),
}


@pytest.mark.parametrize("command", ["report", "summary", "simulate"])
@pytest.mark.parametrize("case", list(BAD_RECORDS))
def test_bad_chunk_records_are_refused_by_line(run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                               case: str, command: str) -> None:
    line, words = BAD_RECORDS[case]
    records = run / "chunks.jsonl"
    records.write_bytes(line + records.read_bytes())  # before the good record: not a line a kill cut short
    before = listing(run)
    refused(capsys, _argv(command, run, tmp_path), str(records), words)
    assert listing(run) == before and not (tmp_path / "report").exists()


def test_a_record_cut_short_by_a_kill_is_read_past_and_trimmed(run: Path, tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    records = run / "chunks.jsonl"
    good = records.read_bytes()
    records.write_bytes(good + b'{"start": 5, "end": 10, "ro')  # no newline: a write a kill cut short
    assert main(["summary", str(run)]) == 0
    assert main(simulate_args("kamakura", run, games=10)) == 0
    capsys.readouterr()
    lines = records.read_bytes().splitlines()
    assert lines[0] == good.strip() and json.loads(lines[1])["start"] == 5 and len(lines) == 2


CACHE_DAMAGE: dict[str, Callable[[bytes], bytes]] = {
    "random bytes": lambda good: bytes(range(128, 256)),
    "an array": lambda good: b"[]",
    "cut short": lambda good: good[: len(good) // 2],
    "deep nesting": lambda good: b"[" * 50_000 + b"]" * 50_000,
    "statistics changed": lambda good: json.dumps({**json.loads(good), "stats": {"common": 5}}).encode(),
}


@pytest.mark.parametrize("case", list(CACHE_DAMAGE))
def test_an_unreadable_cache_is_recomputed_with_a_note(run: Path, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str], case: str) -> None:
    assert main(["report", str(run), "--out", str(tmp_path / "first")]) == 0
    cached = next((run / "summaries").iterdir())
    good = cached.read_bytes()
    first = json.loads((tmp_path / "first" / "summary.json").read_text())
    cached.write_bytes(CACHE_DAMAGE[case](good))
    capsys.readouterr()
    assert main(["report", str(run), "--out", str(tmp_path / "again")]) == 0
    err = capsys.readouterr().err
    assert "Traceback" not in err and "recomputed from the logs" in err and str(run / "summaries") in err, err
    assert cached.read_bytes() == good
    assert json.loads((tmp_path / "again" / "summary.json").read_text())["verdicts"] == first["verdicts"]
    before = listing(run / "summaries")  # readable now: read, not rewritten, nothing said
    assert main(["report", str(run), "--out", str(tmp_path / "third")]) == 0
    assert "recomputed" not in capsys.readouterr().err and listing(run / "summaries") == before


@pytest.mark.parametrize("command", ["summary", "report"])
def test_allow_partial_with_every_chunk_damaged_is_refused(run: Path, tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str],
                                                           command: str) -> None:
    for part in (run / "games.parquet").iterdir():
        part.write_bytes(b"not parquet")
    before = listing(run)
    out = ["--out", str(tmp_path / "report")] if command == "report" else []
    refused(capsys, [command, str(run), "--allow-partial", *out], str(run), "every finished chunk",
            "nothing to read")
    assert listing(run) == before and not (tmp_path / "report").exists()


def test_refusing_another_runs_folder_leaves_its_lock(run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lock = run / ".lock"
    lock.write_text('{"pid": 1, "started": 0, "command": "balance simulate (another run)"}')
    os.utime(lock, ns=(1_000_000_000, 1_000_000_000))
    before, held = listing(run), lock.read_bytes()
    refused(capsys, simulate_args("kamakura", run, games=10, seed=7), str(run), "made by a different run",
            "seed")
    assert lock.read_bytes() == held and listing(run) == before


@pytest.mark.parametrize("where", ["the file", "below the file"])
def test_report_out_on_a_file_is_refused_before_any_write(run: Path, tmp_path: Path, where: str,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    shutil.rmtree(run / "summaries", ignore_errors=True)  # nothing cached: a report would write it first
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    before = listing(run)
    out = blocker if where == "the file" else blocker / "report"
    refused(capsys, ["report", str(run), "--out", str(out)], str(blocker), "--out")
    assert listing(run) == before and blocker.read_text() == "x"


@pytest.mark.parametrize("game", list(ARGS))
def test_a_five_game_run_reports_too_few_games(runs: dict[str, Path], tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str], game: str) -> None:
    """Every chart of a tiny run draws (no interval that leaves out its estimate) and the verdicts say
    "too few games"."""
    out = tmp_path / "report"
    assert main(["report", str(runs[game]), "--out", str(out)]) == 0, capsys.readouterr().err
    assert "too few games for a verdict (5;" in (out / "index.html").read_text()


def test_wilson_bounds_hold_the_estimate() -> None:
    import numpy as np

    from analysis.stats import wilson_interval, wilson_intervals

    for n in (1, 2, 3, 4.7, 5, 17, 1000):
        for successes in np.linspace(0, n, 23):
            low, high = wilson_interval(successes, n)
            assert 0 <= low <= successes / n <= high <= 1, (successes, n, low, high)
        lows, highs = wilson_intervals(np.linspace(0, n, 23), np.full(23, n))
        assert (lows <= np.linspace(0, n, 23) / n).all() and (highs >= np.linspace(0, n, 23) / n).all()
    assert wilson_interval(0, 3)[0] == 0.0 and wilson_interval(3, 3)[1] == 1.0


def test_a_deck_that_never_moves_the_emperor_forward_is_refused(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    """R-11: the deck's garden actions are what move the Emperor; with none forward he never reaches a
    sakura, and no game could end."""
    config = tmp_path / "backwards.toml"
    text = Path(STUCK).read_text().replace('garden = "E+1"', 'garden = "E-1"')
    config.write_text(text.replace("../../configs", str(ROOT / "configs")))
    out = tmp_path / "run"
    refused(capsys, ["simulate", str(config), "--players", "4", "--games", "5", "--out", str(out)],
            str(config), "cards", "moves the Emperor forward")
    assert not out.exists()


def test_games_stopped_at_the_round_limit_are_said(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """The stuck deck (one E+1 against 59 E-1) passes the deck check (R-11) but no game ends by the rules:
    the simulate line and the report count them (the 2,000-round stop is a safety valve, not a rule)."""
    from sim.sakura.kernels import MAX_ROUNDS
    from sim.sakura.spec import SPEC

    assert f"{MAX_ROUNDS:,}-round limit" in SPEC.limit_end[1]
    out = tmp_path / "run"
    assert main(["simulate", STUCK, "--players", "4", "--agents", "random", "--games", "3", "--jobs", "1",
                 "--out", str(out), "--quiet"]) == 0
    assert "3 of the 3 games played stopped at the 2,000-round limit" in capsys.readouterr().err
    assert main(["report", str(out), "--out", str(tmp_path / "report")]) == 0
    assert json.loads((tmp_path / "report" / "summary.json").read_text())["games_at_round_limit"] == 3
    assert "3 of 3 games (100.0%) stopped at the 2,000-round limit" in \
        (tmp_path / "report" / "index.html").read_text()
