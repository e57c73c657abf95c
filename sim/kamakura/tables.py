"""Kamakura's log tables (docs/reference/run-directory.md): a batch's arrays -> games, players, events.

Events are stored grouped by game, then seat, then turn (a stable sort of play order): play order is
recovered by a stable sort on (game_id, turn), and the grouping lets Parquet's run-length encoding shrink
the seat and turn columns. An order chit's activation is logged with the pseudo-colour "order".
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from sim.core.log_tables import common_columns, dict_column, ints
from sim.kamakura.params import COLOURS, KamakuraRules

END_REASONS = ["running", "all_chits_gained", "all_passed"]  # kernels.END_*
ORDER_COLOUR = "order"


def run_tables(first_game: int, seeds: np.ndarray, seating: list[list[str]], out: dict,
               rules: KamakuraRules) -> dict[str, pa.Table]:
    """The games, players and events tables of games first_game.. from a batch's arrays (batch.run_batch)."""
    games = out["scores"].shape[0]
    game_ids = np.arange(first_game, first_game + games)
    g, p = common_columns(game_ids=game_ids, seeds=seeds, seating=seating, out=out, scores=out["scores"],
                          end_labels=END_REASONS, config_hash=rules.config_hash)
    g["turns"] = ints(out["turns"], np.int16)
    out_turn = out["out_turn"].reshape(-1)
    p["out_turn"] = ints(out_turn, np.int16, out_turn < 0)
    # the turn of each seat's final `end` or `pass`, so `last_to_play` re-scores from the logs
    p["last_turn"] = ints(out["last_turn"].reshape(-1), np.int16)
    # events: one row per chit gained or power activated, in play order
    n = out["n_events"]
    keep = np.arange(out["events"].shape[1])[None, :] < n[:, None]
    ev = out["events"][keep]  # (rows, 4): turn, seat, kind, chit
    game_of = np.repeat(game_ids, n)
    chit = ev[:, 3]
    is_order = chit < 0
    safe = np.where(is_order, 0, chit)
    attrs = out["chits"][np.repeat(np.arange(games), n), safe]  # icons, points, power
    order_power = np.array(rules.order_chit_moves)[ev[:, 1]]
    e = {
        "game_id": ints(game_of, np.int64),
        "turn": ints(ev[:, 0], np.int16),
        "seat": ints(ev[:, 1], np.int8),
        "kind": dict_column((ev[:, 2] != 0).astype(np.int8), ["gain", "activate"]),
        "chit_id": ints(safe, np.int8, is_order),
        "colour": dict_column(np.where(is_order, 4, safe // 10), [*COLOURS, ORDER_COLOUR]),
        "icons": ints(attrs[:, 0], np.int8, is_order),
        "points": ints(attrs[:, 1], np.int8, is_order),
        "power": ints(np.where(is_order, order_power, attrs[:, 2]), np.int8),
        "line": ints((safe % 10), np.int8, is_order),
    }
    events = pa.table(e)
    by_seat = np.lexsort((ev[:, 1], game_of))  # stable: keeps play order within a seat's turns
    by_seat_rows = ints(by_seat, np.int64)
    return {"games": pa.table(g), "players": pa.table(p), "events": events.take(by_seat_rows)}
