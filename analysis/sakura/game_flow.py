"""How does a Sakura game unfold? Bumps (painters stopped by the Emperor, R-15) and the tokens they
cost, per game, per painter and per action; tokens won at each sakura by finishing rank; and game length
in rounds with the end reasons. The starting tokens and the action ids are the engine's
(`sim.sakura.kernels.START_TOKENS`, `sim.sakura.params`).
Each figure is computed from whole-number tallies (`bump_tally`, `sakura_tokens_tally`, `round_tally`,
mergeable across chunks of games; quantiles from exact histograms) by `bump_stats_from`,
`sakura_tokens_from`, `round_stats_from`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from analysis._arrays import floats, ints
from analysis.sakura._columns import _Col, _KeyIndex, _kind_col, _rank, _spans
from analysis.stats import wilson_interval
from analysis.tally import Hist, hist, hist_count, hist_distribution, hist_moments, hist_table
from sim.sakura.kernels import START_TOKENS  # docs/rules.md Setup: each painter starts with 5 tokens
from sim.sakura.params import GARDEN_ACTIONS, PAINTER_ACTIONS


def _rows_of(kind: _Col, code: int) -> np.ndarray:
    """Indices of the event rows of one kind, found chunk by chunk."""
    parts = [np.flatnonzero(kind.take(span) == code) + span.start for span in _spans(len(kind.values))]
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)


def bump_tally(games: pd.DataFrame, events: pd.DataFrame, players: pd.DataFrame | None = None,
               ) -> dict[str, Any]:
    """What `bump_stats_from` needs of some games, as whole numbers (analysis.tally): the histogram of
    bumps per game, the tokens lost to bumps per painter slot (seat 0.., then the court painter; how:
    `bump_stats_from`), the player counts and the method, and per half and action id the resolved cards
    and the bumps during their resolution."""
    bumps = ints(games["bumps"], fill=0)
    lost = _tokens_lost(games, events, players)
    return {"bumps": hist(bumps), "lost": np.rint(lost).astype(np.int64),
            "players": {int(p) for p in np.unique(ints(games["players"]))},
            "method": {"final scores" if players is not None else "card rows"},
            "by_action": _bumps_by_action_tally(events)}


def bump_stats_from(tally: dict[str, Any]) -> dict:
    """Bumps (a painter stopped by the Emperor and sent back, R-15) and the tokens they cost, from a
    (merged) `bump_tally`.

    Returns a dict: n (games); bumps_mean, bumps_sd, bumps_median, bumps_max (bumps per game, from
    games.bumps); games_with_bump, games_with_bump_rate and its Wilson 95% games_with_bump_ci_low/_high;
    distribution (DataFrame bumps, games, share); tokens_lost_total, tokens_lost_mean (per game),
    tokens_lost_per_bump (the share of bumps that cost a token: a bump costs one only if the painter has
    one); tokens_lost_method; by_painter (DataFrame seat (0-based; the court painter has seat = players, as
    in the log), court (bool), tokens_lost_mean per game); by_action (DataFrame half, action, cards, bumps,
    bumps_per_card: bumps during the resolution of resolved cards with that garden or painter action; a
    garden action can bump another painter).

    How tokens lost are computed. Tokens change only by bumps (-1 each, if the painter has a token) and
    sakura scoring (the `tokens_gained` of the sakura rows), from START_TOKENS (5). So for each painter
      lost = START_TOKENS + tokens gained at sakuras - final tokens.
    With `players` given to `bump_tally`, final tokens are players.score (and games.court_tokens for the
    court painter): exact (tokens_lost_method "final scores"). Without it they are read from the card
    rows: the painter's `tokens_after` on its card of the game's last round (games.rounds), plus what it
    gained at a sakura scored in that round when its card resolved before the card that stopped the Emperor
    there (a card's tokens_after includes a sakura scored during its own resolution or before it; cards
    after the stop are discarded, resolved = False, and show the tokens after scoring). This misses only
    bumps that hit a painter after its own last card resolved and before the game ended (a later card of
    the last round), so it is a lower bound (tokens_lost_method "card rows"); on real runs it is within
    0.1% of exact.

    Chunk by chunk, the bumps per game are an exact histogram (the median too), the tokens lost are summed
    per painter slot.
    """
    h: Hist = tally["bumps"]
    n, bump_sum, _ = hist_moments(h)
    spread = hist_distribution(h)
    with_bump = n - hist_count(h, 0)
    low, high = wilson_interval(with_bump, n)
    lost = tally["lost"].astype(float)
    n_players = max(tally["players"]) if tally["players"] else 0
    total = float(lost.sum())
    method = tally["method"]
    return {
        "n": n,
        "bumps_mean": spread["mean"],
        "bumps_sd": spread["sd"] if n > 1 else np.nan,
        "bumps_median": spread["median"],
        "bumps_max": int(spread["max"]) if n else 0,
        "games_with_bump": with_bump,
        "games_with_bump_rate": with_bump / n if n else np.nan,
        "games_with_bump_ci_low": low, "games_with_bump_ci_high": high,
        "distribution": hist_table(h, "bumps"),
        "tokens_lost_total": int(round(total)),
        "tokens_lost_mean": total / n if n else np.nan,
        "tokens_lost_per_bump": total / float(bump_sum) if bump_sum else np.nan,
        "tokens_lost_method": "final scores" if method == {"final scores"} else "card rows",
        "by_painter": pd.DataFrame({"seat": np.arange(len(lost)),
                                    "court": np.arange(len(lost)) >= n_players,
                                    "tokens_lost_mean": lost / n if n else np.nan}),
        "by_action": _bumps_by_action_from(tally["by_action"]),
    }


def _tokens_lost(games: pd.DataFrame, events: pd.DataFrame, players: pd.DataFrame | None) -> np.ndarray:
    """Tokens lost to bumps summed over games, per painter slot (seat 0.., then the court painter)."""
    n_players = int(ints(games["players"]).max()) if len(games) else 0
    court = n_players == 2
    slots = n_players + int(court)
    kind, card_code, sakura_code = _kind_col(events)
    game_id, seat_col, round_col = _Col(events["game_id"]), _Col(events["seat"]), _Col(events["round"])
    sak = _rows_of(kind, sakura_code)
    s_seat = seat_col.ints(sak)
    s_gain = _Col(events["tokens_gained"]).floats(sak)
    gained = np.bincount(s_seat, weights=s_gain, minlength=slots)[:slots]
    start = START_TOKENS * len(games)
    if players is not None:
        final = np.bincount(ints(players["seat"]), weights=floats(players["score"]), minlength=slots)
        if court:
            final[n_players] = float(np.nansum(floats(games["court_tokens"])))
        return start + gained - final[:slots]
    # each painter's card of its game's last round (one card per painter and round)
    game_pos = _KeyIndex(ints(games["game_id"]), np.zeros(len(games), dtype=np.int64))
    last_round = np.r_[ints(games["rounds"]), -2]  # position -1 (a game not in `games`): no match
    keep, keep_pos = [], []
    for span in _spans(len(events)):
        rows = np.flatnonzero(kind.take(span) == card_code) + span.start
        pos = game_pos(game_id.ints(rows), np.zeros(len(rows), dtype=np.int64))
        last = round_col.ints(rows) == last_round[pos]
        keep.append(rows[last])
        keep_pos.append(pos[last])
    rows, pos = np.concatenate(keep), np.concatenate(keep_pos)
    if len(pos) > 1 and np.any(pos[1:] < pos[:-1]):
        order = np.argsort(pos, kind="stable")
        rows, pos = rows[order], pos[order]
    seat = seat_col.ints(rows)
    resolved = _Col(events["resolved"]).take(rows, fill=1).astype(bool)
    after = _Col(events["tokens_after"]).floats(rows)
    # a resolved card with a later resolved card in its (last) round resolved before the sakura stop
    per_game = np.bincount(pos, weights=resolved, minlength=len(games))
    so_far = np.cumsum(resolved) - np.r_[0.0, np.cumsum(per_game)][pos]
    before_stop = resolved & (so_far < per_game[pos])
    # what each painter gained at a sakura scored in the last round
    s_pos = game_pos(game_id.ints(sak), np.zeros(len(sak), dtype=np.int64))
    at = _KeyIndex(pos, seat)(s_pos, s_seat)
    in_last = (at >= 0) & (round_col.ints(sak) == last_round[s_pos])
    gained_last = np.bincount(at[in_last], weights=s_gain[in_last], minlength=len(rows))
    final = after + np.where(before_stop, gained_last, 0.0)
    return start + gained - np.bincount(seat, weights=final, minlength=slots)[:slots]


def _bumps_by_action_tally(events: pd.DataFrame) -> dict[str, dict[str, np.ndarray]]:
    """Per half and action id: [resolved cards, bumps during their resolution]."""
    kind, card_code, _ = _kind_col(events)
    resolved, bumped = _Col(events["resolved"]), _Col(events["bumped"])
    halves = (("garden", _Col(events["garden"], text=True)), ("painter", _Col(events["painter"], text=True)))
    count = [np.zeros(len(col.labels) + 1, dtype=np.int64) for _, col in halves]
    total = [np.zeros(len(col.labels) + 1) for _, col in halves]
    for span in _spans(len(events)):
        played = (kind.take(span) == card_code) & (resolved.take(span, fill=1) != 0)
        rows = np.flatnonzero(played) + span.start
        b = bumped.take(rows, fill=0)
        for i, (_, col) in enumerate(halves):
            codes = col.take(rows).astype(np.intp) + 1
            count[i] += np.bincount(codes, minlength=len(col.labels) + 1)
            total[i] += np.bincount(codes, weights=b, minlength=len(col.labels) + 1)
    return {half: {col.labels[j]: np.array([int(count[i][j + 1]), int(total[i][j + 1])], dtype=np.int64)
                   for j in range(len(col.labels)) if count[i][j + 1]}
            for i, (half, col) in enumerate(halves)}


def _bumps_by_action_from(tally: dict[str, dict[str, np.ndarray]]) -> pd.DataFrame:
    out = []
    for half in ("garden", "painter"):
        held = tally.get(half, {})
        labels = list(held)
        for j in _rank(labels, GARDEN_ACTIONS if half == "garden" else PAINTER_ACTIONS):
            c, bumps = (int(x) for x in held[labels[j]])
            if c:
                out.append({"half": half, "action": labels[j], "cards": c, "bumps": bumps,
                            "bumps_per_card": bumps / c})
    return pd.DataFrame(out, columns=["half", "action", "cards", "bumps", "bumps_per_card"])


def sakura_tokens_tally(events: pd.DataFrame, players_count: int) -> dict[str, Any]:
    """What `sakura_tokens_from` needs of some games, as whole numbers (analysis.tally): the histogram of
    tokens gained per sakura (index 0..2) and rank there (1..painters) as a `Hist` whose counts are
    indexed (sakura, rank - 1, tokens - offset), and per sakura its painter slots (scorings x painters:
    the denominator of sakura_zero_share)."""
    painters = players_count + (1 if players_count == 2 else 0)
    kind, _, sakura_code = _kind_col(events)
    sak = _rows_of(kind, sakura_code)
    gid = _Col(events["game_id"]).ints(sak)
    idx = _Col(events["sakura"]).ints(sak)
    gain = _Col(events["tokens_gained"]).floats(sak)
    if not len(gid):
        return {"gains": Hist(0, np.zeros((0, 0, 1), dtype=np.int64)), "cells": np.zeros(0, dtype=np.int64)}
    regular = len(gid) % painters == 0
    if regular:  # the log writes one block of `painters` rows per scoring
        g2, i2 = gid.reshape(-1, painters), idx.reshape(-1, painters)
        regular = bool(np.all(g2 == g2[:, :1]) & np.all(i2 == i2[:, :1]))
    if regular:
        blocks, which = gain.reshape(-1, painters), i2[:, 0]
    else:
        order = np.lexsort((-gain, idx, gid))
        gid, idx, gain = gid[order], idx[order], gain[order]
        starts = np.flatnonzero(np.r_[True, (gid[1:] != gid[:-1]) | (idx[1:] != idx[:-1])])
        sizes = np.diff(np.r_[starts, len(gid)])
        width = max(painters, int(sizes.max()))
        blocks = np.full((len(starts), width), np.nan)
        col = np.arange(len(gid)) - np.repeat(starts, sizes)
        blocks[np.repeat(np.arange(len(starts)), sizes), col] = gain
        which = idx[starts]
    ranked = -np.sort(-blocks, axis=1)  # NaN (missing painters) last
    n_sakura, width = int(which.max()) + 1, ranked.shape[1]
    group = (which[:, None] * width + np.arange(width)[None, :]).ravel()
    h = hist(ranked.ravel(), group, n_sakura * width)
    return {"gains": Hist(h.offset, h.counts.reshape(n_sakura, width, -1)),
            "cells": np.bincount(which, minlength=n_sakura).astype(np.int64) * width}


def sakura_tokens_from(tally: dict[str, Any]) -> pd.DataFrame:
    """Tokens won at each sakura by finishing rank there, from a (merged) `sakura_tokens_tally`. At every
    scoring the painters (the players, plus the court painter with two players) are ranked by
    tokens_gained, highest first (equal gains: either order, the values are the same). One row per sakura
    (index 0..2) and rank (1..painters): sakura, rank, scorings (n), mean_tokens, zero_share (share of
    painters at that rank who got nothing), and sakura_zero_share (share of all painters at that sakura who
    got nothing). In a log whose sakura rows do not come in blocks of one row per painter, a scoring is as
    wide as the widest of its chunk."""
    columns = ["sakura", "rank", "scorings", "mean_tokens", "zero_share", "sakura_zero_share"]
    gains: Hist = tally["gains"]
    cells = tally["cells"]
    rows = []
    for s in np.flatnonzero(cells):
        zero_all = sum(hist_count(Hist(gains.offset, c), 0) for c in gains.counts[s]) / int(cells[s])
        for r in range(gains.counts.shape[1]):
            h = Hist(gains.offset, gains.counts[s, r])
            n, total, _ = hist_moments(h)
            if n:
                rows.append({"sakura": int(s), "rank": r + 1, "scorings": n, "mean_tokens": total / n,
                             "zero_share": hist_count(h, 0) / n, "sakura_zero_share": zero_all})
    return pd.DataFrame(rows, columns=columns)


def round_tally(games: pd.DataFrame) -> dict[str, Any]:
    """What `round_stats_from` needs of some games, as whole numbers: the histogram of their rounds and
    the games per end reason."""
    reasons = games["end_reason"].astype("string").value_counts(sort=False)
    return {"rounds": hist(ints(games["rounds"], fill=0)),
            "end_reasons": {str(k): int(v) for k, v in reasons.items() if v > 0}}


def round_stats_from(tally: dict[str, Any]) -> dict:
    """Game length in rounds, from a (merged) `round_tally` (the quartiles from its exact histogram): n
    (games), mean, sd, median, q1, q3, min, max, end_reasons ({reason: games}, reasons that occurred) and
    histogram (DataFrame rounds, games, share)."""
    h: Hist = tally["rounds"]
    d = hist_distribution(h)
    n = int(d["n"])
    if not n:
        return {"n": 0, "mean": np.nan, "sd": np.nan, "median": np.nan, "q1": np.nan, "q3": np.nan,
                "min": 0, "max": 0, "end_reasons": {},
                "histogram": pd.DataFrame(columns=["rounds", "games", "share"])}
    return {"n": n, "mean": d["mean"], "sd": d["sd"] if n > 1 else np.nan,
            "median": d["median"], "q1": d["q25"], "q3": d["q75"], "min": int(d["min"]), "max": int(d["max"]),
            "end_reasons": {k: int(v) for k, v in tally["end_reasons"].items() if v > 0},
            "histogram": hist_table(h, "rounds")}
