"""Kamakura balance statistics (issue 5, item 2), computed from a run's tables alone (API.md "Run directory").

Pure functions: DataFrames in, DataFrames or dicts out; nothing is printed or written. Every rate comes with
its n and a Wilson 95% interval, every difference with a normal 95% interval. The work is vectorised over
whole columns (numpy bincount / reduceat, no Python loop over games), so a million logged games stay within
a few seconds per function.

Seats are 0-based as in the tables (seat 0 is the start player, "seat 1" in RULES.md prose).

Conventions (all hold for tables read with ``analysis.runs.read_run``): ``players`` lists seats 0..P-1 of
every game, in any row order; ``events`` rows may come in any order (the run tables group them by game, then
seat, then turn, which is the fast path; anything else is sorted by game first).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from analysis.stats import (
    Z95,
    chi2_sf,
    diff_of_means_interval,
    logistic_regression,
    mean_interval,
    wilson_intervals,
)

__all__ = [
    "COLOURS",
    "POWERS",
    "TIE_RULES",
    "chit_types",
    "chit_values",
    "holding_regression",
    "lead_changes",
    "lead_changes_per_game",
    "pass_timing",
    "pass_timing_counts",
    "power_values",
    "rescore_ties",
    "score_stats",
    "seat_equality_test",
    "seat_win_rates",
    "start_player_advantage",
    "tie_stats",
]

#: Chit colours in colour-number order (RULES.md: 0 red, 1 yellow, 2 green, 3 blue).
COLOURS: tuple[str, ...] = ("red", "yellow", "green", "blue")
#: Powers a player can activate: the red, yellow and green chits and the order chit (blue has none).
POWERS: tuple[str, ...] = ("red", "yellow", "green", "order")
#: Tie-break rules of R-9, in the order reports show them.
TIE_RULES: tuple[str, ...] = ("last_in_order", "first_in_order", "shared")
_EVENT_COLOURS = (*COLOURS, "order")


# ---------------------------------------------------------------------------------------------------------
# Column access and the player-game index


def _ints(series: pd.Series, na: int = -1) -> np.ndarray:
    """A (possibly nullable) integer column as int64, NA -> ``na``."""
    return series.to_numpy(dtype=np.int64, na_value=na)


def _floats(series: pd.Series) -> np.ndarray:
    return series.to_numpy(dtype=np.float64, na_value=np.nan)


def _bools(series: pd.Series) -> np.ndarray:
    return series.to_numpy(dtype=bool, na_value=False)


@dataclass(frozen=True)
class _PlayerGames:
    """The players table as arrays sorted by (game, seat), with per-game row offsets."""

    game_ids: np.ndarray  # (G,) sorted game ids
    starts: np.ndarray  # (G,) first row of each game
    sizes: np.ndarray  # (G,) players in each game
    game: np.ndarray  # (N,) game index of each row
    seat: np.ndarray  # (N,)
    share: np.ndarray  # (N,) win share
    score: np.ndarray  # (N,) float score
    frame: pd.DataFrame  # the players table in this row order

    @property
    def seats(self) -> int:
        return int(self.seat.max()) + 1 if len(self.seat) else 0


def _player_games(players: pd.DataFrame) -> _PlayerGames:
    if len(players) == 0:
        raise ValueError("players table is empty")
    gid = _ints(players["game_id"])
    seat = _ints(players["seat"])
    ordered = bool(np.all((gid[1:] > gid[:-1]) | ((gid[1:] == gid[:-1]) & (seat[1:] > seat[:-1]))))
    if not ordered:
        order = np.lexsort((seat, gid))
        players = players.iloc[order]
        gid, seat = gid[order], seat[order]
    new = np.empty(len(gid), dtype=bool)
    new[0] = True
    np.not_equal(gid[1:], gid[:-1], out=new[1:])
    starts = np.flatnonzero(new)
    game = np.cumsum(new) - 1
    sizes = np.diff(np.append(starts, len(gid)))
    if not np.array_equal(seat, np.arange(len(gid)) - starts[game]):
        raise ValueError("players table must list seats 0..P-1 of every game")
    return _PlayerGames(game_ids=gid[starts], starts=starts, sizes=sizes, game=game, seat=seat,
                        share=_floats(players["win_share"]), score=_floats(players["score"]),
                        frame=players)


#: Events are processed in blocks of whole games of about this many rows, so that temporary arrays stay small
#: (first-touch page faults of big temporaries dominate the cost at tens of millions of rows).
_BLOCK_ROWS = 1 << 20


class _EventScan:
    """The events table as compact numpy columns, cut into blocks of whole games, with each event's
    player-game row (index into ``_PlayerGames``) computed per block.

    Game ids are looked up, and seats checked, once per run of equal game ids rather than once per row."""

    def __init__(self, events: pd.DataFrame, pg: _PlayerGames, block_rows: int | None = None):
        block_rows = block_rows or _BLOCK_ROWS
        gid = events["game_id"].to_numpy(dtype=np.int64, na_value=-1)  # a view when there is no NA
        n = len(gid)
        if n:
            new = np.empty(n, dtype=bool)
            new[0] = True
            np.not_equal(gid[1:], gid[:-1], out=new[1:])
            run_starts = np.flatnonzero(new)
            if np.any(np.diff(gid[run_starts]) <= 0):  # not grouped by ascending game: sort once
                events = events.iloc[np.argsort(gid, kind="stable")]
                gid = events["game_id"].to_numpy(dtype=np.int64, na_value=-1)
                np.not_equal(gid[1:], gid[:-1], out=new[1:])
                run_starts = np.flatnonzero(new)
            del new
        else:
            run_starts = np.empty(0, dtype=np.int64)
        self.events = events
        self.n = n
        self.pg = pg
        self.seat = events["seat"].to_numpy(dtype=np.int8, na_value=-1) if n else np.empty(0, np.int8)
        run_ids = gid[run_starts]
        pos = np.minimum(np.searchsorted(pg.game_ids, run_ids), max(len(pg.game_ids) - 1, 0))
        ok = pg.game_ids[pos] == run_ids if n else np.empty(0, dtype=bool)
        if n:
            ok &= np.minimum.reduceat(self.seat, run_starts) >= 0
            ok &= np.maximum.reduceat(self.seat, run_starts) < pg.sizes[pos]
        #: per run of equal game ids (= per game, events being grouped): start row, game index (-1: unknown)
        self.run_starts = run_starts
        self.run_game = np.where(ok, pos, -1)
        self._run_base = np.where(ok, pg.starts[pos], -(1 << 40))
        self._all_ok = bool(ok.all())
        # block cuts at run starts, about block_rows apart
        if n:
            targets = np.arange(0, n, block_rows)
            cut_runs = np.unique(np.searchsorted(run_starts, targets, side="left"))
            cut_runs = cut_runs[cut_runs < len(run_starts)]
            self._cut_runs = np.append(cut_runs, len(run_starts))
        else:
            self._cut_runs = np.zeros(1, dtype=np.int64)
        self._columns: dict[str, np.ndarray] = {}

    def blocks(self):
        """Yield ``(a, b, r0, r1)``: event rows a:b holding exactly the runs (games) r0:r1."""
        for r0, r1 in zip(self._cut_runs[:-1], self._cut_runs[1:], strict=True):
            a = int(self.run_starts[r0])
            b = int(self.run_starts[r1]) if r1 < len(self.run_starts) else self.n
            yield a, b, int(r0), int(r1)

    def run_lengths(self, a: int, b: int, r0: int, r1: int) -> np.ndarray:
        return np.diff(np.append(self.run_starts[r0:r1], b))

    def rows(self, a: int, b: int, r0: int, r1: int) -> np.ndarray:
        """Player-game row of each event in a:b; -1 where game or seat is unknown to the players table."""
        row = np.repeat(self._run_base[r0:r1], self.run_lengths(a, b, r0, r1))
        row += self.seat[a:b]
        if not self._all_ok:
            row[row < 0] = -1
        return row

    def int_column(self, name: str, dtype=np.int16) -> np.ndarray:
        """An integer column as a compact numpy array, NA -> -1 (cached)."""
        if name not in self._columns:
            self._columns[name] = self.events[name].to_numpy(dtype=dtype, na_value=-1)
        return self._columns[name]

    def code_column(self, name: str, names: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
        """A string column as raw int codes and a lookup mapping them (index -1 included, as the last entry)
        to positions in ``names`` (-1 for anything else): ``lookup[codes[a:b]]``."""
        series = self.events[name]
        if isinstance(series.dtype, pd.CategoricalDtype):
            codes = np.asarray(series.array.codes)
            lookup = [names.index(c) if c in names else -1 for c in series.cat.categories]
        else:
            codes = pd.Categorical(series, categories=list(names)).codes
            lookup = list(range(len(names)))
        return codes, np.array([*lookup, -1], dtype=np.int8)


def _fair_share(pg: _PlayerGames) -> float:
    """Expected win share of a seat when all seats are equal: mean over games of 1 / players."""
    return float(np.mean(1.0 / pg.sizes))


def _moments(n, total, squares):
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = total / n
        var = (squares - total * mean) / (n - 1)
    return n, mean, np.clip(var, 0.0, None)


def _distribution(values: np.ndarray) -> dict[str, float]:
    """n, mean, sd, 95% interval of the mean, min, quartiles and max of a sample (NaNs dropped)."""
    values = values[~np.isnan(values)]
    n = len(values)
    if n == 0:
        return {"n": 0, **{k: float("nan") for k in
                           ("mean", "sd", "ci_low", "ci_high", "min", "q25", "median", "q75", "max")}}
    mean = float(values.mean())
    sd = float(values.std(ddof=1)) if n > 1 else float("nan")
    low, high = mean_interval(mean, sd, n)
    q25, median, q75 = np.quantile(values, [0.25, 0.5, 0.75])
    return {"n": n, "mean": mean, "sd": sd, "ci_low": float(low), "ci_high": float(high),
            "min": float(values.min()), "q25": float(q25), "median": float(median), "q75": float(q75),
            "max": float(values.max())}


def _counts(values: np.ndarray, name: str, unit: str = "games") -> pd.DataFrame:
    """Histogram-ready table: each distinct value, how many, and the share."""
    values = values[~np.isnan(values)]
    distinct, counts = np.unique(values, return_counts=True)
    if len(distinct) and np.all(distinct == np.round(distinct)):
        distinct = distinct.astype(np.int64)
    total = counts.sum()
    return pd.DataFrame({name: distinct, unit: counts,
                         "share": counts / total if total else np.zeros(len(counts))})


# ---------------------------------------------------------------------------------------------------------
# 1-2. Seats


def seat_win_rates(players: pd.DataFrame) -> pd.DataFrame:
    """One row per seat: ``seat, games, wins, win_rate, ci_low, ci_high, mean_score``.

    ``wins`` is the summed win share (ties counted by the configured tie-break, shared wins as 1/k) and
    ``win_rate`` its mean; the interval is Wilson's 95% on the summed shares."""
    pg = _player_games(players)
    k = pg.seats
    games = np.bincount(pg.seat, minlength=k)
    wins = np.bincount(pg.seat, weights=pg.share, minlength=k)
    score = np.bincount(pg.seat, weights=pg.score, minlength=k)
    low, high = wilson_intervals(wins, games)
    with np.errstate(divide="ignore", invalid="ignore"):
        return pd.DataFrame({"seat": np.arange(k), "games": games, "wins": wins, "win_rate": wins / games,
                             "ci_low": low, "ci_high": high, "mean_score": score / games})


def seat_equality_test(players: pd.DataFrame) -> dict[str, Any]:
    """Chi-square goodness-of-fit test of "every seat wins equally often" on the summed win shares.

    Expected wins of a seat = all wins x that seat's share of the player-games. Returns ``statistic, dof,
    p_value, n`` (games), plus ``observed`` and ``expected`` per seat."""
    pg = _player_games(players)
    k = pg.seats
    games = np.bincount(pg.seat, minlength=k).astype(float)
    observed = np.bincount(pg.seat, weights=pg.share, minlength=k)
    expected = observed.sum() * games / games.sum()
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(expected > 0, (observed - expected) ** 2 / expected, 0.0)
    statistic = float(terms.sum())
    dof = k - 1
    p_value = chi2_sf(statistic, dof) if dof > 0 and observed.sum() > 0 else float("nan")
    return {"statistic": statistic, "dof": dof, "p_value": p_value, "n": len(pg.game_ids),
            "observed": observed.tolist(), "expected": expected.tolist()}


def start_player_advantage(players: pd.DataFrame) -> dict[str, Any]:
    """Seat 0's win rate minus the fair share 1/P: ``value, ci_low, ci_high`` (the Wilson 95% interval of
    seat 0's rate shifted by 1/P), ``n`` (games), ``win_rate`` (seat 0) and ``fair_share``."""
    pg = _player_games(players)
    first = pg.seat == 0
    n = int(first.sum())
    wins = float(pg.share[first].sum())
    fair = _fair_share(pg)
    low, high = wilson_intervals(wins, n)
    rate = wins / n if n else float("nan")
    return {"value": rate - fair, "ci_low": float(low) - fair, "ci_high": float(high) - fair, "n": n,
            "win_rate": rate, "fair_share": fair}


# ---------------------------------------------------------------------------------------------------------
# 3. Ties


def tie_stats(games: pd.DataFrame) -> dict[str, Any]:
    """How often the top score is shared and how often the tie-break decided the winner.

    Keys: ``n``, ``top_tied`` (count), ``top_tied_rate``, ``top_tied_ci_low``, ``top_tied_ci_high``,
    ``decided_by_tiebreak`` (count), ``decided_by_tiebreak_rate``, ``decided_by_tiebreak_ci_low``,
    ``decided_by_tiebreak_ci_high``, ``shared_win`` (games with no single winner) and its ``_rate``."""
    n = len(games)
    out: dict[str, Any] = {"n": n}
    columns = {"top_tied": _bools(games["tie"]),
               "decided_by_tiebreak": _bools(games["decided_by_tiebreak"]),
               "shared_win": games["winner"].isna().to_numpy(dtype=bool)}
    for name, mask in columns.items():
        count = int(mask.sum())
        low, high = wilson_intervals(count, n)
        out[name] = count
        out[f"{name}_rate"] = count / n if n else float("nan")
        out[f"{name}_ci_low"] = float(low)
        out[f"{name}_ci_high"] = float(high)
    return out


def rescore_ties(players: pd.DataFrame, rules: Iterable[str] = TIE_RULES) -> pd.DataFrame:
    """Seat win rates re-scored from the logged final scores under each tie-break rule (R-9), ignoring the
    logged ``win_share``: ``last_in_order`` (the highest seat among those with the top score wins),
    ``first_in_order`` (the lowest), ``shared`` (each of k tied players gets 1/k).

    Long format, one row per (rule, seat): ``rule, seat, games, wins, win_rate, ci_low, ci_high``."""
    pg = _player_games(players)
    k = pg.seats
    score = np.nan_to_num(pg.score, nan=-np.inf)
    top = np.maximum.reduceat(score, pg.starts)
    is_top = score == top[pg.game]
    n_top = np.add.reduceat(is_top.astype(np.int64), pg.starts)
    games = np.bincount(pg.seat, minlength=k)
    rows = []
    for rule in rules:
        if rule == "shared":
            share = is_top / n_top[pg.game]
        elif rule == "last_in_order":
            chosen = np.maximum.reduceat(np.where(is_top, pg.seat, -1), pg.starts)
            share = (pg.seat == chosen[pg.game]).astype(float)
        elif rule == "first_in_order":
            chosen = np.minimum.reduceat(np.where(is_top, pg.seat, np.iinfo(np.int64).max), pg.starts)
            share = (pg.seat == chosen[pg.game]).astype(float)
        else:
            raise ValueError(f"unknown tie-break rule {rule!r}; expected one of {', '.join(TIE_RULES)}")
        wins = np.bincount(pg.seat, weights=share, minlength=k)
        low, high = wilson_intervals(wins, games)
        with np.errstate(divide="ignore", invalid="ignore"):
            rows.append(pd.DataFrame({"rule": rule, "seat": np.arange(k), "games": games, "wins": wins,
                                      "win_rate": wins / games, "ci_low": low, "ci_high": high}))
    return pd.concat(rows, ignore_index=True)


# ---------------------------------------------------------------------------------------------------------
# 4. Chits and powers


def chit_types(config: Mapping[str, Any]) -> pd.DataFrame:
    """The chit types (colour, icons) of a config's chit set: ``colour, icons, copies, points, power``
    (points and power are the mean over the copies, normally all equal), in colour then icons order."""
    chits = config.get("chits") if config else None
    if not chits:
        raise ValueError("config has no [chits] table (expected the run manifest's config snapshot)")
    rows = []
    for colour in COLOURS:
        items = chits.get(colour, [])
        frame = pd.DataFrame(list(items), columns=["icons", "points", "power"])
        for icons, group in frame.groupby("icons", sort=True):
            rows.append({"colour": colour, "icons": int(icons), "copies": len(group),
                         "points": float(group["points"].mean()), "power": float(group["power"].mean())})
    return pd.DataFrame(rows, columns=["colour", "icons", "copies", "points", "power"])


class _ChitTyper:
    """Chit type (row of ``chit_types(config)``) of events from their colour and icons; -1 for the order chit
    and anything not in the config's chit set."""

    _WIDTH = 17  # icons -1..15

    def __init__(self, scan: _EventScan, types: pd.DataFrame):
        self.colour_codes, colour_lookup = scan.code_column("colour", COLOURS)
        self.icons = scan.int_column("icons", np.int8)
        by_type = {(c, int(i)): index for index, (c, i) in enumerate(zip(types["colour"], types["icons"],
                                                                         strict=True))}
        # (raw colour code + 1, icons + 1) -> type; raw colour codes run from -1 (NA) up
        self.lookup = np.full(len(colour_lookup) * self._WIDTH, -1, dtype=np.int16)
        for raw in range(-1, len(colour_lookup) - 1):
            colour = int(colour_lookup[raw])
            for icon in range(16):
                index = by_type.get((COLOURS[colour], icon), -1) if colour >= 0 else -1
                self.lookup[(raw + 1) * self._WIDTH + icon + 1] = index

    def types(self, a: int, b: int, take: np.ndarray | None = None) -> np.ndarray:
        """Types of events a:b, or of the events ``take`` (indices relative to a) among them."""
        colours, icons = self.colour_codes[a:b], self.icons[a:b]
        if take is not None:
            colours, icons = colours.take(take), icons.take(take)
        raw = colours.astype(np.int16)
        raw += 1
        raw *= self._WIDTH
        raw += np.clip(icons, -1, 15)
        raw += 1
        return self.lookup[raw]


def _share_sums(flags: np.ndarray, share: np.ndarray, chunk: int = 1 << 18) -> tuple[np.ndarray, np.ndarray]:
    """Per row of ``flags`` (k, N) bool: the sum of ``share`` and of its squares over the flagged columns,
    by matrix products over column chunks (no (k, N) float temporary)."""
    k = flags.shape[0]
    sums = np.zeros((k, 2))
    both = np.column_stack([share, share * share])
    for a in range(0, flags.shape[1], chunk):
        sums += flags[:, a:a + chunk].astype(np.float64) @ both[a:a + chunk]
    return sums[:, 0], sums[:, 1]


def _holder_comparison(flags: np.ndarray, share: np.ndarray) -> dict[str, np.ndarray]:
    """For each row of ``flags`` (k, N) bool: mean win share of flagged vs unflagged player-games and the
    difference with its 95% interval."""
    total_n, total, squares = float(len(share)), share.sum(), (share * share).sum()
    n1 = np.count_nonzero(flags, axis=1).astype(float)
    s1, q1 = _share_sums(flags, share)
    n1, m1, v1 = _moments(n1, s1, q1)
    n0, m0, v0 = _moments(total_n - n1, total - s1, squares - q1)
    diff, low, high = diff_of_means_interval(m1, v1, n1, m0, v0, n0)
    return {"n1": n1, "m1": m1, "n0": n0, "m0": m0, "diff": diff, "low": low, "high": high}


def chit_values(events: pd.DataFrame, players: pd.DataFrame, config: Mapping[str, Any]) -> pd.DataFrame:
    """What each chit type (colour x icons) is worth. One row per type of the config's chit set:

    ``colour, icons, copies`` (per game), ``points, power`` (config), ``games``, ``gained`` (count),
    ``claim_rate`` (gained / (games x copies)), ``mean_turn_claimed`` (game-wide turn index, 0-based),
    ``activations``, ``activation_rate`` (activations / gains; NaN for a type without power),
    ``n_holders`` (player-games holding at least one), ``holders_win_rate``, ``others_win_rate``,
    ``win_added`` (holders minus others, mean win share) with ``ci_low, ci_high`` (normal 95% interval of a
    difference of two means, each group's own variance), ``n_player_games``.

    ``win_added`` is an association, not a causal effect: holders also tend to be players who gained more."""
    pg = _player_games(players)
    types = chit_types(config)
    t = len(types)
    total = len(pg.share)
    scan = _EventScan(events, pg)
    typer = _ChitTyper(scan, types)
    kind_codes, kind_lookup = scan.code_column("kind", ("gain", "activate"))
    turns = scan.int_column("turn", np.int16)
    span = int(turns.max()) + 1 if len(turns) else 1
    # histogram of (kind, type, turn) with one extra bin for everything else
    sentinel = 2 * t * span
    hist = np.zeros(sentinel + 1, dtype=np.int64)
    held = np.zeros(t * total + 1, dtype=bool)  # (type, player-game) flags, the extra last entry a sink
    for a, b, r0, r1 in scan.blocks():
        row = scan.rows(a, b, r0, r1)
        kind = kind_lookup[kind_codes[a:b]]
        chit_type = typer.types(a, b)
        ok = (chit_type >= 0) & (row >= 0) & (kind >= 0) & (turns[a:b] >= 0)
        code = (kind.astype(np.int32) * t + chit_type) * span + turns[a:b]
        code[~ok] = sentinel
        hist += np.bincount(code, minlength=sentinel + 1)
        index = chit_type.astype(np.int64) * total + row
        index[~(ok & (kind == 0))] = t * total
        held[index] = True
    hist = hist[:-1].reshape(2, t, span)
    gained = hist[0].sum(axis=1)
    activations = hist[1].sum(axis=1)
    turn_sum = hist[0] @ np.arange(span, dtype=np.float64)
    held = held[:-1]
    cmp = _holder_comparison(held.reshape(t, total), pg.share)
    games = len(pg.game_ids)
    copies = types["copies"].to_numpy(dtype=float)
    power = types["power"].to_numpy(dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = types.assign(
            games=games, gained=gained, claim_rate=gained / (games * copies),
            mean_turn_claimed=turn_sum / gained, activations=activations,
            activation_rate=np.where(power > 0, activations / gained, np.nan),
            n_holders=cmp["n1"].astype(np.int64), holders_win_rate=cmp["m1"], others_win_rate=cmp["m0"],
            win_added=cmp["diff"], ci_low=cmp["low"], ci_high=cmp["high"], n_player_games=total)
    return out


def power_values(events: pd.DataFrame, players: pd.DataFrame,
                 config: Mapping[str, Any] | None = None) -> pd.DataFrame:
    """What activating each power is worth. One row per power (red, yellow, green, order chit):

    ``power, n`` (eligible player-games), ``n_activating`` (player-games that activated it at least once),
    ``activation_rate`` with ``activation_ci_low, activation_ci_high`` (Wilson), ``activations`` (count),
    ``mean_activations`` (per eligible player-game), ``activating_win_rate``, ``others_win_rate``,
    ``win_added`` with ``ci_low, ci_high`` (normal 95% interval of the difference of means).

    Every player-game is eligible for the chit powers; for the order chit only seats whose order chit grants
    moves (``config["rules"]["order_chit_moves"]`` when a config is given, else the seats that activated an
    order chit at least once in these games): the start player's order chit never acts (R-4).
    Like ``win_added`` of chits, an association: activating needs holding, and holding needs gaining."""
    pg = _player_games(players)
    n = len(pg.share)
    k = len(POWERS)
    scan = _EventScan(events, pg)
    kind_codes, kind_lookup = scan.code_column("kind", ("gain", "activate"))
    colour_codes, colour_lookup = scan.code_column("colour", _EVENT_COLOURS)
    # raw colour code (red, yellow, green, blue, order in any category order; -1 last) -> power index
    to_power = np.array([0, 1, 2, -1, 3, -1], dtype=np.int8)[colour_lookup]
    activate = np.flatnonzero(kind_lookup == 1)
    activate_code = int(activate[0]) if len(activate) and activate[0] < len(kind_lookup) - 1 else -2
    flags = np.zeros(k * n, dtype=bool)
    counts = np.zeros(k, dtype=np.int64)
    for a, b, r0, r1 in scan.blocks():
        power = to_power[colour_codes[a:b]]
        row = scan.rows(a, b, r0, r1)
        act = kind_codes[a:b] == activate_code
        act &= power >= 0
        act &= row >= 0
        where = np.flatnonzero(act)
        p = power.take(where).astype(np.int64)
        counts += np.bincount(p, minlength=k)
        p *= n
        p += row.take(where)
        flags[p] = True
    flags = flags.reshape(k, n)
    seats = pg.seats
    if config is not None:
        moves = list((config.get("rules") or {}).get("order_chit_moves", [0, 2, 3, 4]))
        order_seats = np.array([s < len(moves) and moves[s] > 0 for s in range(seats)])
    else:
        order_seats = np.bincount(pg.seat[flags[3]], minlength=seats) > 0
    eligible = np.ones((k, n), dtype=bool)
    eligible[3] = order_seats[pg.seat]
    rows = []
    for i, name in enumerate(POWERS):
        share = pg.share[eligible[i]]
        flag = flags[i][eligible[i]]
        cmp = _holder_comparison(flag[None, :], share)
        m = len(share)
        hits = int(flag.sum())
        low, high = wilson_intervals(hits, m)
        rows.append({"power": name, "n": m, "n_activating": hits,
                     "activation_rate": hits / m if m else np.nan,
                     "activation_ci_low": float(low), "activation_ci_high": float(high),
                     "activations": int(counts[i]), "mean_activations": counts[i] / m if m else np.nan,
                     "activating_win_rate": float(cmp["m1"][0]), "others_win_rate": float(cmp["m0"][0]),
                     "win_added": float(cmp["diff"][0]), "ci_low": float(cmp["low"][0]),
                     "ci_high": float(cmp["high"][0])})
    return pd.DataFrame(rows)


def holding_regression(events: pd.DataFrame, players: pd.DataFrame, config: Mapping[str, Any],
                       max_rows: int = 200_000, seed: int = 0, ridge: float = 1e-3) -> pd.DataFrame:
    """Logistic regression of winning (win share > 0) on the number of chits of each type a player held at
    the end, with seat as a categorical covariate (seat 0 the baseline), fitted by IRLS on at most
    ``max_rows`` player-games (a seeded random subsample when there are more).

    One row per term (``intercept``, ``red_1`` .. ``blue_4``, ``seat_1`` ..): ``term, kind`` (intercept,
    chit or seat), ``colour, icons`` (chit terms), ``coef`` (log odds per chit held), ``stderr``,
    ``ci_low, ci_high`` (95% interval of coef), ``odds_ratio, or_low, or_high``, ``n`` (player-games used).
    A term whose column never varies in the sample (a type nobody gained) is left out of the fit: NaN."""
    pg = _player_games(players)
    types = chit_types(config)
    t = len(types)
    total = len(pg.share)
    if total > max_rows:
        rng = np.random.default_rng(seed)
        sample = np.sort(rng.choice(total, size=max_rows, replace=False))
    else:
        sample = np.arange(total)
    m = len(sample)
    where = np.full(total + 1, -1, dtype=np.int64)  # the extra last entry answers row -1
    where[sample] = np.arange(m)
    scan = _EventScan(events, pg)
    typer = _ChitTyper(scan, types)
    kind_codes, kind_lookup = scan.code_column("kind", ("gain", "activate"))
    gain_code = int(np.flatnonzero(kind_lookup == 0)[0]) if (kind_lookup == 0).any() else -2
    keys = []
    for a, b, r0, r1 in scan.blocks():
        r = where[scan.rows(a, b, r0, r1)]
        take = np.flatnonzero((r >= 0) & (kind_codes[a:b] == gain_code))
        chit_type = typer.types(a, b, take)
        known = chit_type >= 0
        keys.append(r.take(take)[known] * t + chit_type[known])
    counts = np.bincount(np.concatenate(keys) if keys else np.empty(0, np.int64),
                         minlength=m * t).reshape(m, t)
    seats = pg.seats
    seat = pg.seat[sample]
    dummies = (seat[:, None] == np.arange(1, seats)[None, :]).astype(float)
    X = np.column_stack([np.ones(m), counts.astype(float), dummies])
    y = (pg.share[sample] > 0).astype(float)
    terms = ["intercept", *(f"{c}_{i}" for c, i in zip(types["colour"], types["icons"], strict=True)),
             *(f"seat_{s}" for s in range(1, seats))]
    kinds = ["intercept", *(["chit"] * t), *(["seat"] * (seats - 1))]
    varies = np.ones(X.shape[1], dtype=bool)
    varies[1:] = X[:, 1:].std(axis=0) > 0
    coef = np.full(X.shape[1], np.nan)
    stderr = np.full(X.shape[1], np.nan)
    if m:
        coef[varies], stderr[varies] = logistic_regression(X[:, varies], y, ridge=ridge)
    colour = [None, *types["colour"], *([None] * (seats - 1))]
    icons = [np.nan, *types["icons"].astype(float), *([np.nan] * (seats - 1))]
    low, high = coef - Z95 * stderr, coef + Z95 * stderr
    return pd.DataFrame({"term": terms, "kind": kinds, "colour": colour, "icons": icons, "coef": coef,
                         "stderr": stderr, "ci_low": low, "ci_high": high, "odds_ratio": np.exp(coef),
                         "or_low": np.exp(low), "or_high": np.exp(high), "n": m})


# ---------------------------------------------------------------------------------------------------------
# 5. Scores, margins, game length, passing, lead changes


def score_stats(players: pd.DataFrame, games: pd.DataFrame) -> dict[str, Any]:
    """Scores and decisiveness. Keys:

    - ``by_seat``: DataFrame ``seat, n, mean, sd, ci_low, ci_high`` (95% interval of the mean), ``min, q25,
      median, q75, max`` of final scores;
    - ``margin``: dict of the first-minus-second score per game (0 when the top is tied): ``n, mean, sd,
      ci_low, ci_high, min, q25, median, q75, max, zero_rate``; ``margin_counts``: DataFrame
      ``margin, games, share`` (histogram-ready);
    - ``length``: dict of game length in turns (same keys as margin, without zero_rate);
      ``length_counts``: DataFrame ``turns, games, share``;
    - ``end_reasons``: DataFrame ``end_reason, games, rate, ci_low, ci_high``."""
    pg = _player_games(players)
    by_seat = []
    for seat in range(pg.seats):
        by_seat.append({"seat": seat, **_distribution(pg.score[pg.seat == seat])})
    score = np.nan_to_num(pg.score, nan=-np.inf)
    first = np.maximum.reduceat(score, pg.starts)
    is_first = score == first[pg.game]
    n_first = np.add.reduceat(is_first.astype(np.int64), pg.starts)
    second = np.maximum.reduceat(np.where(is_first, -np.inf, score), pg.starts)
    margin = np.where(n_first >= 2, 0.0, first - second)
    margin[~np.isfinite(margin)] = np.nan  # one-player games have no second score
    margin_summary = _distribution(margin)
    margin_summary["zero_rate"] = float(np.mean(margin[~np.isnan(margin)] == 0)) if margin_summary["n"] \
        else float("nan")
    turns = _floats(games["turns"])
    reasons = games["end_reason"].astype("string").fillna("<NA>")
    reason_counts = reasons.value_counts(sort=True)
    low, high = wilson_intervals(reason_counts.to_numpy(), len(games))
    end_reasons = pd.DataFrame({"end_reason": reason_counts.index.to_numpy(dtype=object),
                                "games": reason_counts.to_numpy(),
                                "rate": reason_counts.to_numpy() / max(len(games), 1),
                                "ci_low": low, "ci_high": high})
    return {"by_seat": pd.DataFrame(by_seat), "margin": margin_summary,
            "margin_counts": _counts(margin, "margin"), "length": _distribution(turns),
            "length_counts": _counts(turns, "turns"), "end_reasons": end_reasons}


def pass_timing(players: pd.DataFrame) -> pd.DataFrame:
    """When players pass out of the game (R-8), per seat: ``seat, n`` (player-games), ``passed``,
    ``never_passed_rate`` with ``ci_low, ci_high`` (Wilson; the game ended with every chit gained first),
    and the turn of passing among those who passed (game-wide turn index): ``mean_out_turn, sd_out_turn,
    q25_out_turn, median_out_turn, q75_out_turn``."""
    pg = _player_games(players)
    out = _floats(pg.frame["out_turn"])
    rows = []
    for seat in range(pg.seats):
        values = out[pg.seat == seat]
        n = len(values)
        never = int(np.isnan(values).sum())
        low, high = wilson_intervals(never, n)
        d = _distribution(values)
        rows.append({"seat": seat, "n": n, "passed": n - never,
                     "never_passed_rate": never / n if n else np.nan,
                     "ci_low": float(low), "ci_high": float(high), "mean_out_turn": d["mean"],
                     "sd_out_turn": d["sd"], "q25_out_turn": d["q25"], "median_out_turn": d["median"],
                     "q75_out_turn": d["q75"]})
    return pd.DataFrame(rows)


def pass_timing_counts(players: pd.DataFrame) -> pd.DataFrame:
    """Histogram-ready distribution of the passing turn per seat: ``seat, out_turn, players, share`` (share
    of that seat's player-games; players who never passed are not listed)."""
    pg = _player_games(players)
    out = _floats(pg.frame["out_turn"])
    passed = ~np.isnan(out)
    seats = pg.seats
    turn = out[passed].astype(np.int64)
    if len(turn) == 0:
        return pd.DataFrame({"seat": [], "out_turn": [], "players": [], "share": []})
    span = int(turn.max()) + 1
    counts = np.bincount(pg.seat[passed] * span + turn, minlength=seats * span).reshape(seats, span)
    seat_idx, turn_idx = np.nonzero(counts)
    per_seat = np.bincount(pg.seat, minlength=seats)
    c = counts[seat_idx, turn_idx]
    return pd.DataFrame({"seat": seat_idx, "out_turn": turn_idx, "players": c,
                         "share": c / per_seat[seat_idx]})


def _lead_changes_block(game: np.ndarray, seat: np.ndarray, turn: np.ndarray, points: np.ndarray,
                        games: int) -> np.ndarray:
    """Lead changes of ``games`` games from their gain events: ``game`` the local game index 0..games-1,
    the rows of one (game, seat) in turn order (they are sorted here when they are not)."""
    if len(game) == 0:
        return np.zeros(games, dtype=np.int64)
    span = int(turn.max()) + 1
    seats = int(seat.max()) + 1
    wide = np.int64 if games * seats * span >= 2**31 else np.int32
    key = game.astype(wide)
    key *= seats
    key += seat
    key *= span
    key += turn
    if np.any(key[1:] < key[:-1]):
        order = np.argsort(key, kind="stable")
        game, seat, turn, points, key = game[order], seat[order], turn[order], points[order], key[order]
    # cumulative score of each player-game after each gain (reset where the player-game changes)
    cum = np.cumsum(points, dtype=np.int64)
    new_pg = np.empty(len(key), dtype=bool)
    new_pg[0] = True
    np.not_equal(game[1:], game[:-1], out=new_pg[1:])
    new_pg[1:] |= seat[1:] != seat[:-1]
    seg = np.flatnonzero(new_pg)
    cum -= np.repeat(cum[seg] - points[seg], np.diff(np.append(seg, len(cum))))
    # the score after the last gain of each (player-game, turn), placed on a (game, turn) grid
    last = np.empty(len(key), dtype=bool)
    last[-1] = True
    np.not_equal(key[1:], key[:-1], out=last[:-1])
    cell = game[last].astype(wide)
    cell *= span
    cell += turn[last]
    small = np.int16 if cum.max(initial=0) < 2**15 else np.int64
    grid_cum = np.zeros(games * span, dtype=small)
    grid_seat = np.zeros(games * span, dtype=np.int8)
    grid_cum[cell] = cum[last]
    grid_seat[cell] = seat[last]
    grid_cum = grid_cum.reshape(games, span)
    # a turn sets a record when its score beats every earlier score of the game (and 0); a tie does not
    best = np.maximum.accumulate(grid_cum, axis=1)
    before = np.zeros_like(best)
    before[:, 1:] = best[:, :-1]
    r_cell = np.flatnonzero(grid_cum > before)
    r_game = r_cell // span
    r_seat = grid_seat[r_cell]
    change = np.zeros(len(r_game), dtype=bool)
    change[1:] = (r_game[1:] == r_game[:-1]) & (r_seat[1:] != r_seat[:-1])
    return np.bincount(r_game[change], minlength=games)


def lead_changes_per_game(events: pd.DataFrame, players: pd.DataFrame) -> pd.Series:
    """Number of lead changes in each game (Series indexed by ``game_id``, every game of ``players``).

    The leader after a turn is the player with the highest cumulative score; a tie keeps the previous
    leader, so the lead changes only when another player's score rises strictly above the leader's. The
    first player to score takes the lead without it counting as a change."""
    pg = _player_games(players)
    result = np.zeros(len(pg.game_ids), dtype=np.int64)
    scan = _EventScan(events, pg)
    if scan.n:
        kind_codes, kind_lookup = scan.code_column("kind", ("gain", "activate"))
        turns = scan.int_column("turn", np.int16)
        points = scan.int_column("points", np.int16)
        gain_code = int(np.flatnonzero(kind_lookup == 0)[0]) if (kind_lookup == 0).any() else -2
        for a, b, r0, r1 in scan.blocks():
            row = scan.rows(a, b, r0, r1)
            gain = kind_codes[a:b] == gain_code
            gain &= row >= 0
            gain &= turns[a:b] >= 0
            where = np.flatnonzero(gain)
            per_run = np.add.reduceat(gain, scan.run_starts[r0:r1] - a, dtype=np.int64)
            local = np.repeat(np.arange(r1 - r0, dtype=np.int32), per_run)
            changes = _lead_changes_block(local, scan.seat[a:b].take(where), turns[a:b].take(where),
                                          np.clip(points[a:b].take(where), 0, None), r1 - r0)
            games = scan.run_game[r0:r1]
            known = games >= 0
            result[games[known]] += changes[known]
    return pd.Series(result, index=pd.Index(pg.game_ids, name="game_id"), name="lead_changes")


def lead_changes(events: pd.DataFrame, players: pd.DataFrame) -> dict[str, Any]:
    """Summary of lead changes per game (see ``lead_changes_per_game``): ``n, mean, sd, ci_low, ci_high,
    min, q25, median, q75, max, zero_rate`` and ``counts`` (DataFrame ``lead_changes, games, share``)."""
    per_game = lead_changes_per_game(events, players).to_numpy(dtype=float)
    summary = _distribution(per_game)
    summary["zero_rate"] = float(np.mean(per_game == 0)) if len(per_game) else float("nan")
    summary["counts"] = _counts(per_game, "lead_changes")
    return summary
