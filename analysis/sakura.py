"""Sakura balance statistics, computed from a run's logged tables alone (API.md, "Run directory").

Pure functions: DataFrames in, a DataFrame or a dict out; nothing printed or written. The events table of
a million games holds about 60 million rows, so the functions read its columns' buffers without
converting them and walk them in chunks of a few million rows (numpy bincount / bit sets, no Python loop
over games): a few seconds per function at a million games.

Seats are 0-based as in the tables (seat 0 is the start player, "seat 1" in RULES.md prose), as in
`analysis.kamakura`, whose game-independent seat win rates and tie counts are reused here. In two-player
games the neutral court painter is logged with `seat = players`; it never wins and is left out of every
per-player figure (card values, win rates, tie re-scoring) but counted where painters are (bumps, sakura
scoring).
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pandas as pd

from analysis import kamakura as _kamakura
from analysis.stats import wilson_interval

START_TOKENS = 5  # RULES.md, Setup: each player (and the court painter) starts with 5 tokens
TIE_RULES = ("closest_to_emperor", "shared")
GARDEN_ACTIONS = ("E+1", "E+2", "E-1", "E+-1", "closest-2", "furthest+2")
PAINTER_ACTIONS = ("P+1", "P+2", "P+3", "P+-1", "P+-2", "P+-3", "leapfrog", "count")
CHUNK = 1 << 22  # event rows per step: temporaries stay small however large the run
_BIT = np.left_shift(np.uint64(1), np.arange(64, dtype=np.uint64))  # _BIT[k] = 1 << k


# ---- column access -------------------------------------------------------------------------------------
class _Col:
    """A column's values without conversion: numeric columns as their numpy buffer (nullable ones with
    their null mask), text and categorical columns (`text=True`) as codes 0.. (-1 for null) into `labels`.
    `take(rows)` reads some rows (a slice, mask or index array), nulls as `fill`."""

    def __init__(self, series: pd.Series, text: bool = False):
        self.mask: np.ndarray | None = None
        self.labels: list[str] = []
        arr = series.array
        if isinstance(series.dtype, pd.CategoricalDtype) or text:
            if isinstance(arr, pd.Categorical):
                self.values = np.asarray(arr.codes)
                self.labels = [str(c) for c in arr.categories]
            else:
                self.values, uniques = pd.factorize(series, use_na_sentinel=True)
                self.labels = [str(c) for c in uniques]
        elif hasattr(arr, "_data") and hasattr(arr, "_mask"):  # pandas' nullable (masked) arrays
            self.values, self.mask = np.asarray(arr._data), np.asarray(arr._mask)
            if not self.mask.any():
                self.mask = None
        else:
            values = series.to_numpy()
            if values.dtype == object:
                converted = series.convert_dtypes()
                if converted.dtype == object:
                    raise TypeError(f"column {series.name!r}: cannot read {series.dtype} as numbers")
                self.__init__(converted)
                return
            self.values = values
            if values.dtype.kind == "f" and np.isnan(values).any():
                self.mask = np.isnan(values)

    def take(self, rows=slice(None), fill=-1) -> np.ndarray:
        values = self.values[rows]
        if self.mask is not None:
            mask = self.mask[rows]
            if mask.any():
                values = np.where(mask, fill, values)
        return values.view(np.int8) if values.dtype == bool else values

    def ints(self, rows=slice(None), fill=-1) -> np.ndarray:
        return self.take(rows, fill).astype(np.int64, copy=False)

    def floats(self, rows=slice(None)) -> np.ndarray:
        return self.take(rows, np.nan).astype(np.float64, copy=False)


def _ints(series: pd.Series, fill: int = -1) -> np.ndarray:
    return _Col(series).ints(fill=fill)


def _floats(series: pd.Series) -> np.ndarray:
    return _Col(series).floats()


def _spans(n: int) -> Iterator[slice]:
    for start in range(0, n, CHUNK):
        yield slice(start, min(start + CHUNK, n))


def _kind_col(events: pd.DataFrame) -> tuple[_Col, int, int]:
    """The kind column's codes and the codes of "card" and "sakura" (-2 when absent)."""
    col = _Col(events["kind"], text=True)
    code = {label: i for i, label in enumerate(col.labels)}
    return col, code.get("card", -2), code.get("sakura", -2)


class _KeyIndex:
    """Finds the row of (game_id, seat) pairs among given ones; -1 where there is none (e.g. the court
    painter, who has no players row)."""

    def __init__(self, game_id: np.ndarray, seat: np.ndarray):
        self.width = int(seat.max()) + 2 if len(seat) else 1
        self.low = int(game_id.min()) if len(game_id) else 0
        span = (int(game_id.max()) - self.low + 1) if len(game_id) else 0
        self.dense = span * self.width <= max(4 * len(game_id), 1 << 16)
        keys = (game_id - self.low) * self.width + seat
        if self.dense:
            self.table = np.full(span * self.width + 1, -1, dtype=np.int64)  # last entry: "none"
            self.table[keys] = np.arange(len(keys))
        else:
            self.order = np.argsort(keys, kind="stable")
            self.keys = keys[self.order]

    def __call__(self, game_id: np.ndarray, seat: np.ndarray) -> np.ndarray:
        game_id = game_id.astype(np.int64, copy=False)
        keys = game_id - self.low
        keys *= self.width
        keys += seat
        if not len(keys):
            return np.zeros(0, dtype=np.int64)
        in_range = bool(seat.min() >= 0 and seat.max() < self.width and game_id.min() >= self.low)
        if self.dense:
            if not (in_range and keys.max() < len(self.table) - 1):
                ok = (seat >= 0) & (seat < self.width) & (game_id >= self.low) & (keys < len(self.table) - 1)
                keys = np.where(ok, keys, len(self.table) - 1)
            return self.table[keys]
        if not len(self.keys):
            return np.full(len(keys), -1, dtype=np.int64)
        at = np.minimum(np.searchsorted(self.keys, keys), len(self.keys) - 1)
        hit = self.keys[at] == keys
        if not in_range:
            hit &= (seat >= 0) & (seat < self.width) & (game_id >= self.low)
        return np.where(hit, self.order[at], -1)


def _rank(labels: list[str], order: tuple[str, ...]) -> list[int]:
    """Indices of `labels` sorted as in `order` (API.md's id lists), unknown ids last by name."""
    return sorted(range(len(labels)), key=lambda i: (
        order.index(labels[i]) if labels[i] in order else len(order), labels[i]))


def _player_index(players: pd.DataFrame) -> _KeyIndex:
    return _KeyIndex(_ints(players["game_id"]), _ints(players["seat"]))


def _seat_matrix(players: pd.DataFrame, columns: list[str]) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """The players table as (games, seats) float arrays per column (NaN where a seat is missing)."""
    gid = _ints(players["game_id"])
    seat = _ints(players["seat"])
    order = np.lexsort((seat, gid)) if len(gid) and np.any(
        (gid[1:] < gid[:-1]) | ((gid[1:] == gid[:-1]) & (seat[1:] <= seat[:-1]))) else np.arange(len(gid))
    gid, seat = gid[order], seat[order]
    seats = np.unique(seat)
    width = len(seats)
    regular = (width > 0 and len(gid) % width == 0
               and np.array_equal(seat.reshape(-1, width), np.broadcast_to(seats, (len(gid) // width, width)))
               and bool(np.all(gid.reshape(-1, width) == gid.reshape(-1, width)[:, :1])))
    if regular:
        return seats, {c: _floats(players[c])[order].reshape(-1, width) for c in columns}
    _, game_pos = np.unique(gid, return_inverse=True)
    seat_pos = np.searchsorted(seats, seat)
    out = {}
    for c in columns:
        m = np.full((int(game_pos.max()) + 1 if len(game_pos) else 0, width), np.nan)
        m[game_pos, seat_pos] = _floats(players[c])[order]
        out[c] = m
    return seats, out


def _rate_row(successes: float, n: int) -> dict:
    low, high = wilson_interval(successes, n)
    return {"win_rate": successes / n if n else np.nan, "ci_low": low, "ci_high": high}




# ---- 1. seats ------------------------------------------------------------------------------------------
def seat_win_rates(players: pd.DataFrame) -> pd.DataFrame:
    """One row per seat (0-based): seat, games, wins (summed win share under the run's configured tie-break),
    win_rate, Wilson 95% ci_low/ci_high, mean_tokens (mean final tokens). The game-independent
    `analysis.kamakura.seat_win_rates`, with its mean_score named for Sakura's tokens."""
    return _kamakura.seat_win_rates(players).rename(columns={"mean_score": "mean_tokens"})


# ---- 2. card and action values -------------------------------------------------------------------------
def _player_cards(events: pd.DataFrame, players: pd.DataFrame, cols: dict[str, _Col],
                  ) -> Iterator[tuple[np.ndarray, dict[str, np.ndarray]]]:
    """Per chunk of events: the players-table row of each card row played by a player (the court
    painter's are skipped) and those rows' values of `cols`."""
    index = _player_index(players)
    kind, card_code, _ = _kind_col(events)
    game_id, seat = _Col(events["game_id"]), _Col(events["seat"])
    for span in _spans(len(events)):
        rows = np.flatnonzero(kind.take(span) == card_code) + span.start
        row = index(game_id.ints(rows), seat.ints(rows))
        mine = row >= 0
        if not mine.all():
            rows, row = rows[mine], row[mine]
        yield row, {name: col.take(rows) for name, col in cols.items()}


def _bit_values(bits: np.ndarray, share: np.ndarray, keys: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """`bits` holds per players row one bit per key seen in that player-game. For each key: player-games
    with it (each counted once however often the key occurred) and their win-share sum."""
    games = np.zeros(64, dtype=np.int64)
    wins = np.zeros(64)
    step = 1 << 20
    for start in range(0, len(bits), step):
        part, part_share = bits[start: start + step], share[start: start + step]
        games += _unpack(part).sum(axis=0, dtype=np.int64)
        for value in np.unique(part_share[part_share > 0]):  # 1, 1/2, 1/3, ...: a few distinct shares
            wins += value * _unpack(part[part_share == value]).sum(axis=0, dtype=np.int64)
    return games[keys], wins[keys]


def _unpack(bits: np.ndarray) -> np.ndarray:
    """(n,) uint64 -> (n, 64) uint8 of its bits, bit k in column k."""
    return np.unpackbits(np.ascontiguousarray(bits).view(np.uint8).reshape(-1, 8), axis=1, bitorder="little")


_VALUE_COLUMNS = ["played", "player_games", "win_rate", "ci_low", "ci_high", "win_added", "added_ci_low",
                  "added_ci_high"]


def _value_rows(times, games, wins, overall):
    rows = []
    for t, n, w in zip(times, games, wins, strict=True):
        rate = _rate_row(float(w), int(n))
        rows.append({"played": int(t), "player_games": int(n), **rate,
                     "win_added": rate["win_rate"] - overall,
                     "added_ci_low": rate["ci_low"] - overall, "added_ci_high": rate["ci_high"] - overall})
    return rows


def card_values(events: pd.DataFrame, players: pd.DataFrame) -> pd.DataFrame:
    """Per order number: card, garden, painter (its two halves), played (times players played it; cards
    played for the court painter are not counted; cards discarded unresolved at a sakura stop are),
    resolved_share (of those plays), player_games (player-games in which it was played at least once),
    win_rate (mean win share of those player-games) with Wilson 95% ci_low/ci_high, win_added (win_rate
    minus the overall mean win share of all player-games, 1/players when nothing is shared) and
    added_ci_low/added_ci_high (the interval shifted the same way). Cards never played are left out."""
    garden = _Col(events["garden"], text=True)
    painter = _Col(events["painter"], text=True)
    cols = {"card": _Col(events["card"]), "garden": garden, "painter": painter,
            "resolved": _Col(events["resolved"])}
    share = _floats(players["win_share"])
    bits = np.zeros(len(share), dtype=np.uint64)
    times = np.zeros(64, dtype=np.int64)
    unresolved = np.zeros(64, dtype=np.int64)
    half_g = np.full(64, -1, dtype=np.int64)
    half_p = np.full(64, -1, dtype=np.int64)
    for row, v in _player_cards(events, players, cols):
        card = v["card"].astype(np.intp, copy=False)
        if len(card) and (card.min() < 0 or card.max() >= 64):
            raise ValueError("card order numbers outside 0..63 are not supported")
        counts = np.bincount(card, minlength=64)
        unresolved += np.bincount(card[v["resolved"] == 0], minlength=64)
        if np.any((counts > 0) & (half_g < 0)):  # a card's two halves are fixed: read them once
            first = np.flatnonzero(half_g[card] < 0)
            half_g[card[first]] = v["garden"][first]
            half_p[card[first]] = v["painter"][first]
        times += counts
        np.bitwise_or.at(bits, row, _BIT[card])
    present = np.flatnonzero(times)
    games, wins = _bit_values(bits, share, present.tolist())
    overall = float(share.mean()) if len(share) else np.nan
    frame = pd.DataFrame(_value_rows(times[present], games, wins, overall), columns=_VALUE_COLUMNS)
    frame.insert(0, "card", present.astype(np.int64))
    frame.insert(1, "garden", [garden.labels[g] if g >= 0 else "" for g in half_g[present]])
    frame.insert(2, "painter", [painter.labels[p] if p >= 0 else "" for p in half_p[present]])
    frame.insert(4, "resolved_share", 1 - unresolved[present] / np.maximum(times[present], 1))
    return frame


def action_values(events: pd.DataFrame, players: pd.DataFrame) -> pd.DataFrame:
    """As card_values, by action type: one row per garden action (half = "garden") and per painter action
    (half = "painter"), in the order of API.md's id lists. Columns: half, action, played, player_games,
    win_rate, ci_low, ci_high, win_added, added_ci_low, added_ci_high."""
    garden = _Col(events["garden"], text=True)
    painter = _Col(events["painter"], text=True)
    offset, n_keys = len(garden.labels), len(garden.labels) + len(painter.labels)
    if n_keys > 64:
        raise ValueError("more than 64 action types")
    # bit of each garden code and each painter code (index 0: null, no bit)
    g_bits = np.r_[np.uint64(0), _BIT[:offset]]
    p_bits = np.r_[np.uint64(0), _BIT[offset:n_keys]]
    share = _floats(players["win_share"])
    bits = np.zeros(len(share), dtype=np.uint64)
    times = np.zeros(n_keys + 2, dtype=np.int64)
    for row, v in _player_cards(events, players, {"garden": garden, "painter": painter}):
        g, p = v["garden"].astype(np.intp) + 1, v["painter"].astype(np.intp) + 1
        times[: offset + 1] += np.bincount(g, minlength=offset + 1)
        times[offset + 1:] += np.bincount(p, minlength=len(painter.labels) + 1)
        np.bitwise_or.at(bits, row, g_bits[g] | p_bits[p])
    times = np.r_[times[1: offset + 1], times[offset + 2:]]
    games, wins = _bit_values(bits, share, list(range(n_keys)))
    overall = float(share.mean()) if len(share) else np.nan
    frame = pd.DataFrame(_value_rows(times, games, wins, overall), columns=_VALUE_COLUMNS)
    frame.insert(0, "half", ["garden"] * offset + ["painter"] * len(painter.labels))
    frame.insert(1, "action", garden.labels + painter.labels)
    frame = frame.iloc[_rank(garden.labels, GARDEN_ACTIONS)
                       + [offset + i for i in _rank(painter.labels, PAINTER_ACTIONS)]]
    return frame[frame["played"] > 0].reset_index(drop=True)


# ---- 3. bumps ------------------------------------------------------------------------------------------
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
    sakura scoring (the `tokens_gained` of the sakura rows), starting from 5. So for each painter
      lost = 5 + tokens gained at sakuras - final tokens.
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
    bumps = _ints(games["bumps"], fill=0)
    dist = np.bincount(bumps) if n else np.zeros(1, np.int64)
    present = np.flatnonzero(dist)
    with_bump = int(np.count_nonzero(bumps))
    low, high = wilson_interval(with_bump, n)
    lost_by_painter = _tokens_lost(games, events, players)
    n_players = int(_ints(games["players"]).max()) if n else 0
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
    n_players = int(_ints(games["players"]).max()) if len(games) else 0
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
        final = np.bincount(_ints(players["seat"]), weights=_floats(players["score"]), minlength=slots)
        if court:
            final[n_players] = float(np.nansum(_floats(games["court_tokens"])))
        return start + gained - final[:slots]
    # each painter's card of its game's last round (one card per painter and round)
    game_pos = _KeyIndex(_ints(games["game_id"]), np.zeros(len(games), dtype=np.int64))
    last_round = np.r_[_ints(games["rounds"]), -2]  # position -1 (a game not in `games`): no match
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


# ---- 4. sakura scoring ---------------------------------------------------------------------------------
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


# ---- 5. ties -------------------------------------------------------------------------------------------
def tie_stats(games: pd.DataFrame) -> dict:
    """How often the top score is tied and how often the tie-break decided the winner. The
    game-independent `analysis.kamakura.tie_stats` (keys n, top_tied, top_tied_rate, top_tied_ci_low,
    top_tied_ci_high, decided_by_tiebreak, decided_by_tiebreak_rate, decided_by_tiebreak_ci_low,
    decided_by_tiebreak_ci_high, shared_win, shared_win_rate, shared_win_ci_low, shared_win_ci_high; Wilson
    95%) plus decided_share_of_ties (decided / tied; NaN without ties)."""
    out = _kamakura.tie_stats(games)
    out["decided_share_of_ties"] = (out["decided_by_tiebreak"] / out["top_tied"] if out["top_tied"]
                                    else float("nan"))
    return out


def rescore_ties(players: pd.DataFrame, rules: tuple[str, ...] = TIE_RULES) -> pd.DataFrame:
    """Seat win rates re-scored from the logged final scores and painter positions, not from win_share.
    `closest_to_emperor` (R-14): among the players tied on the top score the one whose painter stands
    highest on the path wins; if they all stand on the gate (position 0) they share. `shared`: every
    player tied on top gets 1/k. (The court painter never wins and is not in the players table.)
    One row per rule and seat, as analysis.kamakura.rescore_ties: rule, seat (0-based), games, wins
    (summed re-scored win share), win_rate, ci_low, ci_high (Wilson 95%)."""
    seats, m = _seat_matrix(players, ["score", "position"])
    score, position = m["score"], m["position"]
    present = ~np.isnan(score)
    top = np.max(np.where(present, score, -np.inf), axis=1, keepdims=True) if score.size else score
    tied = present & (score == top)
    rows = []
    for rule in rules:
        if rule == "shared":
            win = tied.astype(float)
        elif rule == "closest_to_emperor":
            pos = np.where(tied, np.nan_to_num(position, nan=0.0), -1.0)
            best = pos.max(axis=1, keepdims=True) if pos.size else pos
            win = (tied & (pos == best)).astype(float)  # all on the gate: every tied player, else one
        else:
            raise ValueError(f"unknown Sakura tie-break rule {rule!r}; known: {', '.join(TIE_RULES)}")
        share = win / np.maximum(win.sum(axis=1, keepdims=True), 1.0)
        for j, seat in enumerate(seats):
            n = int(present[:, j].sum())
            wins = float(share[:, j].sum())
            rows.append({"rule": rule, "seat": int(seat), "games": n, "wins": wins, **_rate_row(wins, n)})
    return pd.DataFrame(rows, columns=["rule", "seat", "games", "wins", "win_rate", "ci_low", "ci_high"])


# ---- 6. game length ------------------------------------------------------------------------------------
def round_stats(games: pd.DataFrame) -> dict:
    """Game length in rounds: n (games), mean, sd, median, q1, q3, min, max, end_reasons ({reason: games},
    reasons that occurred) and histogram (DataFrame rounds, games, share)."""
    rounds = _ints(games["rounds"], fill=0)
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
