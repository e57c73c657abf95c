"""A plain-text summary of a run directory (`balance summary`): the verdicts first (analysis.verdicts), then
seat win rates, agent win rates, ties and game length, all from the run's merged report tally
(analysis.run_tally), so memory holds one chunk at a time whatever the run's size."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from analysis.adaptive_stop import ADAPTIVE_NOTE
from analysis.run_tally import RunTally
from analysis.seats import agent_win_rates, fair_share, seat_equality_test, seat_tests, seat_win_rates
from analysis.verdicts import DEFAULT_MARGINS, Margins, error_rate_text, run_split, run_verdicts


class Seated(Protocol):
    """What names a run's players: a RunManifest, or the plan of a run (sim.app.runner.RunPlan)."""

    @property
    def agents(self) -> Sequence[str]: ...
    @property
    def rotate_seats(self) -> bool: ...


def agents_text(run: Seated) -> str:
    """The players as a run's output names them: "expert in every seat", "greedy,random,random"."""
    agents = [str(a) for a in run.agents]
    if agents and len(set(agents)) == 1:
        return f"{agents[0]} in every seat"
    return ",".join(agents) + (" (rotated one seat a game)" if run.rotate_seats else "")


def format_run(run: RunTally, margins: Margins = DEFAULT_MARGINS) -> str:
    """The summary as printed: the run and its players, the verdicts, the seat table, the agents (when
    they differ), ties and length."""
    m = run.manifest
    n = run.n_games
    c = run.common
    lines = [f"{run.path}: {m.game}, {m.players} players, {agents_text(m)}, seed {m.seed}, "
             f"{n:,} games" + (f" ({run.partial_note})" if run.partial_note else "")]
    lines += [f"  {v.sentence}" for v in run_verdicts(run, margins)]
    error = error_rate_text(run_split(margins))
    lines.append("  (verdict intervals are confidence sequences, valid however often the run is looked at or "
                 f"extended; {error[0].lower()}{error[1:-1]})")
    adaptive = m.stopped_adaptively
    lines += _seat_lines(c, adaptive)
    if adaptive:  # the seats' Wilson intervals and Holm flags would overstate: the verdicts above stay
        lines.append(f"  (fixed-size intervals and tests left out: {ADAPTIVE_NOTE})")
    else:
        eq = seat_equality_test(c)
        lines.append(f"  all seats equal? chi-square {eq['statistic']:.1f} on {eq['dof']} dof, "
                     f"p = {eq['p_value']:.3g}; * = differs from the fair share at 5%,")
        lines.append(f"  Holm-adjusted over the {m.players} seats (the chance of any false flag stays "
                     "<= 5%)")
    lines += _agent_lines(c, adaptive)
    return "\n".join(lines)


def _seat_lines(c: dict, adaptive: bool) -> list[str]:
    """The seat table: win rate with its 95% interval and the Holm flag, and the mean score; a run that
    stopped adaptively (`adaptive`) shows the win rate alone."""
    fair = fair_share(c)
    lines = [f"  seat  agents            win rate   {'' if adaptive else '95% CI            '}mean score   "
             f"(seat 0 starts; fair share {100 * fair:.1f}%)"]
    seats = seat_win_rates(c)
    flags = seat_tests(c)
    for row, differs in zip(seats.itertuples(), flags["differs"], strict=True):
        agents = ",".join(sorted(c["seat_agents"].get(str(row.seat), set())))
        mark = "  *differs from fair" if differs and not adaptive else ""
        ci = "" if adaptive else f"[{100 * row.ci_low:4.1f}%, {100 * row.ci_high:4.1f}%]   "
        lines.append(f"  {row.seat:>4}  {agents:<16} {100 * row.win_rate:8.1f}%   {ci}"
                     f"{row.mean_score:10.1f}{mark}")
    return lines


def _agent_lines(c: dict, adaptive: bool = False) -> list[str]:
    """With mixed agents: how each one fares against the others (`analysis.seats.agent_win_rates`: its
    seats' summed win share per game), without the interval and flag after an adaptive stop."""
    if len(c["agents"]) < 2:
        return []
    n = int(c["games"])
    lines = [f"  agent                      seats  win rate   {'' if adaptive else '95% CI            '}"
             "fair share"]
    for row in agent_win_rates(c).itertuples():
        mark = "  *differs from fair" if row.differs and not adaptive else ""
        ci = "" if adaptive else f"[{100 * row.ci_low:4.1f}%, {100 * row.ci_high:4.1f}%]   "
        lines.append(f"  {row.agent:<26} {row.seats:5.2f} {100 * row.wins / n:8.1f}%   {ci}"
                     f"{100 * row.fair:8.1f}%{mark}")
    return lines
