"""How the report prints numbers: each column by the kind the
code that built the table declared (`analysis.page.declare`), never by its name: percent only for shares
and their intervals, a mean's interval in the mean's own unit, differences of shares in pp, counts with
thousands separators, no exponents."""

from __future__ import annotations

import pandas as pd
import pytest

from analysis.page import (
    COUNT,
    DIFFERENCE,
    DIFFERENCE_BOUND,
    MEAN,
    MEAN_BOUND,
    NUMBER,
    NUMBER_BOUND,
    SEAT_KINDS,
    SHARE,
    SHARE_BOUND,
    TEXT,
    column_kind,
    declare,
    format_table,
    side_by_side,
    stack,
    wide,
)


def test_a_rate_and_its_interval_are_percent_a_mean_and_its_interval_are_not():
    rates = format_table(declare(pd.DataFrame({"seat": [0], "win_rate": [0.283], "ci_low": [0.278],
                                               "ci_high": [0.288]}),
                                 {"seat": TEXT, "win_rate": SHARE, "ci_low": SHARE_BOUND,
                                  "ci_high": SHARE_BOUND}))
    assert rates.iloc[0].tolist() == ["0", "28.3%", "27.8%", "28.8%"]
    means = format_table(declare(pd.DataFrame({"mean_score": [34.1], "ci_low": [34.01], "ci_high": [34.2]}),
                                 {"mean_score": NUMBER, "ci_low": NUMBER_BOUND, "ci_high": NUMBER_BOUND}))
    assert means.iloc[0].tolist() == ["34.1", "34", "34.2"]  # not "[3407.5%, 3414.2%]"
    change = format_table(declare(pd.DataFrame({"win_rate_change": [-0.012], "change_ci_low": [-0.031]}),
                                  {"win_rate_change": DIFFERENCE, "change_ci_low": DIFFERENCE_BOUND}))
    assert change.iloc[0].tolist() == ["-1.2 pp", "-3.1 pp"]


def test_mean_lengths_side_by_side_keep_one_decimal():
    lengths = format_table(declare(pd.DataFrame({"length": [34.0, 28.14], "low": [33.96, 28.1]}),
                                   {"length": MEAN, "low": MEAN_BOUND}))
    assert lengths["length"].tolist() == ["34.0", "28.1"] and lengths["low"].tolist() == ["34.0", "28.1"]


def test_an_undeclared_float_is_a_plain_number_whatever_its_name():
    shown = format_table(pd.DataFrame({"win_rate": [0.283], "share": [0.5], "ci_low": [0.278]}))
    assert shown.iloc[0].tolist() == ["0.283", "0.5", "0.278"]


def test_counts_get_thousands_separators_not_exponents():
    shown = format_table(pd.DataFrame({"games": [30000], "wins": [13110.0], "mean": [0.5]}))
    assert shown.iloc[0].tolist() == ["30,000", "13,110", "0.5"]
    shared = format_table(declare(pd.DataFrame({"wins": [13110.5, 90.0]}), {"wins": COUNT}))
    assert shared["wins"].tolist() == ["13,110.5", "90"]  # a tie shared 1/k is a part of a win


def seats(wins: float, score: float) -> pd.DataFrame:
    return declare(pd.DataFrame({"seat": [0, 1], "games": [3000, 3000], "wins": [wins, 3000 - wins],
                                 "win_rate": [wins / 3000, 1 - wins / 3000], "ci_low": [0.3, 0.6],
                                 "ci_high": [0.35, 0.66], "mean_score": [score, score + 1]}), SEAT_KINDS)


@pytest.mark.parametrize("label", ["kamakura 3p greedy tie-shared", "a rate", "start advantage [x]",
                                   "added ci_low share"])
def test_run_labels_never_make_a_column_a_percentage(label: str):
    """The audit's case (`balance compare base.toml tie-shared.toml`): side by side, every column is named
    "<value> [<run label>]", and a label holding "share" made wins "94683.3%" and a mean score "3329.2%"."""
    table = side_by_side({"kamakura 3p greedy": seats(946.833, 33.292), label: seats(1000.0, 33.0)}, "seat",
                         ["games", "wins", "win_rate", "ci_low", "ci_high", "mean_score"])
    shown = format_table(table).iloc[0]
    assert shown[f"wins [{label}]"] == "1,000" and shown["wins [kamakura 3p greedy]"] == "946.8"
    assert shown[f"mean_score [{label}]"] == "33" and shown["mean_score [kamakura 3p greedy]"] == "33.3"
    assert shown[f"games [{label}]"] == "3,000"
    assert shown[f"win_rate [{label}]"] == "33.3%" and shown[f"ci_high [{label}]"] == "35.0%"


def test_kinds_survive_wide_stack_and_the_nested_columns():
    frames = {"a [b]": seats(900.0, 30.0), "c": seats(1200.0, 31.0)}
    assert column_kind("wins [a [b]]", wide(frames, "seat").attrs["kinds"]) == COUNT
    assert stack(frames).attrs["kinds"]["win_rate"] == SHARE
    nested = side_by_side(frames, "seat", ["win_rate", "mean_score"], flat=False)
    assert format_table(nested).iloc[0].tolist() == ["0", "30.0%", "30", "40.0%", "31"]


def test_an_unknown_kind_is_refused():
    with pytest.raises(ValueError, match="unknown column kind"):
        declare(pd.DataFrame({"x": [1.0]}), {"x": "percent"})
