"""What is each Sakura card and action worth? Per card (order number) and per garden or painter action:
how often players played it and the mean win share of the player-games that did, with normal 95%
intervals cluster-robust by game (the player-games of one game are dependent), against the overall mean
win share. The court painter's cards are not counted. Each table is computed from whole-number sums
(`card_tally`, `action_tally`, mergeable across chunks of games) by `card_values_from`,
`action_values_from`: the cluster-robust variance is a quadratic form in per-game sums (`_se_from_sums`).
`component_values_from` is the uniform view of the card values (`GameAnalysis.component_values`, used by
the sweep report). The action ids and their order are the engine's (`sim.sakura.params`).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np
import pandas as pd

from analysis._arrays import floats, ints
from analysis.sakura._columns import _Col, _KeyIndex, _kind_col, _rank, _spans
from analysis.stats import interval_family, wilson_interval
from analysis.tally import SHARE_SCALE, share_units
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


def _unpack(bits: np.ndarray) -> np.ndarray:
    """(n,) uint64 -> (n, 64) uint8 of its bits, bit k in column k."""
    return np.unpackbits(np.ascontiguousarray(bits).view(np.uint8).reshape(-1, 8), axis=1, bitorder="little")


_VALUE_COLUMNS = ["played", "player_games", "win_rate", "ci_low", "ci_high", "win_added", "added_ci_low",
                  "added_ci_high"]


def _value_rows(times, games, wins, *, overall, se, naive_var):
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


#: the sums behind a value table's row (`_key_sums`): player-games with the key (n), their win-share sum
#: (wins) and square sum (squares), and over games the cross-products of each game's win-share sum S and
#: count H of player-games with the key (SS, SH, HH), and the games with any (clusters)
SUM_KEYS = ("n", "wins", "squares", "SS", "SH", "HH", "clusters")
_BLOCK_ROWS = 1 << 16  # players rows unpacked at once by `_key_sums`


def _key_sums(bits: np.ndarray, units: np.ndarray, game: np.ndarray,
              keys: list[int]) -> dict[str, np.ndarray]:
    """For each key (a bit of `bits`, one uint64 per players row): the whole-number sums of `SUM_KEYS`
    over the players rows with the key, win shares `units` in 1/SHARE_SCALE, clustered by `game` (the
    game index of each row)."""
    k = len(keys)
    out = {name: np.zeros(k, dtype=np.int64) for name in SUM_KEYS}
    if not len(bits) or not k:
        return out
    if np.any(game[1:] < game[:-1]):
        order = np.argsort(game, kind="stable")
        bits, units, game = bits[order], units[order], game[order]
    starts = np.flatnonzero(np.r_[True, game[1:] != game[:-1]])  # first row of each game
    first = 0
    while first < len(starts):  # whole games, about _BLOCK_ROWS rows at a time
        last = max(int(np.searchsorted(starts, starts[first] + _BLOCK_ROWS)), first + 1)
        r0 = starts[first]
        r1 = starts[last] if last < len(starts) else len(bits)
        flags = _unpack(bits[r0:r1])[:, keys].astype(np.int64)  # (rows, keys)
        u = units[r0:r1, None]
        won = flags * u
        at = starts[first:last] - r0
        s, h = np.add.reduceat(won, at, axis=0), np.add.reduceat(flags, at, axis=0)  # (games, keys)
        out["n"] += flags.sum(axis=0)
        out["wins"] += won.sum(axis=0)
        out["squares"] += (won * u).sum(axis=0)
        out["SS"] += (s * s).sum(axis=0)
        out["SH"] += (s * h).sum(axis=0)
        out["HH"] += (h * h).sum(axis=0)
        out["clusters"] += (h > 0).sum(axis=0)
        first = last
    return out


def _se_from_sums(sums: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Cluster-robust (by game, CR1) standard error of each key's mean win share over the player-games with
    the key (the player-games of one game are dependent: their shares sum to 1, and one game can hold
    several with the same action), and the naive variance of that mean (as if independent), from
    `_key_sums`: with m = wins / n, the clusters' squared residual sums are
    sum_g (S_g - m H_g)^2 = SS - 2 m SH + m^2 HH and the naive sum of squares is squares - m wins, both
    computed exactly in integers (times n^2, resp. n) before the one division."""
    k = len(sums["n"])
    se, naive = np.full(k, np.nan), np.full(k, np.nan)
    scale2 = SHARE_SCALE * SHARE_SCALE
    for i in range(k):
        n, w = int(sums["n"][i]), int(sums["wins"][i])
        if n == 0:
            continue
        g = int(sums["clusters"][i])
        meat = (n * n * int(sums["SS"][i]) - 2 * n * w * int(sums["SH"][i]) + w * w * int(sums["HH"][i]))
        if g > 1:
            se[i] = math.sqrt(g / (g - 1) * (meat / (n * n * scale2))) / n
        naive[i] = (n * int(sums["squares"][i]) - w * w) / (n * scale2) / max(n - 1, 1) / n
    return se, naive


def _value_table(played: np.ndarray, sums: dict[str, np.ndarray], overall: float) -> pd.DataFrame:
    """The value table's rows (`_VALUE_COLUMNS`) of keys played `played` times with the sums `sums`."""
    se, naive = _se_from_sums(sums)
    wins = sums["wins"] / SHARE_SCALE
    return pd.DataFrame(_value_rows(played, sums["n"], wins, overall=overall, se=se, naive_var=naive),
                        columns=_VALUE_COLUMNS)


def _overall(tally: Mapping[str, Any]) -> float:
    """The mean win share of all player-games."""
    n = int(tally["player_games"])
    return int(tally["units"]) / (n * SHARE_SCALE) if n else np.nan


def card_tally(events: pd.DataFrame, players: pd.DataFrame) -> dict[str, Any]:
    """What `card_values_from` needs of some games, as whole numbers (analysis.tally): player-games and
    their win-share sum (in 1/SHARE_SCALE); per order number 0..63 the times players played it, the times
    it was discarded unresolved and the `SUM_KEYS` sums of the player-games that played it; each card's
    two halves (its garden and painter action ids, by order number)."""
    garden = _Col(events["garden"], text=True)
    painter = _Col(events["painter"], text=True)
    cols = {"card": _Col(events["card"]), "garden": garden, "painter": painter,
            "resolved": _Col(events["resolved"])}
    units = share_units(floats(players["win_share"]))
    bits = np.zeros(len(units), dtype=np.uint64)
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
    found = _key_sums(bits, units, _game_index(players), present.tolist())
    sums = {name: np.zeros(64, dtype=np.int64) for name in SUM_KEYS}
    for name in SUM_KEYS:
        sums[name][present] = found[name]
    return {"player_games": len(units), "units": int(units.sum()), "played": times, "unresolved": unresolved,
            "sums": sums,
            "garden": {str(c): {garden.labels[half_g[c]]} for c in present if half_g[c] >= 0},
            "painter": {str(c): {painter.labels[half_p[c]]} for c in present if half_p[c] >= 0}}


def card_values_from(tally: Mapping[str, Any]) -> pd.DataFrame:
    """Per order number, from a (merged) `card_tally`: card, garden, painter (its two halves), played
    (times players played it; cards played for the court painter are not counted; cards discarded
    unresolved at a sakura stop are), resolved_share (of those plays), player_games (player-games in which
    it was played at least once), win_rate (mean win share of those player-games) with its 95%
    ci_low/ci_high (clustered by game: a quadratic form in per-game sums, `_se_from_sums`), win_added
    (win_rate minus the overall mean win share of all player-games, 1/players when nothing is shared) and
    added_ci_low/added_ci_high (the interval shifted the same way), p_holm and significant (Holm over the
    table's rows: `analysis.stats.interval_family`). Cards never played are left out."""
    times = np.asarray(tally["played"])
    present = np.flatnonzero(times)
    sums = {name: np.asarray(tally["sums"][name])[present] for name in SUM_KEYS}
    with np.errstate(divide="ignore", invalid="ignore"):
        frame = _value_table(times[present], sums, _overall(tally))
    frame.insert(0, "card", present.astype(np.int64))
    frame.insert(1, "garden", [min(tally["garden"].get(str(c), {""})) for c in present])
    frame.insert(2, "painter", [min(tally["painter"].get(str(c), {""})) for c in present])
    frame.insert(4, "resolved_share",
                 1 - np.asarray(tally["unresolved"])[present] / np.maximum(times[present], 1))
    return _with_family(frame)


def _with_family(frame: pd.DataFrame) -> pd.DataFrame:
    """The table's win-added intervals judged as one family (`analysis.stats.interval_family`): ``p_holm``
    and ``significant``, Holm over its rows."""
    family = interval_family(frame["win_added"], frame["added_ci_low"], frame["added_ci_high"])
    return frame.assign(p_holm=family["p_holm"], significant=family["significant"],
                      detectable=family["detectable"])


def action_tally(events: pd.DataFrame, players: pd.DataFrame) -> dict[str, Any]:
    """What `action_values_from` needs of some games, as whole numbers: player-games and their win-share
    sum (in 1/SHARE_SCALE), and per half ("garden", "painter") and action id played: the times players
    played it and the `SUM_KEYS` sums of the player-games that did."""
    garden = _Col(events["garden"], text=True)
    painter = _Col(events["painter"], text=True)
    offset, n_keys = len(garden.labels), len(garden.labels) + len(painter.labels)
    if n_keys > 64:
        raise ValueError("more than 64 action types")
    # bit of each garden code and each painter code (index 0: null, no bit)
    g_bits = np.r_[np.uint64(0), _BIT[:offset]]
    p_bits = np.r_[np.uint64(0), _BIT[offset:n_keys]]
    units = share_units(floats(players["win_share"]))
    bits = np.zeros(len(units), dtype=np.uint64)
    times = np.zeros(n_keys + 2, dtype=np.int64)
    for row, v in _player_cards(events, players, {"garden": garden, "painter": painter}):
        g, p = v["garden"].astype(np.intp) + 1, v["painter"].astype(np.intp) + 1
        times[: offset + 1] += np.bincount(g, minlength=offset + 1)
        times[offset + 1:] += np.bincount(p, minlength=len(painter.labels) + 1)
        np.bitwise_or.at(bits, row, g_bits[g] | p_bits[p])
    times = np.r_[times[1: offset + 1], times[offset + 2:]]
    played = np.flatnonzero(times)
    sums = _key_sums(bits, units, _game_index(players), played.tolist())
    out: dict[str, Any] = {"player_games": len(units), "units": int(units.sum()), "garden": {}, "painter": {}}
    labels = [("garden", label) for label in garden.labels] + [("painter", label) for label in painter.labels]
    for i, key in enumerate(played):
        half, label = labels[key]
        out[half][label] = {"played": int(times[key]), **{name: int(sums[name][i]) for name in SUM_KEYS}}
    return out


def action_values_from(tally: Mapping[str, Any]) -> pd.DataFrame:
    """As `card_values_from`, by action type, from a (merged) `action_tally`: one row per garden action
    (half = "garden") and per painter action (half = "painter"), in the order of the id lists of
    docs/rules.md, R-11.
    Columns: half, action, played, player_games, win_rate, ci_low, ci_high, win_added, added_ci_low,
    added_ci_high, p_holm, significant (Holm over the table's rows)."""
    keys = []
    for half, order in (("garden", GARDEN_ACTIONS), ("painter", PAINTER_ACTIONS)):
        labels = list(tally[half])
        keys += [(half, labels[i]) for i in _rank(labels, order)]
    rows = [tally[half][label] for half, label in keys]
    played = np.array([int(r["played"]) for r in rows], dtype=np.int64)
    sums = {name: np.array([int(r[name]) for r in rows], dtype=np.int64) for name in SUM_KEYS}
    with np.errstate(divide="ignore", invalid="ignore"):
        frame = _value_table(played, sums, _overall(tally))
    frame.insert(0, "half", [half for half, _ in keys])
    frame.insert(1, "action", [label for _, label in keys])
    return _with_family(frame[frame["played"] > 0].reset_index(drop=True))


def component_values_from(own: Mapping[str, Any], config: Mapping[str, Any] | None = None) -> pd.DataFrame:
    """The win added by each card played, in the shape every game gives (`GameAnalysis.component_values`):
    ``item``
    ("card <order number>"), ``win_added``, ``ci_low``, ``ci_high`` (`card_values_from`'s win_added and
    added_ci_low/added_ci_high), one row per card played, from the Sakura half of a run's merged report
    tally. ``config`` (the run manifest's config snapshot) is not needed: the cards' halves are logged with
    them."""
    return _items(card_values_from(own["cards"]))


def _items(table: pd.DataFrame) -> pd.DataFrame:
    return pd.DataFrame({"item": "card " + table["card"].astype(str), "win_added": table["win_added"],
                         "ci_low": table["added_ci_low"], "ci_high": table["added_ci_high"]})
