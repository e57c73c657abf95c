"""How often do ties decide the game? Tie counts of a run's games table (top score shared, decided by the
tie-break, shared wins) with Wilson 95% intervals, for every game (the games tables share these columns).

Re-scoring the seats under every tie-break rule depends on each game's rules, so it lives in the game
packages (`analysis/<game>/ties.py`, their `rescore_ties`); the rules are the registry's
(`GameSpec.tie_breaks`). What a rule changes against the configured one is paired, since the rules re-score
the same games (`rule_changes`, shared by both).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from analysis._arrays import bools
from analysis.stats import mean_interval, wilson_intervals


def tie_stats(games: pd.DataFrame) -> dict[str, Any]:
    """How often the top score is shared and how often the tie-break decided the winner.

    Keys: ``n``, ``top_tied`` (count), ``top_tied_rate``, ``top_tied_ci_low``, ``top_tied_ci_high``,
    ``decided_by_tiebreak`` (count), ``decided_by_tiebreak_rate``, ``decided_by_tiebreak_ci_low``,
    ``decided_by_tiebreak_ci_high``, ``shared_win`` (games with no single winner) and its ``_rate``."""
    return count_rates(len(games), {"top_tied": int(bools(games["tie"]).sum()),
                                    "decided_by_tiebreak": int(bools(games["decided_by_tiebreak"]).sum()),
                                    "shared_win": int(games["winner"].isna().to_numpy(dtype=bool).sum())})


def count_rates(n: int, counts: dict[str, int]) -> dict[str, Any]:
    """``n`` and, per named count of games, the count, its rate and Wilson 95% interval (``<name>``,
    ``<name>_rate``, ``<name>_ci_low``, ``<name>_ci_high``)."""
    out: dict[str, Any] = {"n": n}
    for name, count in counts.items():
        count = int(count)
        low, high = wilson_intervals(count, n)
        out[name] = count
        out[f"{name}_rate"] = count / n if n else float("nan")
        out[f"{name}_ci_low"] = float(low)
        out[f"{name}_ci_high"] = float(high)
    return out


def rule_changes(shares: dict[str, np.ndarray], reference: str) -> pd.DataFrame:
    """What each tie-break rule changes for each seat against `reference` (the run's configured rule),
    paired: the same games re-scored, so the change is the mean of the per-game differences of the seat's
    win share, with its normal 95% interval (games independent; the within-game dependence between seats
    does not enter a single seat's difference). ``shares``: rule -> (games, seats) re-scored win shares
    (NaN where a seat is missing). One row per (rule, seat): ``rule, seat, win_rate_change,
    change_ci_low, change_ci_high`` (0 with a zero-width interval for the reference itself)."""
    if reference not in shares:
        raise ValueError(f"reference rule {reference!r} is not among the re-scored rules {list(shares)}")
    base = shares[reference]
    rows = []
    for rule, matrix in shares.items():
        d = matrix - base
        n = np.sum(~np.isnan(d), axis=0)
        mean = np.nanmean(d, axis=0) if d.size else np.zeros(d.shape[1])
        sd = np.nanstd(d, axis=0, ddof=1) if d.shape[0] > 1 else np.full(d.shape[1], np.nan)
        low, high = mean_interval(mean, sd, n)
        rows.append(pd.DataFrame({"rule": rule, "seat": np.arange(d.shape[1]), "win_rate_change": mean,
                                  "change_ci_low": low, "change_ci_high": high}))
    return pd.concat(rows, ignore_index=True)
