"""`balance profile`: one self-play run per skill level on the same game seeds, resumable,
bad input refused with exit 2 and one line; `balance report` of a profile folder has the section "Balance by
skill" (one column per level, every cell with its interval) whose figures agree with the report's own
analysis; the paired test flags a built-in difference, not a null one, and holds its family-wise level."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from analysis.causal_values import component_values, read_values_run
from analysis.kamakura.ties import rescore_ties_from
from analysis.run_tally import read_run_tally
from analysis.runs import read_run
from analysis.seats import seat_win_rates, start_player_advantage
from analysis.skill import (
    DEPENDS,
    NOT_DIFFERENT,
    figure_catalogue,
    paired_test_from,
    read_profile,
    skill_sums,
    skill_table_from,
)
from analysis.stats import holm
from analysis.ties import tie_stats
from sim.commands import main
from sim.design.profile import level_slug, run_profile, split_levels
from tests.test_report_columns import impossible_percentages

ROOT = Path(__file__).resolve().parents[1]
CONFIG = str(ROOT / "configs" / "kamakura" / "base.toml")
LEVELS = "random,greedy,mcts:iters=20"
NAMES = ["random", "greedy", "mcts:iters=20"]
SLUGS = ["random", "greedy", "mcts-iters-20"]
GAMES = 30
ARGS = ["profile", CONFIG, "--players", "3", "--levels", LEVELS, "--games", str(GAMES), "--jobs", "1",
        "--seed", "4", "--quiet"]


def _mtimes(folder: Path) -> dict[str, int]:
    return {str(p.relative_to(folder)): p.stat().st_mtime_ns for p in folder.rglob("*")
            if p.is_file() and "report" not in p.parts}


@pytest.fixture(scope="module")
def profile(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("profile") / "kamakura-3p"
    result = run_profile(CONFIG, 3, LEVELS, GAMES, jobs=1, seed=4, out=out, say=lambda line: None)
    assert result.played == 3 * GAMES and result.skipped == 0
    assert result.report == out / "report" / "index.html"
    return out


def test_profile_writes_one_run_per_level_and_the_manifest(profile: Path) -> None:
    manifest = json.loads((profile / "profile.json").read_text())
    assert manifest["game"] == "kamakura" and manifest["players"] == 3 and manifest["seed"] == 4
    assert manifest["games"] == GAMES and manifest["config"] == CONFIG
    assert [lv["name"] for lv in manifest["levels"]] == NAMES
    assert [lv["run_dir"] for lv in manifest["levels"]] == SLUGS
    for level in manifest["levels"]:
        run = json.loads((profile / level["run_dir"] / "manifest.json").read_text())
        assert run["agents"] == [level["agent"]] * 3  # self-play: every seat plays the level
        assert run["seed"] == 4 and run["games_finished"] == GAMES and not run["rotate_seats"]


def test_every_level_plays_the_same_game_seeds(profile: Path) -> None:
    seeds = [read_run(profile / slug).games[["game_id", "seed"]].reset_index(drop=True) for slug in SLUGS]
    for other in seeds[1:]:
        pd.testing.assert_frame_equal(seeds[0], other)
    # ... and the levels do play differently on them (else the comparison would be empty)
    scores = [read_run(profile / slug).players["score"].to_numpy() for slug in SLUGS]
    assert not np.array_equal(scores[0], scores[1])


def test_profile_again_plays_nothing(profile: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = _mtimes(profile)
    assert main([*ARGS, "--out", str(profile)]) == 0
    out = capsys.readouterr().out
    assert "3 levels (3 finished already), 0 games played" in out
    assert f"profile folder: {profile}" in out and "report: " in out
    assert _mtimes(profile) == before


def test_report_has_the_balance_by_skill_section(profile: Path, tmp_path: Path) -> None:
    assert main(["report", str(profile), "--out", str(tmp_path)]) == 0
    page = (tmp_path / "index.html").read_text()
    assert "'>Balance by skill: Kamakura, 3 players" in page
    assert impossible_percentages(page) == []  # only shares are percentages
    assert "charts/skill_0_seat_win_rates.png" in page
    assert (tmp_path / "charts" / "skill_0_seat_win_rates.png").stat().st_size > 1000
    table = pd.read_csv(tmp_path / "tables" / "skill_0.csv")
    assert list(table.columns[1:4]) == NAMES  # one column per level, in the order given
    assert {"n per level", "test: all levels equal", "Holm p", "conclusion"} <= set(table.columns)
    rates = table[table["figure"].str.endswith("win rate")]
    assert list(rates["figure"]) == ["seat 0 win rate", "seat 1 win rate", "seat 2 win rate"]
    for level in NAMES:  # "estimate [95% interval]" in every cell
        assert table[level].str.fullmatch(r"[+-]?\d+\.\d(%| pp) \[.+, .+\]").all(), table[level]
    assert (table["n per level"].astype(str) == str(GAMES)).all()
    assert table["conclusion"].str.startswith((DEPENDS, NOT_DIFFERENT)).all()
    assert table["figure"].str.startswith("tie-break effect on seat").sum() == 3
    summary = json.loads((tmp_path / "summary.json").read_text())
    record = summary["profiles"][0]
    assert record["levels"] == NAMES and record["players"] == 3
    assert {"figure", "level", "value", "ci_low", "ci_high", "n"} <= set(record["figures"][0])
    assert {"p_value", "p_holm", "depends_on_skill", "detectable"} <= set(record["tests"][0])
    assert (tmp_path / "tables" / "skill_0_estimates.csv").is_file()
    assert (tmp_path / "tables" / "skill_0_tests.csv").is_file()


def test_section_figures_agree_with_the_report_analysis(profile: Path) -> None:
    """Every cell is the figure the rest of the report computes for that run (same definition, interval)."""
    est = read_profile(profile).estimates.set_index(["figure", "level"])
    for name, slug in zip(NAMES, SLUGS, strict=True):
        run = read_run_tally(profile / slug)
        for row in seat_win_rates(run.common).itertuples():
            got = est.loc[(f"seat {row.seat} win rate", name)]
            assert (got.value, got.ci_low, got.ci_high, got.n) == pytest.approx(
                (row.win_rate, row.ci_low, row.ci_high, row.games))
        adv = start_player_advantage(run.common)
        got = est.loc[("start-player advantage (seat 0 minus 1/3)", name)]
        assert (got.value, got.ci_low, got.ci_high) == pytest.approx((adv["value"], adv["ci_low"],
                                                                       adv["ci_high"]))
        ties = tie_stats(run.common)
        got = est.loc[("top score tied", name)]
        assert (got.value, got.ci_low, got.ci_high) == pytest.approx(
            (ties["top_tied_rate"], ties["top_tied_ci_low"], ties["top_tied_ci_high"]))
        shared = rescore_ties_from(run.own["rescore"]).query("rule == 'shared'")
        for r in shared.itertuples():  # the effect of the rule is minus the change to sharing ties
            got = est.loc[(f"tie-break effect on seat {r.seat} (last_in_order minus shared ties)", name)]
            assert (got.value, got.ci_low, got.ci_high) == pytest.approx(
                (-r.win_rate_change, -r.change_ci_high, -r.change_ci_low))


def test_a_profile_with_values_compares_component_values(tmp_path: Path) -> None:
    out = tmp_path / "sakura"
    config = str(ROOT / "configs" / "sakura" / "base.toml")
    result = run_profile(config, 4, "random,greedy", 24, jobs=1, seed=2, out=out, say=lambda line: None,
                         values=True, values_games=3)
    assert result.values_played == 6 and (out / "random-values").is_dir() and (out / "greedy-values").is_dir()
    profile = read_profile(out)
    assert set(profile.values) == {"random", "greedy"}
    tests = profile.tests
    components = tests[tests["group"] == "component"]
    assert len(components) == 60  # every card at the start
    # three base games: too few to test, and said so
    assert components["conclusion"].str.startswith("not tested (fewer than 20 games").all()
    est = profile.estimates.set_index(["figure", "level"])
    values = component_values(read_values_run(out / "greedy-values"))
    for row in values[values["seat"].astype(str) == "all"].head(12).itertuples():
        got = est.loc[(f"value of {row.component} at the start (all seats)", "greedy")]
        assert (got.value, got.n) == pytest.approx((row.value, row.n), nan_ok=True)
        assert not row.tested  # three base games: the values table gives no interval (MIN_BASE_GAMES)
    table = pd.read_csv(out / "report" / "tables" / "skill_0.csv")
    assert table["figure"].str.startswith("value of card").sum() == 60
    assert table["figure"].str.contains("closest_to_emperor minus shared ties").sum() == 4


# ---- the test on synthetic per-game values ------------------------------------------------------------
def skill_table(per_game: dict[str, pd.DataFrame], catalogue: pd.DataFrame) -> tuple[pd.DataFrame, ...]:
    """The section's figures and tests of per-game values held whole: their `skill_sums`, one window."""
    return skill_table_from(skill_sums(per_game), catalogue, list(per_game))


def paired_test(matrix: np.ndarray) -> dict[str, float]:
    """`paired_test_from` of a (games, levels) matrix's sums and cross-products."""
    return paired_test_from(len(matrix), matrix.sum(axis=0), matrix.T @ matrix)


def _synthetic(rng: np.random.Generator, n: int, seat0: dict[str, float], tie: float = 0.1) -> dict:
    """Per-game values of 3 seats, ties and tie-break decisions at each level: seat 0 wins with the level's
    probability, seats 1 and 2 split the rest; game ids 0..n-1 at every level."""
    out = {}
    gid = np.arange(n)
    for level, p in seat0.items():
        first = rng.random(n) < p
        second = ~first & (rng.random(n) < 0.5)
        shares = (first, second, ~first & ~second)
        frames = [pd.DataFrame({"game_id": gid, "figure": f"seat {s}", "value": v.astype(float)})
                  for s, v in enumerate(shares)]
        frames += [pd.DataFrame({"game_id": gid, "figure": key, "value": (rng.random(n) < tie).astype(float)})
                   for key in ("tie", "decided")]
        out[level] = pd.concat(frames, ignore_index=True)
    return out


def test_paired_test_flags_a_built_in_difference_and_not_a_null_one() -> None:
    rng = np.random.default_rng(20)
    catalogue = figure_catalogue(3, None, [])
    per_game = _synthetic(rng, 600, {"weak": 1 / 3, "middle": 1 / 3, "strong": 0.5})
    estimates, tests = skill_table(per_game, catalogue)
    flagged = dict(zip(tests["figure"], tests["depends_on_skill"], strict=True))
    assert flagged["seat 0 win rate"] and flagged["start-player advantage (seat 0 minus 1/3)"]
    assert not flagged["top score tied"] and not flagged["decided by the tie-break"]
    row = tests.set_index("figure").loc["top score tied"]
    assert row["conclusion"] == NOT_DIFFERENT and 0 < row["detectable"] < 0.2
    assert tests.attrs["family"] == 5  # seats 0-2, tie, decided: the advantage shares seat 0's test
    strong = estimates.set_index(["figure", "level"]).loc[("seat 0 win rate", "strong")]
    assert strong["n"] == 600 and strong["ci_low"] < strong["value"] < strong["ci_high"]
    # the same figures with every level alike: nothing is flagged
    _, null = skill_table(_synthetic(rng, 600, {"weak": 0.4, "middle": 0.4, "strong": 0.4}), catalogue)
    assert not null["depends_on_skill"].any()


def test_paired_test_pairs_the_games() -> None:
    """The deal moves every level alike: paired, a small shift is found that the unpaired spread hides."""
    rng = np.random.default_rng(3)
    deal = rng.normal(0, 5, 200)
    matrix = np.column_stack([deal, deal + 0.3 + rng.normal(0, 0.5, 200)])
    assert paired_test(matrix)["p_value"] < 1e-6
    stats = pytest.importorskip("scipy.stats")
    ref = stats.ttest_rel(matrix[:, 1], matrix[:, 0])  # two levels: the square of the paired t
    assert paired_test(matrix)["f"] == pytest.approx(ref.statistic ** 2)
    assert paired_test(matrix)["p_value"] == pytest.approx(ref.pvalue, rel=1e-6)
    three = np.column_stack([matrix, deal + rng.normal(0, 0.5, 200)])
    result = paired_test(three)
    assert result["dof"] == 2 and result["dof2"] == 198
    assert np.isnan(paired_test(three[:10])["p_value"])  # too few games to test


def test_null_profiles_flag_anything_at_most_about_five_percent() -> None:
    """Family-wise level: 400 seeded null profiles (3 levels, 100 games), Holm over the 5 tests each."""
    rng = np.random.default_rng(8)
    n, flagged = 100, 0
    for _ in range(400):
        first = rng.random((n, 3)) < 1 / 3
        second = ~first & (rng.random((n, 3)) < 0.5)
        matrices = [first, second, ~first & ~second, rng.random((n, 3)) < 0.1, rng.random((n, 3)) < 0.1]
        p = [paired_test(m.astype(float))["p_value"] for m in matrices]
        flagged += bool((holm(p) <= 0.05).any())
    assert flagged / 400 <= 0.08


# ---- input ----------------------------------------------------------------------------------------------
def test_levels_are_split_and_named() -> None:
    assert split_levels("greedy,mcts:iters=250,c=0.2,expert") == ["greedy", "mcts:iters=250,c=0.2", "expert"]
    assert level_slug("mcts:iters=250") == "mcts-iters-250" and level_slug("greedy") == "greedy"
    assert level_slug("expert:model=models/k3.npz") == "expert-model-models-k3.npz"


@pytest.mark.parametrize("players, extra, message", [
    ("3", ["--levels", "greedy,wizard"], "--levels: unknown agent 'wizard'"),
    ("3", ["--levels", "greedy,mcts:depth=3"], "--levels: agent 'mcts' has no parameter 'depth'"),
    ("3", ["--levels", "greedy"], "--levels: give at least two levels"),
    ("3", ["--levels", "mcts,mcts:iters=1000"], "is the same level as"),
    ("9", ["--levels", "random,greedy"], "players: "),
    ("3", ["--levels", "random,greedy", "--values-games", "5"], "--values-games: only used with --values"),
])
def test_bad_input_refused_exit_2_one_line_nothing_written(players: str, extra: list[str], message: str,
                                                           tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "profile"
    args = ["profile", CONFIG, "--players", players, "--games", "3", "--jobs", "1", "--out", str(out), *extra]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert not out.exists()


def test_a_foreign_folder_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "notes.txt").write_text("not a profile")
    assert main([*ARGS, "--games", "3", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "not a profile (no profile.json)" in err and len(err.strip().splitlines()) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]


def test_a_different_profile_is_refused_and_replaced_with_force(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    args = ["profile", str(ROOT / "configs" / "sakura" / "base.toml"), "--players", "3", "--levels",
            "random,greedy", "--games", "6", "--jobs", "1", "--quiet", "--out", str(tmp_path)]
    assert main(args) == 0
    assert main([*args, "--seed", "3"]) == 2
    assert "made by a different profile (seed: profile has 0, asked 3)" in capsys.readouterr().err
    assert main([*args, "--seed", "3", "--force"]) == 0
    assert "0 finished already), 12 games played" in capsys.readouterr().out  # replaced, not kept
    for slug in ("random", "greedy"):
        assert json.loads((tmp_path / slug / "manifest.json").read_text())["seed"] == 3
