"""`balance explore` (sim/design/explore.py, sim/design/explore_confirm.py): the same archive, confirmations
and elites at --jobs 1 and 2 and after a kill (in the search, or in the confirmation) and a rerun, bad
[explore] tables refused by file and key with exit status 2 and nothing written, the archive's objective
equal to one computed by hand from the design's play_chunk statistics, refined figures that continue the
search's games, a clearly unfair design refused by the confirmation with its reason, elites that extend the
base with only the keys they change, and the report that names them."""

from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
import tomllib
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from analysis.explore_report import answer, distinct_pairs
from analysis.run_tally import read_run_tally
from analysis.stats import seat_deviation
from analysis.verdicts import STATUS_WORDS, parse_margins, pp, pp_interval, run_verdicts
from sim.commands import main
from sim.core.agent_spec import parse_agents
from sim.core.config import load_toml
from sim.design.component_balance import SHARE_SCALE
from sim.design.explore import (
    FIGURES,
    CubeEvolutionStrategyEmitter,
    figures_of,
    identity,
    load_explore,
    make_scheduler,
    start_point,
)
from sim.design.explore_confirm import Confirmer, confirm_room
from sim.design.explore_plan import stage_games
from sim.design.explore_polish import near_cell, polish_order
from sim.design.files import validate
from sim.design.overrides import apply_overrides
from sim.design.trial_games import play_chunk

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "configs" / "tunes" / "kamakura-3p-chit-points-explore.toml"
GAMES, BATCH, BATCHES = 40, 4, 6
#: refining 4 cells' designs to 80 games, confirming at most 3 candidates and the base on 400 fresh games,
#: all at the search's level (greedy), with no witness
AFTER = 'refine = 4\nrefine_games = 80\nconfirm_games = 400\ntries = 3\njudge = "greedy"\nwitness = ""\n'
RESERVE = 4 * (80 - GAMES) + 400 * (1 + 3)


def _explore_file(folder: Path, explore: str | None = None, batches: int = BATCHES,
                  tolerance: float = 0.25) -> Path:
    """The shipped example's space at a small budget: the base's games and `batches` batches."""
    text = EXAMPLE.read_text().replace('"../kamakura/base.toml"',
                                       json.dumps(str(ROOT / "configs" / "kamakura" / "base.toml")))
    head, _ = text.split("[explore]", 1)
    head = re.sub(r"(?m)^budget = \d+", f"budget = {GAMES * (1 + BATCH * batches) + RESERVE}", head)
    head = head.replace("tolerance = 0.02", f"tolerance = {tolerance}")  # 400 fresh games: elites at 25 pp
    table = explore if explore is not None else (
        f'measures = ["length", "ties"]\ncells = [5, 4]\nranges = {{length = [25, 40], ties = [0.0, 0.3]}}\n'
        f"games = {GAMES}\nbatch = {BATCH}\nreach = 2\nelites = 3\n{AFTER}")
    path = folder / "small-explore.toml"
    path.write_text(head + "[explore]\n" + table)
    return path


def _rules_of(tune, design: str):
    """The game's rules of a design stored in the archive (its `design` column, JSON)."""
    space = tune.search_space
    values = json.loads(design)
    config = apply_overrides(space.base, {d.path: v for d, v in zip(space.dimensions, values, strict=True)},
                             "test")
    return validate(tune.spec, config, tune.players, "test")


def _rows(out: Path) -> list[tuple]:
    with sqlite3.connect(out / "archive.db") as db:
        return db.execute("SELECT * FROM designs ORDER BY iteration, slot").fetchall()


def _elites(out: Path) -> dict[str, str]:
    return {p.name: p.read_text() for p in sorted(out.glob("elite-*.toml"))}


def _confirmed(out: Path) -> list[tuple]:
    """What the confirmation decided, without its sentences (they quote the run's pace): every candidate
    tried, in order, with its verdict and its figures, and the refined figures."""
    s = json.loads((out / "summary.json").read_text())
    return [(t["slug"], t["confirmed"], t["status"], t["n"], t["reason"], t["confirmation"], t["refined"],
             [(v["question"], v["status"], v["value"], v["ci_low"], v["ci_high"]) for v in t["verdicts"]])
            for t in s["tried"]] + [s["games"], s["refined"], s["candidates"], s["distinct"]]


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
    tried = json.loads((out / "summary.json").read_text())["tried"]
    assert 1 <= len(tried) <= 3 and len(_elites(out)) == sum(t["confirmed"] for t in tried) >= 1
    if (os.cpu_count() or 1) < 2:
        pytest.skip("--jobs 2 needs two cores")
    other = tmp_path / "two"
    assert main(["explore", str(file), "--jobs", "2", "--out", str(other), "--quiet"]) == 0
    assert _rows(other) == rows
    assert _confirmed(other) == _confirmed(out)
    assert _elites(other) == _elites(out)


def _batches(out: Path) -> int:
    try:
        with sqlite3.connect(out / "archive.db", timeout=1) as db:
            return db.execute("SELECT COUNT(DISTINCT iteration) FROM designs").fetchone()[0]
    except sqlite3.Error:  # not made yet, or its tables not yet
        return 0


def _confirming(out: Path) -> bool:
    """Whether the confirmation has begun: the base's run directory holds a finished chunk."""
    return any((out / "confirm" / "base").glob("**/*.parquet"))


@pytest.mark.parametrize("stage", ["search", "confirmation"])
def test_a_killed_explore_resumes_to_the_same_archive(straight, tmp_path, stage) -> None:
    file, out = straight
    killed = tmp_path / "killed"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "sim", "explore", str(file), "--jobs", "1", "--out",
                             str(killed), "--quiet"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    begun = (lambda: _batches(killed) >= 1) if stage == "search" else (lambda: _confirming(killed))
    try:
        deadline = time.monotonic() + 300
        while not begun() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        assert proc.poll() is None, "the explore ended before it could be killed"
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    if stage == "search":
        assert 1 <= _batches(killed) < BATCHES
    else:
        assert _batches(killed) == BATCHES and not (killed / "summary.json").exists()
    assert main(["explore", str(file), "--jobs", "1", "--out", str(killed), "--quiet"]) == 0
    assert _rows(killed) == _rows(out)
    assert _confirmed(killed) == _confirmed(out)
    assert _elites(killed) == _elites(out)


def test_the_objective_is_the_largest_seat_deviation_of_the_designs_games(straight) -> None:
    file, out = straight
    tune, settings = load_explore(file)
    with sqlite3.connect(out / "archive.db") as db:
        design, seat_dev, objective, length, games = db.execute(
            "SELECT design, seat_dev, objective, length, games FROM designs WHERE valid = 1 AND played > 0 "
            "ORDER BY iteration, slot LIMIT 1 OFFSET 2").fetchone()
    rules = _rules_of(tune, design)
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
            assert "seats fair within the 25 pp tolerance (equivalence test)" in elite["sentence"]
            assert elite["status"] in ("within", "small") and elite["n"] in (200, 400)  # rounds: 200, 400


def summary_budget(file: Path) -> int:
    return load_explore(file)[0].budget


def test_a_finished_explore_run_again_plays_nothing(straight, capsys) -> None:
    file, out = straight
    before = _rows(out)
    assert main(["explore", str(file), "--jobs", "1", "--out", str(out)]) == 0
    printed = capsys.readouterr()
    assert "0 played now" in printed.out and "resumed:" in printed.err
    plan = printed.err.splitlines()[0]  # the plan comes first, before any game
    assert plan.startswith(f"{file}: at most {summary_budget(file):,} games: ") and " searching at " in plan
    assert "of play at this machine's pace now (1 worker; " in plan and "games/s a worker" in plan
    summary = json.loads((out / "summary.json").read_text())
    confirming = [line for line in printed.err.splitlines() if line.startswith("confirmation of ")]
    assert confirming and all(f" of {summary['budget']:,} games" in line for line in confirming)
    assert confirming[-1].endswith(f"; {summary['games']:,} of {summary['budget']:,} games")
    assert _rows(out) == before


@pytest.mark.parametrize(("table", "key", "words"), [
    ('mesures = ["length"]\n', "explore.mesures", "did you mean measures?"),
    ('measures = ["lenght", "ties"]\n', "explore.measures[0]", 'did you mean "length"?'),
    ('measures = ["component_spread"]\n', "explore.measures[0]", "not available yet"),
    ('measures = ["length", "ties"]\ncells = [10]\n', "explore.cells", "1 count(s) for 2 measure(s)"),
    ("games = -5\n", "explore.games", "must be an integer in 2.."),
    ('ranges = {length = [40, 25]}\n', "explore.ranges.length", "min 40 must be below max 25"),
    ('ranges = {ties = [0.2, 0.2]}\n', "explore.ranges.ties", "min 0.2 must be below max 0.2"),
    ('judge_ranges = {length = [40, 25]}\n', "explore.judge_ranges.length", "min 40 must be below max 25"),
    ('judge_ranges = {lenght = [25, 40]}\n', "explore.judge_ranges.lenght", "length"),
    ('measures = ["length"]\nranges = {ties = [0.0, 0.3]}\n', "explore.ranges.ties",
     "is not one of explore.measures"),
    ("games = 40\nrefine_games = 20\n", "explore.refine_games", "is below explore.games"),
    ("focus = 0\n", "explore.focus", "0.01"),
    ("games = 40\nconfirm_games = 50\n", "explore.confirm_games", "give no verdict"),
    ("games = 40\nrefine = 4\nrefine_games = 80\nconfirm_games = 400000\n", "budget",
     "kept for refining and confirming"),
    (f'games = 40\nbatch = 4\n{AFTER.replace("witness", "#")}witness = "wizard"\n', "explore.witness",
     "wizard"),
    ("games = 40\nrefine_games = [80, 80]\n", "explore.refine_games", "a list of rising game counts"),
    ("games = 40\nrefine_games = [20, 80]\n", "explore.refine_games", "is below explore.games"),
    ('games = 40\nconfirm_games = 0\nwitness = "expert"\n', "explore.witness", "needs a confirmation"),
    (f'games = 40\nbatch = 4\n{AFTER.replace("judge", "#")}judge = "greedy,greedy"\n', "explore.judge", "3"),
    (f'games = 40\nbatch = 4\n{AFTER}confirm_agents = "expert"\n', "explore.confirm_agents",
     "renamed: give explore.judge"),
    (f'games = 40\nbatch = 4\n{AFTER}confirm_also = "search"\n', "explore.confirm_also",
     "renamed: give explore.witness"),
    ("batch = 4\nreach = 4\n", "explore.reach", "an integer in 0..3"),
    ("reach_sigma = 0\n", "explore.reach_sigma", "0.001"),
])
def test_a_bad_explore_table_is_refused_by_file_and_key(tmp_path, capsys, table, key, words) -> None:
    file = _explore_file(tmp_path, table)
    out = tmp_path / "out"
    assert main(["explore", str(file), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"balance: {file}: {key}: ") and words in err, err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert not out.exists()


def test_reach_asks_part_of_each_batch_of_cmame_inside_the_cube(straight) -> None:
    """With `reach`, each batch is Iso+LineDD's designs then CMA-ME's: the first batch the base, uniform
    points and the ES's samples around the base; every point inside the unit cube, however far the ES's
    distribution has walked; and the archive of a file without `reach` keeps the identity it had."""
    tune, settings = load_explore(straight[0])
    assert settings.reach == 2 and settings.batch == BATCH
    scheduler = make_scheduler(tune, settings, [(25.0, 40.0), (0.0, 0.3)])
    iso, reach = scheduler.emitters
    assert isinstance(reach, CubeEvolutionStrategyEmitter) and iso.batch_size == BATCH - 2
    rng = np.random.default_rng(7)
    for k in range(30):
        asked = scheduler.ask()
        assert asked.shape == (BATCH, len(tune.search_space.dimensions))
        assert asked.min() >= 0.0 and asked.max() <= 1.0
        if k == 0:
            assert np.array_equal(asked[0], start_point(tune.search_space))
        # a length that grows with the solution's mean: the ES walks to the cube's face, and is clipped
        scheduler.tell(-rng.uniform(0, 0.1, BATCH), np.c_[25 + 40 * asked.mean(axis=1), np.full(BATCH, 0.1)])
    assert not any(k.startswith("reach") for k in identity(tune, replace(settings, reach=0))["explore"])
    assert identity(tune, settings)["algorithm"]["reach"] == "sep_cma_es"


def test_elites_are_replayed_at_the_witness_level(tmp_path) -> None:
    """`witness = "expert"`: every confirmed elite is replayed at expert on the same fresh seeds (to
    `witness_games`), its seats judged from that run alone, and its sentence and the budget's games say so."""
    after = AFTER.replace('witness = ""', 'witness = "expert"\nwitness_games = 400')
    file = _explore_file(tmp_path, f'measures = ["length", "ties"]\ncells = [5, 4]\n'
                                   f"ranges = {{length = [25, 40], ties = [0.0, 0.3]}}\ngames = {GAMES}\n"
                                   f'batch = {BATCH}\nelites = 3\n{after}')
    file.write_text(re.sub(r"(?m)^budget = (\d+)", lambda m: f"budget = {int(m[1]) + 3 * 400}",
                           file.read_text()))
    out = tmp_path / "out"
    assert main(["explore", str(file), "--jobs", "1", "--out", str(out), "--quiet"]) == 0
    s = json.loads((out / "summary.json").read_text())
    assert s["elites"] and s["witness"] == "expert" and s["judge_agents"] == "greedy"
    for e in s["elites"]:
        also = e["witness"]
        run = read_run_tally(also["run"])
        assert tuple(run.manifest.agents) == ("expert",) * 3 and also["n"] == run.n_games >= 100
        seats, *_ = run_verdicts(run, parse_margins("seats=25"))
        assert also["status"] == seats.status and also["fair"] == (seats.status in ("within", "small"))
        words = f"At expert: seats {STATUS_WORDS[seats.status]} (the 25 pp tolerance)"
        header = re.sub(r"\n# ?", " ", (out / f"{e['slug']}.toml").read_text())
        assert words in e["sentence"] and words in header
    assert s["also_games"] == sum(e["witness"]["n"] for e in s["elites"])
    assert s["games"] == s["search_games"] + s["refine_games"] + s["confirm_games"] + s["also_games"]


def test_start_player_and_lead_changes_measures_go_through_confirmation_and_report(tmp_path) -> None:
    """`measures = ["start_player", "lead_changes"]`: a design's search figures and each candidate's
    confirmation figures give the start seat's win share less the fair share 1/3 and the mean lead changes
    per game, as the logs of the same games give them (the players table; the report's count from the
    events), each with an interval around it; the elites' sentences and tables and the heat map show them."""
    import pyarrow.parquet as pq

    from analysis.kamakura import lead_changes_per_game
    from sim.core.rng import game_seeds
    from sim.design.trial_games import play_batch

    file = _explore_file(tmp_path, f'measures = ["start_player", "lead_changes"]\ncells = [4, 5]\n'
                                   f"games = {GAMES}\nbatch = {BATCH}\nelites = 3\n{AFTER}")
    out = tmp_path / "out"
    assert main(["explore", str(file), "--jobs", "1", "--out", str(out), "--quiet"]) == 0
    tune, settings = load_explore(file)
    seating = [str(a) for a in parse_agents(tune.agents, tune.players, tune.spec)]
    with sqlite3.connect(out / "archive.db") as db:
        design, leads, start = db.execute(
            "SELECT design, lead_changes, start_player FROM designs WHERE valid = 1 AND played > 0 "
            "ORDER BY iteration, slot LIMIT 1 OFFSET 3").fetchone()
    rules = _rules_of(tune, design)
    batch = play_batch(tune.spec, rules, tuple(seating), tune.seed, 0, GAMES)
    seeds = game_seeds(tune.seed, 0, GAMES)
    tables = tune.spec.tables(0, seeds, [seating] * GAMES, batch, rules)
    players = tables["players"].to_pandas()
    assert leads == pytest.approx(lead_changes_per_game(tables["events"].to_pandas(), players).mean())
    assert start == pytest.approx(players[players["seat"] == 0]["win_share"].mean() - 1 / 3, abs=1e-6)
    s = json.loads((out / "summary.json").read_text())
    assert s["tried"] and s["elites"]
    for t in s["tried"]:
        c, run = t["confirmation"], Path(t["run"])
        players = pq.read_table(run / "players.parquet").to_pandas()
        events = pq.read_table(run / "events.parquet").to_pandas()
        first = players[players["seat"] == 0]
        assert len(first) == t["n"]
        assert c["start_player"] == pytest.approx(first["win_share"].sum() / t["n"] - 1 / 3, abs=1e-6)
        assert c["lead_changes"] == pytest.approx(lead_changes_per_game(events, players).mean())
        for m in ("start_player", "lead_changes"):
            assert c[f"{m}_low"] < c[m] < c[f"{m}_high"]
    page = (out / "report" / "index.html").read_text()
    for e in s["elites"]:
        c = e["confirmation"]
        words = (f"the start player {pp(c['start_player'])} "  # its bounds rounded outward
                 f"{pp_interval(c['start_player_low'], c['start_player_high'])} from the fair share, the "
                 f"lead changing hands "
                 f"{c['lead_changes']:.1f} times a game [{c['lead_changes_low']:.1f}, "
                 f"{c['lead_changes_high']:.1f}]")
        assert words in e["sentence"] and words in page.split("Confirmed elites")[0]  # the answer says it
    columns = (out / "report" / "tables" / "explore_elites.csv").read_text().splitlines()[0]
    assert "start_player" in columns and "lead_changes" in columns
    assert (out / "report" / "charts" / "explore_archive.png").stat().st_size > 0


def test_lead_changes_are_refused_for_a_game_that_does_not_count_them(tmp_path, capsys) -> None:
    """Sakura's batch keeps no score after each round: its explore file may not measure lead changes, and is
    told which measures it may."""
    text = (ROOT / "configs" / "tunes" / "sakura-4p-deck-explore.toml").read_text()
    text = text.replace('"../sakura/', json.dumps(str(ROOT / "configs" / "sakura")).rstrip('"') + "/")
    text = re.sub(r'(?m)^measures = \[[^\]]*\]', 'measures = ["length", "lead_changes"]', text)
    file = tmp_path / "sakura-leads.toml"
    file.write_text(text)
    assert main(["explore", str(file), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"balance: {file}: explore.measures[1]: 'lead_changes' is not available for sakura")
    assert "(available: length, ties, start_player)" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "out").exists()


def test_an_archive_from_before_lead_changes_resumes(straight, tmp_path) -> None:
    """An archive whose designs table predates the lead-change columns gains them (empty in its rows) and
    goes on: its finished explore, run again, plays nothing and keeps its designs."""
    import shutil

    file, out = straight
    old = tmp_path / "old"
    shutil.copytree(out, old)
    with sqlite3.connect(old / "archive.db") as db:
        for column in ("lead_changes", "lead_changes_low", "lead_changes_high"):
            db.execute(f"ALTER TABLE designs DROP COLUMN {column}")
    assert main(["explore", str(file), "--jobs", "1", "--out", str(old), "--quiet"]) == 0
    with sqlite3.connect(old / "archive.db") as db:
        columns = {row[1] for row in db.execute("PRAGMA table_info(designs)")}
        assert {"lead_changes", "lead_changes_low", "lead_changes_high"} <= columns
    rows = _rows(old)
    assert len(rows) == len(_rows(out))
    assert json.loads((old / "summary.json").read_text())["designs"] == \
        json.loads((out / "summary.json").read_text())["designs"]


def test_refining_in_rounds_plays_on_the_fairest_half(tmp_path) -> None:
    """refine_games = [80, 160]: the 4 refined designs all reach 80 games, the fairest 2 of them at 80
    play on to 160 (the same seed sequence), and a cell's candidate is its design refined furthest."""
    file = _explore_file(tmp_path, f'measures = ["length", "ties"]\ncells = [5, 4]\n'
                                   f"ranges = {{length = [25, 40], ties = [0.0, 0.3]}}\ngames = {GAMES}\n"
                                   f"batch = {BATCH}\nelites = 3\n"
                                   + AFTER.replace("refine_games = 80", "refine_games = [80, 160]"))
    file.write_text(re.sub(r"(?m)^budget = (\d+)", lambda m: f"budget = {int(m[1]) + 2 * 80}",
                           file.read_text()))
    out = tmp_path / "out"
    assert main(["explore", str(file), "--jobs", "1", "--out", str(out), "--quiet"]) == 0
    with sqlite3.connect(out / "archive.db") as db:
        rows = db.execute("SELECT design, games, stats FROM refined").fetchall()
    first = {d: json.loads(st) for d, g, st in rows if g == 80}
    second = {d: json.loads(st) for d, g, st in rows if g == 160}
    assert len(first) == 4 and len(second) == 2
    dev = {d: seat_deviation([w / SHARE_SCALE for w in st["wins"]], st["games"], 0.95)["value"]
           for d, st in first.items()}
    assert max(dev[d] for d in second) <= min(dev[d] for d in first if d not in second)
    for d, st in second.items():
        assert st["length_sum"] >= first[d]["length_sum"]  # the same games, and 80 more
    s = json.loads((out / "summary.json").read_text())
    assert s["refine_games"] == 4 * (80 - GAMES) + 2 * 80
    tried = {json.dumps(t["design"]): t["refined"]["games"] for t in s["tried"]}
    assert all(games == (160 if d in second else 80) for d, games in tried.items())


def test_polishing_moves_a_cells_candidate_near_its_cell(tmp_path, capsys) -> None:
    """polish = 2: the two fairest cells beyond the room (every cell, at a 5 pp tolerance on 400 fresh
    games) are searched locally; every child is played on the candidates' games (the same seeds), a moved
    design stays within half a cell's width of its cell, is fairer on them than where it started, and
    replaces its cell's candidate only when fairer; a second run on the finished folder plays nothing and
    decides the same. Every stage prints its games spent of the budget as it goes (the workbench's progress
    bar), and the report's lead says what polishing spent."""
    file = _explore_file(tmp_path, f'measures = ["length", "ties"]\ncells = [5, 4]\n'
                                   f"ranges = {{length = [25, 40], ties = [0.0, 0.3]}}\ngames = {GAMES}\n"
                                   f"batch = {BATCH}\nelites = 3\n{AFTER}polish = 2\npolish_steps = 2\n"
                                   "polish_children = 3\n", tolerance=0.05)
    file.write_text(re.sub(r"(?m)^budget = (\d+)", lambda m: f"budget = {int(m[1]) + 2 * 2 * 3 * 80}",
                           file.read_text()))
    out = tmp_path / "out"
    assert main(["explore", str(file), "--jobs", "1", "--out", str(out)]) == 0
    printed = capsys.readouterr().err.splitlines()
    stages = ("batch ", "refining, round ", "polishing, cell ")  # no candidate within the room here
    spent = [(stage, int(m[1].replace(",", ""))) for line in printed for stage in stages
             if line.startswith(stage) and (m := re.search(r"([\d,]+) of ([\d,]+) games", line))]
    assert [stage for stage in stages if stage in dict(spent)] == list(stages), printed
    assert [n for _, n in spent] == sorted(n for _, n in spent)
    s = json.loads((out / "summary.json").read_text())
    assert f"polishing 2 cells ({s['polish_games']:,} games; " in (out / "report" / "index.html").read_text()
    assert len(s["polished"]) == 2 and 0 < s["polish_games"] <= 2 * 2 * 3 * 80
    assert s["games"] == s["search_games"] + s["refine_games"] + s["polish_games"] + s["confirm_games"]
    tune, settings = load_explore(file)
    assert any(p["moved"] for p in s["polished"])
    for p in s["polished"]:
        assert p["first_round_after"] <= p["first_round"]
        if p["moved"]:
            assert p["first_round_after"] < p["first_round"] and p["after_games"] == 80
    with sqlite3.connect(out / "archive.db") as db:
        rows = db.execute("SELECT design, stats FROM refined WHERE games = 80").fetchall()
    stored = {d: json.loads(st) for d, st in rows}
    space = tune.search_space
    agents = tuple(str(a) for a in parse_agents(tune.agents, tune.players, tune.spec))
    widths = [(hi - lo) / n for (lo, hi), n in zip(s["ranges"], settings.cells, strict=True)]
    for p in (p for p in s["polished"] if p["moved"]):  # its own figures on games 0..79, near its cell
        st = stored[json.dumps(p["design"])]
        config = apply_overrides(space.base, {d.path: v for d, v in zip(space.dimensions, p["design"],
                                                                         strict=True)}, "test")
        rules = validate(tune.spec, config, tune.players, "test")
        assert play_chunk(tune.spec, rules, agents, tune.seed, 0, 80)["wins"] == st["wins"]
        figures = figures_of(st)
        assert figures["seat_dev"] == pytest.approx(p["after"])
        for m, c, (lo, _), w, n in zip(settings.measures, p["cell"], s["ranges"], widths, settings.cells,
                                       strict=True):
            assert c == 0 or figures[m] >= lo + (c - 0.5) * w
            assert c == n - 1 or figures[m] < lo + (c + 1.5) * w
    again = main(["explore", str(file), "--jobs", "1", "--out", str(out), "--quiet"])
    s2 = json.loads((out / "summary.json").read_text())
    assert again == 0 and s2["polished"] == s["polished"] and s2["played_now"] == 0


def test_near_cell_widens_a_cell_by_half_its_width() -> None:
    """Cells of 1 turn from 28 (14 of them) by 4 pp of ties from 0 (4): cell (3, 1) holds lengths 31-32 and
    ties 4-8%; polishing may go to 30.5-32.5 turns and 2-10% ties; an edge cell stays open beyond its end."""
    ranges, cells = [(28.0, 42.0), (0.0, 0.16)], (14, 4)
    assert near_cell([30.6, 0.021], (3, 1), ranges, cells) and near_cell([32.4, 0.099], (3, 1), ranges, cells)
    assert not near_cell([30.4, 0.05], (3, 1), ranges, cells)
    assert not near_cell([32.5, 0.05], (3, 1), ranges, cells)
    assert not near_cell([31.5, 0.101], (3, 1), ranges, cells)
    assert near_cell([20.0, 0.5], (0, 3), ranges, cells) and not near_cell([28.4, 0.5], (1, 3), ranges, cells)


def test_polishing_goes_first_where_no_fair_candidate_plays_alike() -> None:
    """Cells beyond the room (0.9 pp here) are polished; those that a candidate within the room plays like
    (within a cell's width, 1 turn and 0.05 of ties) wait behind the others, each group fairest first."""
    def row(dev: float, length: float, ties: float) -> dict:
        return {"seat_dev": dev, "length": length, "ties": ties}
    refined = {(0, 0): row(0.005, 30.2, 0.05),   # within the room: tried as it is
               (1, 0): row(0.012, 30.9, 0.06),   # plays like (0, 0)
               (5, 0): row(0.020, 35.0, 0.06),   # plays like no candidate within the room
               (6, 2): row(0.030, 36.0, 0.15)}
    order = polish_order(refined, 0.009, 10, [1.0, 0.05], ("length", "ties"))
    assert order == [(5, 0), (6, 2), (1, 0)]
    assert polish_order(refined, 0.009, 1, [1.0, 0.05], ("length", "ties")) == [(5, 0)]


def test_a_folder_of_another_explore_is_refused(straight, tmp_path, capsys) -> None:
    file, out = straight
    other = _explore_file(tmp_path, f'games = {GAMES}\nbatch = {BATCH}\nmeasures = ["length"]\ncells = [5]\n'
                                    + AFTER)
    assert main(["explore", str(other), "--out", str(out)]) == 2
    assert "another explore" in capsys.readouterr().err


def test_refined_figures_continue_the_search_games(straight) -> None:
    file, out = straight
    tune, settings = load_explore(file)
    with sqlite3.connect(out / "archive.db") as db:
        rows = db.execute("SELECT design, games, stats FROM refined ORDER BY design").fetchall()
    assert len(rows) == 4 and {games for _, games, _ in rows} == {80}
    design, _, stats = rows[0]
    rules = _rules_of(tune, design)
    agents = tuple(str(a) for a in parse_agents(tune.agents, tune.players, tune.spec))
    by_hand = play_chunk(tune.spec, rules, agents, tune.seed, 0, 80)  # the search's 40, then the next 40
    stored = json.loads(stats)
    assert stored["games"] == 80 and stored["wins"] == by_hand["wins"]
    assert stored["length_sum"] == by_hand["length_sum"]


def test_a_clearly_unfair_design_is_refused_with_its_reason(tmp_path) -> None:
    """The base config (seat 1 wins about 40% of greedy games) judged at a 2 pp tolerance on 2,000 fresh
    games: unfair beyond the margin, not offered, with the seat and its interval in the reason."""
    file = _explore_file(tmp_path, tolerance=0.02)
    tune, settings = load_explore(file)
    settings = replace(settings, confirm_games=2000)
    confirmer = Confirmer(tune, settings, tmp_path / "out", 1, lambda _: None)
    confirmer.play(tune.base, confirmer.base_dir)
    figures = dict.fromkeys(("games", *FIGURES), 0.0)
    r = {"iteration": 0, "slot": 0, "design": tune.search_space.base_values(), **figures, "search": figures}
    record = confirmer.confirm((0, 0), r)
    assert not record["confirmed"] and record["status"] == "beyond", record["reason"]
    assert record["reason"].startswith("seats unfair at the 2 pp tolerance: the largest deviation seat 1 +")
    assert record["n"] == 2000 and record["confirmation"]["deviation_low"] > 0.02
    # the base's own design plays the base's games: the comparison says that none differs, no verdict
    assert [v["question"] for v in record["verdicts"]] == ["seats", "gap"]
    assert record["verdicts"][1]["status"] == "info" and record["verdicts"][1]["games_differ"] == 0


@pytest.mark.parametrize(("elites", "words"), [
    (1, "1 fair design at expert (searched with greedy) plays: e0 30.0 turns"),
    (2, "2 fair designs at expert (searched with greedy) play differently: e0"),
    (3, "3 fair designs at expert (searched with greedy) play differently: e0"),
])
def test_the_answer_is_worded_for_its_counts(elites: int, words: str) -> None:
    found = [{"slug": f"e{k}", "n": 20000,
              "confirmation": {"length": 30.0 + 2 * k, "length_low": 29.8 + 2 * k,
                               "length_high": 30.2 + 2 * k,
                               "ties": 0.08, "ties_low": 0.07, "ties_high": 0.09}}
             for k in range(elites)]
    summary = {"elites": found, "unit": "turns", "tolerance": 0.02, "distinct": distinct_pairs(found),
               "agents": "greedy", "search_agents": "greedy", "judge_agents": "expert",
               "settings": {"elites": 3}}
    text = answer(summary)
    assert text.startswith(words) and "(s)" not in text
    assert ("The space gave" in text) == (elites < 3)
    tail = {1: "With one design there is no pair to compare.",
            2: "The two differ by at least 1 turn in mean length or 3 pp in tie rate.",
            3: "3 of the 3 pairs differ by at least 1 turn"}[elites]
    assert tail in text
    none = answer({"elites": [], "unit": "turns", "tolerance": 0.02, "tried": [{}],
                   "settings": {"confirm_games": 20000}})
    assert none.startswith("No design was confirmed fair within the 2 pp tolerance: 1 candidate was tried")


def test_the_report_names_the_elites(straight) -> None:
    _, out = straight
    summary = json.loads((out / "summary.json").read_text())
    page = (out / "report" / "index.html").read_text()
    n = len(summary["elites"])
    lead = f"{n} fair designs at greedy play differently" if n > 1 else "1 fair design at greedy plays"
    assert n and lead in page
    for elite in summary["elites"]:
        assert elite["slug"] in page and Path(elite["file"]).name in page
    for chart in ("explore_archive", "explore_progress"):
        assert (out / "report" / "charts" / f"{chart}.png").stat().st_size > 0
    assert (out / "report" / "tables" / "explore_elites.csv").is_file()
    assert json.loads((out / "report" / "summary.json").read_text())["distinct"] == summary["distinct"]


def test_distinct_pairs_counts_pairs_apart_by_a_turn_or_3_pp_of_ties() -> None:
    def elite(slug: str, length: float, ties: float) -> dict:
        return {"slug": slug, "confirmation": {"length": length, "ties": ties}}

    d = distinct_pairs([elite("a", 30.0, 0.10), elite("b", 30.5, 0.14), elite("c", 30.2, 0.115)])
    assert (d["pairs"], d["differ"], d["all_differ"]) == (3, 1, False)
    assert [p["differ"] for p in d["list"]] == [True, False, False]


def test_the_confirmation_room_is_the_tolerance_less_the_equivalence_interval() -> None:
    """A 2 pp tolerance at 3 players leaves about 0.89 pp at 20,000 confirmation games and 1.21 pp at 40,000
    (docs/howto/explore.md; the seat verdict's bounded sequences); too few games leave none."""
    assert confirm_room(0.02, 3, 20_000) == pytest.approx(0.0089, abs=0.0002)
    assert confirm_room(0.02, 3, 40_000) == pytest.approx(0.0121, abs=0.0002)
    assert confirm_room(0.02, 3, 2_000) < 0


def _judged_file(folder: Path, judge: str) -> Path:
    """Seats 1 and 2 move 5 or 6 extra spaces: fair enough for random players (their extra moves are
    random), decisively unfair for greedy ones (seat 1 wins about 62% of 1,000 greedy games at [0, 6, 6]);
    searched with random, judged at `judge`, at a 10 pp tolerance."""
    path = folder / f"judged-{judge}.toml"
    path.write_text(
        f'base = {json.dumps(str(ROOT / "configs" / "kamakura" / "base.toml"))}\nplayers = 3\n'
        f'agents = "random"\nseed = 4\nbudget = 40000\n[space]\n"rules.order_chit_moves[1]" = {{min = 5, '
        f'max = 6}}\n"rules.order_chit_moves[2]" = {{min = 5, max = 6}}\n[target]\ntolerance = 0.10\n'
        f'[explore]\nmeasures = ["length"]\ncells = [2]\nranges = {{length = [30, 40]}}\ngames = 100\n'
        f'batch = 4\nelites = 1\nrefine = 2\nrefine_games = 400\nconfirm_games = 2000\ntries = 2\n'
        f'judge = "{judge}"\nwitness = ""\njudge_ranges = {{length = [20, 40]}}\n')
    return path


def test_an_elite_fair_at_the_search_level_but_unfair_at_the_judging_level_is_not_offered(tmp_path) -> None:
    """Searched with random players, the same designs are offered when judged at random and refused when
    judged at greedy: the refining and the confirmation play at the judge's level, and the candidates'
    table shows the search's figures beside the verdict at the level judged."""
    offered = {}
    for judge in ("random", "greedy"):
        out = tmp_path / judge
        assert main(["explore", str(_judged_file(tmp_path, judge)), "--jobs", "1", "--out", str(out),
                     "--quiet"]) == 0
        s = json.loads((out / "summary.json").read_text())
        assert s["search_agents"] == "random" and s["judge_agents"] == judge
        assert s["ranges"] == [[30, 40]]  # the judge's own ranges only where it is another level
        assert s["judge_ranges"] == ([[20, 40]] if judge == "greedy" else [[30, 40]])
        offered[judge] = [e["slug"] for e in s["elites"]]
        for t in s["tried"]:
            run = read_run_tally(t["run"])
            assert tuple(run.manifest.agents) == (judge,) * 3  # confirmed at the judge's level
            assert t["search"]["seat_dev"] < 0.10  # fair enough at the search's level
        if judge == "greedy":
            assert not s["elites"] and all(not t["confirmed"] for t in s["tried"])
            assert all(t["confirmation"]["seat_dev"] > 0.10 for t in s["tried"])
            assert s["fairest_judged"]["seat_dev_low"] > 0.10 / 2  # refining at greedy saw it unfair
            assert answer(s).startswith("No design was confirmed fair at greedy (searched with random)")
            assert "The fairest " in answer(s) and f"on {s['fairest_judged']['games']:,} games" in answer(s)
            assert not list(out.glob("elite-*.toml"))
            db = sqlite3.connect(out / "archive.db")
            keys = [json.loads(k) for (k,) in db.execute("SELECT design FROM refined")]
            db.close()
            assert keys and all(k["at"] == "greedy,greedy,greedy" for k in keys)  # never merged with random's
    assert offered["random"] and not offered["greedy"]


def test_an_elite_judged_with_a_model_records_its_check_and_a_weak_one_is_said(tmp_path) -> None:
    """The explore checks each elite its judge's level plays with a learned model (expert): the check's
    figures and the model's identity go into the elite's record, and a weak one (every blue chit worth 20
    points: the base model's expert wins about 18 pp fewer games against greedy) into its sentence."""
    from sim.design.explore_confirm import check_models, model_sentence

    tune, _ = load_explore(_explore_file(tmp_path))
    (tmp_path / "confirm").mkdir()
    blue = "".join(f'"chits.blue[{i}].points" = 20\n' for i in range(10))
    (tmp_path / "confirm" / "elite-9.toml").write_text(
        f'extends = {json.dumps(str(ROOT / "configs" / "kamakura" / "base.toml"))}\n{blue}')
    elites, said = [{"slug": "elite-9"}], []
    check_models(tune, tmp_path, elites, "expert", say=said.append)
    (check,) = elites[0]["model_checks"]
    assert check["agent"] == "expert" and check["model_identity"] and check["games"] == 600
    assert 100 * check["drop"] > 5 and said and "balance train --from-config" in said[0]
    assert model_sentence(elites[0]).startswith(" The expert's model may not hold here: expert on this")
    greedy = [{"slug": "elite-9"}]
    check_models(tune, tmp_path, greedy, "greedy", say=said.append)
    assert greedy[0]["model_checks"] == [] and model_sentence(greedy[0]) == ""


def test_the_plan_spends_the_budget_by_stage_and_level() -> None:
    tune, settings = load_explore(ROOT / "configs/tunes/kamakura-3p-expert-explore.toml")
    stages = stage_games(tune, settings)
    assert [(what, level) for what, level, _ in stages] == [
        ("searching", "expert"), ("refining, polishing and confirming", "expert"), ("the witness", "search")]
    assert sum(games for _, _, games in stages) == tune.budget
    assert stages[2][2] == settings.witness_games * settings.elites
