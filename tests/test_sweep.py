"""`balance sweep`: grid expansion, dotted-key overrides refused like bad configs, a resumable sweep, the
comparison report, and the TOML writer behind the variant configs."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from analysis.paired import per_game
from analysis.sweep_report import compare_runs
from sim.app.runner import plan_run
from sim.core.config import load_toml
from sim.core.errors import ConfigError
from sim.design.overrides import apply_overrides, dump_toml, parse_key, path_text
from sim.design.sweep import load_sweep
from tests.oracles import seat_gap
from tests.test_report_columns import impossible_percentages

ROOT = Path(__file__).resolve().parents[1]
KAMAKURA = (ROOT / "configs" / "kamakura" / "base.toml").as_posix()
SAKURA = (ROOT / "configs" / "sakura" / "base.toml").as_posix()


def balance(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "sim", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=600)


def write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


# ---- dotted keys and the TOML writer ------------------------------------------------------------------
def test_parse_key_and_back() -> None:
    assert parse_key("chits.blue[3].points", "f", "k") == ("chits", "blue", 3, "points")
    assert parse_key("rules.order_chit_moves[1]", "f", "k") == ("rules", "order_chit_moves", 1)
    assert path_text(("chits", "blue", 3, "points")) == "chits.blue[3].points"
    for bad in ("", "[1]", "rules..x", "rules.x[", "rules x", "a[1]b"):
        with pytest.raises(ConfigError, match="f: k: not a dotted config key"):
            parse_key(bad, "f", "k")


def test_apply_overrides_sets_elements_and_merges_tables() -> None:
    base, _ = load_toml(KAMAKURA)
    out = apply_overrides(base, {("chits", "blue", 3, "points"): 1, ("rules",): {"tie_break": "shared"},
                                 ("rules", "order_chit_moves", 2): 7}, "sweep.toml")
    assert out["chits"]["blue"][3] == {"icons": 1, "points": 1, "power": 0}
    assert out["rules"]["tie_break"] == "shared" and out["rules"]["layout"] == base["rules"]["layout"]
    assert out["rules"]["order_chit_moves"] == [0, 2, 7, 4]
    assert base["chits"]["blue"][3]["points"] == 2  # the base is not modified
    with pytest.raises(ConfigError, match=r"sweep.toml: chits.blue\[12\].points: index 12 is out of range"):
        apply_overrides(base, {("chits", "blue", 12, "points"): 1}, "sweep.toml")
    with pytest.raises(ConfigError, match=r"rules.tie_break\[0\]: rules.tie_break is not an array"):
        apply_overrides(base, {("rules", "tie_break", 0): 1}, "sweep.toml")


@pytest.mark.parametrize("config", [KAMAKURA, SAKURA])
def test_dump_toml_round_trips_the_base_configs(config: str) -> None:
    merged, _ = load_toml(config)
    text = dump_toml(merged, "a header line\nand a second")
    assert text.startswith("# a header line\n# and a second\n")
    assert tomllib.loads(text) == merged


# ---- reading a sweep file -----------------------------------------------------------------------------
def test_grid_expands_to_every_combination_plus_named_variants(tmp_path: Path) -> None:
    path = write(tmp_path / "sweep.toml", f"""
base = "{KAMAKURA}"
players = [3, 4]
agents = ["greedy", "greedy,random,random"]
games = 100
[grid]
"rules.order_chit_moves" = [[0, 1, 2, 3], [0, 2, 3, 4], [0, 3, 3, 3]]
rules.tie_break = ["last_in_order", "shared"]
[[variants]]
name = "cheap blue"
"chits.blue[9].points" = 4
[[variants]]
name = "same as base"
""")
    with pytest.raises(ConfigError, match="agents"):  # a 3-agent lineup cannot seat 4 players
        load_sweep(path)
    path.write_text(path.read_text().replace('"greedy,random,random"', '"random"'))
    sweep = load_sweep(path)
    names = [v.name for v in sweep.variants]
    # 3 x 2 grid points, one of them the base itself; plus one named variant; "same as base" is the base
    assert len(sweep.variants) == 1 + 5 + 1
    assert sweep.variants[0].is_base and names[0] == "base"
    assert set(sweep.variants[0].aliases) == {'rules.order_chit_moves = [0, 2, 3, 4], rules.tie_break = '
                                              '"last_in_order"', "same as base"}
    grid = [v for v in sweep.variants if not v.named and not v.is_base]
    combos = {(tuple(v.config["rules"]["order_chit_moves"]), v.config["rules"]["tie_break"]) for v in grid}
    assert combos == {(m, t) for m in ((0, 1, 2, 3), (0, 2, 3, 4), (0, 3, 3, 3))
                      for t in ("last_in_order", "shared")} - {((0, 2, 3, 4), "last_in_order")}
    cheap = sweep.variants[-1]
    assert cheap.name == "cheap blue" and cheap.slug == "cheap-blue"
    assert cheap.config["chits"]["blue"][9]["points"] == 4
    assert len({v.slug for v in sweep.variants}) == len(sweep.variants)
    assert sweep.players == (3, 4) and sweep.agents == ("greedy", "random")
    assert [path_text(k) for k in sweep.grid_keys] == ["rules.order_chit_moves", "rules.tie_break"]


BAD_SWEEPS = {
    "unknown key": ('[grid]\n"rules.colour_blind" = [true]\n', "rules.colour_blind"),
    "bad value": ('[[variants]]\nname = "x"\n"chits.blue[3].points" = -1\n', "chits.blue[3].points"),
    "bad choice": ('[grid]\n"rules.tie_break" = ["shared", "coin_flip"]\n', "rules.tie_break"),
    "index out of range": ('[[variants]]\nname = "x"\n"chits.blue[12].points" = 1\n', "chits.blue[12]"),
    "not a key": ('[grid]\n"rules..tie_break" = ["shared"]\n', "not a dotted config key"),
    "short moves": ('[grid]\n"rules.order_chit_moves" = [[0, 1, 2]]\n', "rules.order_chit_moves"),
    "empty grid": ("[grid]\n", "grid"),
    "unknown top key": ('gamez = 3\n[grid]\n"rules.tie_break" = ["shared"]\n', "gamez"),
}


@pytest.mark.parametrize("case", sorted(BAD_SWEEPS))
def test_bad_sweep_refused_with_file_and_key_exit_2_nothing_written(case: str, tmp_path: Path) -> None:
    body, key = BAD_SWEEPS[case]
    path = write(tmp_path / "bad.toml", f'base = "{KAMAKURA}"\nplayers = [4]\nagents = ["random"]\n'
                                        f"games = 10\n{body}")
    out = tmp_path / "out"
    run = balance("sweep", str(path), "--out", str(out), "--jobs", "1")
    assert run.returncode == 2, run.stderr
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in run.stderr
    assert str(path) in lines[0] and key in lines[0], lines[0]
    assert not out.exists()


# ---- running ------------------------------------------------------------------------------------------
def _mtimes(folder: Path) -> dict[str, int]:
    # the lock file records each writer in turn (storage/run_lock.py): it is not a run's content
    return {str(p.relative_to(folder)): p.stat().st_mtime_ns for p in folder.rglob("*")
            if p.is_file() and "report" not in p.parts and p.name != ".lock"}


def test_sweep_runs_resumes_and_reports(tmp_path: Path) -> None:
    path = write(tmp_path / "tiny.toml", f"""
base = "{KAMAKURA}"
players = [3]
agents = ["random"]
games = 400
seed = 5
[grid]
"rules.tie_break" = ["last_in_order", "shared"]
"rules.order_chit_moves[1]" = [2, 5]
""")
    out = tmp_path / "out"
    first = balance("sweep", str(path), "--out", str(out), "--jobs", "1")
    assert first.returncode == 0, first.stderr
    assert "4 runs (0 finished already), 1,600 games played" in first.stdout
    runs = sorted(p.name for p in out.iterdir() if (p / "manifest.json").is_file())
    assert runs == ["base-3p", "tie_break=last_in_order+order_chit_moves.1=5-3p",
                    "tie_break=shared+order_chit_moves.1=2-3p", "tie_break=shared+order_chit_moves.1=5-3p"]
    before = _mtimes(out)

    second = balance("sweep", str(path), "--out", str(out), "--jobs", "1")
    assert second.returncode == 0, second.stderr
    assert "4 runs (4 finished already), 0 games played" in second.stdout
    assert _mtimes(out) == before  # no run directory or config file touched
    path.write_text(path.read_text().replace("seed = 5", "seed = 6"))  # other games: refused, untouched
    third = balance("sweep", str(path), "--out", str(out), "--jobs", "1")
    assert third.returncode == 2 and "made by a different run" in third.stderr and "--force" in third.stderr
    assert _mtimes(out) == before
    path.write_text(path.read_text().replace("seed = 6", "seed = 5"))

    # each variant's config file is standalone and gives the run's config hash back
    manifest = json.loads((out / "sweep.json").read_text())
    for v in manifest["variants"]:
        (run,) = v["runs"]
        plan = plan_run(out / v["config_file"], 3, "random", 5, False)
        assert plan.config_hash == json.loads((out / run["dir"] / "manifest.json").read_text())["config_hash"]

    # the report: every chart and table exists; the shared tie-break variant is marked against the base
    page = (out / "report" / "index.html").read_text()
    assert impossible_percentages(page) == []  # only shares are percentages
    for ref in set(re.findall(r"(?:src|href)='([^']+)'", page)):
        assert (out / "report" / ref).is_file(), ref
    summary = json.loads((out / "report" / "summary.json").read_text())
    rows = {r["variant"]: r for r in summary["runs"]}
    assert rows["base"]["differs_from_base"] == "(base)"
    shared = rows['rules.tie_break = "shared", rules.order_chit_moves[1] = 2']
    assert shared["paired"] and shared["d_tie_rate"] == 0.0  # same games, other winner of a tie
    assert shared["d_tiebreak_rate"] < 0 and "tiebreak_rate" in shared["differs_from_base"]
    for r in rows.values():
        assert r["n"] == 400 and r["gap_low"] <= r["gap_high"] and r["start_adv_low"] <= r["start_adv_high"]
        assert np.isfinite(r["value_spread"])
    assert "sweep_start_adv_vs_rules_tie_break.png" in page and "differs from base" in page


def test_sweep_into_a_foreign_folder_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path / "s.toml", f'base = "{KAMAKURA}"\nplayers = 3\nagents = "random"\ngames = 10\n'
                                      '[grid]\n"rules.tie_break" = ["shared"]\n')
    out = tmp_path / "out"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    run = balance("sweep", str(path), "--out", str(out), "--jobs", "1")
    assert run.returncode == 2 and "not a sweep folder" in run.stderr
    assert [p.name for p in out.iterdir()] == ["notes.txt"]


# ---- the comparison figures (pure) --------------------------------------------------------------------
def _tables(winners: list[int], seats: int = 2, turns: int = 30) -> tuple[pd.DataFrame, pd.DataFrame]:
    n = len(winners)
    games = pd.DataFrame({"game_id": np.arange(n), "tie": False, "decided_by_tiebreak": False,
                          "turns": turns})
    players = pd.DataFrame({"game_id": np.repeat(np.arange(n), seats), "seat": np.tile(np.arange(seats), n),
                            "win_share": [1.0 if s == w else 0.0 for w in winners for s in range(seats)]})
    return games, players


def test_seat_gap_and_paired_comparison() -> None:
    rng = np.random.default_rng(1)
    fair = rng.integers(0, 2, 4000).tolist()
    skewed = [0 if rng.random() < 0.65 else 1 for _ in range(4000)]
    fair_pg, skewed_pg = per_game(*_tables(fair), "turns"), per_game(*_tables(skewed), "turns")
    gap = seat_gap(np.column_stack([fair_pg["share_0"], fair_pg["share_1"]]))
    assert gap["ci_low"] <= gap["value"] <= gap["ci_high"] < 0.08
    diff = compare_runs(skewed_pg, fair_pg)
    assert diff["paired"] and diff["sig_gap"] and diff["sig_start_adv"] and diff["d_gap_low"] > 0.15
    assert not diff["sig_length"] and diff["d_length"] == 0.0


# ---- variants at some player counts only (two-player knobs) --------------------------------------------
def test_a_named_variant_may_run_at_some_player_counts_only(tmp_path: Path) -> None:
    """A named variant's `players` (some of the sweep's) limits where it runs and is validated: a
    two-player knob (Sakura's court_can_win, R-23) is not replayed unchanged at 4 and 6 players."""
    from sim.design.sweep import plan_sweep

    body = f"""
base = "{SAKURA}"
players = [2, 4, 6]
agents = ["random"]
games = 10
[[variants]]
name = "court can win"
players = [2]
"rules.court_can_win" = true
[[variants]]
name = "bump from painter"
"rules.bump_from" = "painter"
"""
    sweep = load_sweep(write(tmp_path / "s.toml", body))
    by_name = {v.name: v for v in sweep.variants}
    assert by_name["court can win"].player_counts(sweep.players) == (2,)
    assert by_name["bump from painter"].player_counts(sweep.players) == (2, 4, 6)
    runs = plan_sweep(sweep, tmp_path / "out")
    assert sorted(r.out.name for r in runs) == ["base-2p", "base-4p", "base-6p", "bump-from-painter-2p",
                                                "bump-from-painter-4p", "bump-from-painter-6p",
                                                "court-can-win-2p"]
    for bad, what in (("players = [3]", "not among the sweep's players"), ("players = []", "at least one"),
                      ('players = "2"', "integer")):
        path = write(tmp_path / "bad.toml", body.replace("players = [2]\n", bad + "\n"))
        with pytest.raises(ConfigError, match=rf"bad\.toml: variants\[0\]\.players.*{what}"):
            load_sweep(path)


def test_the_sakura_readings_sweep_plans_every_reading() -> None:
    """configs/sweeps/sakura-readings.toml: R-21 and R-22 at 2, 4 and 6 players, R-23 and the tactical
    variant at 2 only, greedy, 20,000 games, seed 1 (planned, not run)."""
    sweep = load_sweep(ROOT / "configs" / "sweeps" / "sakura-readings.toml")
    assert (sweep.players, sweep.agents, sweep.games, sweep.seed) == ((2, 4, 6), ("greedy",), 20000, 1)
    plan = {v.name: (v.player_counts(sweep.players), {path_text(k): x for k, x in v.overrides.items()})
            for v in sweep.variants}
    assert plan == {
        "base": ((2, 4, 6), {}),
        "R-21 bump from painter": ((2, 4, 6), {"rules.bump_from": "painter"}),
        "R-22 lineup from gate": ((2, 4, 6), {"rules.lineup_from_gate": True}),
        "R-23 court can win": ((2,), {"rules.court_can_win": True}),
        "tactical": ((2,), {"rules.two_player_variant": "tactical"}),
        "tactical, R-23 court can win": ((2,), {"rules.two_player_variant": "tactical",
                                                "rules.court_can_win": True}),
    }


def test_a_rebuilt_sweep_report_reads_only_the_new_parts(tmp_path: Path) -> None:
    """Every run's chunk tallies and every pair of runs' window sums are cached beside the
    parts, so a sweep report rebuilt after one run was extended reads that run's new chunk and nothing
    else; the figures of the untouched runs are unchanged."""
    from analysis.sweep_report import read_sweep_manifest, sweep_rows
    from sim.app.runner import simulate

    path = write(tmp_path / "tiny.toml", f"""
base = "{KAMAKURA}"
players = [3]
agents = ["random"]
games = 600
seed = 5
[grid]
"rules.tie_break" = ["last_in_order", "shared"]
""")
    out = tmp_path / "out"
    assert balance("sweep", str(path), "--out", str(out), "--jobs", "1").returncode == 0
    manifest = read_sweep_manifest(out)
    rows, _, read = sweep_rows(out, manifest)
    assert read == 0  # the sweep's own report cached every chunk's tally and every window's pair sums
    for v in manifest["variants"]:
        shutil.rmtree(out / v["runs"][0]["dir"] / "summaries")
    chunks = sum(len(list((out / r["dir"] / "games.parquet").glob("part-*")))
                 for v in manifest["variants"] for r in v["runs"])
    assert sweep_rows(out, manifest)[2] == chunks + 1  # without caches: every chunk, and the pairing
    variant = next(v for v in manifest["variants"] if not v["is_base"])
    run_dir = out / variant["runs"][0]["dir"]
    plan = plan_run(out / variant["config_file"], 3, "random", 5, False)
    simulate(plan, 900, run_dir, jobs=1, chunk_size=300)
    again, _, read = sweep_rows(out, manifest)
    assert read == 1  # the extended run's new chunk; its pairing is now unpaired (other games)
    base_rows = [r for r in rows if r["is_base"]]
    assert [r for r in again if r["is_base"]] == base_rows
    assert next(r for r in again if not r["is_base"])["n"] == 900
