"""The Sakura sections of the report: seats, ties, cards, bumps, sakura tokens, length.

`sakura_sections` is Sakura's `GameAnalysis.sections` (analysis/sakura/entry.py), computed from each
run's merged tally (analysis.run_tally); `sakura_tally`, its `GameAnalysis.tally`, is what one chunk of
games adds to it. The page kit is `analysis.page`.
"""

from __future__ import annotations

from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from analysis import charts
from analysis import sakura as S
from analysis.adaptive_stop import unless_adaptive
from analysis.figures import interval as stated_interval
from analysis.page import (
    COUNT,
    DIFFERENCE,
    DIFFERENCE_BOUND,
    NUMBER,
    P_VALUE,
    SHARE,
    SHARE_BOUND,
    TEST,
    TEXT,
    TIE_KEYS,
    Section,
    declare,
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
    whiskers_note,
    wide,
    without_whiskers,
)
from analysis.sakura.ties import COURT_CAN_WIN
from analysis.seats import seat_equality_test, seat_tests, seat_win_rates
from analysis.stats import mean_interval
from analysis.tallied_run import RunTally
from storage.run_record import RunManifest


def sakura_tally(games: pd.DataFrame, players: pd.DataFrame, events: pd.DataFrame,
                 manifest: RunManifest, rules: Any) -> dict[str, Any]:
    """The Sakura half of one chunk's report tally (analysis.run_tally): the court painter's win share,
    ties, the tie-break re-scoring against the run's own rule (`run_rule` of its validated `rules`), card
    and action values, bumps, tokens at each sakura and game length."""
    return {"court": S.court_tally(players, games), "ties": S.tie_tally(games),
            "rescore": S.rescore_tally(players, reference=S.run_rule(rules), games=games),
            "cards": S.card_tally(events, players), "actions": S.action_tally(events, players),
            "bumps": S.bump_tally(games, events, players),
            "trees": S.sakura_tokens_tally(events, manifest.players), "rounds": S.round_tally(games)}


def sakura_sections(runs: dict[str, RunTally]) -> tuple[list[Section], list[dict[str, Any]]]:
    """The report sections of Sakura runs (label -> RunTally, each run's merged tally) and one
    summary.json record per run: each figure read once off each run's merged tally (`_figures`), then laid
    out section by section."""
    figures = {lab: _figures(run) for lab, run in runs.items()}
    series, n_all = scope(runs)
    sections = [_seat_section(runs, figures, n_all)]
    rescored = {lab: f["rescored"] for lab, f in figures.items()}
    ties = tie_section("Sakura: ties and the tie-break", "sakura", runs,
                       ties={lab: f["ties"] for lab, f in figures.items()}, rescored=rescored,
                       tied_what="most tokens", rule="R-14", n_all=n_all)
    ties.notes.extend(_r23_notes(runs, rescored))
    sections += [ties, _components_section(runs, figures, series, n_all),
                 _length_section(runs, figures, series, n_all)]
    return sections, [_summary(lab, run, figures[lab]) for lab, run in runs.items()]


def _figures(run: RunTally) -> dict[str, Any]:
    """Every figure of one run's report, from its merged tally (each computed once). The seats' mean
    score is Sakura's tokens; under R-23 (`_court_competes`) the court painter's own row follows the
    seats'."""
    c, own = run.common, run.own
    seats = seat_win_rates(c).rename(columns={"mean_score": "mean_tokens"})
    court = S.court_win_rate_from(own["court"]) if _court_competes(run) else None
    if court is not None:
        seats = pd.concat([seats, court], ignore_index=True)
    return {"seats": seats, "court": court, "equality": seat_equality_test(c), "flags": seat_tests(c),
            "ties": S.tie_stats_from(own["ties"]), "rescored": S.rescore_ties_from(own["rescore"]),
            "cards": S.card_values_from(own["cards"]), "actions": S.action_values_from(own["actions"]),
            "bumps": S.bump_stats_from(own["bumps"]), "trees": S.sakura_tokens_from(own["trees"]),
            "rounds": S.round_stats_from(own["rounds"])}


def _seat_section(runs: dict[str, RunTally], figures: dict[str, dict[str, Any]], n_all: str) -> Section:
    """Seat win rates (and, under R-23, the court painter's)."""
    notes = []
    for lab, run in runs.items():
        f = figures[lab]
        fair = 1 / run.manifest.players
        first = f["seats"].iloc[0]
        eq = f["equality"]
        notes.append(
            f"<b>{lab}</b>: seat 0 (first to choose) wins {pct(first['win_rate'])}"
            + unless_adaptive(run, f" {interval(first['ci_low'], first['ci_high'])}")
            + f" against a fair share of {pct(fair)}"
            + unless_adaptive(run, f"; all seats equal? chi-square {eq['statistic']:.1f} on {eq['dof']} dof, "
                                   f"{p_value(eq['p_value'])} "
                                   f"({'significant' if eq['p_value'] < 0.05 else 'not significant'} at 5%); "
                                   f"{seat_flags_text(f['flags'])}")
            + f"; n = {run.n_games:,} games.")
        if f["court"] is not None:
            c = f["court"].iloc[0]
            notes.append(
                f"<b>{lab}</b>: played under court_can_win (R-23): the court painter (seat "
                f"{int(c['seat'])} in the chart and table) won {pct(c['win_rate'])}"
                + unless_adaptive(run, f" {interval(c['ci_low'], c['ci_high'])}")
                + " of the games, which no player won. The seats share "
                "the rest, so the fair-share line and the seat tests (against 1/2) overstate what a seat "
                "should win: compare the seats with each other.")
    return seat_section("Sakura: seat win rates", "sakura", runs,
                        seats={lab: declare(f["seats"], {"mean_tokens": NUMBER})  # the seats' mean score
                               for lab, f in figures.items()}, notes=notes,
                        caption=f"Win rate by seat with 95% intervals ({n_all})",
                        chart_title=f"Sakura win rate by seat ({n_all})", xlabel="seat")


#: the columns of the card and action tables (analysis.sakura.card_values)
_PLAYED_KINDS = {"card": TEXT, "garden": TEXT, "painter": TEXT, "half": TEXT, "action": TEXT, "played": COUNT,
                 "resolved_share": SHARE, "player_games": COUNT, "win_rate": SHARE, "ci_low": SHARE_BOUND,
                 "ci_high": SHARE_BOUND, "win_added": DIFFERENCE, "added_ci_low": DIFFERENCE_BOUND,
                 "added_ci_high": DIFFERENCE_BOUND, "p_holm": P_VALUE, "significant": TEST,
                 "detectable": DIFFERENCE}
#: the columns of the tokens-at-each-sakura table (analysis.sakura.game_flow.sakura_tokens_from)
_TREE_KINDS = {"sakura": TEXT, "rank": TEXT, "scorings": COUNT, "mean_tokens": NUMBER, "zero_share": SHARE,
               "sakura_zero_share": SHARE}


def _components_section(runs: dict[str, RunTally], figures: dict[str, dict[str, Any]], series: str | None,
                        n_all: str) -> Section:
    """Cards and actions in play (descriptive)."""
    sec = Section("Sakura: cards and actions in play (descriptive)")
    sec.notes.append("Descriptive: the win rate of the player-games in which the card (or action) was played "
                     "minus the overall rate, with a 95% interval; 'significant' is judged for the whole "
                     "table at once (Holm, family-wise 5%), and 'detectable' is the smallest true difference "
                     "a two-sided test at the table's Bonferroni level (5% divided by its rows, Holm's first "
                     "step) detects with 80% power. An association, not what a card is worth: a card "
                     "is played by whoever holds it, when it suits them. What having a card in the starting "
                     "hand <i>causes</i> comes from `balance values` (paired intervention; give its run "
                     "directory to this report).")
    cards = {lab: declare(f["cards"], _PLAYED_KINDS) for lab, f in figures.items()}
    actions = {lab: declare(f["actions"], _PLAYED_KINDS) for lab, f in figures.items()}
    sec.charts.append(("sakura_card_values", "Played-card win rate minus the overall rate (an association), "
                       f"by order number ({n_all})" + whiskers_note(runs),
                       _card_chart(without_whiskers(stack(cards), runs, "win_added", "added_ci_low",
                                                    "added_ci_high"), series, n_all)))
    long = without_whiskers(stack(actions), runs, "win_added", "added_ci_low", "added_ci_high")
    long["label"] = long["half"].astype(str) + ": " + long["action"].astype(str)
    sec.charts.append(("sakura_action_values",
                       f"Played-action win rate minus the overall rate (an association) ({n_all})"
                       + whiskers_note(runs),
                       charts.grouped_bars(long, "label", "win_added", "added_ci_low", "added_ci_high",
                                           series=series,
                                           title=f"Sakura: win rate added by action type ({n_all})",
                                           xlabel="win rate added (percentage points)", ylabel="action",
                                           reference=0.0, horizontal=True)))
    sec.tables.append(("sakura_action_values", "Actions: win rate when played",
                       wide(actions, ["half", "action"])))
    sec.tables.append(("sakura_card_values", "Cards: win rate when played, by order number",
                       wide(cards, "card")))
    return sec


def _length_section(runs: dict[str, RunTally], figures: dict[str, dict[str, Any]], series: str | None,
                    n_all: str) -> Section:
    """Bumps, tokens at each tree, game length."""
    sec = Section("Sakura: bumps, tokens at each tree, game length", question="length",
                  anchor="sakura-length")
    for lab, run in runs.items():
        b, r = figures[lab]["bumps"], figures[lab]["rounds"]
        n = run.n_games
        sec.notes.append(
            f"<b>{lab}</b>: {b['bumps_mean']:.2f} bumps per game"
            + unless_adaptive(run, f" {_mean_ci(b['bumps_mean'], b['bumps_sd'], n)}")
            + f" (R-15); games with at least one bump {pct(b['games_with_bump_rate'])}"
            + unless_adaptive(run, f" {interval(b['games_with_bump_ci_low'], b['games_with_bump_ci_high'])}")
            + f"; tokens lost to bumps {b['tokens_lost_mean']:.2f} per game; game length mean "
            f"{r['mean']:.1f} rounds" + unless_adaptive(run, f" {_mean_ci(r['mean'], r['sd'], n)}")
            + f", median {r['median']:.0f}; n = {n:,} games.")
        stalled = _limit_note(lab, run, r)
        if stalled:
            sec.notes.insert(0, stalled)
    sec.charts.append(("sakura_bumps", f"Bumps per game ({n_all})",
                       charts.histograms({lab: r.own["bumps"]["bumps"] for lab, r in runs.items()},
                                         f"Sakura bumps per game ({n_all})", "bumps")))
    sec.charts.append(length_chart("sakura_rounds", runs, "rounds", "Sakura", n_all))
    trees = {lab: declare(f["trees"], _TREE_KINDS) for lab, f in figures.items()}
    long = stack(trees)
    long["where"] = "tree " + (long["sakura"].astype(int) + 1).astype(str) + ", rank " + \
        long["rank"].astype(int).astype(str)
    long["low"] = long["high"] = long["mean_tokens"]
    sec.charts.append(("sakura_tree_tokens", f"Mean tokens won at each sakura by rank there ({n_all})",
                       charts.grouped_bars(long, "where", "mean_tokens", "low", "high", series=series,
                                           title=f"Sakura: tokens won at each tree by rank ({n_all})",
                                           xlabel="tree and rank", ylabel="mean tokens", percent=False)))
    sec.tables.append(("sakura_tree_tokens", "Tokens won at each sakura by rank",
                       wide(trees, ["sakura", "rank"])))
    return sec


def _limit_note(lab: str, run: RunTally, rounds: dict[str, Any]) -> str:
    """What the report says of games the engine stopped at its round limit (GameSpec.limit_end): they
    did not end by the rules, so the config may not let a game progress ('' when there are none)."""
    label, what = run.spec.limit_end or ("", "")
    stalled = rounds["end_reasons"].get(label, 0)
    if not stalled:
        return ""
    return (f"<b>{lab}: {stalled:,} of {run.n_games:,} games ({pct(stalled / run.n_games)}) stopped at "
            f"{what}</b> without the last sakura scoring: the deck may not let the Emperor progress, and "
            "those games' tokens are those at the limit, not a finished game's.")


def _summary(lab: str, run: RunTally, f: dict[str, Any]) -> dict[str, Any]:
    """One run's summary.json record."""
    court = f["court"]
    return {
        "label": lab, "game": "sakura", "run": str(run.path), "games": run.n_games,
        "players": run.manifest.players,
        "seats": f["seats"][["seat", "win_rate", "ci_low", "ci_high"]].to_dict(orient="records"),
        "seat_equality_test": {k: f["equality"][k] for k in ("statistic", "dof", "p_value")},
        "seat_tests": f["flags"].to_dict(orient="records"),
        "start_player_advantage": _advantage(f["seats"], run.manifest.players),
        "ties": {k: f["ties"][k] for k in TIE_KEYS},
        "tiebreak_rescoring": rescoring_summary(f["rescored"]),
        **({"court_win_rate": {k: float(court.iloc[0][k])
                                for k in ("win_rate", "ci_low", "ci_high", "games")}}
           if court is not None else {}),
        "bumps_per_game": f["bumps"]["bumps_mean"],
        "game_length_rounds": {k: f["rounds"][k] for k in ("mean", "median")},
        "games_at_round_limit": int(f["rounds"]["end_reasons"].get("round_limit", 0)),
    }


def _court_competes(run: RunTally) -> bool:
    """A two-player run played under court_can_win (R-23): the court painter could win."""
    return run.manifest.players == 2 and bool(run.rules.court_can_win)


def _r23_notes(runs: dict[str, RunTally], rescored: dict[str, pd.DataFrame]) -> list[str]:
    """What the tie section says of R-23 for each two-player run: re-scored under both readings (the
    court painter's own win rate in the rules ending +court_can_win), or why not."""
    notes = []
    for lab, run in runs.items():
        if run.manifest.players != 2:
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
    return stated_interval(low, high, 2, keep_off=())


def _advantage(seats: pd.DataFrame, players: int) -> dict[str, float]:
    """Seat 0's win rate minus 1/players, with its interval shifted the same way (summary.json)."""
    first = seats.iloc[0]
    fair = 1 / players
    return {"value": first["win_rate"] - fair, "ci_low": first["ci_low"] - fair,
            "ci_high": first["ci_high"] - fair, "n": int(first["games"])}


def _card_chart(long: pd.DataFrame, series: str | None, n_all: str) -> Figure:
    """Win added per card order number, one marker series per run."""
    fig, ax = plt.subplots(figsize=(8.0, 4.2))
    for label, part in (long.groupby(series, sort=False) if series else [(None, long)]):
        y = part["win_added"].to_numpy(dtype=float) * 100
        err = np.vstack([y - part["added_ci_low"].to_numpy(dtype=float) * 100,
                         part["added_ci_high"].to_numpy(dtype=float) * 100 - y])
        ok = np.isfinite(err).all(axis=0) & np.isfinite(y)  # a card with no interval is not drawn
        ax.errorbar(part["card"].to_numpy(dtype=float)[ok], y[ok], yerr=err[:, ok], fmt="o",
                    markersize=3, capsize=2, label=label)
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
