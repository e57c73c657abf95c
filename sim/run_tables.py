"""Batch results -> the Arrow tables of a run directory (API.md: games, players, events).

Pure conversions, vectorised with numpy; column types are the smallest that hold the values and strings
are dictionary-encoded, so that the three tables cost under 200 bytes a game on disk. Events are stored
grouped by game, then seat, then turn (a stable sort of play order): play order is recovered by a
stable sort on (game_id, turn), and the grouping lets Parquet's run-length encoding shrink the seat and
turn columns.
"""

from __future__ import annotations

import io

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

COLOURS = ["red", "yellow", "green", "blue", "order"]


# Arrays are built from buffers rather than with pa.array, whose first call imports pandas (0.2 s in
# every worker process).
def _validity(mask: np.ndarray | None) -> pa.Buffer | None:
    if mask is None:
        return None
    return pa.py_buffer(np.packbits(~np.asarray(mask, dtype=bool), bitorder="little"))


def _ints(values: np.ndarray, dtype=None, mask: np.ndarray | None = None) -> pa.Array:
    """A numeric (or boolean) Arrow array from a numpy array; `mask` marks nulls."""
    values = np.ascontiguousarray(values if dtype is None else np.asarray(values).astype(dtype))
    if values.dtype == np.bool_:
        data = pa.py_buffer(np.packbits(values, bitorder="little"))
        return pa.Array.from_buffers(pa.bool_(), len(values), [_validity(mask), data])
    kind = pa.from_numpy_dtype(values.dtype)
    return pa.Array.from_buffers(kind, len(values), [_validity(mask), pa.py_buffer(values)])


def _strings(labels: list[str]) -> pa.Array:
    encoded = [label.encode() for label in labels]
    offsets = np.cumsum([0] + [len(e) for e in encoded]).astype(np.int32)
    return pa.Array.from_buffers(pa.string(), len(labels),
                                 [None, pa.py_buffer(offsets), pa.py_buffer(b"".join(encoded))])


def _dict_column(codes: np.ndarray, labels: list[str], mask: np.ndarray | None = None) -> pa.Array:
    return pa.DictionaryArray.from_arrays(_ints(codes, np.int8, mask), _strings(labels))


def _ranks(scores: np.ndarray) -> np.ndarray:
    """Competition ranking by score (1 = best; equal scores share the rank)."""
    return 1 + (scores[:, None, :] > scores[:, :, None]).sum(axis=2)


def _common(game_ids: np.ndarray, seeds: np.ndarray, players: int, seating: list[list[str]],
            winners: np.ndarray, tie: np.ndarray, decided: np.ndarray, end_reason: np.ndarray,
            end_labels: list[str], config_hash: str, scores: np.ndarray) -> tuple[dict, dict]:
    games = len(game_ids)
    seat_strings = [",".join(names) for names in seating]
    labels = sorted(set(seat_strings))
    n_winners = winners.sum(axis=1)
    games_cols = {
        "game_id": _ints(game_ids, np.int64),
        "seed": _ints(seeds, np.uint64),
        "players": _ints(np.full(games, players), np.int8),
        "agents": _dict_column(np.array([labels.index(x) for x in seat_strings]), labels),
        "winner": _ints(winners.argmax(axis=1), np.int8, n_winners != 1),
        "tie": _ints(tie, np.bool_),
        "decided_by_tiebreak": _ints(decided, np.bool_),
    }
    agent_labels = sorted({name for names in seating for name in names})
    seat_agents = np.array([[agent_labels.index(n) for n in names] for names in seating]).reshape(-1)
    players_cols = {
        "game_id": _ints(np.repeat(game_ids, players), np.int64),
        "seat": _ints(np.tile(np.arange(players), games), np.int8),
        "agent": _dict_column(seat_agents, agent_labels),
        "score": _ints(scores.reshape(-1), np.int16),
        "rank": _ints(_ranks(scores).reshape(-1), np.int8),
        "win_share": _ints((winners / n_winners[:, None]).reshape(-1), np.float32),
    }
    games_cols["end_reason"] = _dict_column(end_reason, end_labels)
    games_cols["config_hash"] = _dict_column(np.zeros(games), [config_hash])
    return games_cols, players_cols


def kamakura_tables(first_game: int, seeds: np.ndarray, seating: list[list[str]], out: dict,
                    config_hash: str, order_moves: tuple[int, ...]) -> dict[str, pa.Table]:
    games, players = out["scores"].shape
    game_ids = np.arange(first_game, first_game + games)
    ends = ["running", "all_chits_gained", "all_passed"]
    g, p = _common(game_ids, seeds, players, seating, out["winners"], out["tie"],
                   out["decided_by_tiebreak"], out["end_reason"], ends, config_hash, out["scores"])
    g["turns"] = _ints(out["turns"], np.int16)
    out_turn = out["out_turn"].reshape(-1)
    p["out_turn"] = _ints(out_turn, np.int16, out_turn < 0)
    # events: one row per chit gained or power activated, in play order
    n = out["n_events"]
    keep = np.arange(out["events"].shape[1])[None, :] < n[:, None]
    ev = out["events"][keep]  # (rows, 4): turn, seat, kind, chit
    game_of = np.repeat(game_ids, n)
    chit = ev[:, 3]
    is_order = chit < 0
    safe = np.where(is_order, 0, chit)
    attrs = out["chits"][np.repeat(np.arange(games), n), safe]  # icons, points, power
    order_power = np.array(order_moves)[ev[:, 1]]
    e = {
        "game_id": _ints(game_of, np.int64),
        "turn": _ints(ev[:, 0], np.int16),
        "seat": _ints(ev[:, 1], np.int8),
        "kind": _dict_column((ev[:, 2] != 0).astype(np.int8), ["gain", "activate"]),
        "chit_id": _ints(safe, np.int8, is_order),
        "colour": _dict_column(np.where(is_order, 4, safe // 10), COLOURS),
        "icons": _ints(attrs[:, 0], np.int8, is_order),
        "points": _ints(attrs[:, 1], np.int8, is_order),
        "power": _ints(np.where(is_order, order_power, attrs[:, 2]), np.int8),
        "line": _ints((safe % 10), np.int8, is_order),
    }
    events = pa.table(e)
    by_seat = np.lexsort((ev[:, 1], game_of))  # stable: keeps play order within a seat's turns
    by_seat_rows = _ints(by_seat, np.int64)
    return {"games": pa.table(g), "players": pa.table(p), "events": events.take(by_seat_rows)}


def sakura_tables(first_game: int, seeds: np.ndarray, seating: list[list[str]], out: dict,
                  config_hash: str, cards: tuple[tuple[int, int, int], ...], garden_ids: tuple[str, ...],
                  painter_ids: tuple[str, ...]) -> dict[str, pa.Table]:
    games, players = out["winners"].shape
    game_ids = np.arange(first_game, first_game + games)
    tokens = out["tokens"][:, :players]
    g, p = _common(game_ids, seeds, players, seating, out["winners"], out["tie"],
                   out["decided_by_tiebreak"], out["end_reason"], ["running", "last_sakura", "round_limit"],
                   config_hash, tokens)
    g["rounds"] = _ints(out["rounds"], np.int16)
    g["bumps"] = _ints(out["bumps"], np.int16)
    court = out["tokens"][:, players] if out["tokens"].shape[1] > players else np.zeros(games)
    g["court_tokens"] = _ints(court, np.int16, np.full(games, players != 2))
    p["out_turn"] = pa.nulls(games * players, pa.int16())
    p["position"] = _ints(out["positions"].reshape(-1), np.int8)  # final path index (0 = gate)
    garden_of = np.zeros(61, dtype=np.int8)
    painter_of = np.zeros(61, dtype=np.int8)
    for order, garden, painter in cards:
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
        return _ints(values[order], dtype, mask[order])

    e = {
        "game_id": _ints((rows[:, 0] + first_game)[order], np.int64),
        "round": _ints(rows[order, 1], np.int16),
        "seat": _ints(rows[order, 2], np.int8),
        "kind": _dict_column((~is_card[order]).astype(np.int8), ["card", "sakura"]),
        "card": col(card, np.int8, ~is_card),
        "garden": pa.DictionaryArray.from_arrays(col(garden_of[card], np.int8, ~is_card),
                                                 _strings(list(garden_ids))),
        "painter": pa.DictionaryArray.from_arrays(col(painter_of[card], np.int8, ~is_card),
                                                  _strings(list(painter_ids))),
        "resolved": col(np.r_[c[:, 4], np.zeros(n_s)].astype(bool), np.bool_, ~is_card),
        "bumped": col(np.r_[c[:, 5], np.zeros(n_s)], np.int8, ~is_card),
        "tokens_after": col(np.r_[c[:, 6], np.zeros(n_s)], np.int16, ~is_card),
        "sakura": col(np.r_[np.zeros(n_c), s[:, 2]], np.int8, is_card),
        "tokens_gained": col(np.r_[np.zeros(n_c), s[:, 4]], np.int8, is_card),
    }
    return {"games": pa.table(g), "players": pa.table(p), "events": pa.table(e)}


def to_parquet_bytes(table: pa.Table) -> bytes:
    sink = io.BytesIO()
    pq.write_table(table, sink, compression="zstd", compression_level=9, use_dictionary=True)
    return sink.getvalue()
