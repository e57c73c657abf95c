"""The strength ladder (`balance ladder`): how much more a stronger player wins, step by step.

A ladder is a folder holding ``ladder.json`` and one run directory per step. A step seats one player of a
level (the *higher*) against N-1 players of the level below (the *lower*), seats rotated, so the higher
level's win share would be the fair share 1/N if skill did not matter. The curve of that share over the
steps (random -> greedy -> MCTS at doubling iteration counts) is the skill-versus-luck measure of Ludii's
SkillTrace: where a doubled budget still wins significantly more than 1/N, skill pays; where the share is
shown to stay within a margin of 1/N (an equivalence test), luck (or the game's depth for these agents) has
taken over. Each step's verdict (`step_verdict`) says which, and the ladder's answer is a sentence built
from them (`ladder_answer`): "flattens" only where the steps to the top are shown level, never from a step
that merely failed to show a gain.

Beside the steps' shares, each level gets one rating from all the ladder's games (analysis.ratings: a
Plackett-Luce log-strength with a 95% interval, 0 at the anchor: random, or when a level beat the one below
it in every game, the lowest level that shares a scale with the top). Each step's gain over the level below
is drawn first, with the interval of that difference itself (``gains_chart``), then the ratings against the
anchor (``ratings_chart``), whose intervals may overlap where a step's gain is clear.

Pure functions: ``ladder_table_from`` (the players tables of the steps -> one row per step), ``skill_trace``
(that table -> the SkillTrace-style summary and the answer), ``ladder_chart`` (table -> figure),
``gains_chart`` and ``ratings_chart`` (ratings -> figure), ``format_ladder`` (text); ``ladder_report_parts``
reads a ladder folder (analysis.runs.read_run) for `balance report`.
"""

from __future__ import annotations

import html
import math
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from analysis import charts, figures
from analysis.page import (
    COUNT,
    NUMBER,
    NUMBER_BOUND,
    SHARE,
    SHARE_BOUND,
    TEXT,
    Section,
    declare,
    interval,
    pct,
)
from analysis.ratings import (
    ABOVE,
    ANCHOR,
    BELOW,
    SEAT_COLUMNS,
    anchor_level,
    ladder_ratings,
    win_share_against,
)
from analysis.run_tally import read_run_tally
from analysis.runs import read_table, run_snapshot
from analysis.stats import wilson_intervals
from analysis.tally import SHARE_SCALE
from analysis.verdicts import share_text
from sim.core.errors import ConfigError
from storage.run_dir import read_json_object

if TYPE_CHECKING:  # the page kit and matplotlib load only when a chart or section is made
    from matplotlib.figure import Figure

    from analysis.page import Section
    from analysis.run_tally import RunTally

LADDER_MANIFEST = "ladder.json"
STEP_COLUMNS = ("step", "higher", "lower", "higher_agent", "lower_agent", "players")
#: the margin of a step's equivalence test: a step is shown level when its 90% interval (two one-sided
#: tests at 5%) lies within the fair share +- this (5 pp of win share; `balance ladder --margin`)
STEP_MARGIN = 0.05
Z90 = 1.6448536269514722


def deals_text(manifest: dict[str, Any]) -> str:
    """Which deals a ladder's steps played, in words: fresh per step (the default), or the same in every
    step (``--same-deals``; a ladder.json written before the choice existed played the same)."""
    seed = manifest["seed"]
    if manifest.get("deals", "same") == "same":
        return f"seed {seed}, the same deals in every step (--same-deals)"
    return f"seed {seed}, fresh deals in each step (each step's seed derived from {seed} and the step's name)"


def is_ladder(path: str | os.PathLike[str]) -> bool:
    return (Path(path) / LADDER_MANIFEST).is_file()


def level_iters(agent: str) -> float:
    """MCTS iterations of an agent string (``mcts:iters=50`` -> 50.0); NaN for other agents."""
    name, _, params = agent.partition(":")
    if name != "mcts":
        return math.nan
    for item in params.split(","):
        key, _, value = item.partition("=")
        if key == "iters":
            return float(value)
    return math.nan


def steps_frame(manifest: dict[str, Any]) -> pd.DataFrame:
    """The steps of a ladder manifest, in ladder order: ``step, higher, lower, higher_agent, lower_agent,
    players``."""
    return pd.DataFrame([{"step": s["name"], "higher": s["higher"], "lower": s["lower"],
                          "higher_agent": s["higher_agent"], "lower_agent": s["lower_agent"],
                          "players": s["players"]} for s in manifest["steps"]], columns=list(STEP_COLUMNS))


def agents_held(c: dict[str, Any]) -> dict[str, tuple[int, float]]:
    """Each agent's (player-games, summed win share) in a step's run, from its (merged) common tally
    (`analysis.seats.seat_tally`'s ``agents``), so a step's run is read a chunk at a time."""
    return {agent: (int(a[0]), int(a[1]) / SHARE_SCALE) for agent, a in c["agents"].items()}


def ladder_table_from(held: dict[str, dict[str, tuple[int, float]]], steps: pd.DataFrame,
                      margin: float = STEP_MARGIN) -> pd.DataFrame:
    """One row per step (in the order of ``steps``, `steps_frame`) with the higher level's win share, from
    each step's agents' (player-games, summed win share), `agents_held`. The higher level's wins are its
    summed win share (a win shared by k players counts 1/k, as in analysis.seats); n is the number of its
    player-games (one per game). Returns ``step, higher, lower, players, n, wins, win_share, ci_low,
    ci_high`` (Wilson 95%), ``fair_share`` (1/players), ``edge`` (share minus fair), ``significant`` (the
    interval lies above the fair share), ``eq_low, eq_high`` (Wilson 90%: two one-sided tests at 5%) and
    ``level`` (that interval lies within the fair share +-`margin`: the step's gain is shown to be within
    the margin), ``verdict`` (`step_verdict`'s words) and ``log2_iters`` of the higher level (NaN for
    random and greedy)."""
    rows = []
    for step in steps.itertuples(index=False):
        n, wins = held.get(step.step, {}).get(step.higher_agent, (0, 0.0))
        rows.append({"step": step.step, "higher": step.higher, "lower": step.lower,
                     "players": int(step.players), "n": int(n), "wins": float(wins)})
    table = pd.DataFrame(rows, columns=["step", "higher", "lower", "players", "n", "wins"])
    low, high = wilson_intervals(table["wins"].to_numpy(dtype=float), table["n"].to_numpy(dtype=float))
    with np.errstate(divide="ignore", invalid="ignore"):
        table["win_share"] = table["wins"] / table["n"].where(table["n"] > 0)
    table["ci_low"], table["ci_high"] = low, high
    table["fair_share"] = 1.0 / table["players"].astype(float)
    table["edge"] = table["win_share"] - table["fair_share"]
    table["significant"] = (table["n"] > 0) & (table["ci_low"] > table["fair_share"])
    eq_low, eq_high = wilson_intervals(table["wins"].to_numpy(dtype=float), table["n"].to_numpy(dtype=float),
                                       z=Z90)
    table["eq_low"], table["eq_high"] = eq_low, eq_high
    table["level"] = ((table["n"] > 0) & (table["eq_low"] >= table["fair_share"] - margin)
                      & (table["eq_high"] <= table["fair_share"] + margin))
    table["verdict"] = [step_verdict(r, margin) for r in table.itertuples(index=False)]
    table["log2_iters"] = [math.log2(i) if i > 0 else math.nan
                           for i in (level_iters(a) for a in steps["higher_agent"])]
    return table


def step_verdict(row: Any, margin: float = STEP_MARGIN) -> str:
    """A step's verdict in words, from its 95% interval against the fair share and its 90% interval
    against the fair share +-`margin` (an equivalence test): ``above fair`` (the stronger level wins
    beyond its fair share), ``a small gain, within 5 pp`` (beyond it, but shown within the margin),
    ``level, within 5 pp`` (shown within the margin, no gain shown), ``below fair`` (the level called
    stronger wins less), ``undecided`` (none of these: more games would decide), ``not played``."""
    m = f"{100 * margin:g} pp"
    if row.n == 0:
        return "not played"
    if row.ci_high < row.fair_share:
        return "below fair"
    if row.ci_low > row.fair_share:
        return f"a small gain, within {m}" if row.level else "above fair"
    return f"level, within {m}" if row.level else "undecided"


def flat_from(table: pd.DataFrame) -> str | None:
    """The first step from which every played step is shown level within the margin (`ladder_table_from`'s
    ``level``: an equivalence test, never a step that merely failed to show a gain), or None: where the
    curve flattens, if it does."""
    played = table[table["n"] > 0]
    start = None
    for row in played.itertuples(index=False):
        start = (start or str(row.step)) if row.level else None
    return start


def _listed(rows: list[Any], eq: bool = False) -> str:
    """Steps with their shares and intervals: the 95% one, or (`eq`) the 90% one of the equivalence test."""
    bounds = [(r.eq_low, r.eq_high) if eq else (r.ci_low, r.ci_high) for r in rows]
    return ", ".join(f"{r.step} {share_text(r.win_share, *b)}" for r, b in zip(rows, bounds, strict=True))


def ladder_answer(table: pd.DataFrame, margin: float = STEP_MARGIN) -> str:
    """The ladder's answer in a sentence, from the steps' own verdicts (`step_verdict`): at how many steps
    the stronger level wins beyond its fair share, with each step's share and 95% interval; "flattens"
    only from a step on which every later step is shown level within the margin (`flat_from`); a step
    shown level before later steps rise, a step below fair, and an undecided one, each said as such."""
    played = [r for r in table.itertuples(index=False) if r.n > 0]
    if not played:
        return "No step has finished games yet."
    m, fair = f"{100 * margin:g} pp", f"its fair share of {100 * played[0].fair_share:.1f}%"
    gains = [r for r in played if r.significant]
    flat = flat_from(table)
    tail = [r for r in played[[str(r.step) for r in played].index(flat):]] if flat else []
    if len(gains) == len(played):
        parts = [f"Skill pays at every step: the stronger level wins beyond {fair} at all {len(played)} "
                 f"steps ({_listed(played)})"]
    elif gains:
        parts = [f"The stronger level wins beyond {fair} at {len(gains)} of {len(played)} steps "
                 f"({_listed(gains)})"]
    else:
        parts = [f"No step shows the stronger level winning beyond {fair}"]
    if flat:
        parts.append(f"the curve flattens from {flat} on: every step from there is shown within {m} of the "
                     f"fair share ({_listed(tail, eq=True)}: 90% intervals, an equivalence test)")
    middle = [r for r in played if r.level and not r.significant and r not in tail]
    if middle:
        parts.append(f"no gain beyond {m} at {_listed(middle, eq=True)} (90% intervals within {m} of the "
                     "fair share), yet later steps rise again")
    below = [r for r in played if r.ci_high < r.fair_share]
    if below:
        parts.append(f"the level called stronger wins less than {fair} at {_listed(below)}")
    open_ = [r for r in played if r.verdict == "undecided"]
    if open_:
        parts.append(f"undecided at {_listed(open_)}: neither beyond the fair share nor shown within {m} "
                     "of it (more games would decide)")
    counts = sorted({int(r.n) for r in played})
    n = f"{counts[0]:,}" if len(counts) == 1 else f"{counts[0]:,} to {counts[-1]:,}"
    return (f"{'; '.join(parts)}. n = {n} games per step; 95% intervals unless marked 90%; each step judged "
            "on its own at 5%.")


def skill_trace(table: pd.DataFrame, margin: float = STEP_MARGIN) -> dict[str, Any]:
    """The SkillTrace-style summary of a ``ladder_table_from``.

    ``answer``: `ladder_answer`'s sentence; ``margin``; ``last``: the last step's share with its interval
    and n; ``flattens_at``: the first step from which every step is shown level within the margin
    (`flat_from`; None if there is none: a step whose interval merely includes the fair share is not
    flat); ``below_fair``: the steps whose interval lies below the fair share (the level called stronger
    is in fact weaker, e.g. MCTS on a tiny budget against greedy); ``undecided``; ``significant_steps``.
    ``skill_trace``: Ludii's
    SkillTrace formula over the MCTS-vs-MCTS steps, on the edge normalised to [-1/(N-1), 1]
    (e = (share - 1/N) / (1 - 1/N); for two players e is Ludii's utility 2 x share - 1): a straight line is
    fitted to e over the steps and extrapolated to two steps beyond the last (y, clamped to [0, 1]), and
    skill_trace = y + (1 - y) x mean(max(e, 0)). 0 = more search never helps; near 1 = it keeps helping.
    NaN when there is no MCTS-vs-MCTS step."""
    played = table[table["n"] > 0]
    out: dict[str, Any] = {"answer": ladder_answer(table, margin), "margin": margin,
                           "step_count": len(table), "significant_steps": int(played["significant"].sum()),
                           "last": None, "flattens_at": None, "below_fair": [], "undecided": [],
                           "skill_trace": math.nan, "mcts_steps": 0}
    if played.empty:
        return out
    last = played.iloc[-1]
    out["last"] = {"step": str(last["step"]), "n": int(last["n"]),
                   **{k: float(last[k]) for k in ("win_share", "ci_low", "ci_high", "fair_share")}}
    out["below_fair"] = played.loc[played["ci_high"] < played["fair_share"], "step"].astype(str).tolist()
    out["undecided"] = played.loc[played["verdict"] == "undecided", "step"].astype(str).tolist()
    out["flattens_at"] = flat_from(table)
    mcts = played[played["higher"].str.startswith("mcts") & played["lower"].str.startswith("mcts")]
    out["mcts_steps"] = len(mcts)
    if len(mcts):
        fair = mcts["fair_share"].to_numpy(dtype=float)
        e = (mcts["win_share"].to_numpy(dtype=float) - fair) / (1.0 - fair)
        x = np.arange(len(e), dtype=float)
        if len(e) > 1:
            slope, intercept = np.polyfit(x, e, 1)
        else:
            slope, intercept = 0.0, float(e[0])
        y = min(max(float(intercept + slope * (len(e) + 1)), 0.0), 1.0)
        out["skill_trace"] = y + (1.0 - y) * float(np.mean(np.maximum(e, 0.0)))
    return out


def ladder_chart(table: pd.DataFrame, title: str) -> Figure:
    """The curve: the higher level's win share per step with its 95% interval, and the fair share 1/N."""
    plt = charts.plt
    fig, ax = plt.subplots(figsize=charts.WIDE)
    x = np.arange(len(table), dtype=float)
    y = table["win_share"].to_numpy(dtype=float) * 100
    err = np.vstack([y - table["ci_low"].to_numpy(dtype=float) * 100,
                     table["ci_high"].to_numpy(dtype=float) * 100 - y])
    ax.errorbar(x, y, yerr=err, marker="o", capsize=4, label="stronger level's win share (95% interval)")
    fair = table["fair_share"].to_numpy(dtype=float) * 100
    ax.plot(x, fair, color="grey", linestyle="--", label="fair share 1/N")
    for xi, yi, sig in zip(x, y, table["significant"], strict=True):
        if sig:
            ax.annotate("*", (xi, yi), textcoords="offset points", xytext=(6, 4))
    ax.set_xticks(x, [f"{h}\nvs {lo}" for h, lo in zip(table["higher"], table["lower"], strict=True)],
                  fontsize=8)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0),  # beside the data
              borderaxespad=0)
    ax.set_title(title, fontsize=11)
    ax.set_xlabel("step: level vs the level below (MCTS: iterations per decision)")
    ax.set_ylabel("win share of the stronger level (%)")
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    return fig


def gains_chart(ratings: pd.DataFrame, title: str) -> Figure:
    """The answer of the ratings: each step's gain over the level below (a row of `ladder_ratings` past the
    first) with its own 95% interval, against 0 (no gain), and above each the gain as one seat's win share
    against N-1 of the level below. A step whose two levels share no scale is named on the axis and marked
    "no finite gain"."""
    plt = charts.plt
    fig, ax = plt.subplots(figsize=charts.WIDE)
    steps = ratings.iloc[1:]
    x = np.arange(len(steps), dtype=float)
    y = steps["gain"].to_numpy(dtype=float)
    low, high = steps["gain_low"].to_numpy(dtype=float), steps["gain_high"].to_numpy(dtype=float)
    shown = np.isfinite(y)
    ax.axhline(0.0, color="grey", linewidth=0.8, linestyle="--", label="no gain")
    if shown.any():
        ax.errorbar(x[shown], y[shown], yerr=np.vstack([y - low, high - y])[:, shown], marker="o",
                    capsize=4, linestyle="none", label="gain, 95% interval", zorder=3)
    top = float(np.nanmax(high)) if shown.any() else 1.0
    for xi, row in zip(x, steps.itertuples(index=False), strict=True):
        if np.isfinite(row.gain):
            ax.annotate(f"{row.gain:+.2f}\nwins {100 * row.share_vs_below:.0f}%\nvs {row.players - 1:.0f} "
                        f"{row.below}", (xi, row.gain_high), textcoords="offset points", xytext=(0, 4),
                        ha="center", fontsize=7,
                        bbox={"boxstyle": "round,pad=0.15", "fc": "white", "ec": "none"})
        else:
            ax.annotate("no finite gain\n(won or lost\nevery game)", (xi, 0.0), ha="center", va="bottom",
                        fontsize=7, color="dimgrey")
    bottom = min(0.0, float(np.nanmin(low)) if shown.any() else 0.0)
    span = max(top - bottom, 1.0)
    ax.set_ylim(bottom - 0.1 * span, top + 0.35 * span)  # room for the shares above the whiskers
    ax.set_xticks(x, [f"{h}\nover {lo}" for h, lo in zip(steps["level"], steps["below"], strict=True)],
                  fontsize=8)
    ax.set_xlim(-0.5, len(steps) - 0.5)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)  # beside the data
    ax.set_title(title, fontsize=11)
    ax.set_xlabel("step: a level over the level below it")
    ax.set_ylabel("gain (log-strength difference)")
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    charts.fit_titles(fig)
    return fig


def ratings_chart(ratings: pd.DataFrame, title: str) -> Figure:
    """The levels on the x axis, each rated level's rating (log-strength, the anchor at 0, marked) with
    its 95% interval; above each rung, its gain over the level below as a win share against N-1 of that
    level. A level with no rating is named on the axis and marked in a grey band under the plot ("below
    the scale"), or over it ("above the scale")."""
    plt = charts.plt
    fig, ax = plt.subplots(figsize=charts.WIDE)
    x = np.arange(len(ratings), dtype=float)
    y = ratings["rating"].to_numpy(dtype=float)
    low, high = ratings["ci_low"].to_numpy(dtype=float), ratings["ci_high"].to_numpy(dtype=float)
    shown = ~np.isnan(y)
    anchor = ratings["scale"].to_numpy() == ANCHOR
    bottom, top = float(np.nanmin(low[shown])), float(np.nanmax(high[shown]))
    span = max(top - bottom, 1.0)
    off = ~shown
    above = off & (ratings["scale"].to_numpy() == ABOVE)
    below = off & ~above
    ax.axhline(0.0, color="grey", linewidth=0.8, linestyle=":")
    ax.errorbar(x[shown], y[shown], yerr=np.vstack([y - low, high - y])[:, shown], marker="o", capsize=4,
                label="rating (95% interval)", zorder=3)
    ax.plot(x[anchor], y[anchor], marker="D", markersize=9, linestyle="none", color="black", zorder=4,
            label=f"anchor: {anchor_level(ratings)} = 0")
    for xi, yi in zip(x[shown], y[shown], strict=True):
        ax.annotate(f"{yi:.2f}", (xi, yi), textcoords="offset points", xytext=(8, -3), fontsize=8)
    for xi, row in zip(x, ratings.itertuples(index=False), strict=True):
        if not np.isnan(row.rating) and not np.isnan(row.share_vs_below):
            ax.annotate(f"wins {100 * row.share_vs_below:.0f}%\nvs {row.players - 1:.0f} {row.below}",
                        (xi, row.ci_high), textcoords="offset points", xytext=(0, 4), ha="center",
                        fontsize=7, bbox={"boxstyle": "round,pad=0.15", "fc": "white", "ec": "none"})
    lowest, highest = bottom - 0.15 * span, top + 0.3 * span  # room for the rungs' win shares
    for mask, sign, marker in ((below, -1, "v"), (above, 1, "^")):
        if not mask.any():
            continue
        band = (bottom - 0.45 * span, bottom - 0.15 * span) if sign < 0 else \
            (top + 0.35 * span, top + 0.65 * span)
        lowest, highest = min(lowest, band[0]), max(highest, band[1])
        ax.axhspan(*band, color="0.92", zorder=0)
        middle = sum(band) / 2
        where = set(ratings["scale"].to_numpy()[mask])
        label = f"no rating: {where.pop()}" if len(where) == 1 and where <= {BELOW, ABOVE} else "no rating"
        ax.plot(x[mask], np.full(mask.sum(), middle + sign * 0.05 * span), marker=marker, linestyle="none",
                color="grey", markersize=8, label=label)
        for xi, scale in zip(x[mask], ratings["scale"].to_numpy()[mask], strict=True):
            ax.annotate(scale, (xi, middle - sign * 0.06 * span), ha="center", va="center", fontsize=7,
                        color="dimgrey")
    ax.set_ylim(lowest, highest)
    ticks = ax.get_yticks()  # no rating values in the bands: their levels have none
    ax.set_yticks(ticks[(ticks >= bottom - 0.15 * span) & (ticks <= top + 0.3 * span)])
    ax.set_xticks(x, [str(v) for v in ratings["level"]], fontsize=9)
    ax.set_xlim(-0.5, len(ratings) - 0.5)  # room for the labels of the first and last levels
    ax.legend(fontsize=8, loc="upper left")
    ax.set_title(title, fontsize=11)
    ax.set_xlabel("level (MCTS: iterations per decision)")
    ax.set_ylabel(f"rating (log-strength, {anchor_level(ratings)} = 0)")
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    charts.fit_titles(fig)
    return fig


def format_ladder(table: pd.DataFrame, summary: dict[str, Any], ratings: pd.DataFrame | None = None) -> str:
    """The ladder in plain text: its answer in a sentence (`ladder_answer`), then the evidence: the steps'
    table, the SkillTrace-style summary and, with `ratings` (analysis.ratings.ladder_ratings), each step's
    gain over the level below with its interval, then each level's rating on one scale."""
    lines = [f"  {summary['answer']}",
             f"  {'step':<22} {'n':>6}  {'win share':>9}  {'95% CI':<16} {'fair':>6}  verdict"]
    for r in table.itertuples(index=False):
        if r.n == 0:
            lines.append(f"  {r.step:<22} {0:>6}  (not played yet)")
            continue
        lines.append(f"  {r.step:<22} {r.n:>6}  {100 * r.win_share:8.1f}%  "
                     f"[{100 * r.ci_low:4.1f}%, {100 * r.ci_high:4.1f}%]  {100 * r.fair_share:5.1f}%  "
                     f"{r.verdict}{' *' if r.significant else ''}")
    lines.append("  * the interval lies above the fair share 1/N: the stronger level wins significantly "
                 f"more; within {100 * summary['margin']:g} pp: its 90% interval lies within that of the "
                 "fair share (an equivalence test)")
    lines += ["  " + line for line in summary_lines(summary)]
    if ratings is not None:
        lines += ["  " + line for line in gain_lines(ratings)]
        lines += ["  " + line for line in rating_lines(ratings)]
    return "\n".join(lines)


def gain_text(r: Any) -> str:
    """A step's gain (a row of `ladder_ratings`: the level over the one below) with its 95% interval, and
    that gain as one seat's win share against N-1 of the level below: "+0.66 [+0.41, +0.92]: 52.1%
    [46.3%, 57.9%] against 2 expert"."""
    return (f"{figures.figure(r.gain, 2, sign=True)} "
            f"{figures.interval(r.gain_low, r.gain_high, 2, keep_off=(0.0,), sign=True)}: "
            f"{100 * r.share_vs_below:.1f}% [{100 * r.share_low:.1f}%, {100 * r.share_high:.1f}%] "
            f"against {r.players - 1:.0f} {r.below}")


def gain_lines(ratings: pd.DataFrame) -> list[str]:
    """Each step's gain over the level below with its 95% interval, as plain-text lines: the difference of
    the two levels' ratings, whose interval is that of the difference itself (not of two ratings each
    against the anchor, which overlap where the step's own gain is clear)."""
    lines = ["each step's gain over the level below, with its 95% interval (log-strength difference from all "
             "the ladder's games; 0 = no gain), and as one seat's win share against N-1 of the level below:"]
    rows = list(ratings.itertuples(index=False))
    for below, r in zip(rows, rows[1:], strict=False):
        why = below.note.partition(": ")[2] or below.note or "the two levels share no scale"
        said = gain_text(r) if np.isfinite(r.gain) else f"no finite gain ({why})"
        lines.append(f"  {r.level + '-vs-' + r.below:<22} {said}")
    return lines


def rating_lines(ratings: pd.DataFrame) -> list[str]:
    """The ratings as plain-text lines: each level's rating with its 95% interval, against the anchor (so
    two levels' intervals may overlap where the gain between them is clear: `gain_lines` says that)."""
    anchor = anchor_level(ratings)
    lines = [f"each level's rating, with its 95% interval (log-strength from all the ladder's games, "
             f"{anchor} = 0; Plackett-Luce):",
             f"  {'level':<12} {'rating':>7}  95% interval"]
    for r in ratings.itertuples(index=False):
        if np.isnan(r.rating):
            head = f"  {r.level:<12} {'-':>7}  (no rating)"
        else:
            head = f"  {r.level:<12} {r.rating:7.2f}  " + (
                "(anchor)" if r.scale == ANCHOR else f"[{r.ci_low:5.2f}, {r.ci_high:5.2f}]")
        lines.append(head.rstrip())
        if r.note:
            lines.append(f"  {'':<12} {'':>7}  {r.note}")
    lines += ["  a rating difference d means one seat of the stronger level wins e^d / (e^d + N - 1) of its "
              "games",
              f"  against N-1 of the weaker (N = {_players_of(ratings)}: d = 1 -> "
              f"{100 * _share(1.0, ratings):.0f}%, d = 2 -> {100 * _share(2.0, ratings):.0f}%)"]
    return lines


def _players_of(ratings: pd.DataFrame) -> int:
    players = ratings["players"].dropna()
    return int(players.iloc[0]) if len(players) else 2


def _share(gain: float, ratings: pd.DataFrame) -> float:
    return float(win_share_against(gain, _players_of(ratings)))


def summary_lines(summary: dict[str, Any]) -> list[str]:
    """The SkillTrace-style summary under the steps' table: the last step, how many steps gain, where the
    curve flattens (only where shown level: `flat_from`), the steps below fair, the SkillTrace score."""
    last = summary["last"]
    if last is None:
        return ["no step has finished games yet"]
    lines = [f"last step {last['step']}: win share {100 * last['win_share']:.1f}% "
             f"[{100 * last['ci_low']:.1f}%, {100 * last['ci_high']:.1f}%] (n = {last['n']:,}; "
             f"fair {100 * last['fair_share']:.1f}%)"]
    counted = f"{summary['significant_steps']} of {summary['step_count']} steps significantly above fair"
    m = f"{100 * summary['margin']:g} pp"
    if summary["flattens_at"] is None:
        lines.append(f"no flattening shown: no run of steps to the top is shown within {m} of the fair share "
                     f"({counted})")
    else:
        lines.append(f"the curve flattens from {summary['flattens_at']} on (every step from there shown "
                     f"within {m} of the fair share); {counted}")
    if summary["below_fair"]:
        lines.append("below fair (the level called stronger is weaker): " + ", ".join(summary["below_fair"]))
    if summary["undecided"]:
        lines.append(f"undecided (neither above fair nor shown within {m}): "
                     + ", ".join(summary["undecided"]))
    if summary["mcts_steps"]:
        lines.append(f"SkillTrace-style score {summary['skill_trace']:.3f} over {summary['mcts_steps']} "
                     "MCTS-vs-MCTS steps (0: more search never helps; near 1: it keeps helping)")
    return lines


# ---- reading a ladder folder (for `balance ladder` and `balance report`) ---------------------------------
def read_ladder_manifest(folder: str | os.PathLike[str]) -> dict[str, Any]:
    return read_json_object(Path(folder) / LADDER_MANIFEST, "ladder manifest", ("steps",))


def read_ladder(folder: str | os.PathLike[str]) -> tuple[dict[str, Any], pd.DataFrame, dict[str, Any],
                                                         dict[str, RunTally]]:
    """A ladder folder, from its run directories' logs: (manifest, ``ladder_table_from``, ``skill_trace``
    summary, {step name: RunTally} of the steps with finished games). A ladder with no finished game is
    refused (ConfigError)."""
    folder = Path(folder)
    manifest = read_ladder_manifest(folder)
    runs, held = {}, {}
    for step in manifest["steps"]:
        run_dir = folder / step["run_dir"]
        if not (run_dir / "manifest.json").is_file() or not run_snapshot(run_dir).ranges:
            continue
        run = read_run_tally(run_dir)  # chunk by chunk (analysis.run_tally)
        runs[step["name"]] = run
        held[step["name"]] = agents_held(run.common)
    if not runs:
        raise ConfigError(f"{folder}: the ladder has no finished games yet")
    margin = float(manifest.get("margin", STEP_MARGIN))
    table = ladder_table_from(held, steps_frame(manifest), margin)
    return manifest, table, skill_trace(table, margin), runs


def ladder_seats(folder: str | os.PathLike[str], manifest: dict[str, Any],
                 runs: dict[str, RunTally]) -> pd.DataFrame:
    """Every seat of every finished game of the ladder (the chunks each step's RunTally read, so the
    ratings and the shares come from one snapshot), as analysis.ratings.SEAT_COLUMNS: ``step, game_id,
    level, score, win_share``, the level named by the step's manifest entry."""
    frames = []
    for step in manifest["steps"]:
        run = runs.get(step["name"])
        if run is None:
            continue
        players = read_table(Path(folder) / step["run_dir"], "players", run.ranges,
                             columns=["game_id", "agent", "score", "win_share"])
        names = {step["higher_agent"]: step["higher"], step["lower_agent"]: step["lower"]}
        frames.append(pd.DataFrame({"step": step["name"], "game_id": players["game_id"].to_numpy(np.int64),
                                    "level": players["agent"].astype(str).map(names).to_numpy(),
                                    "score": players["score"].to_numpy(float),
                                    "win_share": players["win_share"].to_numpy(float)}))
    return pd.concat(frames, ignore_index=True)[list(SEAT_COLUMNS)]


def read_ladder_ratings(folder: str | os.PathLike[str], manifest: dict[str, Any],
                        runs: dict[str, RunTally]) -> pd.DataFrame:
    """The ladder's ratings (analysis.ratings.ladder_ratings) from the seats of its finished games
    (`ladder_seats`; `read_ladder`'s manifest and runs)."""
    return ladder_ratings(ladder_seats(folder, manifest, runs), steps_frame(manifest))


def ladder_report_parts(folder: str | os.PathLike[str],
                        name: str = "ladder") -> tuple[Section, list[RunTally], list[str], dict[str, Any]]:
    """A ladder folder's report section for `balance report`: (Section, runs, labels, summary record).
    Steps not played yet are left out of the runs and named in a note."""
    folder = Path(folder)
    manifest, table, summary, runs = read_ladder(folder)
    players = manifest["players"]
    games = int(table["n"].sum())
    sec = Section(f"Ladder: {manifest['game']}, {players} players ({folder.name})")
    sec.notes.append(f"<b>{html.escape(summary['answer'])}</b>")
    sec.notes.append(
        f"Config <b>{manifest['config']}</b>; each step seats one player of a level against {players - 1} "
        f"of the level below, seats rotated, {html.escape(deals_text(manifest))}; {manifest['games']:,} "
        f"games asked per step, n = {games:,} games in all. The fair share is 1/{players} = "
        f"{pct(1 / players)}: a level whose win share's 95% interval lies above it wins significantly more "
        "than the level below (shared wins count 1/k); a step is <i>level</i> only when its 90% interval "
        f"lies within {100 * summary['margin']:g} pp of the fair share (two one-sided tests at 5%: an "
        "equivalence test), never because a gain was not shown. The curve is Ludii's SkillTrace measure of "
        "skill versus luck: how much more a stronger player (for MCTS, a doubled search budget) wins.")
    last = summary["last"]
    sec.notes.append(f"Last step <b>{last['step']}</b>: win share <b>{pct(last['win_share'])}</b> "
                     f"{interval(last['ci_low'], last['ci_high'])}, n = {last['n']:,} games.")
    sec.notes += [line for line in summary_lines(summary)[1:]]
    missing = [s for s, n in zip(table["step"], table["n"], strict=True) if n == 0]
    if missing:
        sec.notes.append("Not played yet: " + ", ".join(missing) + ".")
    played = table[table["n"] > 0]
    n_text = f"n = {int(played['n'].max()):,} games per step" if played["n"].nunique() == 1 \
        else f"n = {int(played['n'].min()):,} to {int(played['n'].max()):,} games per step"
    sec.charts.append((name, f"Win share of the stronger level at each step, 95% intervals ({n_text})",
                       ladder_chart(played, f"{manifest['game']} {players}p ladder: stronger "
                                    f"level's win share ({n_text})")))
    steps = table[["step", "higher", "lower", "n", "win_share", "ci_low", "ci_high", "eq_low", "eq_high",
                   "fair_share", "verdict"]].rename(columns={"eq_low": "90% low", "eq_high": "90% high"})
    shown = declare(steps, {"step": TEXT, "higher": TEXT, "lower": TEXT, "n": COUNT, "win_share": SHARE,
                            "ci_low": SHARE_BOUND, "ci_high": SHARE_BOUND, "90% low": SHARE_BOUND,
                            "90% high": SHARE_BOUND, "fair_share": SHARE, "verdict": TEXT})
    sec.tables.append((name, "Ladder: the stronger level's win share per step (Wilson 95%; the 90% interval "
                       f"is the equivalence test's, level within {100 * summary['margin']:g} pp)", shown))
    ratings = read_ladder_ratings(folder, manifest, runs)
    _ratings_parts(sec, ratings, name=name, players=players, title=f"{manifest['game']} {players}p ladder",
                   n_text=n_text)
    record = {"folder": str(folder), "game": manifest["game"], "players": players,
              "config": manifest["config"], "steps": table.to_dict(orient="records"), **summary,
              "ratings": ratings.to_dict(orient="records")}
    return sec, list(runs.values()), [f"{folder.name}/{step}" for step in runs], record

def _gains_parts(sec: Section, ratings: pd.DataFrame, *, name: str, title: str, n_text: str) -> None:
    """Each step's gain over the level below with its own 95% interval, first among the ratings: a note
    saying each in words, and its chart."""
    said = "; ".join(f"<b>{html.escape(r.level)}</b> over {html.escape(r.below)}: "
                     f"{html.escape(gain_text(r))}" for r in ratings.iloc[1:].itertuples(index=False)
                     if np.isfinite(r.gain))
    sec.notes.append(
        "<b>Each step's gain over the level below, with its 95% interval</b> (the difference of the two "
        "levels' ratings, from all the ladder's games; its interval is that of the difference itself, so it "
        "is narrower than two ratings' intervals against the anchor would suggest, and a step whose interval "
        "lies above 0 gains whatever those two intervals do)" + (f": {said}." if said else "."))
    sec.charts.append((f"{name}_gains", f"Each step's gain over the level below, with its 95% interval "
                       f"({n_text}); above each, that gain as one seat's win share against N-1 of the level "
                       "below",
                       gains_chart(ratings, f"{title}: each step's gain over the level below ({n_text})")))


def _ratings_parts(sec: Section, ratings: pd.DataFrame, *, name: str, players: int, title: str,
                   n_text: str) -> None:
    """The ratings' notes, charts (each step's gain first, then each level's rating against the anchor)
    and table in the ladder's section."""
    _gains_parts(sec, ratings, name=name, title=title, n_text=n_text)
    anchor = anchor_level(ratings)
    why = "" if anchor == str(ratings["level"].iloc[0]) else \
        "the anchor: the lowest level on the top level's scale, as the note below says; "
    sec.notes.append(
        f"<b>Each level's rating, with its 95% interval</b>, fitted from all the ladder's games at once: a "
        f"log-strength with <b>{anchor} at 0</b> ({why}a Plackett-Luce model of each game's finishing "
        "order, winner first, then by score; the interval is robust to games that share a deal, as every "
        "step's game i does with --same-deals). Each interval is against the anchor: two levels' intervals "
        "may overlap where the step between them gains clearly (the gains above say that). "
        f"A difference of d between two levels means one player of the stronger wins a share e<sup>d</sup> "
        f"/ (e<sup>d</sup> + {players - 1}) of games against {players - 1} of the weaker: d = 1 is "
        f"{pct(_share(1.0, ratings))}, d = 2 is {pct(_share(2.0, ratings))} (the fair share is "
        f"{pct(1 / players)}). Each rung's gain over the level below is also given as that win share.")
    missing = ratings[ratings["note"] != ""]
    if len(missing):
        sec.notes.append("No rating for " + "; ".join(f"<b>{r.level}</b> ({r.note})" for r in
                                                      missing.itertuples(index=False))
                         + ". When a level finished ahead of every player of the level below in every game, "
                         "no finite strength puts the two on one scale; the scale is then that of the top "
                         f"of the ladder, anchored at its lowest level ({anchor}), and the levels under the "
                         "split get no rating (the chart marks them below the scale). More games can join "
                         "the scales. A rung's gain over the level below is still shown where their own "
                         "games decide it.")
    sec.charts.append((f"{name}_ratings", f"Each level's rating ({anchor} = 0), with its 95% interval "
                       f"({n_text}); above each level, its win share against {players - 1} of the level "
                       "below",
                       ratings_chart(ratings, f"{title}: each level's rating ({n_text})")))
    rated = declare(ratings[["level", "rating", "ci_low", "ci_high", "games", "below", "gain", "gain_low",
                             "gain_high", "share_vs_below", "share_low", "share_high", "note"]],
                    {"level": TEXT, "rating": NUMBER, "ci_low": NUMBER_BOUND, "ci_high": NUMBER_BOUND,
                     "games": COUNT, "below": TEXT, "gain": NUMBER, "gain_low": NUMBER_BOUND,
                     "gain_high": NUMBER_BOUND, "share_vs_below": SHARE, "share_low": SHARE_BOUND,
                     "share_high": SHARE_BOUND, "note": TEXT})
    sec.tables.append((f"{name}_ratings", f"Ladder: each level's rating (log-strength, {anchor} = 0) with "
                       "its 95% interval, and its gain over the level below as a win share against N-1 of it",
                       rated))
