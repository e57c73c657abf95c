"""How does a Sakura game unfold? Bumps (painters stopped by the Emperor, R-15) and the tokens they
cost, per game, per painter and per action; tokens won at each sakura by finishing rank; and game length
in rounds with the end reasons. The starting tokens and the action ids are the engine's
(`sim.sakura.kernels.START_TOKENS`, `sim.sakura.params`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from analysis._arrays import floats, ints
from analysis.sakura._columns import _Col, _KeyIndex, _kind_col, _rank, _spans
from analysis.stats import wilson_interval
from sim.sakura.kernels import START_TOKENS  # RULES.md Setup: each painter starts with 5 tokens
from sim.sakura.params import GARDEN_ACTIONS, PAINTER_ACTIONS


def _rows_of(kind: _Col, code: int) -> np.ndarray:
    """Indices of the event rows of one kind, found chunk by chunk."""
    parts = [np.flatnonzero(kind.take(span) == code) + span.start for span in _spans(len(kind.values))]
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)


def bump_stats(games: pd.DataFrame, events: pd.DataFrame, players: pd.DataFrame | None = None) -> dict:
    """Bumps (a painter stopped by the Emperor and sent back, R-15) and the tokens they cost.

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
    With `players` given, final tokens are players.score (and games.court_tokens for the court painter):
    exact (tokens_lost_method "final scores"). Without it they are read from the card rows: the painter's
    `tokens_after` on its card of the game's last round (games.rounds), plus what it gained at a sakura
    scored in that round when its card resolved before the card that stopped the Emperor there (a card's
    tokens_after includes a sakura scored during its own resolution or before it; cards after the stop
    are discarded, resolved = False, and show the tokens after scoring). This misses only bumps that hit a
    painter after its own last card resolved and before the game ended (a later card of the last round),
    so it is a lower bound (tokens_lost_method "card rows"); on real runs it is within 0.1% of exact.
    """
    n = len(games)
    bumps = ints(games["bumps"], fill=0)
    dist = np.bincount(bumps) if n else np.zeros(1, np.int64)
    present = np.flatnonzero(dist)
    with_bump = int(np.count_nonzero(bumps))
    low, high = wilson_interval(with_bump, n)
    lost_by_painter = _tokens_lost(games, events, players)
    n_players = int(ints(games["players"]).max()) if n else 0
    total = float(lost_by_painter.sum())
    return {
        "n": n,
        "bumps_mean": float(bumps.mean()) if n else np.nan,
        "bumps_sd": float(bumps.std(ddof=1)) if n > 1 else np.nan,
        "bumps_median": float(np.median(bumps)) if n else np.nan,
        "bumps_max": int(bumps.max()) if n else 0,
        "games_with_bump": with_bump,
        "games_with_bump_rate": with_bump / n if n else np.nan,
        "games_with_bump_ci_low": low, "games_with_bump_ci_high": high,
        "distribution": pd.DataFrame({"bumps": present, "games": dist[present],
                                      "share": dist[present] / max(n, 1)}),
        "tokens_lost_total": int(round(total)),
        "tokens_lost_mean": total / n if n else np.nan,
        "tokens_lost_per_bump": total / float(bumps.sum()) if bumps.sum() else np.nan,
        "tokens_lost_method": "final scores" if players is not None else "card rows",
        "by_painter": pd.DataFrame({"seat": np.arange(len(lost_by_painter)),
                                    "court": np.arange(len(lost_by_painter)) >= n_players,
                                    "tokens_lost_mean": lost_by_painter / n if n else np.nan}),
        "by_action": _bumps_by_action(events),
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


def _bumps_by_action(events: pd.DataFrame) -> pd.DataFrame:
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
    out = []
    for i, (half, col) in enumerate(halves):
        for j in _rank(col.labels, GARDEN_ACTIONS if half == "garden" else PAINTER_ACTIONS):
            label = col.labels[j]
            c = int(count[i][j + 1])
            if c:
                out.append({"half": half, "action": label, "cards": c, "bumps": int(total[i][j + 1]),
                            "bumps_per_card": total[i][j + 1] / c})
    return pd.DataFrame(out, columns=["half", "action", "cards", "bumps", "bumps_per_card"])


def sakura_tokens(events: pd.DataFrame, players_count: int) -> pd.DataFrame:
    """Tokens won at each sakura by finishing rank there. At every scoring the painters (the players, plus
    the court painter with two players) are ranked by tokens_gained, highest first (equal gains: either
    order, the values are the same). One row per sakura (index 0..2) and rank (1..painters): sakura, rank,
    scorings (n), mean_tokens, zero_share (share of painters at that rank who got nothing), and
    sakura_zero_share (share of all painters at that sakura who got nothing)."""
    columns = ["sakura", "rank", "scorings", "mean_tokens", "zero_share", "sakura_zero_share"]
    painters = players_count + (1 if players_count == 2 else 0)
    kind, _, sakura_code = _kind_col(events)
    sak = _rows_of(kind, sakura_code)
    gid = _Col(events["game_id"]).ints(sak)
    idx = _Col(events["sakura"]).ints(sak)
    gain = _Col(events["tokens_gained"]).floats(sak)
    if not len(gid):
        return pd.DataFrame(columns=columns)
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
    rows = []
    for s in np.unique(which):
        part = ranked[which == s]
        zero_all = float(np.nanmean(part == 0)) if part.size else np.nan
        for r in range(part.shape[1]):
            values = part[:, r]
            values = values[~np.isnan(values)]
            if len(values):
                rows.append({"sakura": int(s), "rank": r + 1, "scorings": len(values),
                             "mean_tokens": float(values.mean()), "zero_share": float(np.mean(values == 0)),
                             "sakura_zero_share": zero_all})
    return pd.DataFrame(rows, columns=columns)


def round_stats(games: pd.DataFrame) -> dict:
    """Game length in rounds: n (games), mean, sd, median, q1, q3, min, max, end_reasons ({reason: games},
    reasons that occurred) and histogram (DataFrame rounds, games, share)."""
    rounds = ints(games["rounds"], fill=0)
    n = len(rounds)
    reasons = games["end_reason"].astype("string").value_counts(sort=False)
    if not n:
        return {"n": 0, "mean": np.nan, "sd": np.nan, "median": np.nan, "q1": np.nan, "q3": np.nan,
                "min": 0, "max": 0, "end_reasons": {},
                "histogram": pd.DataFrame(columns=["rounds", "games", "share"])}
    counts = np.bincount(rounds)
    present = np.flatnonzero(counts)
    q1, median, q3 = np.percentile(rounds, [25, 50, 75])
    return {"n": n, "mean": float(rounds.mean()), "sd": float(rounds.std(ddof=1)) if n > 1 else np.nan,
            "median": float(median), "q1": float(q1), "q3": float(q3),
            "min": int(rounds.min()), "max": int(rounds.max()),
            "end_reasons": {str(k): int(v) for k, v in reasons.items() if v > 0},
            "histogram": pd.DataFrame({"rounds": present, "games": counts[present],
                                       "share": counts[present] / n})}
