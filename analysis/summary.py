"""A plain-text summary of a run directory (`balance summary`): the verdicts first (analysis.verdicts), then
seat win rates, agent win rates, ties and game length, all from the run's merged report tally
(analysis.run_tally), so memory holds one chunk at a time whatever the run's size."""

from __future__ import annotations

import numpy as np

from analysis.run_tally import RunTally, fair_share, seat_tests, seat_win_rates, tally_of_run
from analysis.runs import Run
from analysis.seats import chi_square_equal, share_tests_from_sums
from analysis.stats import wilson_intervals
from analysis.tally import SHARE_SCALE
from analysis.verdicts import DEFAULT_MARGINS, Margins, run_verdicts


def agents_text(manifest: dict) -> str:
    """The players as a run's output names them: "expert in every seat", "greedy,random,random"."""
    agents = [str(a) for a in manifest.get("agents", [])]
    if agents and len(set(agents)) == 1:
        return f"{agents[0]} in every seat"
    return ",".join(agents) + (" (rotated one seat a game)" if manifest.get("rotate_seats") else "")


def format_run(run: RunTally, margins: Margins = DEFAULT_MARGINS) -> str:
    """The summary as printed: the run and its players, the verdicts, the seat table, the agents (when
    they differ), ties and length."""
    m = run.manifest
    n = run.n_games
    c = run.common
    fair = fair_share(c)
    lines = [f"{run.path}: {m['game']}, {m['players']} players, {agents_text(m)}, seed {m['seed']}, "
             f"{n:,} games" + (f" ({run.partial_note})" if run.partial_note else "")]
    lines += [f"  {v.sentence}" for v in run_verdicts(run, margins)]
    lines.append("  (verdict intervals are 95% confidence sequences, valid however often the run is looked "
                 "at or extended; margins: --margin)")
    lines.append(f"  seat  agents            win rate   95% CI            mean score   "
                 f"(seat 0 starts; fair share {100 * fair:.1f}%)")
    seats = seat_win_rates(c)
    flags = seat_tests(c)
    for row, differs in zip(seats.itertuples(), flags["differs"], strict=True):
        agents = ",".join(sorted(c["seat_agents"].get(str(row.seat), set())))
        mark = "  *differs from fair" if differs else ""
        lines.append(f"  {row.seat:>4}  {agents:<16} {100 * row.win_rate:8.1f}%   "
                     f"[{100 * row.ci_low:4.1f}%, {100 * row.ci_high:4.1f}%]   {row.mean_score:10.1f}{mark}")
    eq = chi_square_equal(c["seat_units"] / SHARE_SCALE, c["seat_games"].astype(float))
    lines.append(f"  all seats equal? chi-square {eq['statistic']:.1f} on {eq['dof']} dof, "
                 f"p = {eq['p_value']:.3g}; * = differs from the fair share at 5%,")
    lines.append(f"  Holm-adjusted over the {m['players']} seats (the chance of any false flag stays <= 5%)")
    lines += _agent_lines(c, n)
    return "\n".join(lines)


def _agent_lines(c: dict, n: int) -> list[str]:
    """With mixed agents: how each one fares against the others (its seats' summed win share per game)."""
    agents = c["agents"]
    if len(agents) < 2:
        return []
    most = max(int(size) for size in c["sizes"])
    names = sorted(agents)
    held = np.array([agents[a][0] for a in names]) / n
    sums, squares = np.array([agents[a][1] for a in names]), np.array([agents[a][2] for a in names])
    wins = sums / SHARE_SCALE
    fair = held / most
    tests = share_tests_from_sums(n, sums, squares, fair, SHARE_SCALE)
    low, high = wilson_intervals(wins, np.full(len(names), n))
    lines = ["  agent                      seats  win rate   95% CI            fair share"]
    for i, agent in enumerate(names):
        mark = "  *differs from fair" if tests["differs"][i] else ""
        lines.append(f"  {agent:<26} {held[i]:5.2f} {100 * wins[i] / n:8.1f}%   "
                     f"[{100 * low[i]:4.1f}%, {100 * high[i]:4.1f}%]   {100 * fair[i]:8.1f}%{mark}")
    return lines


def format_summary(run: Run, margins: Margins = DEFAULT_MARGINS) -> str:
    """`format_run` of a run whose tables are held in memory (the same computation, on one part)."""
    return format_run(tally_of_run(run), margins)
