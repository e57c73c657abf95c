"""A plain-text summary of a run directory (`balance summary`), computed from its logs alone: seat win
rates, agent win rates, ties and game length (in the game's own unit, its registry vocabulary)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from analysis.runs import Run
from analysis.seats import agent_win_rates, seat_equality_test, seat_tests, seat_win_rates
from analysis.stats import wilson_interval
from sim import games


def seat_table(players: pd.DataFrame) -> pd.DataFrame:
    """Win share per seat with its Wilson 95% interval and its Holm-adjusted test against the fair share
    (analysis.seats: ``p_holm``, ``differs``), with the agents that sat there. Seats are 0-based, as in the
    tables, the report, `play` and the configs (seat 0 is the start player; README "Seats")."""
    table = seat_win_rates(players).merge(seat_tests(players), on="seat")
    agents = players.assign(agent=players["agent"].astype(str)).groupby("seat")["agent"]
    table["agents"] = [",".join(sorted(set(agents.get_group(seat)))) for seat in table["seat"]]
    table["seat"] = table["seat"].astype(int)
    return table


def format_summary(run: Run) -> str:
    """The summary as printed: the run, one line per seat (and per agent when they differ), ties, length."""
    m = run.manifest
    n = len(run.games)
    fair = 1 / m["players"]
    lines = [f"{run.path}: {m['game']}, {m['players']} players, agents {','.join(m['agents'])}"
             f"{' (rotated)' if m['rotate_seats'] else ''}, seed {m['seed']}, {n} games"
             + (f" ({run.partial_note})" if run.partial_note else ""),
             f"  seat  agents            win rate   95% CI            mean score   "
             f"(seat 0 starts; fair share {100 * fair:.1f}%)"]
    for row in seat_table(run.players).itertuples():
        mark = "  *differs from fair" if row.differs else ""
        lines.append(f"  {row.seat:>4}  {row.agents:<16} {100 * row.win_rate:8.1f}%   "
                     f"[{100 * row.ci_low:4.1f}%, {100 * row.ci_high:4.1f}%]   {row.mean_score:10.1f}{mark}")
    eq = seat_equality_test(run.players)
    lines.append(f"  all seats equal? chi-square {eq['statistic']:.1f} on {eq['dof']} dof, "
                 f"p = {eq['p_value']:.3g}; * = differs from the fair share at 5%,")
    lines.append(f"  Holm-adjusted over the {m['players']} seats (the chance of any false flag stays <= 5%)")
    agents = agent_win_rates(run.players)
    if len(agents) > 1:  # mixed agents: how each one fares against the others
        lines.append("  agent                      seats  win rate   95% CI            fair share")
        for row in agents.itertuples():
            mark = "  *differs from fair" if row.differs else ""
            lines.append(f"  {row.agent:<26} {row.seats:5.2f} {100 * row.win_rate:8.1f}%   "
                         f"[{100 * row.ci_low:4.1f}%, {100 * row.ci_high:4.1f}%]   "
                         f"{100 * row.fair:8.1f}%{mark}")
    ties = int(run.games["tie"].sum())
    low, high = wilson_interval(ties, n)
    length = games.spec(run.game).vocabulary.length
    lengths = run.games[length].to_numpy(dtype=float)
    lines.append(f"  top score tied in {100 * ties / n:.1f}% of games [{100 * low:.1f}%, {100 * high:.1f}%] "
                 f"(n = {n}); {length} per game: mean {np.mean(lengths):.1f}")
    return "\n".join(lines)
