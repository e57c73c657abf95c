"""`balance values` (docs/howto/values.md): causal component values by paired intervention.

The pairing is exact: a 0-point chit with no power changes no game (value exactly 0, where the old holders-
versus-others estimator calls it clearly non-zero); a chit without a power changes nothing but its holder's
score (its point equivalent is its points); Sakura's arms differ by one swap of two cards. Point equivalents
and seat handicaps are checked against the re-scoring they are defined by.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analysis.causal_values import (
    bonus_gains,
    component_values,
    invert,
    read_values_run,
)
from analysis.game_analysis import analysis_of
from analysis.handicaps import handicap_from, handicap_tally
from analysis.kamakura.chit_values import chit_tally, chit_values_from
from analysis.kamakura.ties import win_shares
from analysis.runs import read_table
from sim import games
from sim.app.runner import simulate
from sim.app.values_run import plan_values
from sim.core.rng import game_seeds
from sim.kamakura.interventions import chit_kinds, run_values

ROOT = Path(__file__).resolve().parents[1]
KAMAKURA = ROOT / "configs" / "kamakura" / "base.toml"
SAKURA = ROOT / "configs" / "sakura" / "base.toml"
GREEDY = 1  # the agents' kernel code (sim/kamakura/spec.py)

ZERO_BLUE = """extends = "{base}"

# The four 1-icon blue chits are worth nothing and have no power: holding one cannot matter.
[chits]
blue = [
    {{icons = 1, points = 0, power = 0}}, {{icons = 1, points = 0, power = 0}},
    {{icons = 1, points = 0, power = 0}}, {{icons = 1, points = 0, power = 0}},
    {{icons = 2, points = 4, power = 0}}, {{icons = 2, points = 4, power = 0}},
    {{icons = 2, points = 4, power = 0}}, {{icons = 3, points = 6, power = 0}},
    {{icons = 3, points = 6, power = 0}}, {{icons = 4, points = 8, power = 0}},
]
"""


@pytest.fixture(scope="module")
def zero_config(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("values") / "zero-blue.toml"
    path.write_text(ZERO_BLUE.format(base=KAMAKURA.as_posix()))
    return path


@pytest.fixture(scope="module")
def zero_run(zero_config: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    plan = plan_values(zero_config, 3, "greedy", 5, "0,9")
    out = tmp_path_factory.mktemp("values") / "run"
    simulate(plan, 36, out, jobs=1, chunk_size=12)  # at least MIN_BASE_GAMES at the start
    return out


def _kind(rules, colour: int, points: int) -> int:
    kinds = chit_kinds(rules)
    return int(np.flatnonzero((kinds[:, 0] == colour) & (kinds[:, 2] == points))[0])


def test_zero_point_chit_changes_no_game(zero_config: Path) -> None:
    """R-3 chits as the config gives them: a 0-point chit without a power leaves every arm's game identical
    to the control's (same scores, same winners) at every position."""
    rules = games.spec("kamakura").rules_from_mapping(games.load_config(zero_config, 3)[1], 3,
                                                      str(zero_config))
    out = run_values(rules, game_seeds(5, 0, 12), [GREEDY] * 3, positions=(0, 9))
    k = _kind(rules, 3, 0)
    played = out["available"][:, :, k].astype(bool)
    assert played[:, 0].all() and played.sum() > 12
    for arm in range(1, 4):
        assert np.array_equal(out["scores"][:, :, k, arm][played], out["scores"][:, :, k, 0][played])
        assert np.array_equal(out["shares"][:, :, k, arm][played], out["shares"][:, :, k, 0][played])


def test_zero_point_chit_is_worth_exactly_zero(zero_run: Path, zero_config: Path) -> None:
    table = component_values(read_values_run(zero_run))
    zero = table[(table["colour"] == "blue") & (table["points"] == 0)]
    assert len(zero) == 2 * 4  # two positions, "all" and three seats
    tested = zero[zero["tested"]]  # the start (36 games); after 9 turns, 18 games: too few to test
    assert len(tested) == 4 and (tested["position"] == 0).all()
    assert (zero["value"] == 0).all() and (tested["ci_low"] == 0).all() and (tested["ci_high"] == 0).all()
    assert (zero["points_equivalent"] == 0).all() and not zero["significant"].any()
    # The old estimator (holders' win rate minus the others') calls the same chit clearly non-zero.
    spec = games.spec("kamakura")
    rules = spec.rules_from_mapping(games.load_config(zero_config, 3)[1], 3, str(zero_config))
    seeds = game_seeds(5, 0, 3000)
    out = spec.run_batch(rules, seeds, [GREEDY] * 3)
    tables = spec.tables(0, seeds, [["greedy"] * 3] * len(seeds), out, rules)
    config = games.load_config(zero_config, 3)[1]
    old = chit_values_from(chit_tally(tables["events"].to_pandas(), tables["players"].to_pandas(), config),
                           config)
    blue_1 = old[(old["colour"] == "blue") & (old["icons"] == 1)].iloc[0]
    assert blue_1["ci_low"] > 0.02 or blue_1["ci_high"] < -0.02, blue_1


def test_a_powerless_chit_changes_only_its_holders_score(zero_config: Path) -> None:
    """With greedy players a chit without a power changes nothing but the holder's final score, by its
    points: the arms are the control game, re-scored."""
    rules = games.spec("kamakura").rules_from_mapping(games.load_config(zero_config, 3)[1], 3,
                                                      str(zero_config))
    out = run_values(rules, game_seeds(9, 0, 10), [GREEDY] * 3, positions=(0,))
    for points in (4, 6, 8):
        k = _kind(rules, 3, points)
        control = out["scores"][:, 0, k, 0]
        for seat in range(3):
            expected = control.copy()
            expected[:, seat] += points
            assert np.array_equal(out["scores"][:, 0, k, 1 + seat], expected)


def test_point_equivalent_of_a_powerless_chit_is_its_points(zero_run: Path) -> None:
    table = component_values(read_values_run(zero_run))
    blue = table[(table["colour"] == "blue") & (table["points"] > 0) & (table["position"] == 0)]
    everyone = blue[blue["seat"].astype(str) == "all"]
    assert np.allclose(everyone["points_equivalent"], everyone["points"])


def test_tables_identical_for_jobs_and_chunks(zero_config: Path, zero_run: Path, tmp_path: Path) -> None:
    plan = plan_values(zero_config, 3, "greedy", 5, "0,9")
    simulate(plan, 36, tmp_path / "b", jobs=2, chunk_size=5)
    pd.testing.assert_frame_equal(read_table(zero_run, "values"), read_table(tmp_path / "b", "values"))
    again = simulate(plan, 36, tmp_path / "b", jobs=1)  # resumed: nothing left to play
    assert again.played == 0 and again.already == 36


def test_power_is_priced_against_the_same_points(zero_run: Path) -> None:
    from analysis.causal_values import power_values

    powers = power_values(read_values_run(zero_run))
    assert len(powers) == 12  # red, yellow, green: four kinds each carry a power
    assert powers["n"].eq(36).all() and (powers["position"] == 0).all() and powers["tested"].all()
    assert (np.all(powers["ci_low"] <= powers["power_value"])
            and np.all(powers["power_value"] <= powers["ci_high"]))


@settings(deadline=None, max_examples=40)
@given(st.integers(0, 2**31), st.floats(0.0, 0.9))
def test_point_equivalent_inverts_the_rescoring(seed: int, target: float) -> None:
    """The point equivalent b of a value v is the smallest whole bonus at which the re-scored gain curve
    reaches v: the curve at b is at least v, one point less is below it (R-9 last_in_order re-scoring)."""
    rng = np.random.default_rng(seed)
    score = rng.integers(20, 40, size=(60, 3)).astype(float)
    bonuses = np.arange(-40, 41, dtype=float)
    gains = bonus_gains(score, {}, win_shares, "last_in_order", bonuses)[:, 0].mean(axis=0)
    b = invert(gains, np.array([target]), bonuses)[0]
    if target > gains[-1]:
        assert b == np.inf
        return
    assert b == round(b) and b >= 0
    assert gains[int(b) + 40] >= target - 1e-12 and (b == 0 or gains[int(b) + 39] < target - 1e-12)


def test_seat_handicap_brings_the_seat_to_the_fair_share() -> None:
    """Seat 1 scores 2 more than seat 0 on average: its handicap is negative, seat 0's positive: the whole
    bonus (penalty) with which the games re-scored give the seat a share closest to half the wins, a point
    more or less no closer (two players)."""
    rng = np.random.default_rng(3)
    score = np.column_stack([rng.integers(0, 10, 4000), rng.integers(2, 12, 4000)]).astype(float)
    table = handicap_from(handicap_tally(score, {}, win_shares, "first_in_order"))
    h0, h1 = table["handicap_points"]
    assert h0 > 0 > h1
    for seat, h in ((0, h0), (1, h1)):
        before, at, after = (abs(win_shares(score + np.eye(2)[seat] * b, None, "first_in_order")[:, seat]
                                     .mean() - 0.5) for b in (h - 1, h, h + 1))
        assert h == round(h) and at <= min(before, after)
    assert ((table["ci_low"] <= table["handicap_points"]).all()
            and (table["handicap_points"] <= table["ci_high"]).all())


@settings(deadline=None, max_examples=60)
@given(st.integers(0, 2**40), st.integers(1, 60), st.integers(0, 3), st.integers(0, 4))
def test_sakura_arms_differ_by_one_swap(seed: int, card: int, holder: int, slot: int) -> None:
    """The control deals `card` to no starting hand; a treatment arm gives it to `holder` in place of one
    of its cards, which takes the card's place: hands stay sorted, the deck a permutation of the 60, and the
    two deals differ in exactly two places."""
    from sim.core.rng import rng_seeded
    from sim.sakura.game import kernel_rules
    from sim.sakura.interventions import control_deal, treated_deal
    from sim.sakura.kernels import DECK, DECK_N, HAND, HAND_N, HAND_SIZE, new_game

    args = kernel_rules(games.spec("sakura").default_rules(4))
    base = new_game(args, np.uint64(seed))
    control = control_deal(base, card, 4, rng_seeded(np.uint64(seed), 16 + card))
    treated = treated_deal(control, card, 4, holder, slot)

    def cards(s):
        hands = [list(s[HAND + p * HAND_SIZE: HAND + p * HAND_SIZE + s[HAND_N + p]]) for p in range(4)]
        return hands, list(s[DECK: DECK + s[DECK_N]])

    for s in (control, treated):
        hands, deck = cards(s)
        assert all(h == sorted(h) and len(h) == 5 for h in hands)
        assert sorted(sum(hands, []) + deck) == list(range(1, 61))
    hands, _ = cards(control)
    assert all(card not in h for h in hands)
    assert card in cards(treated)[0][holder]
    moved = set(sum(cards(control)[0], [])) ^ set(sum(cards(treated)[0], []))
    assert len(moved) == 2 and card in moved
    (displaced,) = moved - {card}
    deck_c, deck_t = np.array(cards(control)[1]), np.array(cards(treated)[1])
    assert list(np.flatnonzero(deck_c != deck_t)) == [int(np.flatnonzero(deck_c == card)[0])]
    assert deck_t[deck_c == card][0] == displaced
    assert [h for p, h in enumerate(cards(control)[0]) if p != holder] == \
        [h for p, h in enumerate(cards(treated)[0]) if p != holder]


def balance(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "sim", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=600)


@pytest.mark.parametrize("args, says", [
    ((str(KAMAKURA), "--players", "3", "--positions", "9,3"), "--positions: must be distinct, increasing"),
    ((str(KAMAKURA), "--players", "3", "--positions", "a"), "--positions: expected whole numbers"),
    ((str(SAKURA), "--players", "4", "--positions", "0,5"),
     "--positions: sakura values are measured at the start"),
    ((str(KAMAKURA), "--players", "3", "--agents", "nobody"), "agent"),
    # later than any game lasts: refused before anything is written (was a traceback after writing)
    ((str(KAMAKURA), "--players", "3", "--agents", "greedy", "--positions", "40"),
     "--positions: no game reaches turn 40"),
    ((str(KAMAKURA), "--players", "3", "--agents", "greedy", "--positions", "0,40"),
     "--positions: no game reaches turn 40"),
])
def test_bad_values_arguments_are_refused(args: tuple[str, ...], says: str, tmp_path: Path) -> None:
    done = balance("values", *args, "--games", "2", "--out", str(tmp_path / "v"))
    assert done.returncode == 2 and says in done.stderr and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "v").exists()


def test_values_refuses_a_simulate_run_directory(tmp_path: Path) -> None:
    out = tmp_path / "run"
    assert balance("simulate", str(KAMAKURA), "--players", "3", "--games", "20", "--agents", "greedy",
                   "--out", str(out), "--quiet").returncode == 0
    done = balance("values", str(KAMAKURA), "--players", "3", "--games", "2", "--out", str(out), "--quiet")
    assert done.returncode == 2 and "made by a different run" in done.stderr and "study" in done.stderr


def test_greedy_claims_legally_when_only_zero_point_chits_are_reachable(zero_config: Path) -> None:
    """Regression: with 0-point chits (R-3 allows any points >= 0) the greedy planner once planned, when the
    only reachable claims were worth 0, a claim of every chit of line 0, owned or not, and the game never
    ended. Every game must end, each chit gained at most once."""
    spec = games.spec("kamakura")
    rules = spec.rules_from_mapping(games.load_config(zero_config, 3)[1], 3, str(zero_config))
    out = spec.run_batch(rules, game_seeds(2, 0, 300), [GREEDY] * 3)
    assert (out["end_reason"] != 0).all()
    for g in range(300):
        events = out["events"][g, : out["n_events"][g]]
        gained = events[events[:, 2] == 0, 3]
        assert len(gained) == len(set(gained.tolist()))


def test_sakura_values_play_the_expert_as_the_batch_loop_does() -> None:
    """The values kernel's play-on dispatches every agent as play_batch does (batch.next_action): each
    seed's own deal, played with no intervention, ends with the tokens `balance simulate` gets."""
    from sim.core.agent_spec import AgentSpec, agent_row
    from sim.sakura.agents import AGENT_EXPERT, AGENT_GREEDY
    from sim.sakura.interventions import run_values as sakura_values

    spec = games.spec("sakura")
    rules = spec.default_rules(4)
    seeds = game_seeds(8, 0, 3)
    row = agent_row(AgentSpec("expert", {"samples": 8}), games.spec("sakura"), 4)
    params = np.zeros((4, len(row)))
    params[0] = params[2] = row
    seating = np.array([AGENT_EXPERT, AGENT_GREEDY, AGENT_EXPERT, AGENT_GREEDY])
    out = sakura_values(rules, seeds, seating, params)
    batch = spec.run_batch(rules, seeds, seating, params)
    assert (out["base"][:, :, 0] == batch["tokens"][:, :4]).all()
    assert out["available"].sum() > 0


@pytest.mark.parametrize("game", ["kamakura", "sakura"])
@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_handicap_sums_by_breakpoints_are_those_of_every_bonus(game: str, players: int) -> None:
    """The handicap's sums, re-scoring each game at its breakpoints only, equal the sums of
    re-scoring it at every bonus, under every tie-break rule of the game (ties made common on purpose)."""
    from analysis.handicaps import BONUS_RANGE
    from analysis.tally import share_units
    from sim import games

    spec = games.spec(game)
    study = spec.values
    rng = np.random.default_rng(players)
    score = rng.integers(0, 50, (1500, players)).astype(float)
    score[:400] = rng.integers(0, 3, (400, players))
    columns = {name: np.argsort(rng.random((1500, players)), axis=1).astype(float)
               for _, name in study.player_columns}
    for rule in spec.tie_breaks:
        shares = analysis_of(spec).win_shares
        tally = handicap_tally(score, columns, shares, rule)
        for seat in range(players):
            every = []
            for bonus in range(-BONUS_RANGE, BONUS_RANGE + 1):
                moved = score.copy()
                moved[:, seat] += bonus
                every.append(shares(moved, columns, rule)[:, seat])
            units = share_units(np.array(every))
            assert np.array_equal(tally["units"][seat], units.sum(axis=1)), (rule, seat)
            assert np.array_equal(tally["squares"][seat], (units * units).sum(axis=1)), (rule, seat)
