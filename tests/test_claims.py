"""Claims no stronger than the tests: no significance below a minimum number of games
and no interval outside what is possible; 'detectable' at the level the family's correction uses; worth
and handicaps as whole score points (in the game's own unit) with the share they give; values after the
start labelled as conditional; the power's seat rotated evenly; redundant rows merged and rows that sum
to a constant tested jointly; runs of different agents or readings flagged; win-rate differences never
called "points".
"""

from __future__ import annotations

import math
from pathlib import Path
from statistics import NormalDist

import numpy as np
import pandas as pd
import pytest

from analysis.causal_values import (
    MIN_BASE_GAMES,
    ValuesRun,
    component_values,
    format_values,
    read_values_run,
)
from analysis.handicaps import handicap_from, handicap_tally
from analysis.kamakura.ties import win_shares
from analysis.values_report import values_section
from sim.app.runner import plan_run, simulate
from sim.app.values_run import plan_values

ROOT = Path(__file__).resolve().parents[1]
KAMAKURA = ROOT / "configs" / "kamakura" / "base.toml"
SAKURA = ROOT / "configs" / "sakura" / "base.toml"
POWER_Z = NormalDist().inv_cdf(0.8)


@pytest.fixture(scope="module")
def values_run(tmp_path_factory: pytest.TempPathFactory) -> ValuesRun:
    """40 base games of 3-player Kamakura, greedy: the start in every game, after 18 turns in every second
    (20 at most, fewer where a kind is gone): below the minimum n."""
    out = tmp_path_factory.mktemp("claims") / "values"
    simulate(plan_values(KAMAKURA, 3, "greedy", 4, "0,18"), 40, out, jobs=1, chunk_size=20)
    return read_values_run(out)


def _subset(run: ValuesRun, table: pd.DataFrame) -> ValuesRun:
    return ValuesRun(run.path, run.manifest, table.reset_index(drop=True), run.components, run.spec)


# ---- 1. no significance below a minimum n, no interval outside [-1, 1] -----------------------------------
def test_rows_of_too_few_games_are_not_tested(values_run: ValuesRun) -> None:
    """Four base games: every row keeps its value and n but has no interval, no p-value, is never
    significant and is printed as "too few games (n = 4)", where it once read 'significant: yes'."""
    four = _subset(values_run, values_run.table[values_run.table["game_id"] < 4])
    table = component_values(four)
    assert (table["n"] <= 4).all() and table["value"].notna().any()
    assert table["p_value"].isna().all() and table["p_holm"].isna().all()
    assert table[["ci_low", "ci_high"]].isna().all().all() and not table["significant"].any()
    assert not table["tested"].any()
    text = format_values(four)
    assert "too few games (n = 4)" in text and "[" not in text.split("\n", 2)[2]
    start = values_section({"four": four})[0].tables[0][2]
    assert start["95% interval (pp)"].str.startswith("too few games (n = ").all()
    assert set(start["Significant"]) == {"not tested"}


def test_holm_counts_only_the_rows_tested(values_run: ValuesRun) -> None:
    """The start (40 games) is tested, after 18 turns (20 at most) is not and stays out of Holm's family."""
    assert MIN_BASE_GAMES == 30
    table = component_values(values_run)
    everyone = table[table["seat"].astype(str) == "all"]
    late = everyone[everyone["position"] == 18]
    assert len(late) and (late["n"] < MIN_BASE_GAMES).all() and late["p_holm"].isna().all()
    start = everyone[everyone["position"] == 0]
    assert (start["n"] == 40).all() and start["tested"].all()
    p = np.sort(start["p_value"].to_numpy())
    m = len(p)
    expected = np.minimum(1, np.maximum.accumulate((m - np.arange(m)) * p))
    assert np.allclose(np.sort(start["p_holm"].to_numpy()), expected)


def test_intervals_stay_within_what_is_possible(values_run: ValuesRun) -> None:
    """Per-game differences of 1 in 37 games and 0 in 3: the normal interval's upper end, 1.008, is
    impossible for a difference of win shares; it is cut at 1."""
    t = values_run.table
    t = t[(t["position"] == 0) & (t["component"] >= 0)].copy()
    control = t["holder"].to_numpy() < 0
    own = t["holder"].to_numpy() == t["seat"].to_numpy()
    low_games = t["game_id"].to_numpy() < 3
    t["win_share"] = np.where(control, 0.0, np.where(own & ~low_games, 1.0, 0.0))
    table = component_values(_subset(values_run, t))
    seats = table[table["seat"].astype(str) != "all"]
    assert np.allclose(seats["value"], 37 / 40)
    assert (seats["ci_high"] <= 1.0).all() and (seats["ci_low"] >= -1.0).all()
    assert np.isclose(seats["ci_high"], 1.0).all()


# ---- 2. 'detectable' at the family's Bonferroni level ----------------------------------------------------
def test_detectable_is_at_the_bonferroni_level_of_the_family(values_run: ValuesRun) -> None:
    from analysis.stats import Z95, interval_family

    se = np.full(10, 0.01)
    value = np.linspace(-0.02, 0.02, 10)
    family = interval_family(value, value - Z95 * se, value + Z95 * se)
    z = NormalDist().inv_cdf(1 - 0.05 / (2 * 10)) + POWER_Z
    assert np.allclose(family["detectable"], z * se)
    table = component_values(values_run)
    start = table[(table["seat"].astype(str) == "all") & (table["position"] == 0)]
    m = int(table[table["seat"].astype(str) == "all"]["tested"].sum())
    assert m == len(start) and (start["family"] == m).all()
    z = NormalDist().inv_cdf(1 - 0.05 / (2 * m)) + POWER_Z
    assert np.allclose(start["detectable"], z * start["se"])
    caption = values_section({"run": values_run})[0].tables[0][1]
    assert f"Holm over its {m} tested rows; detectable at 5%/{m}" in caption


# ---- 3. whole score points, in the game's own unit ------------------------------------------------------
def test_the_seat_handicap_is_the_whole_bonus_closest_to_the_fair_share() -> None:
    """Scores are whole: the handicap is a whole bonus, the one whose re-scored share is closest to 1/N (no
    farther than a point more or less), with the share it gives and its interval; the bonus on the other
    side of 1/N brackets it with the handicap; the handicap's interval's bounds are whole."""
    rng = np.random.default_rng(3)
    score = np.column_stack([rng.integers(0, 10, 4000), rng.integers(2, 12, 4000),
                             rng.integers(1, 11, 4000)]).astype(float)
    table = handicap_from(handicap_tally(score, {}, win_shares, "first_in_order"))

    def gap(seat: int, bonus: float) -> float:
        moved = score + np.eye(3)[seat] * bonus
        return float(win_shares(moved, None, "first_in_order")[:, seat].mean()) - 1 / 3

    for r in table.itertuples():
        h = r.handicap_points
        assert h == round(h) and r.ci_low == round(r.ci_low) and r.ci_high == round(r.ci_high)
        assert r.ci_low <= h <= r.ci_high
        assert r.share_at_handicap == pytest.approx(gap(r.seat, h) + 1 / 3)
        assert r.share_ci_low < r.share_at_handicap < r.share_ci_high
        assert abs(gap(r.seat, h)) <= min(abs(gap(r.seat, b)) for b in (h - 1, h + 1, 0))
        assert gap(r.seat, h) * gap(r.seat, r.other_points) < 0 and abs(r.other_points - h) >= 1


def test_worth_in_points_is_a_whole_bonus_with_the_change_it_gives(values_run: ValuesRun) -> None:
    table = component_values(values_run)
    shown = table[np.isfinite(table["points_equivalent"])]
    assert len(shown) > 10
    assert (shown["points_equivalent"] == shown["points_equivalent"].round()).all()
    bounds = shown[["pe_ci_low", "pe_ci_high"]].dropna()
    assert len(bounds) and (bounds == bounds.round()).all().all()
    # the bonus reaches the value: its gain is at least the value (a loss: at most)
    gain, value = shown["pe_gain"].to_numpy(), shown["value"].to_numpy()
    assert np.all(np.where(value >= 0, gain >= value - 1e-12, gain <= value + 1e-12))
    start = values_section({"run": values_run})[0].tables[0][2]
    worth = start["Worth in points"][start["Worth in points"] != ""]
    assert worth.str.fullmatch(r"[+-]\d+").all()


def test_sakura_handicaps_are_in_tokens(tmp_path: Path) -> None:
    """Sakura's score is tokens: its seat handicap table says tokens, never points."""
    from analysis.run_tally import read_run_tally
    from analysis.sakura.report import sakura_sections

    simulate(plan_run(SAKURA, 4, "random", 1, False), 200, tmp_path / "s", jobs=1, chunk_size=200)
    sections, _ = sakura_sections({"s": read_run_tally(tmp_path / "s")})
    (name, caption, frame), = [t for s in sections for t in s.tables if t[0].endswith("seat_handicaps")]
    words = " ".join([caption, *map(str, frame.columns)])
    assert "tokens" in words and "point" not in words.lower().replace("percentage point", "")
    assert "bootstrap" not in caption  # a test inversion, not a bootstrap


# ---- 4. values after the start are conditional ----------------------------------------------------------
def test_values_after_the_start_are_labelled_conditional(values_run: ValuesRun) -> None:
    text = format_values(values_run)
    assert "after 18 turns, among the games where the component is still in play" in text
    section = values_section({"run": values_run})[0]
    table = section.tables[0][2]
    late = table[table["Position"] != "start"]
    assert len(late) and late["Position"].str.fullmatch("after 18 turns, where still in play").all()
    assert any("conditional" in note for note in section.notes)


def test_a_too_few_value_says_so_with_its_n(values_run: ValuesRun) -> None:
    text = format_values(values_run)
    late = text.split("after 18 turns", 1)[1]
    assert "too few games (n = " in late
    assert math.isclose(MIN_BASE_GAMES, 30)


# ---- 5. the power's seat rotates evenly -----------------------------------------------------------------
def test_the_seat_holding_a_chit_without_its_power_rotates_evenly() -> None:
    """The arm pricing a power (the chit held without it) is played for one seat a game: the base game id
    modulo the players, so over any run each seat holds it equally often (a draw gave 569 / 575 / 656)."""
    from sim import games
    from sim.core.rng import game_seeds
    from sim.kamakura.interventions import chit_kinds, run_values

    rules = games.spec("kamakura").default_rules(3)
    first, count = 7, 12
    out = run_values(rules, game_seeds(5, first, count), [1] * 3, positions=(0,), first_game=first)
    powered = np.flatnonzero(chit_kinds(rules)[:, 3] > 0)
    assert len(powered)
    stripped = ~np.isnan(out["shares"][:, 0, :, 4:, 0])  # [game, kind, seat]: arms 1 + players + seat
    for k in powered:
        assert (stripped[:, k].sum(axis=1) == 1).all()
        assert np.array_equal(stripped[:, k].argmax(axis=1), (first + np.arange(count)) % 3)
    assert not stripped[:, chit_kinds(rules)[:, 3] == 0].any()


# ---- 6. one row for one finding; seats tested jointly ---------------------------------------------------
def _per_game(rng: np.random.Generator, games: int, every_tie_decided: bool = True) -> pd.DataFrame:
    shares = np.eye(3)[rng.integers(0, 3, games)]
    tie = (rng.random(games) < 0.1).astype(float)
    decided = tie if every_tie_decided else tie * (rng.random(games) < 0.5)
    return pd.DataFrame({"game_id": np.arange(games), "share_0": shares[:, 0], "share_1": shares[:, 1],
                         "share_2": shares[:, 2], "tie": tie, "decided": decided,
                         "length": rng.normal(30, 3, games).round()})


def _sweep_rows(cmp: dict) -> list[dict]:
    rates = [(1 / 3, 0.3, 0.36)] * 3
    base = {"variant": "base", "players": 3, "agents": "greedy", "is_base": True, "seat_rates": rates}
    return [base, {**base, "variant": "v", "is_base": False, **cmp}]


def test_a_tie_break_deciding_every_tie_is_one_row_tested_once() -> None:
    """Every tie of both runs decided by the tie-break: "decided by the tie-break" is "top score tied" game
    by game, so the sweep tests it once (one p-value fewer in Holm's family)."""
    from analysis.stats import holm
    from analysis.sweep_report import FAMILY, compare_runs, display_table, sweep_table

    rng = np.random.default_rng(2)
    base = _per_game(rng, 3000)
    variant = base.copy()
    flip = rng.random(3000) < 0.05
    variant.loc[flip, "tie"] = 1.0 - variant.loc[flip, "tie"]
    variant["decided"] = variant["tie"]
    cmp = compare_runs(variant, base)
    assert cmp["tie_is_decided"] and cmp["d_tie_rate"] == cmp["d_tiebreak_rate"]
    table = sweep_table(_sweep_rows(cmp))
    assert np.isnan(table.loc[1, "holm_tiebreak_rate"]) and not table.loc[1, "mark_tiebreak_rate"]
    family = [m for m in FAMILY if m != "tiebreak_rate"]
    expected = holm([cmp[f"p_{m}"] for m in family])
    assert np.allclose([table.loc[1, f"holm_{m}"] for m in family], expected)
    shown = display_table(table.assign(n=3000, chi2_p=0.5, **{f"{m}{s}": 0.1 for m in
                                                               ("start_adv", "gap", "tie_rate",
                                                                "tiebreak_rate", "length")
                                                               for s in ("", "_low", "_high")},
                                       value_spread=np.nan))
    assert "every tie decided by the tie-break" in shown.loc[1, "decided by the tie-break"]
    # a variant that shares some ties: two findings, both tested
    shared = compare_runs(_per_game(np.random.default_rng(2), 3000, every_tie_decided=False), base)
    assert not shared["tie_is_decided"]
    assert np.isfinite(sweep_table(_sweep_rows(shared)).loc[1, "holm_tiebreak_rate"])


def test_seat_changes_are_one_joint_test() -> None:
    """The seats' changes sum to 0: one Wald chi-square on k - 1 of them (covariance from the sums, paired
    or not), recomputed here with scipy; the seat table describes each seat's change without a test."""
    from scipy import stats

    from analysis.sweep_report import compare_runs, seat_table, sweep_table

    rng = np.random.default_rng(7)
    base = _per_game(rng, 4000)
    variant = base.copy()
    moved = base.index[(base["share_1"] == 1).to_numpy()][:150]  # 150 of seat 1's wins to seat 0
    variant.loc[moved, ["share_0", "share_1"]] = [1.0, 0.0]
    moved = base.index[(base["share_2"] == 1).to_numpy()][:100]  # 100 of seat 2's to seat 1
    variant.loc[moved, ["share_1", "share_2"]] = [1.0, 0.0]
    cols = ["share_0", "share_1", "share_2"]
    for paired in (True, False):
        cmp = compare_runs(variant, base, paired=paired)
        if paired:
            d = (variant[cols] - base[cols]).to_numpy()[:, :2]
            mean, cov = d.mean(axis=0), np.cov(d.T) / len(d)
        else:
            v, b = variant[cols].to_numpy()[:, :2], base[cols].to_numpy()[:, :2]
            mean, cov = v.mean(axis=0) - b.mean(axis=0), np.cov(v.T) / len(v) + np.cov(b.T) / len(b)
        wald = float(mean @ np.linalg.solve(cov, mean))
        assert cmp["seat_chi2"] == pytest.approx(wald, rel=1e-9) and cmp["seat_dof"] == 2
        assert cmp["p_seats"] == pytest.approx(stats.chi2.sf(wald, 2), rel=1e-6)
    cmp = compare_runs(variant, base)
    table = sweep_table(_sweep_rows(cmp))
    assert table.loc[1, "mark_seats"] and "seats" in table.loc[1, "differs_from_base"]
    seats = seat_table(table)
    assert not {"p_holm", "significant"} & set(seats.columns)
    assert seats["change"].iloc[3:].sum() == pytest.approx(0.0, abs=1e-12)


def test_the_joint_seat_test_holds_its_level_under_the_null() -> None:
    from analysis.sweep_report import compare_runs

    rng = np.random.default_rng(11)
    rejected = sum(compare_runs(_per_game(rng, 600), _per_game(rng, 600), paired=False, seed=i)["p_seats"]
                   < 0.05 for i in range(300))
    assert 0.02 <= rejected / 300 <= 0.08


# ---- 6 and 7 in a report: the merged row, and runs that differ in more than the rules -------------------
def test_variant_rows_merge_ties_and_flag_other_agents_and_readings(tmp_path: Path) -> None:
    from analysis.run_tally import read_run_tally
    from analysis.variants import variant_rows, variant_section

    first = tmp_path / "first.toml"
    first.write_text(f'extends = "{KAMAKURA.as_posix()}"\n[rules]\ntie_break = "first_in_order"\n')
    shared = ROOT / "configs" / "kamakura" / "tie-shared.toml"
    runs = {}
    for label, config, agents in (("base", KAMAKURA, "greedy"), ("first", first, "greedy"),
                                  ("shared", shared, "greedy"), ("random", KAMAKURA, "random")):
        simulate(plan_run(config, 4, agents, 3, False), 300, tmp_path / label, jobs=1, chunk_size=300)
        runs[label] = read_run_tally(tmp_path / label)
    rows = variant_rows(runs, "turns")
    by_run = {label: set(rows[rows["run"] == label]["metric"]) for label in ("first", "shared", "random")}
    assert by_run["first"] == {"start_adv", "gap", "tie_decided", "length"}  # every tie decided in both
    assert by_run["shared"] == {"start_adv", "gap", "tie_rate", "tiebreak_rate", "length"}
    differs = rows.groupby("run")["differs"].first()
    assert differs["first"].startswith("rules read differently: tie_break = first_in_order vs last_in_order")
    assert "tie_break = shared vs last_in_order" in differs["shared"]
    assert differs["random"].startswith("agents differ: random vs greedy")
    assert "the difference is the players', not the rules'" in differs["random"]
    section = variant_section("Kamakura", runs, "turns")
    assert section.notes[0].startswith("<b>Warning: not a comparison of rules alone.</b>")
    assert "agents differ: random vs greedy" in section.notes[0]
    frame = section.tables[0][2]
    flagged = frame[frame["Run"] == "random"]["Not the rules alone"]
    assert flagged.str.startswith("agents differ: random vs greedy").all()
    assert "top score tied (every tie decided by the tie-break) (pp)" in set(frame["Figure"])


# ---- 8. a difference of win rates is never "points" -----------------------------------------------------
def test_win_rate_differences_are_percentage_points_not_points(tmp_path: Path) -> None:
    """Score points stay points (tokens for Sakura); a difference of win rates is percentage points: the
    start-player advantage, the tuner's seat deviation, a sweep's difference from the base, the phase
    study's paired differences."""
    import re

    from analysis.kamakura.report import kamakura_sections
    from analysis.run_tally import read_run_tally
    from analysis.sweep_report import _figure_text
    from analysis.tune_report import _figure
    from sim.design.racing import Standing, verdict
    from sim.design.tune_file import Target
    from sim.sakura.phase_study import report

    simulate(plan_run(KAMAKURA, 3, "random", 1, False), 200, tmp_path / "k", jobs=1, chunk_size=200)
    sections, _ = kamakura_sections({"k": read_run_tally(tmp_path / "k")})
    note = next(n for n in sections[0].notes if "start-player advantage" in n)
    assert re.search(r"start-player advantage .*[+-]\d+\.\d percentage points</b> \[[+-]\d+\.\d+, ", note)
    texts = [_figure({"value": 0.0131, "low": 0.0, "high": 0.0537, "games": 800}),
             _figure_text(0.3, 0.28, 0.32, True, 0.02, 0.01, 0.03, True),
             verdict(Standing("s", 800, [270.0, 270.0, 260.0], 0.0131, 0.0, 0.0537), Target(), [], 0.95)[1],
             *report(np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]), ["a", "b"])]
    for text in texts:
        assert not re.search(r"\bpoints?\b", text.replace("percentage point", "")), text
    assert "pp" in texts[0] and "pp" in texts[1] and "percentage points" in texts[2]
