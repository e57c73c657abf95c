"""The report of `balance explore` (docs/howto/explore.md): the answer in a sentence (how many fair designs
that play differently, and which), a heat map of the archive (the first two measures on the axes, each
cell's best seat deviation as colour, the confirmed elites marked), the elites' table, every candidate
confirmed or not with its reason, and the search's coverage and best fairness against the games spent.

Built from the explore's summary alone (sim/design/explore_confirm.py writes it), with
`analysis.report_page.write_report`, so it is a pure function of that record and the confirmation runs.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from analysis import charts
from analysis.page import (
    COUNT,
    DIFFERENCE,
    DIFFERENCE_BOUND,
    MEAN,
    MEAN_BOUND,
    SHARE,
    SHARE_BOUND,
    TEXT,
    Section,
    declare,
)
from analysis.report_page import write_report
from analysis.verdicts import STATUS_WORDS, pp, pp_interval

#: two elites play differently when their mean lengths differ by this many of the game's unit, or their
#: tie rates by this share (the issue's acceptance: 1 turn, 3 pp), on their confirmation games
LENGTH_GAP, TIES_GAP = 1.0, 0.03


def distinct_pairs(elites: list[dict[str, Any]], length_gap: float = LENGTH_GAP,
                   ties_gap: float = TIES_GAP) -> dict[str, Any]:
    """How many pairs of elites play differently: mean length apart by at least `length_gap` or tie rate
    by at least `ties_gap` (point estimates of their confirmation games; each pair listed with both)."""
    pairs = []
    for a, b in combinations(elites, 2):
        ca, cb = a["confirmation"], b["confirmation"]
        dl, dt = abs(ca["length"] - cb["length"]), abs(ca["ties"] - cb["ties"])
        pairs.append({"a": a["slug"], "b": b["slug"], "length_apart": dl, "ties_apart": dt,
                      "differ": bool(dl >= length_gap or dt >= ties_gap)})
    differ = sum(p["differ"] for p in pairs)
    return {"rule": f"mean length apart by >= {length_gap:g} or tie rate by >= {100 * ties_gap:g} pp",
            "pairs": len(pairs), "differ": differ, "all_differ": differ == len(pairs), "list": pairs}


def counted(n: int, one: str, many: str) -> str:
    """``1 fair design``, ``2 fair designs``, ``no fair design``: a count in words that agree with it."""
    return f"no {one}" if n == 0 else f"{n:,} {one if n == 1 else many}"


def rounds_text(rounds: Any) -> str:
    """Refining's rounds in words: "4,000", "4,000 then the fairest half to 16,000"."""
    rounds = [rounds] if isinstance(rounds, int) else list(rounds)
    if not rounds:
        return "0 (no refining)"
    return f"{rounds[0]:,}" + "".join(f" then the fairest half to {g:,}" for g in rounds[1:])


def pairs_text(d: dict[str, Any], unit: str) -> str:
    """How many pairs of elites play differently, said for the count (one elite makes no pair)."""
    if d["pairs"] == 0:
        return "With one design there is no pair to compare."
    rule = (f"by at least {LENGTH_GAP:g} {unit.removesuffix('s')} in mean length or "
            f"{100 * TIES_GAP:g} pp in tie rate")
    if d["pairs"] == 1:
        return f"The two {'differ' if d['differ'] else 'do not differ'} {rule}."
    return f"{d['differ']} of the {d['pairs']} pairs differ {rule}."


def levels_text(s: dict[str, Any]) -> str:
    """" at expert (searched with greedy)", " at greedy" or "": the level the elites were judged at, and the
    search's where it is another."""
    judge = s.get("judge_agents") or s.get("confirm_agents") or s.get("agents")
    search = s.get("search_agents") or s.get("agents") or judge
    if not judge:
        return ""
    return f" at {judge}" + (f" (searched with {search})" if search != judge else "")


def answer(s: dict[str, Any]) -> str:
    """The report's first sentence: the fair designs that play differently, or why there are none (or
    fewer than wanted: the fairest candidate's interval at the level judged)."""
    elites, unit, tol = s["elites"], s["unit"], 100 * s["tolerance"]
    levels = levels_text(s)
    if not elites:
        tried = counted(len(s["tried"]), "candidate was", "candidates were")
        return (f"No design was confirmed fair{levels} within the {tol:g} pp tolerance: {tried} tried on "
                f"up to {s['settings']['confirm_games']:,} fresh games each, and none passed the equivalence "
                f"test.{fairest_text(s)}")
    measures = s.get("measures", ())
    listed = "; ".join(f"{e['slug']} {_length(e, unit)}, ties {_ties(e)}"
                       f"{measured_text(e['confirmation'], measures)}, n = {e['n']:,}" for e in elites)
    verb = "plays" if len(elites) == 1 else "play differently"
    wanted = s.get("settings", {}).get("elites", len(elites))
    fewer = (f" The space gave {len(elites)} of the {wanted} wanted." if len(elites) < wanted else "")
    return (f"{counted(len(elites), 'fair design', 'fair designs')}{levels} {verb}: {listed} (95% intervals "
            f"on fresh games; seats fair within {tol:g} pp by an equivalence test). "
            f"{pairs_text(s['distinct'], unit)}{fewer}")


def fairest_text(s: dict[str, Any]) -> str:
    """" The fairest tried, elite-3-1: seat 2 +2.9 pp [+1.2, +4.6], n = 20,000." or ""."""
    tried = [t for t in s.get("tried") or [] if t and not t.get("confirmed") and "confirmation" in t]
    if not tried:
        f = s.get("fairest_judged")
        if not f:
            return ""
        return (f" The fairest design refined, {f['slug']}: largest seat deviation {100 * f['seat_dev']:.1f} "
                f"pp [{100 * f['seat_dev_low']:.1f}, {100 * f['seat_dev_high']:.1f}] on {f['games']:,} "
                "games, too far from fair to be confirmed.")
    t = min(tried, key=lambda r: r["confirmation"]["seat_dev"])
    c = t["confirmation"]
    return (f" The fairest tried, {t['slug']}: seat {c['seat']} {pp(c['deviation'])} "
            f"{pp_interval(c['deviation_low'], c['deviation_high'])}, n = {t['n']:,}.")


def search_level_text(r: dict[str, Any], agents: str) -> str:
    """A candidate at the search's level: "greedy: largest seat deviation 0.7 pp on 500 games (search,
    point estimate)"."""
    f = r.get("search") or {}
    if "seat_dev" not in f:
        return ""
    return f"{agents}: largest seat deviation {100 * f['seat_dev']:.1f} pp on {f['games']:,} games (search)"


def polishing_text(s: dict[str, Any]) -> str:
    """"polishing 11 cells (4,312,000 games; 6 moved, 5 now their cell's candidate), " or "" (none)."""
    polished = s.get("polished") or []
    if not polished:
        return ""
    moved, replaced = sum(bool(p["moved"]) for p in polished), sum(bool(p["replaced"]) for p in polished)
    return (f"polishing {counted(len(polished), 'cell', 'cells')} ({s['polish_games']:,} games; "
            f"{moved} moved, {replaced} now {'its' if replaced == 1 else 'their'} cell's candidate), ")


def _length(e: dict[str, Any], unit: str) -> str:
    c = e["confirmation"]
    return f"{c['length']:.1f} {unit} [{c['length_low']:.1f}, {c['length_high']:.1f}]"


def measured_text(c: dict[str, Any], measures: Sequence[str]) -> str:
    """Confirmation figures `c` of the `measures` besides length and ties, each after a comma: ", the start
    player +1.2 pp [-0.3, +2.6] from the fair share, the lead changing hands 5.5 times a game [5.1, 5.9]",
    or "" (the report's answer and the elites' sentences)."""
    parts = []
    if "start_player" in measures:
        parts.append(f"the start player {pp(c['start_player'])} "
                     f"{pp_interval(c['start_player_low'], c['start_player_high'])} from the fair share")
    if "lead_changes" in measures:
        parts.append(f"the lead changing hands {c['lead_changes']:.1f} times a game "
                     f"[{c['lead_changes_low']:.1f}, {c['lead_changes_high']:.1f}]")
    return "".join(f", {part}" for part in parts)


def _ties(e: dict[str, Any]) -> str:
    c = e["confirmation"]
    return f"{100 * c['ties']:.1f}% [{100 * c['ties_low']:.1f}, {100 * c['ties_high']:.1f}]"


_CANDIDATE_KINDS = {"cell": TEXT, "changes": TEXT, "length": MEAN, "length_low": MEAN_BOUND,
                    "length_high": MEAN_BOUND, "ties": SHARE, "ties_low": SHARE_BOUND,
                    "ties_high": SHARE_BOUND, "start_player": DIFFERENCE,
                    "start_player_low": DIFFERENCE_BOUND, "start_player_high": DIFFERENCE_BOUND,
                    "lead_changes": MEAN, "lead_changes_low": MEAN_BOUND, "lead_changes_high": MEAN_BOUND,
                    "largest_seat_deviation": DIFFERENCE, "deviation_low": DIFFERENCE_BOUND,
                    "deviation_high": DIFFERENCE_BOUND, "verdict": TEXT, "n": COUNT, "config": TEXT,
                    "witness": TEXT, "refined_deviation": DIFFERENCE, "refined_games": COUNT,
                    "at_search_level": TEXT, "reason": TEXT}


def candidates_table(records: list[dict[str, Any]], elites: bool, measures: Sequence[str] = (),
                     search_agents: str = "") -> pd.DataFrame:
    """One row a candidate: its cell, changes, confirmation figures with 95% intervals (length, ties, and
    the start player's edge and lead changes when they are `measures`; the deviation's the interval that
    decided the seat verdict), the verdict, n, and its config (elites) or its reason and refined figures
    (every candidate)."""
    rows = []
    for r in records:
        c = r["confirmation"]
        row = {"cell": r["slug"], "changes": r.get("changes", ""), "length": c["length"],
               "length_low": c["length_low"], "length_high": c["length_high"], "ties": c["ties"],
               "ties_low": c["ties_low"], "ties_high": c["ties_high"]}
        for measure in ("start_player", "lead_changes"):
            if measure in measures:
                row.update({k: c[k] for k in (measure, f"{measure}_low", f"{measure}_high")})
        row.update({"largest_seat_deviation": c["deviation"], "deviation_low": c["deviation_low"],
                    "deviation_high": c["deviation_high"],
                    "verdict": STATUS_WORDS.get(r["status"], r["status"]), "n": r["n"]})
        if elites:
            row["config"] = Path(r.get("file", "")).name  # in the explore's folder, named in the lead
            if "witness" in r:
                row["witness"] = second_level_text(r["witness"])
        else:
            row.update(refined_deviation=r["refined"]["seat_dev"], refined_games=r["refined"]["games"])
            if search_agents:
                row["at_search_level"] = search_level_text(r, search_agents)
            row["reason"] = r["reason"] or "confirmed"
        rows.append(row)
    return declare(pd.DataFrame(rows, columns=[k for k in _CANDIDATE_KINDS if not rows or k in rows[0]]),
                   _CANDIDATE_KINDS)


def second_level_text(also: dict[str, Any]) -> str:
    """An elite's replay at the witness level in a cell: "search: fair within the margin, seat 2 +0.3 pp
    [-1.1, +1.7], n = 1,000"."""
    c = also["confirmation"]
    return (f"{also['agents']}: {STATUS_WORDS.get(also['status'], also['status'])}, seat {c['seat']} "
            f"{pp(c['deviation'])} {pp_interval(c['deviation_low'], c['deviation_high'])}, n = {also['n']:,}")


def heat_map(s: dict[str, Any]) -> Any:
    """The archive as a grid of its first two measures (a single measure: one row), each cell coloured by
    its best design's largest seat deviation (pp, the search's figures), the confirmed elites starred and
    labelled, the candidates not confirmed circled."""
    measures, counts, ranges = s["measures"], s["cell_counts"], s["ranges"]
    two = len(measures) > 1
    nx, ny = counts[0], counts[1] if two else 1
    grid = np.full((nx, ny), np.nan)
    for c in s["cells_best"]:
        i, j = c["cell"][0], c["cell"][1] if two else 0
        grid[i, j] = np.fmin(grid[i, j], 100 * c["seat_dev"])
    edges = (np.linspace(*ranges[0], nx + 1),
             np.linspace(*ranges[1], ny + 1) if two else np.array([0.0, 1.0]))
    scale = [100.0 if m in ("ties", "start_player") else 1.0 for m in measures]
    if two:
        edges = (edges[0] * scale[0], edges[1] * scale[1])
    else:
        edges = (edges[0] * scale[0], edges[1])
    marks = []
    for r in s["tried"]:
        c = r["confirmation"]
        x = c[measures[0]] * scale[0]
        y = c[measures[1]] * scale[1] if two else 0.5
        marks.append((x, y, r["slug"], bool(r["confirmed"])))
    names = [_axis(m, s["unit"]) for m in measures]
    return charts.cell_map(grid, edges, marks, title=f"The archive: best largest seat deviation per cell "
                           f"({s['designs']:,} designs, {s['settings']['games']:,} games each)",
                           labels=(names[0], names[1] if two else "", "largest seat deviation (pp)"))


def _axis(measure: str, unit: str) -> str:
    return {"length": f"mean game length ({unit})", "ties": "top score tied (% of games)",
            "start_player": "start player's edge over the fair share (pp)",
            "lead_changes": "lead changes per game"}.get(measure, measure)


def progress_chart(s: dict[str, Any]) -> Any:
    """The search's coverage (cells filled) and best largest seat deviation against the games spent."""
    p = pd.DataFrame(s["progress"])
    return charts.two_lines(p["games"].to_numpy(), p["cells_filled"].to_numpy(),
                            100 * p["best_seat_dev"].to_numpy(),
                            title=f"Search: coverage and best fairness by games spent ({s['cells']} cells)",
                            labels=("games spent", "cells filled", "best largest seat deviation (pp)"))


def write_explore_report(s: dict[str, Any], out: Path, runs: list[Any] | None = None,
                         labels: list[str] | None = None) -> Path:
    """OUT/report: index.html (the answer first), summary.json, the tables as CSV and the charts; `runs`
    and `labels`: the confirmation runs' tallies to list, and their names."""
    lead = Section("Explore: the answer", question="verdicts")
    lead.notes.append(f"<b>{html.escape(answer(s))}</b>")
    lead.notes.append(html.escape(
        f"{s['file']}: {s['game']}, {s['players']} players, judged{levels_text(s)}; search {s['designs']:,} "
        f"designs ({s['search_games']:,} games), refining {s['refined_designs']} designs of {s['refined']} "
        f"cells to {rounds_text(s['settings']['refine_games'])} games ({s['refine_games']:,} more), "
        f"{polishing_text(s)}confirming {counted(len(s['tried']), 'candidate', 'candidates')} and the base "
        f"on up to {s['settings']['confirm_games']:,} fresh "
        f"games (seed {s['confirm_seed']}, agents {s['confirm_agents']}; {s['confirm_games']:,} games): "
        f"{s['games']:,} games of a {s['budget']:,} budget. Coverage: {s['cells_filled']} of {s['cells']} "
        f"cells ({100 * s['cells_filled'] / s['cells']:.0f}%). The elites' config files are in {s['out']}."))
    if s["elites"]:
        judged = s.get("judge_agents") or s.get("confirm_agents") or s["agents"]
        witness = f"; the witness's verdict at {s['witness']} beside each" if s.get("witness") else ""
        lead.tables.append(("explore_elites", f"Confirmed elites, fair at {judged} (figures on their "
                            f"confirmation games, 95% intervals{witness})",
                            candidates_table(s["elites"], elites=True, measures=s["measures"])))
    archive = Section("Explore: the archive")
    archive.charts.append(("explore_archive", "Best largest seat deviation per cell (search figures); "
                           "stars: confirmed elites, circles: candidates not confirmed", heat_map(s)))
    if s["progress"]:
        archive.charts.append(("explore_progress", "Cells filled and the best largest seat deviation "
                               "(search figures, point estimates) against the games spent",
                               progress_chart(s)))
    if s["tried"]:
        search = s.get("search_agents") or s["agents"]
        judged = s.get("judge_agents") or s.get("confirm_agents") or search
        archive.tables.append(("explore_candidates", "Every candidate confirmed, in the order tried (figures "
                               f"at {judged}; the search's figures at {search} beside them)",
                               candidates_table(s["tried"], elites=False, measures=s["measures"],
                                                search_agents=search)))
    if s["distinct"]["list"]:
        pairs = declare(pd.DataFrame(s["distinct"]["list"]), {"a": TEXT, "b": TEXT, "length_apart": MEAN,
                                                              "ties_apart": DIFFERENCE, "differ": TEXT})
        archive.tables.append(("explore_pairs", f"Pairs of elites: {s['distinct']['rule']}", pairs))
    return write_report([lead, archive], runs or [], labels or [], s, out, title="Explore report")
