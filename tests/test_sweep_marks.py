"""Sweep marks as one family: every variant's difference from the base, for every
tested metric, gets a p-value, and the whole sweep is Holm-adjusted, so a sweep whose variants all equal
the base marks any difference at most 5% of the time, however many variants it has."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from analysis.stats import Z95, normal_p
from analysis.sweep_report import TESTED, compare_runs, sweep_table


def _row(name: str, p: dict[str, float], base: bool = False) -> dict:
    row = {"variant": name, "players": 3, "agents": "greedy", "is_base": base}
    if not base:
        row.update({f"p_{m}": p.get(m, 0.5) for m in TESTED})
    return row


def test_the_family_is_every_variant_and_metric():
    rows = [_row("base", {}, base=True), _row("a", {"gap": 0.004}), _row("b", {"length": 0.004})]
    table = sweep_table(rows)
    # 10 p-values in the family: the smallest two, 0.004 each, adjust to 10 * 0.004 = 0.04 <= 5%
    assert table.loc[1, "holm_gap"] == pytest.approx(0.04) and table.loc[1, "differs_from_base"] == "gap"
    assert table.loc[2, "differs_from_base"] == "length" and table.loc[0, "differs_from_base"] == "(base)"
    many = [_row("base", {}, base=True)]
    many += [_row(f"v{i}", {"gap": 0.004 if i == 0 else 0.5}) for i in range(3)]
    assert sweep_table(many).loc[1, "differs_from_base"] == ""  # 15 in the family: 0.06 > 5%


def test_null_sweeps_mark_something_at_most_five_percent_of_the_time():
    rng = np.random.default_rng(11)
    sweeps, variants = 1000, 6
    marked = unadjusted = 0
    for _ in range(sweeps):
        p = {f"v{i}": {m: float(rng.random()) for m in TESTED} for i in range(variants)}
        rows = [_row("base", {}, base=True)] + [_row(name, ps) for name, ps in p.items()]
        marked += (sweep_table(rows)["differs_from_base"].iloc[1:] != "").any()
        unadjusted += any(q < 0.05 for ps in p.values() for q in ps.values())
    # the former marks (each interval on its own) mark something in most null sweeps of 30 comparisons
    assert marked / sweeps <= 0.05 and unadjusted / sweeps > 0.7


def _per_game(rng: np.random.Generator, games: int, first: int) -> pd.DataFrame:
    winner = rng.integers(0, 3, games)
    shares = np.eye(3)[winner]
    return pd.DataFrame({"game_id": np.arange(first, first + games), "share_0": shares[:, 0],
                         "share_1": shares[:, 1], "share_2": shares[:, 2],
                         "tie": (rng.random(games) < 0.1).astype(float),
                         "decided": (rng.random(games) < 0.05).astype(float),
                         "length": rng.normal(30, 3, games)})


def test_difference_p_values_are_calibrated_under_the_null():
    """Independent runs of one distribution (not paired): the start advantage's p-value falls below 5% in
    about 5% of 400 comparisons."""
    rng = np.random.default_rng(5)
    low = 0
    for i in range(400):
        out = compare_runs(_per_game(rng, 1500, 0), _per_game(rng, 1500, 10_000), seed=i)
        assert set(f"p_{m}" for m in TESTED) <= set(out)
        low += out["p_start_adv"] < 0.05
    assert 0.02 <= low / 400 <= 0.09


def test_normal_p_inverts_the_interval():
    assert normal_p(Z95 * 0.01, 0.01) == pytest.approx(0.05)
    assert normal_p(0.0, 0.0) == 1.0 and normal_p(0.1, 0.0) == 0.0 and np.isnan(normal_p(0.1, np.nan))


def test_seat_changes_are_paired_and_tested_jointly():
    """Each variant seat's win-rate change from the base seat: paired game by game, so a
    variant that moves only tied games' winners (a tie-break reading) has a narrow interval; the changes sum
    to 0, so the seats are tested once, jointly, in the sweep's family; the seat table describes
    them; the base's own rows carry no change."""
    from analysis.sweep_report import seat_table

    rng = np.random.default_rng(7)
    base = _per_game(rng, 4000, 0)
    variant = base.copy()
    moved = base.index[(base["share_1"] == 1).to_numpy()][:200]  # 200 of seat 1's wins go to seat 0
    variant.loc[moved, ["share_0", "share_1"]] = [1.0, 0.0]
    cmp = compare_runs(variant, base)
    assert cmp["paired"] is True
    (d0, lo0, hi0, _), (d1, lo1, hi1, _), (d2, lo2, hi2, _) = cmp["seat_changes"]
    assert d0 == pytest.approx(200 / 4000) and d1 == pytest.approx(-200 / 4000) and d2 == 0.0
    assert 0 < lo0 < d0 < hi0 and hi0 - lo0 < 0.02 and cmp["p_seats"] < 1e-6
    independent = compare_runs(variant, base, paired=False)["seat_changes"][0]
    assert independent[2] - independent[1] > 2 * (hi0 - lo0)  # pairing is what makes it narrow
    rates = [(1 / 3, 0.3, 0.36)] * 3
    rows = [{"variant": "base", "players": 3, "agents": "greedy", "is_base": True, "seat_rates": rates},
            {"variant": "v", "players": 3, "agents": "greedy", "is_base": False, "seat_rates": rates,
             **{k: v for k, v in cmp.items() if k.startswith(("p_", "seat_", "tie_is"))}}]
    frame = sweep_table(rows)
    assert frame.loc[1, "mark_seats"] and frame.loc[1, "holm_seats"] >= cmp["p_seats"]  # adjusted
    table = seat_table(frame)
    assert table["change"].iloc[:3].isna().all() and "significant" not in table
    assert list(table["change"].iloc[3:]) == pytest.approx([d0, d1, d2])
