"""`balance tune` beyond enumeration: spaces with wildcards, constraints and their repair, bad
tune files refused by file and key, and the model search's SQLite study resumed after kill -9 with the same
result as an uninterrupted tune."""

from __future__ import annotations

import json
import math
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.core.config import load_toml
from sim.core.errors import ConfigError
from sim.design.model_search import played_of
from sim.design.search_space import SearchSpace, read_constraints, read_dimensions
from sim.design.tune_file import load_tune
from tests.test_report_columns import impossible_percentages

ROOT = Path(__file__).resolve().parents[1]
KAMAKURA = ROOT / "configs" / "kamakura" / "base.toml"
TUNES = ROOT / "configs" / "tunes"

CHIT_SPACE = f'''
base = "{KAMAKURA}"
players = 3
agents = "greedy"
seed = 5
budget = 2400

[space]
"chits.*[*].points" = {{min = 1, max = 10}}
"rules.order_chit_moves[1]" = {{min = 0, max = 3}}

[[constraints]]
sum = "chits.*[*].points"
min = 95
max = 105

[[constraints]]
nondecreasing = "chits.red[*].points"
by = "chits.red[*].icons"

[[constraints]]
nondecreasing = "chits.blue[*].points"
by = "chits.blue[*].icons"

[target]
tolerance = 0.03
length = {{min = 20, max = 45}}
'''
SEARCH = '''
[search]
first_games = 100
final_games = 400
confirm_games = 300
startup_trials = 3
verify_games = 800
curve_checks = 3
curve_games = 200
'''


def write(tmp_path: Path, text: str, name: str = "tune.toml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def balance(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "sim", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=600)


# ---- the space ------------------------------------------------------------------------------------------
def test_wildcards_give_every_element_its_own_dimension_and_auto_chooses_the_method(tmp_path: Path) -> None:
    tune = load_tune(write(tmp_path, CHIT_SPACE + SEARCH))
    space = tune.search_space
    assert tune.method == "model" and len(space.dimensions) == 41
    assert [d.path for d in space.dimensions[:2]] == [("chits", "red", 0, "points"),
                                                      ("chits", "red", 1, "points")]
    assert space.log10_size() > 40 and space.size() >= 10**10
    assert not space.violations(space.base_values())  # the rules of record meet their own constraints
    for small in ("kamakura-4p-order-chits.toml", "kamakura-4p-order-chits-shared-ties.toml"):
        assert load_tune(TUNES / small).method == "racing"  # small grids keep racing every candidate
    big = load_tune(TUNES / "kamakura-3p-chit-points.toml")
    assert big.method == "model" and big.search_space.size() >= 10**10
    assert load_tune(TUNES / "sakura-4p-deck-composition.toml").search_space.log10_size() > 40


def _chit_space() -> SearchSpace:
    base, _ = load_toml(KAMAKURA)
    dims = read_dimensions({"chits.*[*].points": {"min": 1, "max": 10}}, base, "t",
                           lambda spec, where: tuple(range(spec["min"], spec["max"] + 1)))
    constraints = read_constraints(
        [{"sum": "chits.*[*].points", "min": 95, "max": 105}]
        + [{"nondecreasing": f"chits.{c}[*].points", "by": f"chits.{c}[*].icons"}
           for c in ("red", "yellow", "green", "blue")], dims, base, "t")
    return SearchSpace(dims, constraints, base)


SPACE = _chit_space()


@settings(deadline=None, max_examples=200)
@given(st.lists(st.integers(1, 10), min_size=40, max_size=40))
def test_repair_meets_every_constraint_within_the_ranges(raw: list[int]) -> None:
    """Any sampled point repairs into a candidate inside every range that meets the sum and each colour's
    order; a point that already meets them is left as it is."""
    values = SPACE.repair(raw)
    assert not SPACE.violations(values)
    assert all(1 <= v <= 10 for v in values) and 95 <= sum(values) <= 105
    assert SPACE.repair(values) == values


# ---- the curve's checks ---------------------------------------------------------------------------------
@settings(deadline=None, max_examples=200)
@given(st.lists(st.tuples(st.integers(0, 900), st.sampled_from([100, 400, 800]), st.booleans(),
                          st.sampled_from([0.0, 0.0, 0.5]), st.integers(0, 50)), max_size=30),
       st.integers(1, 8))
def test_each_check_takes_the_search_curves_best_within_its_games(trials: list[tuple], checks: int) -> None:
    """The best so far at each check is the candidate the search's own curve holds at that many games:
    never one whose trial ended after them, never worse than an earlier check's, at the full budget the
    search's best."""
    from sim.design.curve_checks import check_budgets, incumbents
    from sim.design.model_search import TrialRecord, best_record, curve

    records = {i: TrialRecord(i, [i], games, played, [objective / 100], 0.0, 1.0, 30.0, violation, False,
                              valid) for i, (played, games, valid, violation, objective) in enumerate(trials)}
    total = sum(r.played for r in records.values())
    budgets = check_budgets(total + 10, checks)
    assert budgets[-1] == total + 10 and budgets == sorted(budgets)
    found = incumbents(list(records.values()), 400, budgets)
    steps = curve(records, 400)
    for budget, best in zip(budgets, found, strict=True):
        held = [b for g, b in steps if g <= budget]
        assert (best.objectives[0] if best else math.inf) == (held[-1] if held else math.inf)
        if best is not None:
            assert sum(r.played for r in records.values() if r.number <= best.number) <= budget
            assert best.valid and best.games >= 400 and best.violation == 0
    assert found[-1] is best_record(records, 400)
    values = [b.objectives[0] for b in found if b is not None]
    assert values == sorted(values, reverse=True)


# ---- bad tune files -------------------------------------------------------------------------------------
BAD = [
    ("unknown search key", SEARCH.replace("startup_trials", "startup_trails"), "search.startup_trails",
     "unknown key"),
    ("unknown sampler", SEARCH + 'sampler = "bayes"\n', "search.sampler", "must be one of"),
    ("unknown method", SEARCH + 'method = "grid"\n', "search.method", "must be one of"),
    ("impossible sum", SEARCH + '\n[[constraints]]\nsum = "chits.red[*].points"\nmin = 101\n',
     "constraints[3]", "no candidate can meet it: the sum can only be 10 to 100"),
    ("min above max", SEARCH + '\n[[constraints]]\nsum = "chits.red[*].points"\nmin = 50\nmax = 40\n',
     "constraints[3]", "min 50 is above max 40"),
    ("impossible count", SEARCH + '\n[[constraints]]\ncount = "chits.red[*].points"\nvalue = 10\nmin = 11\n',
     "constraints[3]", "the count of 10 can only be 0 to 10"),
    # a value no counted key takes counts 0 whatever the bounds: it cannot mean anything (accepted before)
    *[(f"count of a value never taken {bounds}", SEARCH + '\n[[constraints]]\ncount = "chits.red[*].points"\n'
       f'value = 11\n{bounds}\n', "constraints[3].value", "11 is a value none of the counted keys takes")
      for bounds in ("max = 3", "min = 0", "min = 1")],
    ("order against fixed values", SEARCH + '\n[[constraints]]\nnondecreasing = "chits.*[*].icons"\n',
     "constraints[3]", "already fall as the rank rises"),
    ("order by a searched value", SEARCH + '\n[[constraints]]\nnondecreasing = "chits.red[*].icons"\n'
     'by = "chits.blue[*].points"\n', "constraints[3].by", "ranks by a searched value"),
    ("values games without a cap", SEARCH + "values_games = 20\n", "search.values_games",
     "prices component kinds for target.chit_cap, which the file does not set"),
    ("objectives start with seats", SEARCH + 'objectives = ["changes"]\n', "search.objectives",
     'must start with "seats"'),
    ("no curve check", SEARCH.replace("curve_checks = 3", "curve_checks = 0"), "search.curve_checks",
     "must be an integer in 1..20"),
    ("curve checks of one game", SEARCH.replace("curve_games = 200", "curve_games = 1"), "search.curve_games",
     "must be an integer in 2.."),
    ("cmaes with two objectives", SEARCH + 'objectives = ["seats", "l1"]\nsampler = "cmaes"\n',
     "search.sampler", "cmaes searches one objective"),
]


@pytest.mark.parametrize("case, search, key, what", BAD, ids=[b[0] for b in BAD])
def test_bad_tune_files_are_refused_by_file_and_key(tmp_path: Path, case: str, search: str, key: str,
                                                    what: str) -> None:
    path = write(tmp_path, CHIT_SPACE + search)
    out = tmp_path / "out"
    done = balance("tune", str(path), "--out", str(out), "--jobs", "1")
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    line = done.stderr.strip()
    assert len(line.splitlines()) == 1 and f"{path}: {key}: " in line and what in line, line
    assert not out.exists()


@pytest.mark.parametrize("space, where, what", [
    # a key the base does not hold reaches the game's validator, which names the first candidate's key
    ('"chits.*[*].pointz" = {min = 1, max = 3}', " (every searched value at its lowest, repaired): "
     "chits.red[0].pointz", "unknown key"),
    ('"chits.red[*].points" = {min = 4, max = 2}', 'space."chits.red[*].points".max',
     "must be an integer >= 4"),
    ('"chits.red.points[*]" = {min = 1, max = 3}', 'space."chits.red.points[*]"', "chits.red is an array"),
    ('"rules.tie_break[*]" = {min = 1, max = 3}', 'space."rules.tie_break[*]"', "is not an array"),
])
def test_bad_space_keys_are_refused_by_file_and_key(tmp_path: Path, space: str, where: str,
                                                    what: str) -> None:
    path = write(tmp_path, CHIT_SPACE.replace('"chits.*[*].points" = {min = 1, max = 10}', space) + SEARCH)
    with pytest.raises(ConfigError) as err:
        load_tune(path)
    head = f"{path}{where}" if where.startswith(" ") else f"{path}: {where}"
    assert str(err.value).startswith(head), str(err.value)
    assert what in str(err.value), str(err.value)


# ---- kill -9 and resume ----------------------------------------------------------------------------------
def _stored(db: Path) -> tuple[int, bool]:
    """(complete trials, whether a running trial has a finished stage) of the search study."""
    if not db.exists():
        return 0, False
    try:  # read-only: connecting must not create the file before the tune does
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1) as con:
            states = con.execute("SELECT t.state, (SELECT COUNT(*) FROM trial_user_attributes a WHERE "
                                 "a.trial_id = t.trial_id AND a.key = 'progress') FROM trials t").fetchall()
    except sqlite3.Error:
        return 0, False
    return sum(s == "COMPLETE" for s, _ in states), any(s == "RUNNING" and n for s, n in states)


def _trials(out: Path) -> list[tuple]:
    state = json.loads((out / "search.json").read_text())
    return [(r["number"], r["values"], r["games"], r["played"], r["objectives"])
            for r in state["studies"]["model"]["records"]]


def assert_incumbents_checked(state: dict) -> None:
    """The incumbent's check, over a finished search's trials in order: a candidate that ended the stages
    better than every verified one played on to verify_games; one left at final_games was no better; the
    curve and the recommendation count verified candidates only."""
    final, verify = state["search"]["final_games"], state["search"]["verify_games"]
    assert verify > final
    best, curve, spent = float("inf"), [], 0
    for r in state["studies"]["model"]["records"]:
        spent += r["played"]
        if r["valid"] and final <= r["games"] < verify and not r["stopped_early"] and r["violation"] == 0:
            assert r["objectives"][0] >= best  # not better than the verified best: not extended
        if r["valid"] and r["games"] >= verify and r["violation"] == 0:
            best = min(best, r["objectives"][0])
        curve.append([spent, best])
    assert [[g, b] for g, b in state["studies"]["model"]["curve"]] == curve
    records = state["studies"]["model"]["records"]
    rec = next(r for r in records if r["number"] == state["recommended"]["trial"])
    assert rec["games"] >= verify and any(final <= r["games"] < verify for r in records)


def check_games(state: dict) -> int:
    """The fresh games the curve's checks played beyond the confirmation: one play per candidate and game
    count (checks share the confirmation's seed, so a candidate checked twice at one size plays once)."""
    values = {(k, r["number"]): json.dumps(r["values"]) for k, s in state["studies"].items()
              for r in s["records"]}
    held = {(json.dumps(e["values"]), state["search"]["confirm_games"]) for e in state["confirmed"]}
    played = {(values[c["study"], c["trial"]], c["games"]) for c in state["curve_checks"]
              if c["trial"] is not None}
    return sum(games for _, games in played - held)


def assert_curve_checked(state: dict) -> None:
    """The curve's checks of every study: at k/curve_checks of the budget the best fully played feasible
    candidate among the trials that ended within it (the search's own curve at that point), its figures on
    fresh games, the last check the confirmation itself; equal candidates have equal figures (one set of
    fresh games for every study and check)."""
    search, budget = state["search"], state["budget"]
    checks = state["curve_checks"]
    assert len(checks) == search["curve_checks"] * len(state["studies"])
    for kind, study in state["studies"].items():
        rows = [c for c in checks if c["study"] == kind]
        assert [c["budget"] for c in rows] == [budget * k // search["curve_checks"]
                                               for k in range(1, search["curve_checks"] + 1)]
        by_number = {r["number"]: r for r in study["records"]}
        for c in rows:
            within = [g for g, b in study["curve"] if g <= c["budget"]]
            best = [b for g, b in study["curve"] if g <= c["budget"]]
            if c["trial"] is None:
                assert not within or best[-1] is None or best[-1] == math.inf
                continue
            assert by_number[c["trial"]]["objectives"][0] == pytest.approx(best[-1]) == c["search_value"]
            assert c["low"] <= c["value"] <= c["high"]
        last = rows[-1]
        assert last["games"] == search["confirm_games"]
        if kind == "model":
            assert last["trial"] == state["recommended"]["trial"]
            assert last["value"] == pytest.approx(state["recommended"]["confirm"][state["agents"]]["value"])
        elif state.get("baseline_confirmed"):
            confirmed = state["baseline_confirmed"]["confirm"][state["agents"]]
            assert last["value"] == pytest.approx(confirmed["value"])
    seen: dict[tuple, float] = {}
    values = {(k, r["number"]): json.dumps(r["values"]) for k, s in state["studies"].items()
              for r in s["records"]}
    for c in checks:
        if c["trial"] is not None:
            key = (values[c["study"], c["trial"]], c["games"])
            assert seen.setdefault(key, c["value"]) == c["value"]


def test_a_killed_tune_resumes_from_its_study_and_ends_as_an_uninterrupted_one(tmp_path: Path) -> None:
    """kill -9 while a trial is between stages; the same command again finishes that trial from its
    stored stages (no finished stage replayed: the resumed session plays exactly the games the study did
    not hold) and ends with the trials, figures and recommendation of an uninterrupted tune. The killed
    session ran with --jobs 2 (loky), the resumed one with --jobs 1, the uninterrupted one through
    --backend dask: neither jobs nor backend changes the result."""
    # random agents (about ten times greedy's speed) and more trials: the same mechanics, a quicker test
    path = write(tmp_path, CHIT_SPACE.replace('agents = "greedy"', 'agents = "random"')
                 .replace("budget = 2400", "budget = 7000") + SEARCH)
    whole = tmp_path / "whole"  # uninterrupted, through Dask (a LocalCluster): the backend changes nothing
    done = balance("tune", str(path), "--out", str(whole), "--jobs", "2", "--quiet", "--backend", "dask")
    assert done.returncode == 0, done.stderr
    cut = tmp_path / "cut"
    proc = subprocess.Popen([sys.executable, "-m", "sim", "tune", str(path), "--out", str(cut), "--jobs", "2",
                             "--quiet"], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    deadline = time.time() + 300
    while time.time() < deadline and proc.poll() is None:
        complete, mid_trial = _stored(cut / "study.db")
        if complete >= 1 and mid_trial:
            break
        time.sleep(0.02)
    assert proc.poll() is None, "the tune finished before it could be killed"
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    import optuna

    study = optuna.load_study(study_name="search", storage=f"sqlite:///{cut / 'study.db'}")
    held = sum(played_of(t.user_attrs) for t in study.get_trials())
    assert any(t.state.name == "RUNNING" for t in study.get_trials())
    again = balance("tune", str(path), "--out", str(cut), "--jobs", "1", "--quiet")
    assert again.returncode == 0, again.stderr
    assert _trials(cut) == _trials(whole)
    a, b = (json.loads((d / "search.json").read_text()) for d in (whole, cut))
    spent = a["studies"]["model"]["spent"]
    assert b["studies"]["model"]["spent"] == spent
    confirm = a["search"]["confirm_games"]
    # the resumed session replayed no stored stage (and played the confirmation and the curve's checks)
    assert b["played_now"] == spent - held + confirm + check_games(a)
    assert a["curve_checks"] == b["curve_checks"]
    assert a["recommended"] == b["recommended"]
    assert (whole / "recommended.toml").read_text() == (cut / "recommended.toml").read_text()
    assert_incumbents_checked(a)
    base = balance("tune", str(path), "--out", str(cut), "--jobs", "1", "--quiet", "--baseline", "random")
    assert base.returncode == 0, base.stderr
    state = json.loads((cut / "search.json").read_text())
    assert set(state["studies"]) == {"model", "random"} and state["studies"]["random"]["spent"] <= 7000
    assert (cut / "report" / "index.html").is_file()
    assert (cut / "report" / "charts" / "search_curve.png").is_file()
    assert _trials(cut) == _trials(whole)  # the baseline's study sits beside the search's, untouched
    assert_curve_checked(state)
    # the checks measure and never steer: other checks resume the same study (no --force), play no search
    # game and only the checks not yet played
    path.write_text(path.read_text().replace("curve_checks = 3", "curve_checks = 2"))
    other = balance("tune", str(path), "--out", str(cut), "--jobs", "1", "--quiet", "--baseline", "random")
    assert other.returncode == 0, other.stderr
    again = json.loads((cut / "search.json").read_text())
    assert again["studies"] == state["studies"] and again["recommended"] == state["recommended"]
    assert_curve_checked(again)
    assert again["played_now"] <= 2 * 200  # one new check per study at most (half the budget)
    assert (cut / "report" / "tables" / "search_curve_checks.csv").is_file()



# ---- component balance ------------------------------------------------------------------------------------
CAPPED = (CHIT_SPACE.replace('agents = "greedy"', 'agents = "random"')
          .replace("budget = 2400", "budget = 14000")
          .replace("tolerance = 0.03", "tolerance = 0.03\nchit_cap = 0.4")
          + SEARCH + 'method = "model"\nvalues_games = 6\nconfirm_values_games = 10\n')


def test_the_component_cap_prices_candidates_by_paired_intervention(tmp_path: Path) -> None:
    """target.chit_cap in a model search: every candidate that played every stage within the length is
    priced on values_games base games of the values study (racing on top: the rest are not); the
    figures are the same at --jobs 1 and 2; the confirmation's kinds are what `balance values` gives the
    recommended config on the same fresh seeds; the statement rests on the cap's simultaneous bounds; the
    budget holds."""
    from analysis.causal_values import component_values, read_values_run
    from sim.design.tune import confirm_seed

    path = write(tmp_path, CAPPED)
    outs = {jobs: tmp_path / f"jobs{jobs}" for jobs in (1, 2)}
    for jobs, out in outs.items():
        done = balance("tune", str(path), "--out", str(out), "--jobs", str(jobs), "--quiet")
        assert done.returncode == 0, done.stderr
    a, b = (json.loads((out / "search.json").read_text()) for out in outs.values())
    assert a["studies"]["model"]["records"] == b["studies"]["model"]["records"]
    assert a["recommended"] == b["recommended"]
    records = a["studies"]["model"]["records"]
    full = a["search"]["final_games"]
    priced = [r for r in records if r["chit"]]
    assert priced and all(r["games"] >= full and not r["stopped_early"] for r in priced)
    assert all(r["chit"] is None for r in records if r["games"] < full or r["stopped_early"])
    for r in priced:  # priced within the length range: the violation is the worth over the cap alone
        assert r["chit"]["base_games_all"] == 6
        assert r["violation"] == pytest.approx(max(r["chit"]["value"] - 0.4, 0.0))
    assert any(r["violation"] == 0 for r in priced) and any(r["violation"] > 0 for r in priced)
    # the search, its pricing and the confirmation within the budget, and the curve's checks beside it
    assert a["played_now"] <= 14000 + check_games(a)
    rec = a["recommended"]["confirm"]["random"]
    assert rec["chit"]["base_games_all"] == 10
    # the confirmation's kinds, against `balance values` on the recommended config and the same seeds
    values_out = tmp_path / "values"
    done = balance("values", str(outs[1] / "recommended.toml"), "--players", "3", "--agents", "random",
                   "--games", "10", "--seed", str(confirm_seed(5)), "--positions", "0", "--out",
                   str(values_out), "--quiet")
    assert done.returncode == 0, done.stderr
    table = component_values(read_values_run(values_out))
    table = table[(table["seat"].astype(str) == "all") & (table["position"] == 0)]
    by_kind = {r["kind"]: r["value"] for r in rec["kinds"]}
    assert set(by_kind) == set(table["component"])
    for label, value in zip(table["component"], table["value"], strict=True):
        assert by_kind[label] == pytest.approx(value, abs=1e-12)
    assert rec["chit"]["value"] == pytest.approx(table["value"].max(), abs=1e-12)
    met = rec["high"] < 0.03 and rec["chit"]["high_any"] <= 0.4 and rec["length_low"] >= 20
    assert rec["met"] == met and ("adds" in rec["statement"] and "cap 40" in rec["statement"])
    assert (outs[1] / "report" / "index.html").is_file()
    page = (outs[1] / "report" / "index.html").read_text()
    assert "What each component kind adds" in page
    assert impossible_percentages(page) == []  # only shares are percentages


def test_a_small_space_is_counted_in_words() -> None:
    """A 3-candidate model tune said "10^0.5 candidates"."""
    from sim.commands.tune import _candidates

    assert _candidates(math.log10(3)) == "3 candidates"
    assert _candidates(math.log10(250_000)) == "250,000 candidates"
    assert _candidates(12.4) == "10^12.4 candidates"
