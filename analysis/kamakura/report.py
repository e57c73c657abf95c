"""The Kamakura sections of the report: seats, ties, chit and power values, scores.

`kamakura_sections` is Kamakura's `GameAnalysis.sections` (analysis/kamakura/entry.py), computed from
each run's merged tally (analysis.run_tally); `kamakura_tally`, its `GameAnalysis.tally`, is what one
chunk of games adds to it. The page kit is `analysis.page`.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from analysis import charts
from analysis import kamakura as K
from analysis.adaptive_stop import unless_adaptive
from analysis.figures import figure as stated_figure
from analysis.figures import interval as stated_interval
from analysis.page import (
    COUNT,
    DIFFERENCE,
    DIFFERENCE_BOUND,
    NUMBER,
    NUMBER_BOUND,
    P_VALUE,
    SHARE,
    SHARE_BOUND,
    TEST,
    TEXT,
    TIE_KEYS,
    Section,
    declare,
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
from analysis.seats import seat_equality_test, seat_tests, seat_win_rates, start_player_advantage
from analysis.tallied_run import RunTally
from analysis.tally import Hist
from analysis.ties import tie_stats
from storage.run_record import RunManifest


def _n(run: RunTally) -> str:
    """The "n = ... games" text of one run."""
    return f"n = {run.n_games:,} games"


def kamakura_tally(games: pd.DataFrame, players: pd.DataFrame, events: pd.DataFrame,
                   manifest: RunManifest, rules: Any) -> dict[str, Any]:
    """The Kamakura half of one chunk's report tally (analysis.run_tally): scores, passing and lead changes,
    chits, powers, and the tie-break re-scoring against the run's configured rule (its validated `rules`)."""
    config = manifest.config
    rule = rules.tie_break
    return {"flow": K.flow_tally(players, games, events), "chits": K.chit_tally(events, players, config),
            "powers": K.power_tally(events, players, config),
            "rescore": K.rescore_tally(players, reference=rule)}


#: the descriptive tables' headers: a difference of win rates, an association
_ASSOCIATION = {"win_added": "win_rate_difference", "detectable": "detectable_rate_difference"}
#: what the association columns hold (the chit and power tables share them)
_ASSOCIATION_KINDS = {"others_win_rate": SHARE, "win_rate_difference": DIFFERENCE, "ci_low": DIFFERENCE_BOUND,
                      "ci_high": DIFFERENCE_BOUND, "p_holm": P_VALUE, "significant": TEST,
                      "detectable_rate_difference": DIFFERENCE}
_CHIT_KINDS = {"colour": TEXT, "icons": TEXT, "copies": COUNT, "points": NUMBER, "power": NUMBER,
               "claim_rate": SHARE, "mean_turn_claimed": NUMBER, "activation_rate": SHARE, "n_holders": COUNT,
               "holders_win_rate": SHARE, **_ASSOCIATION_KINDS}
_POWER_KINDS = {"power": TEXT, "n": COUNT, "n_activating": COUNT, "activation_rate": SHARE,
                "activation_ci_low": SHARE_BOUND, "activation_ci_high": SHARE_BOUND, "activations": COUNT,
                "mean_activations": NUMBER, "activating_win_rate": SHARE, **_ASSOCIATION_KINDS}
_SCORE_KINDS = {"seat": TEXT, "n": COUNT, "mean": NUMBER, "sd": NUMBER, "ci_low": NUMBER_BOUND,
                "ci_high": NUMBER_BOUND, "min": NUMBER, "q25": NUMBER, "median": NUMBER, "q75": NUMBER,
                "max": NUMBER}
_PASS_KINDS = {"seat": TEXT, "n": COUNT, "passed": COUNT, "never_passed_rate": SHARE, "ci_low": SHARE_BOUND,
               "ci_high": SHARE_BOUND, "mean_out_turn": NUMBER, "sd_out_turn": NUMBER, "q25_out_turn": NUMBER,
               "median_out_turn": NUMBER, "q75_out_turn": NUMBER}


def kamakura_sections(runs: dict[str, RunTally]) -> tuple[list[Section], list[dict[str, Any]]]:
    """The report sections of Kamakura runs (label -> RunTally) and one summary.json record per run: each
    figure read once off each run's merged tally (`_figures`), then laid out section by section."""
    figures = {lab: _figures(run) for lab, run in runs.items()}
    _, n_all = scope(runs)
    sections = [_seat_section(runs, figures, n_all),
                tie_section("Kamakura: ties and what the tie-break rule is worth", "kamakura", runs,
                            ties={lab: f["ties"] for lab, f in figures.items()},
                            rescored={lab: f["rescored"] for lab, f in figures.items()},
                            tied_what="top score", rule="R-9, R-20", n_all=n_all),
                _components_section(figures),
                _length_section(runs, figures, n_all)]
    return sections, [_summary(lab, run, figures[lab]) for lab, run in runs.items()]


def _figures(run: RunTally) -> dict[str, Any]:
    """Every figure of one run's report, from its merged tally (each computed once)."""
    c, own = run.common, run.own
    return {"seats": seat_win_rates(c), "equality": seat_equality_test(c), "flags": seat_tests(c),
            "advantage": start_player_advantage(c), "ties": tie_stats(c),
            "rescored": K.rescore_ties_from(own["rescore"]),
            "chits": K.chit_values_from(own["chits"], run.manifest.config),
            "powers": K.power_values_from(own["powers"]), "scores": K.score_stats_from(own["flow"]),
            "passing": K.pass_timing_from(own["flow"]), "leads": K.lead_changes_from(own["flow"])}


def _seat_section(runs: dict[str, RunTally], figures: dict[str, dict[str, Any]], n_all: str) -> Section:
    """Seat win rates and the start-player advantage."""
    notes = []
    for lab, run in runs.items():
        f = figures[lab]
        a, eq = f["advantage"], f["equality"]
        verdict = "significant" if eq["p_value"] < 0.05 else "not significant"
        notes.append(
            f"<b>{lab}</b>: start-player advantage (seat 0 minus the fair share {pct(a['fair_share'])}) "
            f"<b>{stated_figure(100 * a['value'], sign=True)} percentage points</b>"
            + unless_adaptive(run, f" {_signed_interval(a['ci_low'], a['ci_high'])}; all seats "
                                   f"equal? chi-square {eq['statistic']:.1f} on {eq['dof']} dof, "
                                   f"{p_value(eq['p_value'])} ({verdict} at 5%); "
                                   f"{seat_flags_text(f['flags'])}")
            + f"; {_n(run)}.")
    notes.append("Seat 0 is the start player; ties count by the configured tie-break (shared wins as "
                 "1/k).")
    fair = fair_share(runs)
    return seat_section("Kamakura: seat win rates and the start-player advantage", "kamakura", runs,
                        seats={lab: f["seats"] for lab, f in figures.items()}, notes=notes,
                        caption=f"Win rate by seat with 95% intervals ({n_all})"
                        + ("; dashed: fair share" if fair else "; fair share 1/players differs between runs"),
                        chart_title=f"Kamakura win rate by seat ({n_all})", xlabel="seat (0 = start player)")


def _components_section(figures: dict[str, dict[str, Any]]) -> Section:
    """Chits and powers in play (descriptive)."""
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
                       wide({k: declare(f["chits"][[c for c in cols if c in f["chits"]]]
                                        .rename(columns=_ASSOCIATION), _CHIT_KINDS)
                             for k, f in figures.items()}, ["colour", "icons"])))
    sec.tables.append(("kamakura_power_values", "Powers: activation, and activating player-games' win rate "
                       "minus the others' (an association)",
                       wide({k: declare(f["powers"].rename(columns=_ASSOCIATION), _POWER_KINDS)
                             for k, f in figures.items()}, "power")))
    return sec


def _length_section(runs: dict[str, RunTally], figures: dict[str, dict[str, Any]], n_all: str) -> Section:
    """Scores, decisiveness, game length, passing and lead changes."""
    sec = Section("Kamakura: scores, decisiveness, game length, passing and lead changes", question="length",
                  anchor="kamakura-length")
    for lab, run in runs.items():
        s, lc = figures[lab]["scores"], figures[lab]["leads"]
        m, length = s["margin"], s["length"]
        sec.notes.append(
            f"<b>{lab}</b>: winning margin (first minus second) mean {m['mean']:.2f} points"
            + unless_adaptive(run, f" [{m['ci_low']:.2f}, {m['ci_high']:.2f}]")
            + f", tied on top in {pct(m['zero_rate'])}; game length mean {length['mean']:.1f} turns"
            + unless_adaptive(run, f" [{length['ci_low']:.1f}, {length['ci_high']:.1f}]")
            + f", median {length['median']:.0f}; lead changes per game mean {lc['mean']:.2f}"
            + unless_adaptive(run, f" [{lc['ci_low']:.2f}, {lc['ci_high']:.2f}]")
            + f", none in {pct(lc['zero_rate'])}; {_n(run)}.")
    sec.charts.append(length_chart("kamakura_length", runs, "turns", "Kamakura", n_all))
    margins = {lab: run.own["flow"]["margin"] for lab, run in runs.items()}
    sec.charts.append(("kamakura_margin", f"Winning margin in points ({n_all})",
                       charts.histograms(margins, f"Kamakura winning margin ({n_all})",
                                         "first minus second score (points)")))
    sec.charts.append(("kamakura_lead_changes", f"Lead changes per game ({n_all})",
                       charts.histograms({lab: run.own["flow"]["lead_changes"] for lab, run in runs.items()},
                                         f"Kamakura lead changes per game ({n_all})", "lead changes")))
    out_turns = {lab: Hist(r.own["flow"]["out_turn"].offset, r.own["flow"]["out_turn"].counts.sum(axis=0))
                 for lab, r in runs.items()}  # every seat's passing turns together
    sec.charts.append(("kamakura_pass_timing", f"Turn at which players pass out of the game ({n_all})",
                       charts.histograms(out_turns, f"Kamakura: turn of passing (R-8) ({n_all})",
                                         "game-wide turn index", "share of passes (%)")))
    sec.tables.append(("kamakura_scores_by_seat", "Final scores by seat",
                       wide({k: declare(f["scores"]["by_seat"], _SCORE_KINDS) for k, f in figures.items()},
                            "seat")))
    sec.tables.append(("kamakura_pass_timing", "Passing by seat",
                       wide({k: declare(f["passing"], _PASS_KINDS) for k, f in figures.items()}, "seat")))
    return sec


def _summary(lab: str, run: RunTally, f: dict[str, Any]) -> dict[str, Any]:
    """One run's summary.json record."""
    m = run.manifest
    return {
        "label": lab, "game": "kamakura", "run": str(run.path), "games": run.n_games,
        "players": m.players,
        "seats": f["seats"][["seat", "win_rate", "ci_low", "ci_high"]].to_dict(orient="records"),
        "seat_equality_test": {k: f["equality"][k] for k in ("statistic", "dof", "p_value")},
        "seat_tests": f["flags"].to_dict(orient="records"),
        "start_player_advantage": {k: f["advantage"][k] for k in ("value", "ci_low", "ci_high", "n")},
        "ties": {k: f["ties"][k] for k in TIE_KEYS},
        "tiebreak_rescoring": rescoring_summary(f["rescored"]),
        "chit_values": f["chits"][["colour", "icons", "claim_rate", "win_added", "ci_low",
                                   "ci_high"]].to_dict(orient="records"),
        "game_length_turns": {k: f["scores"]["length"][k] for k in ("mean", "ci_low", "ci_high", "median")},
    }


def _signed_interval(low: float, high: float) -> str:
    """A difference of shares' interval in signed pp, rounded outward and kept off 0 (analysis.figures)."""
    return stated_interval(100 * low, 100 * high, keep_off=(0.0,), sign=True)
