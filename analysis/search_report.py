"""The report of a model-based tune (`balance tune` with a space too large to race; sim/design/model_tune):
the statement and what backs it, the recommended config, each confirmed point's seat win rates on fresh
games (with the search's agents, and with ``confirm_agents``), the best objective found against the games
spent beside random search at the same budget, the Pareto front when there are several objectives, and
the trials. Written from the tune folder's ``search.json`` alone.
"""

from __future__ import annotations

import html
import json
import math
import os
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import pandas as pd

from analysis import charts, figures
from analysis.page import (
    COUNT,
    DIFFERENCE,
    DIFFERENCE_BOUND,
    NUMBER,
    SHARE,
    SHARE_BOUND,
    TEXT,
    Section,
    declare,
)
from analysis.report_page import write_report
from analysis.stats import wilson_interval
from sim.core.errors import ConfigError

LABELS = {"model": "model-based search", "random": "random search (baseline)"}


def read_search(folder: str | os.PathLike[str]) -> dict[str, Any]:
    path = Path(folder) / "search.json"
    try:
        state = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as err:
        raise ConfigError(f"{path}: not a finished model-search tune folder ({err})") from None
    if state.get("state") != "done":
        raise ConfigError(f"{path}: the search has not finished; run the tune again to resume it")
    return state


#: the kinds of the search tables' columns: the objectives (seats: the largest seat deviation, a difference
#: of shares; changes and l1: how far from the base), the fresh checks, the confirmations and the trials
KINDS = {"study": TEXT, "check": TEXT, "trial": TEXT, "agents": TEXT, "seat": TEXT, "kind": TEXT,
         "games_spent": COUNT, "search_games": COUNT, "fresh_games": COUNT, "games": COUNT, "played": COUNT,
         "base_games": COUNT, "search_deviation": DIFFERENCE, "fresh_deviation": DIFFERENCE,
         "fresh_ci_low": DIFFERENCE_BOUND, "fresh_ci_high": DIFFERENCE_BOUND, "win_rate": SHARE,
         "ci_low": SHARE_BOUND, "ci_high": SHARE_BOUND, "value": DIFFERENCE, "low": DIFFERENCE_BOUND,
         "high": DIFFERENCE_BOUND, "valid": TEXT, "seats": DIFFERENCE, "max_rate_deviation": DIFFERENCE,
         "changes": NUMBER, "l1": NUMBER, "length": NUMBER, "violation": NUMBER, "worth_most": TEXT,
         "worth_most_value": DIFFERENCE, "any_kind_high": DIFFERENCE_BOUND, "stopped_early": TEXT,
         "why": TEXT, "confirmed_deviation": DIFFERENCE, "confirmed_ci_low": DIFFERENCE_BOUND,
         "confirmed_ci_high": DIFFERENCE_BOUND}
#: a trial's interval bounds its largest seat deviation (the confirmations' bound a seat's win rate)
_TRIAL_KINDS = {**KINDS, "ci_low": DIFFERENCE_BOUND, "ci_high": DIFFERENCE_BOUND}


def curve_frame(state: dict[str, Any]) -> pd.DataFrame:
    """Best seat objective found so far (verified, feasible candidates) against games spent,
    one row per trial and study."""
    rows = [{"study": LABELS[k], "games_spent": g, "best_seats": b, "trial": i}
            for k, s in state["studies"].items() for i, (g, b) in enumerate(s["curve"])]
    return pd.DataFrame(rows)


def checks_frame(state: dict[str, Any]) -> pd.DataFrame:
    """The curve's checks (sim/design/curve_checks.py): each study's best so far at k/curve_checks of the
    budget, its search figure (optimistic: the least of many noisy estimates) and its largest seat
    deviation on fresh games, with simultaneous 95% bounds over the seats."""
    rows = [{"study": LABELS[c["study"]], "check": c["check"], "games_spent": c["budget"],
             "trial": c["trial"], "search_deviation": c.get("search_value"),
             "search_games": c.get("search_games"), "fresh_games": c.get("games"),
             "fresh_deviation": c.get("value"), "fresh_ci_low": c.get("low"), "fresh_ci_high": c.get("high")}
            for c in state.get("curve_checks") or []]
    return pd.DataFrame(rows)


def curve_chart(frame: pd.DataFrame, checks: pd.DataFrame, n: str):
    fig, ax = plt.subplots(figsize=charts.WIDE)
    studies = list(dict.fromkeys(frame["study"]))
    span = max(frame["games_spent"].max(), 1)
    for i, study in enumerate(studies):
        part = frame[frame["study"] == study]
        done = part[part["best_seats"].notna()]
        (line,) = ax.step(done["games_spent"], 100 * done["best_seats"], where="post", alpha=0.6,
                          label=f"{study}: its own figures")
        fresh = checks[(checks["study"] == study) & checks["fresh_deviation"].notna()] if len(checks) \
            else checks
        if len(fresh):
            x = fresh["games_spent"] + (i - (len(studies) - 1) / 2) * 0.01 * span  # side by side
            y = 100 * fresh["fresh_deviation"]
            ax.errorbar(x, y, yerr=[y - 100 * fresh["fresh_ci_low"], 100 * fresh["fresh_ci_high"] - y],
                        fmt="o", color=line.get_color(), capsize=3,
                        label=f"{study}: best so far on fresh games (95%)")
    ax.legend(fontsize=8)
    return charts._finish(fig, ax, f"Best objective found against games spent ({n})", "games spent",
                          "largest seat deviation (percentage points)")


def checks_note(checks: pd.DataFrame) -> str:
    """The searches side by side at each check, on the same fresh games, and whether each difference
    alone is significant (simultaneous intervals that do not overlap)."""
    parts, overlaps = [], []
    for budget, at in checks[checks["fresh_deviation"].notna()].groupby("games_spent", sort=True):
        parts.append(f"at {budget:,} games " + ", ".join(
            f"{row.study} {figures.figure(100 * row.fresh_deviation, 2)} "
            f"{figures.interval(100 * row.fresh_ci_low, 100 * row.fresh_ci_high, 2, keep_off=())} "
            f"(trial {row.trial}, {row.fresh_games:,} games)"
            for row in at.itertuples()))
        if len(at) > 1:
            overlaps.append(at["fresh_ci_low"].max() <= at["fresh_ci_high"].min())
    text = ("Best so far on fresh games (the curve's checks: the same fresh games for every search and "
            "check; the last check is the confirmation): " + "; ".join(parts) + ".")
    if overlaps:
        text += (f" At {sum(overlaps)} of {len(overlaps)} checks the intervals overlap, so those differences "
                 "alone are not significant." if any(overlaps) else
                 " At every check the intervals are apart: each difference is significant.")
    return text


def trials_frame(state: dict[str, Any], kind: str) -> pd.DataFrame:
    s = state["studies"][kind]
    names = state["search"]["objectives"]
    rows = []
    for r in s["records"]:
        row = {"trial": r["number"], "games": r["games"], "played": r["played"], "valid": r["valid"]}
        for i, name in enumerate(names):
            column = name if name != "seats" else "max_rate_deviation"
            row[column] = r["objectives"][i] if r["valid"] else None
        row.update(ci_low=r["low"], ci_high=r["high"], length=r["length"], violation=r["violation"])
        if state["target"].get("chit_cap") is not None:
            chit = r.get("chit") or {}
            row.update(worth_most=chit.get("kind"), worth_most_value=chit.get("value"),
                       any_kind_high=chit.get("high_any"))
        row.update(stopped_early=r["stopped_early"], why=r["why"])
        rows.append(row)
    return pd.DataFrame(rows)


def confirm_frame(state: dict[str, Any]) -> pd.DataFrame:
    """Seat win rates of each confirmed point on its fresh games, per agent set, Wilson 95%."""
    rows = []
    for entry in state["confirmed"]:
        for agents, c in entry["confirm"].items():
            for seat, w in enumerate(c["wins"]):
                low, high = wilson_interval(w, c["games"])
                rows.append({"trial": entry["trial"], "agents": agents, "seat": seat, "games": c["games"],
                             "win_rate": w / c["games"], "ci_low": low, "ci_high": high})
    return pd.DataFrame(rows)


def kinds_frame(state: dict[str, Any]) -> pd.DataFrame:
    """What each component kind adds to its holder's win rate on the confirmation's fresh base games
    (paired intervention), bounds simultaneous over the kinds, per confirmed point and agent set."""
    rows = [{"trial": entry["trial"], "agents": agents, **kind}
            for entry in state["confirmed"] for agents, c in entry["confirm"].items()
            for kind in c.get("kinds") or []]
    return pd.DataFrame(rows)


def build_search_report(folder: str | os.PathLike[str], out: str | os.PathLike[str] | None = None) -> Path:
    folder = Path(folder)
    state = read_search(folder)
    sec, ends = _search_section(state)
    sections = [sec, *(_trials_section(state, kind) for kind in state["studies"])]
    if len(state["search"]["objectives"]) > 1 and state["confirmed"]:
        sections.append(_pareto_section(state))
    summary = {k: state.get(k) for k in ("tune_file", "recommended_config", "recommended_label", "changes")}
    summary["recommended"] = state.get("recommended")
    summary["curves_end"] = ends
    summary["curve_checks"] = state.get("curve_checks") or []
    return write_report(sections, [], [], summary, Path(out) if out else folder / "report",
                        title="Tune report (model-based search)")


def _search_section(state: dict[str, Any]) -> tuple[Section, list[str]]:
    """The page's head: the statement and what backs it, the curve, the confirmations; and each study's
    best found (the curves' ends)."""
    sec = Section(f"Tune (model-based search): {state['tune_file']}")
    rec = state.get("recommended")
    sec.notes += _recommendation_notes(state)
    sec.notes.append(_space_note(state["space"]))
    sec.notes.append(_method_note(state))
    sec.notes.append("Only the confirmation games (fresh seed "
                     f"{state['confirm_seed']}) back the statement: the search's own figures favour the "
                     "candidates it chose on them. The search tried a tiny share of the space, so it says "
                     "nothing of the candidates it did not try.")
    curve = curve_frame(state)
    ends = curve_ends(state)
    sec.notes.append("Best objective found (search figures: each the least of many noisy estimates, which "
                     "flatters the search that tried more candidates): " + "; ".join(ends) + ".")
    base = state.get("baseline_confirmed")
    if base and rec:
        sec.notes.append(_baseline_note(state, rec, base))
    checks = checks_frame(state)
    if not checks.empty and checks["fresh_deviation"].notna().any():
        sec.notes.append(checks_note(checks))
    if not curve.empty:
        sec.charts.append(("search_curve", "Best largest seat deviation among fully played candidates "
                           "against games spent: each search's own figures (lines) and its best so far on "
                           "fresh games (dots)",
                           curve_chart(curve, checks, f"budget {state['budget']:,} games")))
    if not checks.empty:
        sec.tables.append(("search_curve_checks", "The curve's checks: each search's best so far at each "
                           "share of the budget, on fresh games", declare(checks, KINDS)))
    confirm = confirm_frame(state)
    if not confirm.empty:
        sec.tables.append(("search_confirmations", "Seat win rates of the confirmed points on fresh games",
                           declare(confirm, KINDS)))
    kinds = kinds_frame(state)
    if not kinds.empty:
        sec.tables.append(("search_component_kinds", "What each component kind adds to its holder's win "
                           "rate on the confirmation's fresh base games (simultaneous 95% bounds)",
                           declare(kinds, KINDS)))
    return sec, ends


def _recommendation_notes(state: dict[str, Any]) -> list[str]:
    """The statement, the recommended config and its verdict under confirm_agents; or that nothing is
    recommended."""
    rec = state.get("recommended")
    if not rec:
        return ["<b>Nothing is recommended: no candidate was played to the end within the budget "
                "and met the constraints (see the trials' violation column).</b>"]
    main = rec["confirm"][state["agents"]]
    notes = [f"<b>{html.escape(main['statement'])}</b>",
             f"Recommended config: <b>{html.escape(state['recommended_config'])}</b> = "
             f"{html.escape(state['base'])} with {state['changes']} value(s) changed: "
             f"{html.escape(state['recommended_label'])}."]
    for agents, c in rec["confirm"].items():
        if agents != state["agents"]:
            notes.append(f"Under <b>{html.escape(agents)}</b> (confirm_agents): "
                         f"{html.escape(c['statement'])}")
    return notes


def _space_note(space: dict[str, Any]) -> str:
    return (f"Space: {space['dimensions']} searched values ({', '.join(space['keys'])}), "
            f"10^{space['log10_candidates']:.1f} combinations before the constraints"
            + (": " + "; ".join(html.escape(c) for c in space["constraints"]) if space["constraints"]
               else "") + ".")


def _method_note(state: dict[str, Any]) -> str:
    """The target, the objectives and sampler, the stages, racing on top and the incumbent's check."""
    search, target = state["search"], state["target"]
    tgt = f"every seat within {100 * target['tolerance']:g} percentage points of 1/{state['players']}"
    if target.get("length"):
        tgt += f"; mean game length in {target['length'][0]:g}..{target['length'][1]:g} (a constraint)"
    if target.get("chit_cap") is not None:
        tgt += (f"; no component kind adds more than {100 * target['chit_cap']:g} percentage points to its "
                f"holder's win "
                f"rate (a constraint: each candidate played to the end is priced by paired intervention on "
                f"{search['values_games']:,} base games, the confirmation on "
                f"{search['confirm_values_games']:,} fresh ones)")
    first = state["studies"].get("model") or next(iter(state["studies"].values()))
    stages = ", ".join(f"{n:,}" for n in first["schedule"])
    verify = first.get("verify_games") or first["schedule"][-1]
    return (f"Target: {tgt}. Objectives: {', '.join(search['objectives'])}; sampler "
            f"{search['sampler']}; stages of {stages} "
            f"games on common seeds (game i of every candidate has the same seed), a candidate "
            f"stopping early once its objective's lower bound exceeds the best one's upper bound. "
            f"A candidate that ends the stages better than every verified one plays on to "
            f"{verify:,} games before it counts (the incumbent's check): the best, the curve and "
            f"the Pareto front are made of verified candidates only.")


def curve_ends(state: dict[str, Any]) -> list[str]:
    """Each study's best objective found by its own figures, and the games it spent."""
    ends = []
    for kind, s in state["studies"].items():
        best = [b for _, b in s["curve"] if b is not None and math.isfinite(b)]
        ends.append(f"{LABELS[kind]}: best {100 * best[-1]:.2f} pp after {s['spent']:,} games "
                    f"({len(s['records'])} trials)" if best else
                    f"{LABELS[kind]}: no candidate played to the end in {s['spent']:,} games")
    return ends


def _baseline_note(state: dict[str, Any], rec: dict[str, Any], base: dict[str, Any]) -> str:
    """The recommendation beside random search's best, on the same fresh games."""
    ours, theirs = rec["confirm"][state["agents"]], base["confirm"][state["agents"]]
    return (f"On the same {ours['games']:,} fresh games: the model search's recommendation "
            f"deviates {100 * ours['value']:.2f} pp [{100 * ours['low']:.2f}, "
            f"{100 * ours['high']:.2f}], random search's best (trial {base['trial']}) "
            f"{100 * theirs['value']:.2f} [{100 * theirs['low']:.2f}, "
            f"{100 * theirs['high']:.2f}] (simultaneous 95% bounds over the seats).")


def _trials_section(state: dict[str, Any], kind: str) -> Section:
    part = Section(f"Trials: {LABELS[kind]}")
    part.notes.append("Each trial's figures come from its own games (the games column; played: games it "
                      "played itself, 0 when an equal candidate's games were reused).")
    part.tables.append((f"search_trials_{kind}", f"Trials of the {LABELS[kind]}",
                        declare(trials_frame(state, kind), _TRIAL_KINDS)))
    return part


def _pareto_section(state: dict[str, Any]) -> Section:
    """The confirmed Pareto points: fairness on their confirmation games against closeness to the base."""
    objectives, agents = state["search"]["objectives"], state["agents"]
    front = pd.DataFrame([{"trial": e["trial"], **dict(zip(objectives, e["objectives"], strict=True)),
                           "confirmed_deviation": e["confirm"][agents]["value"],
                           "confirmed_ci_low": e["confirm"][agents]["low"],
                           "confirmed_ci_high": e["confirm"][agents]["high"]}
                          for e in state["confirmed"]])
    part = Section("Pareto front: fairness against closeness to the base")
    part.tables.append(("search_pareto", "Confirmed Pareto points", declare(front, KINDS)))
    fig, ax = plt.subplots(figsize=charts.WIDE)
    ax.errorbar(front[objectives[1]], 100 * front["confirmed_deviation"],
                yerr=[100 * (front["confirmed_deviation"] - front["confirmed_ci_low"]),
                      100 * (front["confirmed_ci_high"] - front["confirmed_deviation"])], fmt="o")
    ax.axhline(100 * state["target"]["tolerance"], linestyle="--", color="grey")
    part.charts.append(("search_pareto", "Pareto points on their confirmation games (95% simultaneous)",
                        charts._finish(fig, ax, "Pareto front, confirmed", objectives[1],
                                       "largest seat deviation (percentage points)")))
    return part
