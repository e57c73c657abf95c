"""The Kamakura sections of the report (issue 5, item 2): seats, ties, chit and power values, scores.

`kamakura_sections` is the registry's `report_sections` of Kamakura (sim/kamakura/spec.py), computed from
each run's merged tally (analysis.run_tally); `kamakura_tally`, the registry's `report_tally`, is what one
chunk of games adds to it. The page kit is `analysis.page`.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from analysis import charts
from analysis import kamakura as K
from analysis.page import (
    TIE_KEYS,
    Section,
    fair_share,
    length_chart,
    p_value,
    pct,
    rescoring_summary,
    scope,
    seat_flags_text,
    seat_section,
    tie_section,
    wide,
)
from analysis.run_tally import (
    RunTally,
    seat_equality_test,
    seat_tests,
    seat_win_rates,
    start_player_advantage,
)
from analysis.run_tally import tie_stats as common_tie_stats
from analysis.tally import Hist
from sim.kamakura.params import rules_from_mapping


def _n(run: RunTally) -> str:
    """The "n = ... games" text of one run."""
    return f"n = {run.n_games:,} games"


def kamakura_tally(games: pd.DataFrame, players: pd.DataFrame, events: pd.DataFrame,
                   manifest: dict) -> dict[str, Any]:
    """The Kamakura half of one chunk's report tally (analysis.run_tally): scores, passing and lead changes,
    chits, powers, and the tie-break re-scoring against the run's configured rule."""
    config = manifest["config"]
    rule = rules_from_mapping(config, manifest["players"], "manifest.json").tie_break
    return {"flow": K.flow_tally(players, games, events), "chits": K.chit_tally(events, players, config),
            "powers": K.power_tally(events, players, config),
            "rescore": K.rescore_tally(players, reference=rule)}


#: the descriptive tables' headers: a difference of win rates, an association
_ASSOCIATION = {"win_added": "win_rate_difference", "detectable": "detectable_rate_difference"}


def kamakura_sections(runs: dict[str, RunTally]) -> tuple[list[Section], list[dict[str, Any]]]:
    """The report sections of Kamakura runs (label -> RunTally) and one summary.json record per run."""
    labels = list(runs)
    series, n_all = scope(runs)

    seats = {lab: seat_win_rates(r.common) for lab, r in runs.items()}
    equality = {lab: seat_equality_test(r.common) for lab, r in runs.items()}
    flags = {lab: seat_tests(r.common) for lab, r in runs.items()}
    advantage = {lab: start_player_advantage(r.common) for lab, r in runs.items()}
    ties = {lab: common_tie_stats(r.common) for lab, r in runs.items()}
    rescored = {lab: K.rescore_ties_from(r.own["rescore"]) for lab, r in runs.items()}
    chits = {lab: K.chit_values_from(r.own["chits"], r.manifest["config"]) for lab, r in runs.items()}
    powers = {lab: K.power_values_from(r.own["powers"]) for lab, r in runs.items()}
    scores = {lab: K.score_stats_from(r.own["flow"]) for lab, r in runs.items()}
    passing = {lab: K.pass_timing_from(r.own["flow"]) for lab, r in runs.items()}
    leads = {lab: K.lead_changes_from(r.own["flow"]) for lab, r in runs.items()}

    # ---- seats ----
    notes = []
    for lab, run in runs.items():
        a, eq = advantage[lab], equality[lab]
        verdict = "significant" if eq["p_value"] < 0.05 else "not significant"
        notes.append(
            f"<b>{lab}</b>: start-player advantage (seat 0 minus the fair share {pct(a['fair_share'])}) "
            f"<b>{100 * a['value']:+.1f} percentage points</b> [{100 * a['ci_low']:+.1f}, "
            f"{100 * a['ci_high']:+.1f}]; "
            f"all seats equal? chi-square {eq['statistic']:.1f} on {eq['dof']} dof, {p_value(eq['p_value'])} "
            f"({verdict} at 5%); {seat_flags_text(flags[lab])}; {_n(run)}.")
    notes.append("Seat 0 is the start player; ties count by the configured tie-break (shared wins as "
                 "1/k).")
    fair = fair_share(runs)
    sec = seat_section("Kamakura: seat win rates and the start-player advantage", "kamakura", runs, seats,
                       notes, f"Win rate by seat with 95% intervals ({n_all})"
                       + ("; dashed: fair share" if fair else "; fair share 1/players differs between runs"),
                       f"Kamakura win rate by seat ({n_all})", "seat (0 = start player)")
    sections = [sec]

    sections.append(tie_section("Kamakura: ties and what the tie-break rule is worth", "kamakura", runs, ties,
                                rescored, "top score", "R-9, R-20", n_all))

    # ---- chits and powers in play (descriptive) ----
    sec = Section("Kamakura: chits and powers in play (descriptive)")
    sec.notes.append("Descriptive figures: how often each chit type is claimed, when, and how often its "
                     "power is activated. 'Holders minus others' compares the win rate of player-games "
                     "holding the type with those holding none (95% interval cluster-robust by game, Holm "
                     "over the table; 'detectable' at the table's Bonferroni level, 5% divided by its rows, "
                     "with 80% power): an association, not what the chit is worth, since a player who holds "
                     "more chits is winning anyway. What a chit or a power <i>causes</i> comes from `balance "
                     "values` (paired intervention; give its run directory to this report). The regression "
                     "of winning on the holdings is gone: the holdings add up to the score, so it measured "
                     "points, not chits.")
    cols = ["colour", "icons", "copies", "points", "power", "claim_rate", "mean_turn_claimed",
            "activation_rate", "n_holders", "holders_win_rate", "others_win_rate", "win_added", "ci_low",
            "ci_high", "significant", "detectable"]
    sec.tables.append(("kamakura_chit_values", "Chit types: claim rate, timing, activation, and holders' win "
                       "rate minus the others' (an association)",
                       wide({k: v[[c for c in cols if c in v]].rename(columns=_ASSOCIATION)
                             for k, v in chits.items()}, ["colour", "icons"])))
    sec.tables.append(("kamakura_power_values", "Powers: activation, and activating player-games' win rate "
                       "minus the others' (an association)",
                       wide({k: v.rename(columns=_ASSOCIATION)
                             for k, v in powers.items()}, "power")))
    sections.append(sec)

    # ---- scores, decisiveness, length ----
    sec = Section("Kamakura: scores, decisiveness, game length, passing and lead changes", question="length",
                  anchor="kamakura-length")
    for lab, run in runs.items():
        s, lc = scores[lab], leads[lab]
        m, length = s["margin"], s["length"]
        sec.notes.append(
            f"<b>{lab}</b>: winning margin (first minus second) mean {m['mean']:.2f} points "
            f"[{m['ci_low']:.2f}, {m['ci_high']:.2f}], tied on top in {pct(m['zero_rate'])}; game length "
            f"mean "
            f"{length['mean']:.1f} turns [{length['ci_low']:.1f}, {length['ci_high']:.1f}], median "
            f"{length['median']:.0f}; lead changes per game mean {lc['mean']:.2f} "
            f"[{lc['ci_low']:.2f}, {lc['ci_high']:.2f}], none in {pct(lc['zero_rate'])}; {_n(run)}.")
    sec.charts.append(length_chart("kamakura_length", runs, "turns", "Kamakura", n_all))
    margins = {lab: runs[lab].own["flow"]["margin"] for lab in labels}
    sec.charts.append(("kamakura_margin", f"Winning margin in points ({n_all})",
                       charts.histograms(margins, f"Kamakura winning margin ({n_all})",
                                         "first minus second score (points)")))
    sec.charts.append(("kamakura_lead_changes", f"Lead changes per game ({n_all})",
                       charts.histograms({lab: runs[lab].own["flow"]["lead_changes"] for lab in labels},
                                         f"Kamakura lead changes per game ({n_all})", "lead changes")))
    out_turns = {lab: Hist(r.own["flow"]["out_turn"].offset, r.own["flow"]["out_turn"].counts.sum(axis=0))
                 for lab, r in runs.items()}  # every seat's passing turns together
    sec.charts.append(("kamakura_pass_timing", f"Turn at which players pass out of the game ({n_all})",
                       charts.histograms(out_turns, f"Kamakura: turn of passing (R-8) ({n_all})",
                                         "game-wide turn index", "share of passes (%)")))
    sec.tables.append(("kamakura_scores_by_seat", "Final scores by seat",
                       wide({k: v["by_seat"] for k, v in scores.items()}, "seat")))
    sec.tables.append(("kamakura_pass_timing", "Passing by seat", wide(passing, "seat")))
    sections.append(sec)

    summaries = []
    for lab, run in runs.items():
        m = run.manifest
        summaries.append({
            "label": lab, "game": "kamakura", "run": str(run.path), "games": run.n_games,
            "players": m["players"],
            "seats": seats[lab][["seat", "win_rate", "ci_low", "ci_high"]].to_dict(orient="records"),
            "seat_equality_test": {k: equality[lab][k] for k in ("statistic", "dof", "p_value")},
            "seat_tests": flags[lab].to_dict(orient="records"),
            "start_player_advantage": {k: advantage[lab][k] for k in ("value", "ci_low", "ci_high", "n")},
            "ties": {k: ties[lab][k] for k in TIE_KEYS},
            "tiebreak_rescoring": rescoring_summary(rescored[lab]),
            "chit_values": chits[lab][["colour", "icons", "claim_rate", "win_added", "ci_low",
                                       "ci_high"]].to_dict(orient="records"),
            "game_length_turns": {k: scores[lab]["length"][k]
                                  for k in ("mean", "ci_low", "ci_high", "median")},
        })
    return sections, summaries
