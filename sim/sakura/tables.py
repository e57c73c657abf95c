"""Sakura's log tables (docs/reference/run-directory.md): a batch's arrays -> games, players, events.

Events hold one row per card played (with its garden and painter actions, whether it resolved, the bumps
it caused and its owner's tokens after) and one per painter at each sakura scored, in play order. In
two-player games the court painter is logged with seat = players, and the games table holds its final
tokens and path index (`court_tokens`, `court_position`; null with 3-6 players), so that a two-player run
can be re-scored under both readings of R-23 (court_can_win) from the logs alone.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from sim.core.log_tables import common_columns, dict_column, ints, strings
from sim.sakura.params import GARDEN_ACTIONS, PAINTER_ACTIONS, SakuraRules

END_REASONS = ["running", "last_sakura", "round_limit"]  # kernels.END_*


def run_tables(first_game: int, seeds: np.ndarray, seating: list[list[str]], out: dict,
               rules: SakuraRules) -> dict[str, pa.Table]:
    """The games, players and events tables of games first_game.. from a batch's arrays (batch.run_batch)."""
    games, players = out["winners"].shape
    game_ids = np.arange(first_game, first_game + games)
    tokens = out["tokens"][:, :players]
    g, p = common_columns(game_ids=game_ids, seeds=seeds, seating=seating, out=out, scores=tokens,
                          end_labels=END_REASONS, config_hash=rules.config_hash)
    g["rounds"] = ints(out["rounds"], np.int16)
    g["bumps"] = ints(out["bumps"], np.int16)
    has_court = out["tokens"].shape[1] > players
    no_court = np.full(games, not has_court)
    court = out["tokens"][:, players] if has_court else np.zeros(games)
    g["court_tokens"] = ints(court, np.int16, no_court)
    # R-23's re-scoring input, as `position` is R-14's (added after the behaviour hashes were pinned:
    # tests/data/table_hashes.json lists it among the columns added since)
    court_at = out["positions"][:, players] if has_court else np.zeros(games)
    g["court_position"] = ints(court_at, np.int8, no_court)
    p["out_turn"] = pa.nulls(games * players, pa.int16())
    p["position"] = ints(out["positions"][:, :players].reshape(-1), np.int8)  # final path index (0 = gate)
    garden_of = np.zeros(61, dtype=np.int8)
    painter_of = np.zeros(61, dtype=np.int8)
    for order, garden, painter in rules.cards:
        garden_of[order], painter_of[order] = garden, painter
    c = out["cards_played"]  # game, round, painter, card, resolved, bumps, tokens after
    s = out["sakura_scored"]  # game, round, sakura, painter, gained
    n_c, n_s = len(c), len(s)
    rows = np.concatenate([np.stack([c[:, 0], c[:, 1], c[:, 2]], 1),
                           np.stack([s[:, 0], s[:, 1], s[:, 3]], 1)])
    order = np.lexsort((np.r_[np.zeros(n_c), np.ones(n_s)], rows[:, 1], rows[:, 0]), axis=0)
    is_card = np.r_[np.ones(n_c, bool), np.zeros(n_s, bool)]
    card = np.r_[c[:, 3], np.zeros(n_s, np.int64)]

    def col(values: np.ndarray, dtype, mask: np.ndarray) -> pa.Array:
        return ints(values[order], dtype, mask[order])

    e = {
        "game_id": ints((rows[:, 0] + first_game)[order], np.int64),
        "round": ints(rows[order, 1], np.int16),
        "seat": ints(rows[order, 2], np.int8),
        "kind": dict_column((~is_card[order]).astype(np.int8), ["card", "sakura"]),
        "card": col(card, np.int8, ~is_card),
        "garden": pa.DictionaryArray.from_arrays(col(garden_of[card], np.int8, ~is_card),
                                                 strings(list(GARDEN_ACTIONS))),
        "painter": pa.DictionaryArray.from_arrays(col(painter_of[card], np.int8, ~is_card),
                                                  strings(list(PAINTER_ACTIONS))),
        "resolved": col(np.r_[c[:, 4], np.zeros(n_s)].astype(bool), np.bool_, ~is_card),
        "bumped": col(np.r_[c[:, 5], np.zeros(n_s)], np.int8, ~is_card),
        "tokens_after": col(np.r_[c[:, 6], np.zeros(n_s)], np.int16, ~is_card),
        "sakura": col(np.r_[np.zeros(n_c), s[:, 2]], np.int8, is_card),
        "tokens_gained": col(np.r_[np.zeros(n_c), s[:, 4]], np.int8, is_card),
    }
    return {"games": pa.table(g), "players": pa.table(p), "events": pa.table(e)}
