"""The report of a tune (`balance tune`): the statement whether the target is met with 95% confidence,
the recommended config, the games spent against an exhaustive grid at the same per-candidate sample size,
each round of the race, every candidate (games played, objective with its interval, why it stopped) and the
confirmation run's seat win rates. Written from the tune folder's ``tune.json`` and run directories with
`analysis.report_page.write_report`.
"""

from __future__ import annotations

import html
import json
import os
from pathlib import Path
from typing import Any

import pandas as pd

from analysis import charts
from analysis.page import (
    COUNT,
    DIFFERENCE,
    DIFFERENCE_BOUND,
    NUMBER,
    NUMBER_BOUND,
    SEAT_KINDS,
    SHARE,
    TEXT,
    Section,
    declare,
    pct,
)
from analysis.report_page import write_report
from analysis.run_tally import RunTally, read_run_tally, seat_win_rates
from sim.core.errors import ConfigError


def read_tune_manifest(folder: str | os.PathLike[str]) -> dict[str, Any]:
    path = Path(folder) / "tune.json"
    if not path.is_file():
        raise ConfigError(f"{folder}: not a tune folder (no tune.json)")
    try:
        return json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as err:
        raise ConfigError(f"{path}: unreadable tune manifest ({err})") from None


#: the columns of the race's rounds (sim/design/racing.py), the best's deviation renamed
_ROUND_KINDS = {"round": TEXT, "games_per_candidate": COUNT, "candidates": COUNT, "dropped": COUNT,
                "left": COUNT, "best": TEXT, "best_rate_deviation": DIFFERENCE,
                "best_ci_low": DIFFERENCE_BOUND, "best_ci_high": DIFFERENCE_BOUND, "games_in_round": COUNT,
                "note": TEXT}


def candidate_kinds(players: int) -> dict[str, str]:
    """The kinds of `candidates_table`'s columns."""
    return {"candidate": TEXT, "values": TEXT, "games": COUNT, "max_rate_deviation": DIFFERENCE,
            "ci_low": DIFFERENCE_BOUND, "ci_high": DIFFERENCE_BOUND,
            **{f"seat_{i}_rate": SHARE for i in range(players)}, "constraints": TEXT,
            "dropped_in_round": TEXT, "why": TEXT, "length": NUMBER, "length_low": NUMBER_BOUND,
            "length_high": NUMBER_BOUND, "top_chit": TEXT, "top_chit_added": DIFFERENCE,
            "top_chit_ci_low": DIFFERENCE_BOUND, "top_chit_ci_high": DIFFERENCE_BOUND}


def candidates_table(state: dict[str, Any]) -> pd.DataFrame:
    """One row per candidate: its values, games played, the objective (largest seat deviation from the fair
    share) with its simultaneous interval, each seat's win rate, constraint state, and the round and reason
    it was dropped; the recommended first, then the survivors, then by objective."""
    rows = []
    for c in state["candidates"]:
        row = {"candidate": c["slug"], "values": c["label"], "games": c["games"],
               "max_rate_deviation": c.get("value"), "ci_low": c.get("low"), "ci_high": c.get("high"),
               **{f"seat_{i}_rate": w / c["games"] for i, w in enumerate(c.get("wins") or []) if c["games"]},
               "constraints": c.get("feasible", ""),
               "dropped_in_round": c["dropped_round"] if c["dropped_round"] is not None else "",
               "why": c["dropped_why"] or ("recommended" if c["slug"] == state["recommended"]
                                           else "survived")}
        if state["target"].get("length") is not None:
            row.update(length=c.get("length"), length_low=c.get("length_low"),
                       length_high=c.get("length_high"))
        if state["target"].get("chit_cap") is not None:
            row.update(top_chit=c.get("chit_max_item"), top_chit_added=c.get("chit_max"),
                       top_chit_ci_low=c.get("chit_max_low"), top_chit_ci_high=c.get("chit_max_high"))
        rows.append(row)
    frame = pd.DataFrame(rows)
    frame["_rec"] = frame["candidate"] != state["recommended"]
    frame["_alive"] = frame["dropped_in_round"] != ""
    frame = frame.sort_values(["_rec", "_alive", "max_rate_deviation"], na_position="last")
    return frame.drop(columns=["_rec", "_alive"]).reset_index(drop=True)


def games_summary(state: dict[str, Any]) -> dict[str, Any]:
    """Games the tune spent against an exhaustive grid that plays every candidate as many games as the
    recommended one got in the race."""
    exhaustive = state["exhaustive_games"]
    total = state["total_games"]
    return {"candidates": len(state["candidates"]), "race_games": state["race_games"],
            "confirm_games": state["confirm_games"], "total_games": total,
            "games_per_candidate": state["games_per_candidate_exhaustive"], "exhaustive_games": exhaustive,
            "share_of_exhaustive": total / exhaustive if exhaustive else float("nan")}


def _figure(d: dict[str, Any]) -> str:
    """The objective of a standing: "1.31 pp [0.00, 5.37] on 800 games" (percentage points of win rate)."""
    return (f"largest seat deviation {100 * d['value']:.2f} pp [{100 * d['low']:.2f}, "
            f"{100 * d['high']:.2f}] on {d['games']:,} games" if d else "n/a")


def build_tune_report(folder: str | os.PathLike[str], out: str | os.PathLike[str] | None = None) -> Path:
    folder = Path(folder)
    state = read_tune_manifest(folder)
    g = games_summary(state)
    sections = [_tune_section(state, g)]
    runs: list[RunTally] = []
    labels: list[str] = []
    confirm_dir = folder / "confirm"
    if (confirm_dir / "manifest.json").is_file():
        run = read_run_tally(confirm_dir)  # chunk by chunk (analysis.run_tally)
        sections.append(_confirm_section(state, run))
        runs.append(run)
        labels.append(f"confirmation: {state['recommended']}")
    sections.append(_candidates_section(state))
    summary = {k: state[k] for k in ("tune_file", "recommended", "recommended_label", "recommended_config",
                                     "met", "statement", "race_final", "confirm", "rounds")}
    summary["games"] = g
    return write_report(sections, runs, labels, summary, Path(out) if out else folder / "report",
                        title="Tune report")


def _tune_section(state: dict[str, Any], g: dict[str, Any]) -> Section:
    """The statement, the recommended config, the search, target and games, and the rounds of the race."""
    sec = Section(f"Tune: {state['tune_file']}")
    verdict_class = "met" if state["met"] else "not met"
    sec.notes.append(f"<b>{html.escape(state['statement'])}</b> ({verdict_class})")
    sec.notes.append(f"Recommended config: <b>{html.escape(state['recommended_config'])}</b> = "
                     f"{html.escape(state['base'])} with {html.escape(state['recommended_label'])} "
                     f"(standalone: <code>balance simulate</code> accepts it).")
    sec.notes.append(f"Search: {state['game']}, {state['players']} players, agents {state['agents']}; "
                     f"{g['candidates']} candidates over "
                     + ", ".join(f"<b>{s['key']}</b> in {s['values']}" for s in state["space"])
                     + (f" ({len(state['invalid'])} combinations left out as invalid configs)"
                        if state["invalid"] else "") + ".")
    sec.notes.append("Target: " + "; ".join(_target_parts(state)) + ". Objective: the largest deviation "
                     f"of a seat's win rate from the fair share, with bounds simultaneous over the seats at "
                     f"{100 * state['racing']['confidence']:g}%.")
    sec.notes.append(f"Games: {g['race_games']:,} in the race + {g['confirm_games']:,} confirming = "
                     f"<b>{g['total_games']:,}</b>, against <b>{g['exhaustive_games']:,}</b> for an "
                     f"exhaustive grid at the same per-candidate sample size ({g['candidates']} x "
                     f"{g['games_per_candidate']:,}): <b>{pct(g['share_of_exhaustive'])}</b> of it.")
    sec.notes.append(f"Recommended config in the race: {_figure(state['race_final'])}; on fresh "
                     f"confirmation games (seed {state['confirm_seed']}): {_figure(state['confirm'])}. "
                     "Only the confirmation figures back the statement: the race's figures favour the "
                     "winner, which was chosen on them.")
    schedule = ", ".join(f"{n:,}" for n in state["schedule"])
    sec.notes.append(f"Racing ({state['racing']['method']}): rounds at {schedule} games per candidate "
                     "(game i of every candidate has the same seed: common random numbers; each round adds "
                     "fresh games); after each round a candidate stops when a constraint is clearly violated "
                     "or its deviation's lower bound exceeds the best candidate's upper bound.")
    rounds = pd.DataFrame(state["rounds"]).rename(columns={
        "best_value": "best_rate_deviation", "best_low": "best_ci_low", "best_high": "best_ci_high"})
    if not rounds.empty:
        sec.tables.append(("tune_rounds", "Rounds of the race (deviation of the best, in win-rate share)",
                           declare(rounds, _ROUND_KINDS)))
    return sec


def _target_parts(state: dict[str, Any]) -> list[str]:
    """The target's parts as the page states them: the seats, and the length and chit cap when set."""
    target = state["target"]
    tgt = [f"every seat's win rate within {100 * target['tolerance']:g} percentage points of "
           f"1/{state['players']}"]
    if target.get("length"):
        tgt.append(f"mean game length in {target['length'][0]:g}..{target['length'][1]:g}")
    if target.get("chit_cap") is not None:
        tgt.append(f"no chit type adds more than {100 * target['chit_cap']:g} percentage points to its "
                   "holder's win rate (priced by paired intervention: each kind given to each seat and to "
                   "nobody from the start, on the same seeds; bounds simultaneous over the kinds)")
    return tgt


def _confirm_section(state: dict[str, Any], run: RunTally) -> Section:
    """The recommended config's seat win rates on its fresh confirmation games."""
    seats = seat_win_rates(run.common)
    sec = Section("Tune: the recommended config on fresh games")
    sec.notes.append(f"Seat win rates of {state['recommended']} on {run.n_games:,} confirmation games "
                     f"(seed {run.manifest.seed}), Wilson 95% per seat; fair share "
                     f"{pct(1 / state['players'])}, tolerance band ±{100 * state['target']['tolerance']:g} "
                     "percentage points.")
    fig = charts.grouped_bars(seats, category="seat", value="win_rate", low="ci_low", high="ci_high",
                              series=None,
                              title=f"Recommended config: win rate by seat (n = {run.n_games:,})",
                              xlabel="seat (0 = start player)", ylabel="win rate (%)",
                              reference=1 / state["players"], reference_label="fair share")
    sec.charts.append(("tune_confirm_seats", f"Seat win rates of the recommended config (n = "
                       f"{run.n_games:,} games)", fig))
    sec.tables.append(("tune_confirm_seats", "Seat win rates on the confirmation games",
                       declare(seats.drop(columns=["wins"]), SEAT_KINDS)))
    return sec


def _candidates_section(state: dict[str, Any]) -> Section:
    """Every candidate: the chart of the best 40 by deviation, and the table."""
    table = candidates_table(state)
    sec = Section("Tune: every candidate")
    sec.notes.append("max_rate_deviation: the largest |seat win rate - fair share| with its simultaneous "
                     "interval, from the candidate's race games (the games column). Candidates stop at "
                     "different sample sizes, so their intervals differ in width.")
    shown = table.dropna(subset=["max_rate_deviation"]).head(40)
    if not shown.empty:
        fig = charts.grouped_bars(shown, category="candidate", value="max_rate_deviation", low="ci_low",
                                  high="ci_high", series=None,
                                  title="Largest seat deviation from the fair share (best 40)",
                                  xlabel="deviation (percentage points)", ylabel="candidate",
                                  reference=state["target"]["tolerance"], reference_label="tolerance",
                                  horizontal=True)
        sec.charts.append(("tune_candidates", "Largest seat deviation per candidate with its simultaneous "
                           "95% interval; dashed: the tolerance", fig))
    sec.tables.append(("tune_candidates", "Candidates", declare(table, candidate_kinds(state["players"]))))
    return sec
