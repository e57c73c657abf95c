"""What is each Kamakura chit and power worth? Per chit type (colour x icons): claim and activation rates
and the win share of holders against the others; per power: activation rate and the win share of
activating player-games against the others (normal 95% intervals of the differences). All associations,
not causal effects (those come from `balance values`, analysis/causal_values.py). The logistic regression of
winning on the chits held was removed: the holdings sum to the score, so it measured points, not chits.
`component_values_from` is the registry's uniform view of these associations (`GameAnalysis.component_values`,
used by the sweep report).

The chit colours are the engine's (`sim.kamakura.params.COLOURS`); the events table logs an order chit's
activation with the pseudo-colour `sim.kamakura.tables.ORDER_COLOUR`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from analysis._arrays import player_games
from analysis.kamakura._frames import _EventScan
from analysis.stats import interval_family, wilson_intervals
from analysis.tally import comparison_from_sums, comparison_sums, share_units
from sim.kamakura.params import COLOURS, RULE_DEFAULTS  # COLOURS in colour-number order (0 red .. 3 blue)
from sim.kamakura.tables import ORDER_COLOUR

#: Powers a player can activate: the red, yellow and green chits and the order chit (blue has none).
POWERS: tuple[str, ...] = (*COLOURS[:3], ORDER_COLOUR)

#: The events table's colours: the chit colours and the order chit's pseudo-colour.
_EVENT_COLOURS = (*COLOURS, ORDER_COLOUR)


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


def chit_tally(events: pd.DataFrame, players: pd.DataFrame, config: Mapping[str, Any]) -> dict[str, Any]:
    """What `chit_values_from` needs of some games, as whole numbers (analysis.tally): per chit type of the
    config's set its gains, activations and the sum of its claim turns, and the sums of the cluster-robust
    comparison of holders with the others (`analysis.tally.comparison_sums`, shares in 1/SHARE_SCALE)."""
    pg = player_games(players)
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
    counts = np.zeros(sentinel + 1, dtype=np.int64)
    held = np.zeros(t * total + 1, dtype=bool)  # (type, player-game) flags, the extra last entry a sink
    for a, b, r0, r1 in scan.blocks():
        row = scan.rows(a, b, r0, r1)
        kind = kind_lookup[kind_codes[a:b]]
        chit_type = typer.types(a, b)
        ok = (chit_type >= 0) & (row >= 0) & (kind >= 0) & (turns[a:b] >= 0)
        code = (kind.astype(np.int32) * t + chit_type) * span + turns[a:b]
        code[~ok] = sentinel
        counts += np.bincount(code, minlength=sentinel + 1)
        index = chit_type.astype(np.int64) * total + row
        index[~(ok & (kind == 0))] = t * total
        held[index] = True
    counts = counts[:-1].reshape(2, t, span)
    return {"games": len(pg.game_ids), "gained": counts[0].sum(axis=1), "activations": counts[1].sum(axis=1),
            "turn_sum": counts[0] @ np.arange(span, dtype=np.int64),
            "holders": comparison_sums(held[:-1].reshape(t, total), share_units(pg.share), pg.game,
                                       len(pg.game_ids))}


def chit_values_from(tally: Mapping[str, Any], config: Mapping[str, Any]) -> pd.DataFrame:
    """What each chit type (colour x icons) is worth, from a (merged) `chit_tally`. One row per type of the
    config's chit set:

    ``colour, icons, copies`` (per game), ``points, power`` (config), ``games``, ``gained`` (count),
    ``claim_rate`` (gained / (games x copies)), ``mean_turn_claimed`` (game-wide turn index, 0-based),
    ``activations``, ``activation_rate`` (activations / gains; NaN for a type without power),
    ``n_holders`` (player-games holding at least one), ``holders_win_rate``, ``others_win_rate``,
    ``win_added`` (holders minus others, mean win share) with ``ci_low, ci_high`` (normal 95% interval of
    the difference, its standard error cluster-robust by game), ``n_player_games``, and ``p_holm``,
    ``significant`` (`analysis.stats.interval_family`: Holm over the table's rows).

    ``win_added`` is an association, not a causal effect: holders also tend to be players who gained more."""
    types = chit_types(config)
    cmp = comparison_from_sums(tally["holders"])
    games = int(tally["games"])
    gained, activations = tally["gained"], tally["activations"]
    copies = types["copies"].to_numpy(dtype=float)
    power = types["power"].to_numpy(dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = types.assign(
            games=games, gained=gained, claim_rate=gained / (games * copies),
            mean_turn_claimed=tally["turn_sum"] / gained, activations=activations,
            activation_rate=np.where(power > 0, activations / gained, np.nan),
            n_holders=cmp["n1"].astype(np.int64), holders_win_rate=cmp["m1"], others_win_rate=cmp["m0"],
            win_added=cmp["diff"], ci_low=cmp["low"], ci_high=cmp["high"],
            n_player_games=int(tally["holders"]["n"][0]) if len(types) else 0)
    family = interval_family(out["win_added"], out["ci_low"], out["ci_high"])
    return out.assign(p_holm=family["p_holm"], significant=family["significant"],
                      detectable=family["detectable"])


def _order_seats(config: Mapping[str, Any] | None, seats: int, activated: np.ndarray,
                 seat: np.ndarray) -> np.ndarray:
    """The seats whose order chit grants moves (R-4): from the config, else those seen activating one."""
    if config is not None:
        moves = list((config.get("rules") or {}).get("order_chit_moves", RULE_DEFAULTS["order_chit_moves"]))
        return np.array([s < len(moves) and moves[s] > 0 for s in range(seats)])
    return np.bincount(seat[activated], minlength=seats) > 0


def power_tally(events: pd.DataFrame, players: pd.DataFrame,
                config: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """What `power_values_from` needs of some games, as whole numbers: per power its activations and the
    sums of the cluster-robust comparison of activating player-games with the other eligible ones."""
    pg = player_games(players)
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
    eligible = np.ones((k, n), dtype=bool)
    eligible[3] = _order_seats(config, pg.seats, flags[3], pg.seat)[pg.seat]
    return {"activations": counts,
            "activating": comparison_sums(flags, share_units(pg.share), pg.game, len(pg.game_ids), eligible)}


def power_values_from(tally: Mapping[str, Any]) -> pd.DataFrame:
    """What activating each power is worth, from a (merged) `power_tally`. One row per power (red, yellow,
    green, order chit):

    ``power, n`` (eligible player-games), ``n_activating`` (player-games that activated it at least once),
    ``activation_rate`` with ``activation_ci_low, activation_ci_high`` (Wilson), ``activations`` (count),
    ``mean_activations`` (per eligible player-game), ``activating_win_rate``, ``others_win_rate``,
    ``win_added`` with ``ci_low, ci_high`` (normal 95% interval of the difference of means, cluster-robust
    by game), ``p_holm``, ``significant`` (Holm over the four powers).

    Every player-game is eligible for the chit powers; for the order chit only seats whose order chit grants
    moves (``config["rules"]["order_chit_moves"]`` when `power_tally` had a config, else the seats that
    activated an order chit at least once in these games): the start player's order chit never acts (R-4).
    Like ``win_added`` of chits, an association: activating needs holding, and holding needs gaining."""
    sums = tally["activating"]
    cmp = comparison_from_sums(sums)
    rows = []
    for i, name in enumerate(POWERS):
        m, hits, count = int(sums["n"][i]), int(sums["n1"][i]), int(tally["activations"][i])
        low, high = wilson_intervals(hits, m)
        rows.append({"power": name, "n": m, "n_activating": hits,
                     "activation_rate": hits / m if m else np.nan,
                     "activation_ci_low": float(low), "activation_ci_high": float(high),
                     "activations": count, "mean_activations": count / m if m else np.nan,
                     "activating_win_rate": float(cmp["m1"][i]), "others_win_rate": float(cmp["m0"][i]),
                     "win_added": float(cmp["diff"][i]), "ci_low": float(cmp["low"][i]),
                     "ci_high": float(cmp["high"][i])})
    out = pd.DataFrame(rows)
    family = interval_family(out["win_added"], out["ci_low"], out["ci_high"])
    return out.assign(p_holm=family["p_holm"], significant=family["significant"],
                      detectable=family["detectable"])


def component_values_from(own: Mapping[str, Any], config: Mapping[str, Any]) -> pd.DataFrame:
    """The win added by each chit type, in the shape every game gives (`GameAnalysis.component_values`):
    ``item``
    ("<colour> <icons>", e.g. "red 3"), ``win_added``, ``ci_low``, ``ci_high`` (`chit_values_from`), one
    row per chit type of the config's chit set, from the Kamakura half of a run's merged report tally.
    ``config``: the run manifest's config snapshot."""
    return _items(chit_values_from(own["chits"], config))


def _items(table: pd.DataFrame) -> pd.DataFrame:
    return pd.DataFrame({"item": table["colour"].astype(str) + " " + table["icons"].astype(int).astype(str),
                         "win_added": table["win_added"], "ci_low": table["ci_low"],
                         "ci_high": table["ci_high"]})
