"""`balance tune`: the objective's bounds, the racer's decisions on constructed win counts, a race over a
constructed objective, and a real tune on a tiny space whose answer is known."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import numpy as np
import pytest

from analysis.stats import seat_deviation
from sim.core.config import load_toml
from sim.core.errors import ConfigError
from sim.design.overrides import dump_toml
from sim.design.racing import Standing, best_of, decided, race, race_round, standing
from sim.design.racing import verdict as tune_verdict
from sim.design.tune_file import Racing, Target, load_tune
from tests.test_report_columns import impossible_percentages

ROOT = Path(__file__).resolve().parents[1]
KAMAKURA = (ROOT / "configs" / "kamakura" / "base.toml").as_posix()


def balance(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "sim", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=600)


# ---- the objective --------------------------------------------------------------------------------------
def test_seat_deviation_bounds() -> None:
    even = seat_deviation([1000, 1000, 1000, 1000], 4000)
    assert even["value"] == 0 and even["low"] == 0 and 0 < even["high"] < 0.03
    skew = seat_deviation([1400, 1000, 900, 700], 4000)
    assert skew["value"] == pytest.approx(0.1)
    assert 0.07 < skew["low"] < 0.1 < skew["high"] < 0.13
    wider = seat_deviation([1400, 1000, 900, 700], 4000, confidence=0.99)
    assert wider["low"] < skew["low"] and wider["high"] > skew["high"]


# ---- the racer on constructed data ------------------------------------------------------------------------
def test_racer_drops_a_clearly_worse_candidate_and_keeps_close_ones() -> None:
    target = Target(tolerance=0.02)
    standings = {
        "fair": standing("fair", [1000, 1010, 995, 995], 4000, target),
        "close": standing("close", [1060, 980, 990, 970], 4000, target),
        "bad": standing("bad", [1500, 900, 900, 700], 4000, target),
    }
    dropped = race_round(standings)
    assert set(dropped) == {"bad"} and "clearly worse" in dropped["bad"]
    assert best_of(list(standings.values())).slug == "fair"
    # with few games nothing is clear yet
    few = {s: standing(s, np.array(v.wins) / 40, 100, target) for s, v in standings.items()}
    assert race_round(few) == {}


def test_racer_halving_and_constraints() -> None:
    target = Target(tolerance=0.02, length=(20.0, 30.0))
    standings = {f"c{i}": standing(f"c{i}", [1000 + 10 * i, 1000, 1000, 1000 - 10 * i], 4000, target,
                                   length=(25.0, 4.0)) for i in range(6)}
    standings["long"] = standing("long", [1000, 1000, 1000, 1000], 4000, target, length=(40.0, 4.0))
    assert standings["long"].feasible == "no" and standings["c0"].feasible == "yes"
    dropped = race_round(standings)
    assert set(dropped) == {"long"} and "game length" in dropped["long"]
    halved = race_round(standings, method="halving", eta=3)
    kept = set(standings) - set(halved)
    assert kept == {"c0", "c1"}  # ceil(6 / 3) best by objective among the feasible


def test_chit_cap_constraint() -> None:
    target = Target(tolerance=0.02, chit_cap=0.10)
    ok = standing("ok", [1000] * 4, 4000, target, chits=[("red 1", 0.02, 0.01), ("blue 4", 0.05, 0.01)])
    bad = standing("bad", [1000] * 4, 4000, target, chits=[("red 1", 0.02, 0.01), ("blue 4", 0.20, 0.01)])
    assert ok.feasible == "yes" and ok.chit_max_item == "blue 4"
    assert bad.feasible == "no" and "blue 4" in bad.why_infeasible
    assert set(race_round({"ok": ok, "bad": bad})) == {"bad"}


def test_verdicts() -> None:
    target = Target(tolerance=0.02)
    good = standing("g", [5000, 5020, 4990, 4990], 20000, target)
    met, text = tune_verdict(good, target, [good], 0.95)
    assert met and text.startswith("Target met with 95% confidence")
    far = [standing(f"f{i}", [6000 + 100 * i, 5000, 4500, 4500 - 100 * i], 20000, target) for i in range(3)]
    met, text = tune_verdict(far[0], target, far, 0.95)
    assert not met and "no candidate in the space meets it" in text
    unsure = standing("u", [520, 500, 490, 490], 2000, target)
    met, text = tune_verdict(unsure, target, [unsure], 0.95)
    assert not met and "could not be ruled out: u" in text
    assert "more games per candidate (racing.final_games) would settle them" in text
    # the advice names the setting that stopped the race, the candidates what they change
    met, text = tune_verdict(unsure, target, [unsure], 0.95, limit="budget",
                             names={"u": 'rules.tie_break = "shared"'})
    assert 'could not be ruled out: rules.tie_break = "shared"; a larger budget would settle them' in text
    assert decided([good, far[0]], 0.02) == "met" and decided(far, 0.02) == "out of reach"
    assert decided([unsure, *far], 0.02) == ""


def test_race_over_a_constructed_objective_finds_the_best_with_few_games() -> None:
    """Candidate i wins seat 0 with probability 0.25 + 0.01 * |i - 7| (the rest split evenly): candidate 7
    is fair. Each play draws the new games' winners from a seeded multinomial."""
    target = Target(tolerance=0.02)
    slugs = [f"c{i:02d}" for i in range(20)]
    wins = {s: np.zeros(4) for s in slugs}
    games = dict.fromkeys(slugs, 0)

    def play(tasks: list[tuple[str, int]]) -> list[tuple[str, int, Standing]]:
        out = []
        for slug, n in tasks:
            i = int(slug[1:])
            p0 = 0.25 + 0.01 * abs(i - 7)
            rng = np.random.default_rng([i, n])
            wins[slug] += rng.multinomial(n - games[slug], [p0] + [(1 - p0) / 3] * 3)
            played, games[slug] = n - games[slug], n
            out.append((slug, played, standing(slug, wins[slug], n, target)))
        return out

    racing = Racing(first_games=500, growth=2, final_games=16000, confirm_games=0)
    result = race(slugs, play, racing, budget=10**9)
    assert result.winner in ("c06", "c07", "c08")
    exhaustive = len(slugs) * result.games[result.winner]
    assert result.games[result.winner] == 16000 and result.total < exhaustive / 2
    assert result.games["c00"] <= 4000 and result.games["c19"] <= 1000  # the far ones stop early
    assert all(result.dropped[s][1] for s in slugs if s not in ("c06", "c07", "c08") and s in result.dropped)
    # a budget that cannot pay the later rounds keeps the best by objective and stops within it
    for s in slugs:
        wins[s][:] = 0
        games[s] = 0
    lines: list[str] = []
    capped = race(slugs, play, racing, budget=30000, say=lines.append)
    assert capped.total <= 30000 and capped.winner in ("c05", "c06", "c07", "c08", "c09")
    assert capped.limited_by == "budget" and result.limited_by == "racing.final_games"
    # a round line names the candidates the budget cut, so its counts add up
    cut_rounds = [line for line in lines if "cut for budget" in line]
    assert cut_rounds, lines
    for line in cut_rounds:
        m = re.search(r"(\d+) candidates at .* \((\d+) cut for budget, (\d+) dropped\), (\d+) left", line)
        assert m, line
        candidates, _cut, dropped, left = map(int, m.groups())
        assert candidates - dropped == left


# ---- tune files -------------------------------------------------------------------------------------------
def _tune_file(tmp_path: Path, base: str, extra: str = "") -> Path:
    path = tmp_path / "tune.toml"
    path.write_text(f"""
base = "{base}"
players = 2
agents = "random"
seed = 4
budget = 20000
[space]
"rules.tie_break" = {{choices = ["last_in_order", "first_in_order", "shared"]}}
"rules.order_chit_moves[1]" = {{min = 0, max = 1}}
[target]
tolerance = 0.1
[racing]
first_games = 100
final_games = 400
confirm_games = 400
{extra}""")
    return path


SPACE = '"rules.tie_break" = {choices = ["last_in_order", "first_in_order", "shared"]}'
BAD_SPACES = {
    '"rules.tie_break" = {choices = ["last_in_order", "coin_flip"]}': "rules.tie_break",
    '"rules.order_chit_moves[7]" = {min = 0, max = 1}': "index 7 is out of range",
    '"rules.tie_break" = {min = 0}': "needs {min = ..., max = ...}",
    '"rules.order_chit_moves[0]" = {min = 0, max = 1}': "rules.order_chit_moves[0]",
    '"rules..x" = [1]': "not a dotted config key",
}


@pytest.mark.parametrize("line", sorted(BAD_SPACES))
def test_bad_tune_file_refused_with_file_and_key(tmp_path: Path, line: str) -> None:
    path = _tune_file(tmp_path, KAMAKURA)
    path.write_text(path.read_text().replace(SPACE, line))
    with pytest.raises(ConfigError, match="tune.toml") as err:
        load_tune(path)
    assert BAD_SPACES[line] in str(err.value)


def test_bad_tune_refused_on_the_command_line_nothing_written(tmp_path: Path) -> None:
    path = _tune_file(tmp_path, KAMAKURA)
    path.write_text(path.read_text().replace(SPACE, '"rules.tie_break" = {choices = ["coin_flip"]}'))
    out = tmp_path / "out"
    run = balance("tune", str(path), "--out", str(out), "--jobs", "1")
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert len(run.stderr.strip().splitlines()) == 1 and "rules.tie_break" in run.stderr
    path.write_text(_tune_file(tmp_path, KAMAKURA).read_text().replace("budget = 20000", "budget = 500"))
    run = balance("tune", str(path), "--out", str(out), "--jobs", "1")
    assert run.returncode == 2 and "budget" in run.stderr
    assert not out.exists()


def test_tune_finds_the_known_answer_on_a_tiny_space(tmp_path: Path) -> None:
    """Every chit worth 0 points: every game ends tied at 0, so the tie-break alone decides. "shared" gives
    each seat exactly half of every game (deviation 0); first_in_order and last_in_order give one seat
    every game (deviation 0.5). The tune must pick "shared", drop the others in round 1 and say the target
    is met."""
    merged, _ = load_toml(KAMAKURA)
    for chits in merged["chits"].values():
        for chit in chits:
            chit["points"] = 0
    base = tmp_path / "zero.toml"
    base.write_text(dump_toml(merged))
    path = _tune_file(tmp_path, base.name)
    out = tmp_path / "out"
    run = balance("tune", str(path), "--out", str(out), "--jobs", "1")
    assert run.returncode == 0, run.stderr
    state = json.loads((out / "tune.json").read_text())
    assert 'rules.tie_break = "shared"' in state["recommended_label"]
    assert state["met"] and state["statement"].startswith("Target met with 95% confidence")
    dropped = [c for c in state["candidates"] if c["dropped_round"] == 1]
    assert len(dropped) == 4 and all('"shared"' not in c["label"] for c in dropped)
    # at 200 games the shared candidates' upper bounds are under the tolerance: decided, the race stops;
    # the exhaustive grid is priced at the confirmation's 400 games per candidate
    assert state["race_games"] == 6 * 100 + 2 * 100 and state["exhaustive_games"] == 6 * 400
    assert "decided (met)" in state["rounds"][-1]["note"]
    assert state["confirm"]["games"] == 400 and state["confirm"]["value"] == 0
    # the recommended config is standalone and `simulate` accepts it
    rec = tomllib.loads((out / "recommended.toml").read_text())
    assert rec["rules"]["tie_break"] == "shared"
    sim = balance("simulate", str(out / "recommended.toml"), "--players", "2", "--games", "50", "--agents",
                  "random", "--jobs", "1", "--out", str(tmp_path / "check"), "--quiet")
    assert sim.returncode == 0, sim.stderr
    page = (out / "report" / "index.html").read_text()
    assert "Target met with 95% confidence" in page and "exhaustive" in page
    assert impossible_percentages(page) == []  # only shares are percentages
    # run again: nothing replayed
    again = balance("tune", str(path), "--out", str(out), "--jobs", "1")
    assert again.returncode == 0 and "0 played now" in again.stdout


def test_the_chit_cap_prices_each_survivor_by_paired_intervention(tmp_path: Path) -> None:
    """target.chit_cap in a race is causal: each round prices every survivor on racing.values_at(games)
    base games of the values study (kept beside its run, so a second run plays nothing), the pricing is
    charged to the games, and the confirmation prices the recommendation on fresh base games. Every chit
    worth 0 points and ties shared: holding any chit changes no share, so every kind is worth exactly 0."""
    merged, _ = load_toml(KAMAKURA)
    for chits in merged["chits"].values():
        for chit in chits:
            chit["points"] = 0
    merged["rules"]["tie_break"] = "shared"
    base = tmp_path / "zero.toml"
    base.write_text(dump_toml(merged))
    path = _tune_file(tmp_path, base.name, "values_games = 8\nconfirm_values_games = 6\n")
    path.write_text(path.read_text().replace(SPACE, '"rules.tie_break" = {choices = ["shared"]}')
                    .replace("tolerance = 0.1", "tolerance = 0.1\nchit_cap = 0.05"))
    out = tmp_path / "out"
    run = balance("tune", str(path), "--out", str(out), "--jobs", "2")
    assert run.returncode == 0, run.stderr
    state = json.loads((out / "tune.json").read_text())
    priced = 0
    for c in state["candidates"]:
        kept = json.loads((out / "candidates" / c["slug"] / "component_values.json").read_text())["stats"]
        assert kept["base_games"] == max(2, -(-8 * c["games"] // 400))  # values_at: in proportion
        assert c["chit_max"] == 0 and c["chit_max_low"] == 0 and c["chit_max_high"] == 0
        priced += kept["played"]
    assert state["race_games"] == sum(c["games"] for c in state["candidates"]) + priced
    confirm = json.loads((out / "confirm" / "component_values.json").read_text())["stats"]
    assert confirm["base_games"] == 6 and state["confirm"]["chit_max"] == 0
    assert state["met"], state["statement"]
    again = balance("tune", str(path), "--out", str(out), "--jobs", "1")
    assert again.returncode == 0 and "0 played now" in again.stdout, again.stdout
    bad = tmp_path / "bad.toml"
    bad.write_text(path.read_text().replace("chit_cap = 0.05", ""))
    refused = balance("tune", str(bad), "--out", str(tmp_path / "bad"), "--jobs", "1")
    assert refused.returncode == 2, refused.stderr
    assert "racing.values_games" in refused.stderr and "chit_cap" in refused.stderr
