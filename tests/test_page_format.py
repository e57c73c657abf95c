"""How the report prints numbers (issue 13, item 5, first part): percent only for rates and their
intervals, a mean's interval in the mean's own unit, counts with thousands separators, no exponents."""

from __future__ import annotations

import pandas as pd

from analysis.page import _percent_columns, format_table


def test_a_rate_and_its_interval_are_percent_a_mean_and_its_interval_are_not():
    rates = format_table(pd.DataFrame({"seat": [0], "win_rate": [0.283], "ci_low": [0.278],
                                       "ci_high": [0.288]}))
    assert rates.iloc[0].tolist() == ["0", "28.3%", "27.8%", "28.8%"]
    means = format_table(pd.DataFrame({"mean_score": [34.1], "ci_low": [34.01], "ci_high": [34.2]}))
    assert means.iloc[0].tolist() == ["34.1", "34", "34.2"]  # not "[3407.5%, 3414.2%]"
    coef = format_table(pd.DataFrame({"coef": [4.07], "ci_low": [3.997], "ci_high": [4.157]}))
    assert not any("%" in cell for cell in coef.iloc[0])


def test_side_by_side_columns_keep_each_runs_units():
    names = ["seat", "win_rate [A]", "ci_low [A]", "ci_high [A]", "mean [A]", "ci_low [B]", "ci_high [B]",
             "win_added", "added_ci_low", "added_ci_high", "n_games", "share", "ci_high"]
    assert _percent_columns(names) == [False, True, True, True, False, False, False, True, True, True,
                                       False, True, True]


def test_counts_get_thousands_separators_not_exponents():
    shown = format_table(pd.DataFrame({"games": [30000], "wins": [13110.0], "mean": [0.5]}))
    assert shown.iloc[0].tolist() == ["30,000", "13,110", "0.5"]
