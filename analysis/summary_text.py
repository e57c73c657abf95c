"""A plain-text summary of a run directory (`balance summary`): the verdicts first (analysis.verdicts), then
the seats' win rates; a run whose seats hold different agents leads with the agents' shares, the answer it
is played for. All from the run's merged report tally (analysis.run_tally), so memory holds one chunk at a
time whatever the run's size."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from analysis.adaptive_stop import ADAPTIVE_NOTE
from analysis.model_provenance import models_text
from analysis.run_tally import RunTally
from analysis.seats import agent_win_rates, fair_share, seat_equality_test, seat_tests, seat_win_rates
from analysis.verdicts import DEFAULT_MARGINS, Margins, error_rate_text, run_split, run_verdicts, share_text


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
    """The summary as printed: the run and its players; when the seats hold different agents (a strength
    run), the agents' shares first, the answer such a run is played for; then the verdicts and the seat
    table."""
    m = run.manifest
    n = run.n_games
    c = run.common
    lines = [f"{run.path}: {m.game}, {m.players} players, {agents_text(m)}, seed {m.seed}, "
             f"{n:,} games" + (f" ({run.partial_note})" if run.partial_note else "")
             + models_text(m.models, m.config_hash)]
    adaptive = m.stopped_adaptively
    if len(c["agents"]) >= 2:
        lines.append(f"  {agents_sentence(c, adaptive, m.rotate_seats)}")
        lines += _agent_lines(c, adaptive)
    lines += [f"  {v.sentence}" for v in run_verdicts(run, margins)]
    error = error_rate_text(run_split(margins))
    lines.append("  (verdict intervals are confidence sequences, valid however often the run is looked at or "
                 f"extended; {error[0].lower()}{error[1:-1]})")
    lines += _seat_lines(c, adaptive)
    if adaptive:  # the seats' Wilson intervals and Holm flags would overstate: the verdicts above stay
        lines.append(f"  (fixed-size intervals and tests left out: {ADAPTIVE_NOTE})")
    else:
        eq = seat_equality_test(c)
        lines.append(f"  all seats equal? chi-square {eq['statistic']:.1f} on {eq['dof']} dof, "
                     f"p = {eq['p_value']:.3g}; * = differs from the fair share at 5%,")
        lines.append(f"  Holm-adjusted over the {m.players} seats (the chance of any false flag stays "
                     "<= 5%)")
    return "\n".join(lines)


def agents_sentence(c: dict, adaptive: bool = False, rotated: bool = True) -> str:
    """Who wins a run whose seats hold different agents, in one sentence: each agent's share of the games
    (its seats' win shares summed game by game, so a game counts once however many seats it holds:
    `analysis.seats.agent_win_rates`) with its 95% interval, against its fair share (its seats over the
    players), above or below it where the Holm-adjusted test says so; n. A run that stopped adaptively
    (`adaptive`) gives the shares alone, as its tables do."""
    n = int(c["games"])
    most = max(int(size) for size in c["sizes"])
    said = []
    for row in agent_win_rates(c).itertuples():
        whole = float(row.seats).is_integer()
        where = (f"{row.seats:g} seat{'' if row.seats == 1 else 's'} of {most}" if whole else
                 f"{row.seats:.2f} seats of {most} on average")
        share = (f"{100 * row.win_rate:.1f}%" if adaptive else
                 share_text(row.win_rate, row.ci_low, row.ci_high))
        fair = f"its fair share of {100 * row.fair:.1f}%"
        side = ("above" if row.win_rate > row.fair else "below") if row.differs and not adaptive else ""
        against_fair = (f"{side} {fair}" if side else f"not significantly different from {fair}"
                        if not adaptive else f"against {fair}")
        said.append(f"{row.agent} ({where}) wins {share} of games, {against_fair}")
    how = ("each agent's share is its seats' win shares summed game by game, so a game counts once"
           + ("" if adaptive else "; Wilson 95% intervals, above or below: Holm-adjusted at 5% over the "
              "agents"))
    rotation = "" if rotated else ("; the seats were not rotated, so each agent's share carries its seats' "
                                   "advantage too")
    return f"Agents: {'; '.join(said)}. n = {n:,} games ({how}){rotation}."


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
