"""The Sakura sections of the report (issue 5, item 3): seats, ties, cards, bumps, sakura tokens, length.

`sakura_sections` is the registry's `report_sections` of Sakura (sim/sakura/spec.py), computed from each
run's merged tally (analysis.run_tally); `sakura_tally`, the registry's `report_tally`, is what one chunk of
games adds to it. The page kit is `analysis.page`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from analysis import charts
from analysis import sakura as S
from analysis.page import (
    TIE_KEYS,
    Section,
    interval,
    length_chart,
    p_value,
    pct,
    rescoring_summary,
    scope,
    seat_flags_text,
    seat_section,
    stack,
    tie_section,
    wide,
)
from analysis.run_tally import RunTally, seat_equality_test, seat_tests
from analysis.sakura.ties import COURT_CAN_WIN
from analysis.stats import mean_interval
from sim.sakura.params import rules_from_mapping


def sakura_tally(games: pd.DataFrame, players: pd.DataFrame, events: pd.DataFrame,
                 manifest: dict) -> dict[str, Any]:
    """The Sakura half of one chunk's report tally (analysis.run_tally): the court painter's win share,
    ties, the tie-break re-scoring against the run's own rule (`run_rule`), card and action values,
    bumps, tokens at each sakura and game length."""
    rules = rules_from_mapping(manifest["config"], manifest["players"], "manifest.json")
    return {"court": S.court_tally(players, games), "ties": S.tie_tally(games),
            "rescore": S.rescore_tally(players, reference=S.run_rule(rules), games=games),
            "cards": S.card_tally(events, players), "actions": S.action_tally(events, players),
            "bumps": S.bump_tally(games, events, players),
            "trees": S.sakura_tokens_tally(events, manifest["players"]), "rounds": S.round_tally(games)}


def sakura_sections(runs: dict[str, RunTally]) -> tuple[list[Section], list[dict[str, Any]]]:
    """The report sections of Sakura runs (label -> RunTally, each run's merged tally) and one
    summary.json record per run."""
    series, n_all = scope(runs)

    seats = {lab: S.seat_win_rates_from(r.common) for lab, r in runs.items()}
    # R-23: a run in which the court painter can win shows its own win rate beside the seats'
    court = {lab: S.court_win_rate_from(r.own["court"]) for lab, r in runs.items() if _court_competes(r)}
    for lab, row in court.items():
        seats[lab] = pd.concat([seats[lab], row], ignore_index=True)
    equality = {lab: seat_equality_test(r.common) for lab, r in runs.items()}
    flags = {lab: seat_tests(r.common) for lab, r in runs.items()}
    ties = {lab: S.tie_stats_from(r.own["ties"]) for lab, r in runs.items()}
    rescored = {lab: S.rescore_ties_from(r.own["rescore"]) for lab, r in runs.items()}
    cards = {lab: S.card_values_from(r.own["cards"]) for lab, r in runs.items()}
    actions = {lab: S.action_values_from(r.own["actions"]) for lab, r in runs.items()}
    bumps = {lab: S.bump_stats_from(r.own["bumps"]) for lab, r in runs.items()}
    trees = {lab: S.sakura_tokens_from(r.own["trees"]) for lab, r in runs.items()}
    rounds = {lab: S.round_stats_from(r.own["rounds"]) for lab, r in runs.items()}

    notes = []
    for lab, run in runs.items():
        fair = 1 / run.manifest["players"]
        first = seats[lab].iloc[0]
        eq = equality[lab]
        notes.append(
            f"<b>{lab}</b>: seat 0 (first to choose) wins {pct(first['win_rate'])} "
            f"{interval(first['ci_low'], first['ci_high'])} against a fair share of {pct(fair)}; "
            f"all seats equal? chi-square {eq['statistic']:.1f} on {eq['dof']} dof, {p_value(eq['p_value'])} "
            f"({'significant' if eq['p_value'] < 0.05 else 'not significant'} at 5%); "
            f"{seat_flags_text(flags[lab])}; n = {run.n_games:,} games.")
        if lab in court:
            c = court[lab].iloc[0]
            notes.append(
                f"<b>{lab}</b>: played under court_can_win (R-23): the court painter (seat "
                f"{int(c['seat'])} in the chart and table) won {pct(c['win_rate'])} "
                f"{interval(c['ci_low'], c['ci_high'])} of the games, which no player won. The seats share "
                f"the rest, so the fair-share line and the seat tests (against 1/2) overstate what a seat "
                f"should win: compare the seats with each other.")
    sec = seat_section("Sakura: seat win rates", "sakura", runs, seats, notes,
                       f"Win rate by seat with 95% intervals ({n_all})", f"Sakura win rate by seat ({n_all})",
                       "seat")
    sections = [sec]

    sec = tie_section("Sakura: ties and the tie-break", "sakura", runs, ties, rescored, "most tokens", "R-14",
                      n_all)
    sec.notes.extend(_r23_notes(runs, rescored))
    sections.append(sec)

    sec = Section("Sakura: cards and actions in play (descriptive)")
    sec.notes.append("Descriptive: the win rate of the player-games in which the card (or action) was played "
                     "minus the overall rate, with a 95% interval; 'significant' is judged for the whole "
                     "table at once (Holm, family-wise 5%), and 'detectable' is the smallest true difference "
                     "a two-sided test at the table's Bonferroni level (5% divided by its rows, Holm's first "
                     "step) detects with 80% power. An association, not what a card is worth: a card "
                     "is played by whoever holds it, when it suits them. What having a card in the starting "
                     "hand <i>causes</i> comes from `balance values` (paired intervention; give its run "
                     "directory to this report).")
    long = stack(cards)
    sec.charts.append(("sakura_card_values", "Played-card win rate minus the overall rate (an association), "
                       f"by order number ({n_all})",
                       _card_chart(long, series, n_all)))
    long = stack(actions)
    long["label"] = long["half"].astype(str) + ": " + long["action"].astype(str)
    sec.charts.append(("sakura_action_values",
                       f"Played-action win rate minus the overall rate (an association) ({n_all})",
                       charts.grouped_bars(long, "label", "win_added", "added_ci_low", "added_ci_high",
                                           series, f"Sakura: win rate added by action type ({n_all})",
                                           "win rate added (percentage points)", "action", reference=0.0,
                                           horizontal=True)))
    sec.tables.append(("sakura_action_values", "Actions: win rate when played",
                       wide(actions, ["half", "action"])))
    sec.tables.append(("sakura_card_values", "Cards: win rate when played, by order number",
                       wide(cards, "card")))
    sections.append(sec)

    sec = Section("Sakura: bumps, tokens at each tree, game length", question="length",
                  anchor="sakura-length")
    for lab, run in runs.items():
        b, r = bumps[lab], rounds[lab]
        n = run.n_games
        sec.notes.append(
            f"<b>{lab}</b>: {b['bumps_mean']:.2f} bumps per game "
            f"{_mean_ci(b['bumps_mean'], b['bumps_sd'], n)} (R-15); games with at least one bump "
            f"{pct(b['games_with_bump_rate'])} "
            f"{interval(b['games_with_bump_ci_low'], b['games_with_bump_ci_high'])}; tokens lost to bumps "
            f"{b['tokens_lost_mean']:.2f} per game; game length mean {r['mean']:.1f} rounds "
            f"{_mean_ci(r['mean'], r['sd'], n)}, median {r['median']:.0f}; n = {n:,} games.")
    sec.charts.append(("sakura_bumps", f"Bumps per game ({n_all})",
                       charts.histograms({lab: r.own["bumps"]["bumps"] for lab, r in runs.items()},
                                         f"Sakura bumps per game ({n_all})", "bumps")))
    sec.charts.append(length_chart("sakura_rounds", runs, "rounds", "Sakura", n_all))
    long = stack(trees)
    long["where"] = "tree " + (long["sakura"].astype(int) + 1).astype(str) + ", rank " + \
        long["rank"].astype(int).astype(str)
    long["low"] = long["high"] = long["mean_tokens"]
    sec.charts.append(("sakura_tree_tokens", f"Mean tokens won at each sakura by rank there ({n_all})",
                       charts.grouped_bars(long, "where", "mean_tokens", "low", "high", series,
                                           f"Sakura: tokens won at each tree by rank ({n_all})",
                                           "tree and rank", "mean tokens", percent=False)))
    sec.tables.append(("sakura_tree_tokens", "Tokens won at each sakura by rank",
                       wide(trees, ["sakura", "rank"])))
    sections.append(sec)

    summaries = []
    for lab, run in runs.items():
        summaries.append({
            "label": lab, "game": "sakura", "run": str(run.path), "games": run.n_games,
            "players": run.manifest["players"],
            "seats": seats[lab][["seat", "win_rate", "ci_low", "ci_high"]].to_dict(orient="records"),
            "seat_equality_test": {k: equality[lab][k] for k in ("statistic", "dof", "p_value")},
            "seat_tests": flags[lab].to_dict(orient="records"),
            "start_player_advantage": _advantage(seats[lab], run.manifest["players"]),
            "ties": {k: ties[lab][k] for k in TIE_KEYS},
            "tiebreak_rescoring": rescoring_summary(rescored[lab]),
            **({"court_win_rate": {k: float(court[lab].iloc[0][k])
                                   for k in ("win_rate", "ci_low", "ci_high", "games")}}
               if lab in court else {}),
            "bumps_per_game": bumps[lab]["bumps_mean"],
            "game_length_rounds": {k: rounds[lab][k] for k in ("mean", "median")},
        })
    return sections, summaries


def _court_competes(run: RunTally) -> bool:
    """A two-player run played under court_can_win (R-23): the court painter could win."""
    return run.manifest["players"] == 2 and bool(run.rules.court_can_win)


def _r23_notes(runs: dict[str, RunTally], rescored: dict[str, pd.DataFrame]) -> list[str]:
    """What the tie section says of R-23 for each two-player run: re-scored under both readings (the
    court painter's own win rate in the rules ending +court_can_win), or why not."""
    notes = []
    for lab, run in runs.items():
        if run.manifest["players"] != 2:
            continue
        rules = set(rescored[lab]["rule"])
        if any(rule.endswith(COURT_CAN_WIN) for rule in rules):
            under = S.run_rule(run.rules)
            notes.append(
                f"<b>{lab}</b> (two players): also re-scored under both readings of R-23 from the logged "
                f"final tokens and positions of the court painter: the rules ending "
                f"<i>{COURT_CAN_WIN}</i> let it compete like a third player (ties by the rule's tie-break "
                f"among all three painters), and their seat-2 rows are its own win rate; the others are "
                f"the reading in which it never wins. The run was played under <b>{under}</b>.")
        else:
            notes.append(f"<b>{lab}</b> (two players): its logs hold no court_position (written before it "
                         f"was logged), so R-23 is not re-scored; re-run the games to see it.")
    return notes


def _mean_ci(mean: float, sd: float, n: int) -> str:
    """The normal 95% interval of a mean (`analysis.stats.mean_interval`) as text: "[9.12, 9.48]"."""
    low, high = mean_interval(mean, sd, n)
    return f"[{low:.2f}, {high:.2f}]"


def _advantage(seats: pd.DataFrame, players: int) -> dict[str, float]:
    """Seat 0's win rate minus 1/players, with its interval shifted the same way (summary.json)."""
    first = seats.iloc[0]
    fair = 1 / players
    return {"value": first["win_rate"] - fair, "ci_low": first["ci_low"] - fair,
            "ci_high": first["ci_high"] - fair, "n": int(first["games"])}


def _card_chart(long: pd.DataFrame, series: str | None, n_all: str) -> Figure:
    """Win added per card order number, one marker series per run."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8.0, 4.2))
    for label, part in (long.groupby(series, sort=False) if series else [(None, long)]):
        y = part["win_added"].to_numpy(dtype=float) * 100
        err = np.vstack([y - part["added_ci_low"].to_numpy(dtype=float) * 100,
                         part["added_ci_high"].to_numpy(dtype=float) * 100 - y])
        ax.errorbar(part["card"].to_numpy(dtype=float), y, yerr=err, fmt="o", markersize=3, capsize=2,
                    label=label)
    ax.axhline(0, color="grey", linestyle="--")
    if series:
        ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0),  # beside the data
                  borderaxespad=0)
    ax.set_title(f"Sakura: win rate added when a card was played ({n_all})", fontsize=11)
    ax.set_xlabel("card order number (lower resolves first)")
    ax.set_ylabel("win rate added (percentage points)")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    return fig
