"""What is each Sakura card and action worth? Per card (order number) and per garden or painter action:
how often players played it and the mean win share of the player-games that did, with normal 95%
intervals cluster-robust by game (the player-games of one game are dependent), against the overall mean
win share. The court painter's cards are not counted.
`component_values` is the registry's uniform view of the card values (`GameSpec.component_values`, used by
the sweep and tune commands). The action ids and their order are the engine's (`sim.sakura.params`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np
import pandas as pd

from analysis._arrays import floats, ints
from analysis.sakura._columns import _Col, _KeyIndex, _kind_col, _rank, _spans
from analysis.stats import interval_family, wilson_interval
from sim.sakura.params import GARDEN_ACTIONS, PAINTER_ACTIONS

_BIT = np.left_shift(np.uint64(1), np.arange(64, dtype=np.uint64))  # _BIT[k] = 1 << k


def _player_index(players: pd.DataFrame) -> _KeyIndex:
    return _KeyIndex(ints(players["game_id"]), ints(players["seat"]))


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


def _clustered_se(bits: np.ndarray, share: np.ndarray, game: np.ndarray, keys: list[int],
                  means: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Cluster-robust (by game, CR1) standard error of each key's mean win share over the player-games
    with the key (the player-games of one game are dependent: their shares sum to 1, and one game can
    hold several with the same action), and the naive variance of that mean (as if independent)."""
    n_games = int(game.max()) + 1 if len(game) else 0
    sums = np.zeros((len(keys), n_games))
    hits = np.zeros((len(keys), n_games))
    squares = np.zeros(len(keys))
    step = 1 << 18
    for start in range(0, len(bits), step):
        flags = _unpack(bits[start: start + step])[:, keys].astype(float)  # (rows, keys)
        resid = flags * (share[start: start + step, None] - means[None, :])
        g = game[start: start + step]
        for i in range(len(keys)):
            sums[i] += np.bincount(g, weights=resid[:, i], minlength=n_games)
            hits[i] += np.bincount(g, weights=flags[:, i], minlength=n_games)
        squares += (resid ** 2).sum(axis=0)
    clusters = (hits > 0).sum(axis=1)  # games holding the key: statsmodels' CR1 factor G / (G - 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        scale = np.where(clusters > 1, clusters / (clusters - 1), np.nan)
        se = np.sqrt(scale * (sums ** 2).sum(axis=1)) / counts
        naive = squares / np.maximum(counts - 1, 1) / counts  # sample variance / n, as if independent
    return se, naive


def _value_rows(times, games, wins, overall, se, naive_var):
    """Rows of the value tables: the mean win share of the player-games with the key and its Wilson 95%
    interval at the effective sample size n / deff, where the design effect deff is the clustered
    variance of the mean over the naive one (Wilson keeps a sensible interval at small n and rates near
    0 or 1; deff accounts for the player-games of one game being dependent), and the same less the
    overall mean (a constant: the shares of a game sum to 1)."""
    rows = []
    for t, n, w, e, v in zip(times, games, wins, se, naive_var, strict=True):
        rate = w / n if n else np.nan
        deff = e ** 2 / v if np.isfinite(e) and np.isfinite(v) and v > 0 else 1.0
        n_eff = n / deff if deff > 0 else n
        low, high = wilson_interval(rate * n_eff, n_eff) if n else (np.nan, np.nan)
        rows.append({"played": int(t), "player_games": int(n), "win_rate": rate, "ci_low": low,
                     "ci_high": high, "win_added": rate - overall,
                     "added_ci_low": low - overall, "added_ci_high": high - overall})
    return rows


def _game_index(players: pd.DataFrame) -> np.ndarray:
    return np.unique(ints(players["game_id"]), return_inverse=True)[1]


def card_values(events: pd.DataFrame, players: pd.DataFrame) -> pd.DataFrame:
    """Per order number: card, garden, painter (its two halves), played (times players played it; cards
    played for the court painter are not counted; cards discarded unresolved at a sakura stop are),
    resolved_share (of those plays), player_games (player-games in which it was played at least once),
    win_rate (mean win share of those player-games) with its 95% ci_low/ci_high (clustered by game),
    win_added (win_rate minus the overall mean win share of all player-games, 1/players when nothing is
    shared) and
    added_ci_low/added_ci_high (the interval shifted the same way), p_holm and significant (Holm over the
    table's rows: `analysis.stats.interval_family`). Cards never played are left out."""
    garden = _Col(events["garden"], text=True)
    painter = _Col(events["painter"], text=True)
    cols = {"card": _Col(events["card"]), "garden": garden, "painter": painter,
            "resolved": _Col(events["resolved"])}
    share = floats(players["win_share"])
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
    with np.errstate(divide="ignore", invalid="ignore"):
        se, naive = _clustered_se(bits, share, _game_index(players), present.tolist(), wins / games, games)
    frame = pd.DataFrame(_value_rows(times[present], games, wins, overall, se, naive), columns=_VALUE_COLUMNS)
    frame.insert(0, "card", present.astype(np.int64))
    frame.insert(1, "garden", [garden.labels[g] if g >= 0 else "" for g in half_g[present]])
    frame.insert(2, "painter", [painter.labels[p] if p >= 0 else "" for p in half_p[present]])
    frame.insert(4, "resolved_share", 1 - unresolved[present] / np.maximum(times[present], 1))
    return _with_family(frame)


def _with_family(frame: pd.DataFrame) -> pd.DataFrame:
    """The table's win-added intervals judged as one family (`analysis.stats.interval_family`): ``p_holm``
    and ``significant``, Holm over its rows."""
    family = interval_family(frame["win_added"], frame["added_ci_low"], frame["added_ci_high"])
    return frame.assign(p_holm=family["p_holm"], significant=family["significant"],
                      detectable=family["detectable"])


def action_values(events: pd.DataFrame, players: pd.DataFrame) -> pd.DataFrame:
    """As card_values, by action type: one row per garden action (half = "garden") and per painter action
    (half = "painter"), in the order of API.md's id lists. Columns: half, action, played, player_games,
    win_rate, ci_low, ci_high, win_added, added_ci_low, added_ci_high, p_holm, significant (Holm over the
    table's rows)."""
    garden = _Col(events["garden"], text=True)
    painter = _Col(events["painter"], text=True)
    offset, n_keys = len(garden.labels), len(garden.labels) + len(painter.labels)
    if n_keys > 64:
        raise ValueError("more than 64 action types")
    # bit of each garden code and each painter code (index 0: null, no bit)
    g_bits = np.r_[np.uint64(0), _BIT[:offset]]
    p_bits = np.r_[np.uint64(0), _BIT[offset:n_keys]]
    share = floats(players["win_share"])
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
    with np.errstate(divide="ignore", invalid="ignore"):
        se, naive = _clustered_se(bits, share, _game_index(players), list(range(n_keys)), wins / games, games)
    frame = pd.DataFrame(_value_rows(times, games, wins, overall, se, naive), columns=_VALUE_COLUMNS)
    frame.insert(0, "half", ["garden"] * offset + ["painter"] * len(painter.labels))
    frame.insert(1, "action", garden.labels + painter.labels)
    frame = frame.iloc[_rank(garden.labels, GARDEN_ACTIONS)
                       + [offset + i for i in _rank(painter.labels, PAINTER_ACTIONS)]]
    return _with_family(frame[frame["played"] > 0].reset_index(drop=True))


def component_values(events: pd.DataFrame, players: pd.DataFrame,
                     config: Mapping[str, Any] | None = None) -> pd.DataFrame:
    """The win added by each card played, in the registry's uniform shape (`GameSpec.component_values`):
    ``item`` ("card <order number>"), ``win_added``, ``ci_low``, ``ci_high`` (`card_values`' win_added and
    added_ci_low/added_ci_high), one row per card played. ``config`` (the run manifest's config snapshot)
    is not needed: the cards' halves are logged with them."""
    table = card_values(events, players)
    return pd.DataFrame({"item": "card " + table["card"].astype(str), "win_added": table["win_added"],
                         "ci_low": table["added_ci_low"], "ci_high": table["added_ci_high"]})
