"""The curve's checks of the model-based tune (docs/howto/tune.md): the best objective found against games
spent, measured on fresh games.

Why: a search's own figure for its best candidate is the smallest of many noisy estimates, so it flatters
whichever search looked at more candidates. Random search stops its many poor proposals early and so
tries more of them at the same budget: at seed 3 of the shipped chit-points example its own best ended
lower than TPE's while TPE's recommendation confirmed far better (README). A designer comparing two
searches, or asking whether half the budget would have done, needs each search's best so far measured
on games that did not choose it.

So at k/curve_checks of the budget (k = 1, ..., curve_checks) each study's best so far, the best fully
played feasible candidate among the trials that ended within those games (the same rule as the search's
own curve), plays fresh games on the confirmation's seed: ``curve_games`` at the intermediate checks,
``confirm_games`` at the last, which is the confirmation itself. Every study and check plays the same
fresh games, so the comparisons are paired, and a candidate checked twice plays once (the study file's
confirmations keep the statistics). The checks measure and never steer the search: its trials are the
same with or without them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import accumulate
from typing import Any

from sim.design.model_search import TrialRecord, best_record
from sim.design.tune_file import Tune


def check_budgets(budget: int, checks: int) -> list[int]:
    """The games spent at each check: k/checks of the budget, k = 1, ..., checks."""
    return [budget * k // checks for k in range(1, checks + 1)]


def incumbents(records: Sequence[TrialRecord], full: int, budgets: Sequence[int]) -> list[TrialRecord | None]:
    """Each budget's best so far: the search's best (best_record) among the trials that, in order, ended
    within that many games (None before the first)."""
    ordered = sorted(records, key=lambda r: r.number)
    ends = list(accumulate(r.played for r in ordered))
    return [best_record({r.number: r for r, end in zip(ordered, ends, strict=True) if end <= budget}, full)
            for budget in budgets]


def check_curves(tune: Tune, studies: dict[str, list[TrialRecord]], full: int,
                 measure: Callable[[list[Any], int], Any]) -> list[dict[str, Any]]:
    """One row per study and check: the best so far, its search figure and its figures on fresh games
    (``measure(values, games)``: a Standing from the confirmation's seed)."""
    search = tune.search
    budgets = check_budgets(tune.budget, search.curve_checks)
    rows = []
    for kind, records in studies.items():
        for k, (budget, best) in enumerate(zip(budgets, incumbents(records, full, budgets), strict=True)):
            row: dict[str, Any] = {"study": kind, "check": k + 1, "budget": budget,
                                   "trial": None if best is None else best.number}
            if best is not None:
                last = k == len(budgets) - 1 and search.confirm_games > 0
                games = search.confirm_games if last else search.curve_games
                st = measure(best.values, games)
                row.update(search_value=best.objectives[0], search_games=best.games, games=st.games,
                           value=st.value, low=st.low, high=st.high)
            rows.append(row)
    return rows
