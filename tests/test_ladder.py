"""`balance ladder`: every step's run directory, ladder.json and the report are written; running it again
plays nothing; the ladder figures are right on a constructed table; `balance report` of a ladder folder
has the ladder section; bad input is refused with exit 2 before anything runs."""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest

from analysis.ladder_report import agents_held, format_ladder, ladder_table_from, skill_trace, steps_frame
from analysis.seats import seat_tally
from analysis.stats import wilson_interval
from sim.core.errors import ConfigError
from sim.core.rng import game_seeds as seeds_of_run
from sim.design.ladder import DEFAULT_ITERS, levels, parse_iters, step_seed
from tests.test_report_columns import impossible_percentages

ROOT = Path(__file__).resolve().parents[1]
STEPS = ["greedy-vs-random", "mcts2-vs-greedy", "mcts4-vs-mcts2", "expert-vs-mcts4", "search-vs-expert"]
LADDER = ("ladder", "kamakura", "--players", "3", "--games", "12", "--iters", "2,4", "--jobs", "1",
          "--seed", "5")


def balance(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "sim", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=600)


def _mtimes(folder: Path) -> dict[str, int]:
    return {str(p.relative_to(folder)): p.stat().st_mtime_ns for p in folder.rglob("*")
            if p.is_file() and "report" not in p.parts}


@pytest.fixture(scope="module")
def ladder(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, subprocess.CompletedProcess]:
    out = tmp_path_factory.mktemp("ladder") / "kamakura-3p"
    done = balance(*LADDER, "--out", str(out))
    assert done.returncode == 0, done.stderr
    return out, done


def test_ladder_writes_every_step_the_manifest_and_the_report(ladder) -> None:
    out, done = ladder
    manifest = json.loads((out / "ladder.json").read_text())
    assert [s["name"] for s in manifest["steps"]] == STEPS
    assert manifest["levels"] == ["random", "greedy", "mcts2", "mcts4", "expert", "search"]
    assert manifest["players"] == 3 and manifest["games"] == 12 and manifest["game"] == "kamakura"
    assert manifest["seed"] == 5 and manifest["deals"] == "fresh"
    for step in manifest["steps"]:
        run = json.loads((out / step["run_dir"] / "manifest.json").read_text())
        assert run["games_finished"] == 12 and run["rotate_seats"]
        assert run["seed"] == step["seed"] == step_seed(5, step["name"])  # each step its own deals
        assert run["agents"] == [step["higher_agent"]] + [step["lower_agent"]] * 2
    assert manifest["steps"][2]["agents"] == ["mcts:iters=4", "mcts:iters=2", "mcts:iters=2"]
    report = out / "report"
    assert (report / "index.html").is_file() and (report / "tables" / "ladder_0.csv").is_file()
    assert (report / "charts" / "ladder_0.png").stat().st_size > 1000
    table = pd.read_csv(report / "tables" / "ladder_0.csv")
    assert list(table["step"]) == STEPS and (table["n"] == 12).all()
    for step in STEPS:  # the printed table: one line per step with its share, interval and verdict
        line = next(line for line in done.stdout.splitlines() if line.strip().startswith(step))
        assert "%" in line and "[" in line and "33.3%" in line
    assert "60 games played (0 of 5 steps finished already)" in done.stdout
    assert "last step search-vs-expert" in done.stdout
    assert "seed 5, fresh deals in each step (each step's seed derived from 5 and the step's name):" \
        in done.stdout


def game_seeds(out: Path, step: str) -> list[int]:
    """The seeds a step's games were dealt from, in game order (its games table)."""
    games = pq.read_table(out / step / "games.parquet", columns=["game_id", "seed"]).to_pandas()
    return games.sort_values("game_id")["seed"].astype("uint64").tolist()


def test_each_step_is_dealt_fresh_games_by_default(ladder) -> None:
    """No two steps replay the same deals (a step that did would also replay a separate run of the
    ladder's seed game for game)."""
    out, _ = ladder
    seeds = {step: game_seeds(out, step) for step in STEPS}
    assert all(len(s) == 12 for s in seeds.values())
    for a, b in zip(STEPS, STEPS[1:], strict=False):
        assert not set(seeds[a]) & set(seeds[b]), (a, b)
    plain = game_seeds_of_seed(5, 12)
    assert all(not set(s) & set(plain) for s in seeds.values())


def game_seeds_of_seed(seed: int, games: int) -> list[int]:
    """The deals of a run played with `seed` (sim.core.rng.game_seeds)."""
    return [int(x) for x in seeds_of_run(seed, 0, games)]


def test_same_deals_plays_every_step_on_the_ladder_seed_and_is_recorded(tmp_path: Path) -> None:
    out = tmp_path / "same"
    args = ("ladder", "kamakura", "--players", "3", "--games", "6", "--iters", "none", "--no-expert",
            "--jobs", "1", "--seed", "5", "--out", str(out))
    done = balance(*args, "--same-deals")
    assert done.returncode == 0, done.stderr
    manifest = json.loads((out / "ladder.json").read_text())
    assert manifest["deals"] == "same" and [s["seed"] for s in manifest["steps"]] == [5, 5]
    first, second = (game_seeds(out, s["name"]) for s in manifest["steps"])
    assert first == second == game_seeds_of_seed(5, 6)  # the same deals, those of a run of seed 5
    assert "seed 5, the same deals in every step (--same-deals):" in done.stdout
    fresh = balance(*args)  # the same folder asked for fresh deals: refused, nothing played
    assert fresh.returncode == 2 and "deals: ladder has 'same', asked 'fresh'" in fresh.stderr


def test_ladder_again_plays_nothing(ladder) -> None:
    out, _ = ladder
    before = _mtimes(out)
    again = balance(*LADDER, "--out", str(out))
    assert again.returncode == 0, again.stderr
    assert "0 games played (5 of 5 steps finished already)" in again.stdout
    assert _mtimes(out) == before


def test_report_of_a_ladder_folder_has_the_ladder_section(ladder, tmp_path: Path) -> None:
    out, _ = ladder
    done = balance("report", str(out), str(out / STEPS[0]), "--out", str(tmp_path / "report"))
    assert done.returncode == 0, done.stderr
    page = (tmp_path / "report" / "index.html").read_text()
    assert "'>Ladder: kamakura, 3 players" in page and "charts/ladder_0.png" in page
    assert "'>Kamakura: seat win rates" in page  # the plain run keeps its sections
    assert impossible_percentages(page) == []  # only shares are percentages
    summary = json.loads((tmp_path / "report" / "summary.json").read_text())
    assert summary["games"] == 12  # headline figures of the plain run, as before
    ladder_summary = summary["ladders"][0]
    assert [s["step"] for s in ladder_summary["steps"]] == STEPS
    assert ladder_summary["last"]["step"] == STEPS[-1] and ladder_summary["last"]["n"] == 12


def test_each_step_gain_is_drawn_and_printed_before_the_anchored_ratings(ladder) -> None:
    """The ratings' answer is each step's gain over the level below with its own interval (a chart and a
    line per step), shown before each level's rating against the anchor, whose intervals overlap where a
    step's gain is clear."""
    out, done = ladder
    charts = out / "report" / "charts"
    assert (charts / "ladder_0_gains.png").stat().st_size > 1000
    page = (out / "report" / "index.html").read_text()
    assert page.index("charts/ladder_0_gains.png") < page.index("charts/ladder_0_ratings.png")
    assert page.index("Each step's gain over the level below, with its 95% interval") \
        < page.index("Each level's rating, with its 95% interval")
    lines = [line.strip() for line in done.stdout.splitlines()]
    head = next(i for i, line in enumerate(lines) if line.startswith("each step's gain over the level below"))
    assert head < next(i for i, line in enumerate(lines) if line.startswith("each level's rating"))
    gains = lines[head + 1:head + 1 + len(STEPS)]
    assert [line.split()[0] for line in gains] == STEPS
    for line in gains:
        assert re.fullmatch(r"\S+ +([-+]\d+\.\d+ \[[-+][\d.]+, [-+][\d.]+\]: [\d.]+% \[[\d.]+%, [\d.]+%\] "
                            r"against 2 \S+|no finite gain \(.+\))", line), line
    # the answer leads: the first line after the header is the steps' verdicts in a sentence
    assert done.stdout.splitlines()[1].strip().startswith(("Skill pays", "The stronger level", "No step"))


def _players(step: str, higher: str, lower: str, shares: list[list[float]]) -> pd.DataFrame:
    """A players table: game g seats `higher` at seat g % P (rotated) and `lower` elsewhere."""
    rows = []
    for g, game in enumerate(shares):
        for seat, share in enumerate(game):
            rows.append({"step": step, "game_id": g, "seat": seat, "win_share": share,
                         "agent": higher if seat == g % len(game) else lower})
    return pd.DataFrame(rows)


def ladder_table(players: pd.DataFrame, steps: pd.DataFrame) -> pd.DataFrame:
    """The ladder table as `read_ladder` reads it: each step's agents from its run's tally (here each
    step's players table, one chunk)."""
    held = {step: agents_held(seat_tally(frame.assign(score=0)))
            for step, frame in players.groupby("step", sort=False)}
    return ladder_table_from(held, steps)


def test_ladder_table_shares_intervals_and_verdicts() -> None:
    # Step A (3 players): the higher level (seat g % 3) wins 8 of 10 games, shares one (1/2), loses one.
    a = [[0.0] * 3 for _ in range(10)]
    for g in range(8):
        a[g][g % 3] = 1.0
    a[8][8 % 3], a[8][(8 + 1) % 3] = 0.5, 0.5
    a[9][(9 + 1) % 3] = 1.0
    # Step B: the higher level wins 3 of 9 (exactly fair), C: never wins in 30.
    b = [[1.0 if seat == (g % 3 if g < 3 else (g + 1) % 3) else 0.0 for seat in range(3)] for g in range(9)]
    c = [[1.0 if seat == (g + 1) % 3 else 0.0 for seat in range(3)] for g in range(30)]
    players = pd.concat([_players("greedy-vs-random", "greedy", "random", a),
                         _players("mcts8-vs-greedy", "mcts:iters=8", "greedy", b),
                         _players("mcts16-vs-mcts8", "mcts:iters=16", "mcts:iters=8", c)], ignore_index=True)
    manifest = {"steps": [
        {"name": "greedy-vs-random", "higher": "greedy", "lower": "random", "higher_agent": "greedy",
         "lower_agent": "random", "players": 3},
        {"name": "mcts8-vs-greedy", "higher": "mcts8", "lower": "greedy", "higher_agent": "mcts:iters=8",
         "lower_agent": "greedy", "players": 3},
        {"name": "mcts16-vs-mcts8", "higher": "mcts16", "lower": "mcts8", "higher_agent": "mcts:iters=16",
         "lower_agent": "mcts:iters=8", "players": 3},
        {"name": "mcts32-vs-mcts16", "higher": "mcts32", "lower": "mcts16", "higher_agent": "mcts:iters=32",
         "lower_agent": "mcts:iters=16", "players": 3}]}
    table = ladder_table(players, steps_frame(manifest))
    assert list(table["n"]) == [10, 9, 30, 0]
    assert table["win_share"].iloc[:3].tolist() == pytest.approx([8.5 / 10, 3 / 9, 0.0])
    for row, (wins, n) in zip(table.iloc[:3].itertuples(), [(8.5, 10), (3, 9), (0, 30)], strict=True):
        low, high = wilson_interval(wins, n)
        assert (row.ci_low, row.ci_high) == pytest.approx((low, high))
    assert table["fair_share"].iloc[0] == pytest.approx(1 / 3)
    assert table["significant"].tolist() == [True, False, False, False]
    assert table["verdict"].tolist() == ["above fair", "undecided", "below fair", "not played"]
    assert math.isnan(table["log2_iters"].iloc[0]) and table["log2_iters"].iloc[2] == pytest.approx(4.0)
    summary = skill_trace(table)
    # 3 wins of 9 is not a flat curve: its interval holds the fair share, but shows nothing within a margin
    assert summary["flattens_at"] is None and summary["significant_steps"] == 1
    assert summary["undecided"] == ["mcts8-vs-greedy"]
    assert summary["below_fair"] == ["mcts16-vs-mcts8"]
    assert summary["last"]["step"] == "mcts16-vs-mcts8" and summary["last"]["n"] == 30  # the unplayed step
    assert summary["mcts_steps"] == 1 and summary["skill_trace"] == pytest.approx(0.0)


def test_skill_trace_follows_ludii_formula() -> None:
    # Two players, MCTS steps winning 75%, 65%, 55%: edge e = 0.5, 0.3, 0.1 (Ludii's utility 2p - 1); the
    # line through them reaches -0.3 two steps past the last, clamped to 0, so the score is mean(e) = 0.3.
    table = synthetic([("mcts2", "mcts1", 75, 100), ("mcts4", "mcts2", 65, 100), ("mcts8", "mcts4", 55, 100)],
                      players=2)
    summary = skill_trace(table)
    assert summary["skill_trace"] == pytest.approx(0.3)
    assert summary["flattens_at"] is None and summary["mcts_steps"] == 3  # 55% [45, 65]: not shown level


def synthetic(steps: list[tuple[str, str, float, int]], players: int = 3) -> pd.DataFrame:
    """A ladder table (`ladder_table_from`) of steps (higher, lower, the higher level's wins, games)."""
    manifest = {"steps": [{"name": f"{h}-vs-{lo}", "higher": h, "lower": lo, "higher_agent": h,
                           "lower_agent": lo, "players": players} for h, lo, _, _ in steps]}
    held = {f"{h}-vs-{lo}": {h: (n, wins)} for h, lo, wins, n in steps}
    return ladder_table_from(held, steps_frame(manifest))


def test_a_ladder_whose_later_steps_rise_does_not_flatten() -> None:
    """One step short of significance (mcts25 wins 35.8% [32.0, 39.8] against greedy: its interval holds
    the fair share) with every later step well above it: the answer names that step undecided and says
    nothing flattens; the old rule ("the first step whose interval includes the fair share") said the curve
    flattened there."""
    table = synthetic([("greedy", "random", 570, 600), ("mcts25", "greedy", 215, 600),
                       ("mcts50", "mcts25", 300, 600), ("expert", "mcts50", 360, 600),
                       ("search", "expert", 330, 600)])
    summary = skill_trace(table)
    answer = summary["answer"]
    assert "flatten" not in answer and summary["flattens_at"] is None
    assert answer.startswith("The stronger level wins beyond its fair share of 33.3% at 4 of 5 steps "
                             "(greedy-vs-random 95.0% [92.9, 96.5], mcts50-vs-mcts25 50.0% [46.0, 54.0], ")
    assert "; undecided at mcts25-vs-greedy 35.8% [32.0, 39.8]: neither beyond the fair share nor shown " \
           "within 5 pp of it (more games would decide). n = 600 games per step" in answer
    text = format_ladder(table, summary)
    assert text.splitlines()[0].strip() == answer and "flattens" not in text


def test_a_ladder_flattens_only_where_every_later_step_is_shown_level() -> None:
    """3,000 games a step: mcts50 and mcts100 win 33.6% and 33.2% of them, each 90% interval within 5 pp
    of the fair share, so the curve flattens from mcts50 on; a level step followed by a rise is said as
    such, not as flattening."""
    flat = synthetic([("greedy", "random", 2800, 3000), ("mcts25", "greedy", 1500, 3000),
                      ("mcts50", "mcts25", 1008, 3000), ("mcts100", "mcts50", 996, 3000)])
    answer = skill_trace(flat)["answer"]
    assert skill_trace(flat)["flattens_at"] == "mcts50-vs-mcts25"
    assert "the curve flattens from mcts50-vs-mcts25 on: every step from there is shown within 5 pp of " \
           "the fair share (mcts50-vs-mcts25 33.6% [32.1, 35.1], mcts100-vs-mcts50 33.2% [31.8, 34.7]: 90% " \
           "intervals, an equivalence test)" in answer
    rises = synthetic([("greedy", "random", 2800, 3000), ("mcts25", "greedy", 1008, 3000),
                       ("mcts50", "mcts25", 1500, 3000)])
    said = skill_trace(rises)
    assert said["flattens_at"] is None and "flatten" not in said["answer"]
    assert "no gain beyond 5 pp at mcts25-vs-greedy 33.6% [32.1, 35.1] (90% intervals within 5 pp of the " \
           "fair share), yet later steps rise again" in said["answer"]


def test_every_step_above_fair_says_skill_pays_at_every_step() -> None:
    table = synthetic([("greedy", "random", 570, 600), ("expert", "greedy", 400, 600)])
    assert skill_trace(table)["answer"].startswith(
        "Skill pays at every step: the stronger level wins beyond its fair share of 33.3% at all 2 steps "
        "(greedy-vs-random 95.0% [92.9, 96.5], expert-vs-greedy 66.7% [62.7, 70.4]). n = 600 games per step")


def test_parse_iters_and_levels() -> None:
    assert parse_iters(None) == DEFAULT_ITERS and parse_iters("none") == ()
    assert parse_iters("3, 7,20") == (3, 7, 20)
    for bad in ("0,2", "4,2", "2,2", "x", ""):
        with pytest.raises(ConfigError):
            parse_iters(bad)
    assert [lv.agent for lv in levels((5, 10))] == ["random", "greedy", "mcts:iters=5", "mcts:iters=10"]
    assert [lv.agent for lv in levels((5,), expert=True)] == ["random", "greedy", "mcts:iters=5", "expert"]


@pytest.mark.parametrize("args, message", [
    (("ladder", "chess", "--players", "3"), "GAME: must be one of kamakura, sakura"),
    (("ladder", "kamakura", "--players", "3", "--iters", "4,2"), "--iters: iteration counts must increase"),
    (("ladder", "kamakura", "--players", "3", "--iters", "0,2"), "must be at least 1"),
    (("ladder", "kamakura", "--players", "3", "--iters", "a,b"), "--iters: expected whole numbers"),
    (("ladder", "kamakura", "--players", "9"), "players"),
    (("ladder", "kamakura", "--players", "3", "--config", "configs/sakura/base.toml"), "is a sakura config"),
])
def test_bad_input_refused_exit_2_nothing_written(args, message: str, tmp_path: Path) -> None:
    out = tmp_path / "ladder"
    done = balance(*args, "--games", "3", "--out", str(out))
    assert done.returncode == 2, done.stderr
    assert message in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert "Traceback" not in done.stderr and not out.exists()


def test_foreign_out_folder_refused(tmp_path: Path) -> None:
    (tmp_path / "something.txt").write_text("not a ladder")
    done = balance(*LADDER, "--out", str(tmp_path))
    assert done.returncode == 2 and "not a ladder" in done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["something.txt"]


def test_a_step_folder_of_another_run_is_refused_not_counted_finished(ladder, tmp_path: Path) -> None:
    """A step whose folder holds a different run (here: the expert of another model file, as a
    retrained model would leave it) is refused before any game, not taken as finished by its count."""
    import shutil

    out = tmp_path / "copy"
    shutil.copytree(ladder[0], out)
    step = out / "expert-vs-mcts4" / "manifest.json"
    run = json.loads(step.read_text())
    run["resolved_agents"] = [a.replace("@", "@0") if a.startswith("expert") else a
                              for a in run["resolved_agents"]]
    step.write_text(json.dumps(run))
    before = _mtimes(out)
    again = balance(*LADDER, "--out", str(out))
    assert again.returncode == 2 and "made by a different run" in again.stderr
    assert "resolved_agents" in again.stderr and len(again.stderr.strip().splitlines()) == 1
    assert _mtimes(out) == before
