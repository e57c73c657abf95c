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


# ---- by parts (issue 18): the same text from a run's chunk statistics (analysis/parts.py) ----------------
def format_summary_of(path, manifest: dict, stats: dict) -> str:
    """`format_summary`'s text from the combined chunk statistics of `analysis.parts.run_summary`, which
    hold a chunk at a time in memory, never the run."""
    from analysis.parts import SHARE_SCALE
    from analysis.seats import chi_square_equal, share_tests_from_sums
    from analysis.stats import wilson_intervals

    n = stats["games"]
    players = manifest["players"]
    asked = int(manifest.get("games_asked", 0) or 0)
    partial = f"partial: {n:,} of {asked:,} games asked" if n < asked else ""
    lines = [f"{path}: {manifest['game']}, {players} players, agents {','.join(manifest['agents'])}"
             f"{' (rotated)' if manifest['rotate_seats'] else ''}, seed {manifest['seed']}, {n} games"
             + (f" ({partial})" if partial else ""),
             f"  seat  agents            win rate   95% CI            mean score   "
             f"(seat 0 starts; fair share {100 / players:.1f}%)"]
    seat_rows = [stats["seats"][str(k)] for k in range(len(stats["seats"]))]
    games_at = np.array([r[0] for r in seat_rows])
    sums, squares = np.array([r[1] for r in seat_rows]), np.array([r[2] for r in seat_rows])
    wins = sums / SHARE_SCALE
    fair = sum(c / int(size) for size, c in stats["sizes"].items()) / n  # the mean of 1 / players
    tests = share_tests_from_sums(n, sums, squares, fair, SHARE_SCALE)
    low, high = wilson_intervals(wins, games_at)
    for seat, row in enumerate(seat_rows):
        mark = "  *differs from fair" if tests["differs"][seat] else ""
        lines.append(f"  {seat:>4}  {','.join(row[4]):<16} {100 * wins[seat] / games_at[seat]:8.1f}%   "
                     f"[{100 * low[seat]:4.1f}%, {100 * high[seat]:4.1f}%]   "
                     f"{row[3] / games_at[seat]:10.1f}{mark}")
    eq = chi_square_equal(wins, games_at.astype(float))
    lines.append(f"  all seats equal? chi-square {eq['statistic']:.1f} on {eq['dof']} dof, "
                 f"p = {eq['p_value']:.3g}; * = differs from the fair share at 5%,")
    lines.append(f"  Holm-adjusted over the {players} seats (the chance of any false flag stays <= 5%)")
    agents = stats["agents"]
    if len(agents) > 1:  # mixed agents: how each one fares against the others
        most = max(int(size) for size in stats["sizes"])
        names = sorted(agents)
        held = np.array([agents[a][0] for a in names]) / n
        a_sums, a_squares = np.array([agents[a][1] for a in names]), np.array([agents[a][2] for a in names])
        a_wins = a_sums / SHARE_SCALE
        a_fair = held / most
        a_tests = share_tests_from_sums(n, a_sums, a_squares, a_fair, SHARE_SCALE)
        a_low, a_high = wilson_intervals(a_wins, np.full(len(names), n))
        lines.append("  agent                      seats  win rate   95% CI            fair share")
        for i, agent in enumerate(names):
            mark = "  *differs from fair" if a_tests["differs"][i] else ""
            lines.append(f"  {agent:<26} {held[i]:5.2f} {100 * a_wins[i] / n:8.1f}%   "
                         f"[{100 * a_low[i]:4.1f}%, {100 * a_high[i]:4.1f}%]   "
                         f"{100 * a_fair[i]:8.1f}%{mark}")
    ties = stats["ties"]
    low, high = wilson_interval(ties, n)
    length = games.spec(manifest["game"]).vocabulary.length
    lines.append(f"  top score tied in {100 * ties / n:.1f}% of games [{100 * low:.1f}%, {100 * high:.1f}%] "
                 f"(n = {n}); {length} per game: mean {stats['length'][0] / n:.1f}")
    return "\n".join(lines)
