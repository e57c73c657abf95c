"""The kit every game's log tables are built with (games, players, events; docs/reference/run-directory.md):
Arrow columns from numpy arrays, the columns both games log, and Parquet bytes. Each game's own columns are in
sim/<game>/tables.py.

Pure conversions, vectorised with numpy; column types are the smallest that hold the values and strings
are dictionary-encoded, so that the three tables cost under 200 bytes a game on disk.
"""

from __future__ import annotations

import io

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq


# Arrays are built from buffers rather than with pa.array, whose first call imports pandas (0.2 s in
# every worker process).
def validity(mask: np.ndarray | None) -> pa.Buffer | None:
    if mask is None:
        return None
    return pa.py_buffer(np.packbits(~np.asarray(mask, dtype=bool), bitorder="little"))


def ints(values: np.ndarray, dtype=None, mask: np.ndarray | None = None) -> pa.Array:
    """A numeric (or boolean) Arrow array from a numpy array; `mask` marks nulls."""
    values = np.ascontiguousarray(values if dtype is None else np.asarray(values).astype(dtype))
    if values.dtype == np.bool_:
        data = pa.py_buffer(np.packbits(values, bitorder="little"))
        return pa.Array.from_buffers(pa.bool_(), len(values), [validity(mask), data])
    kind = pa.from_numpy_dtype(values.dtype)
    return pa.Array.from_buffers(kind, len(values), [validity(mask), pa.py_buffer(values)])


def strings(labels: list[str]) -> pa.Array:
    encoded = [label.encode() for label in labels]
    offsets = np.cumsum([0] + [len(e) for e in encoded]).astype(np.int32)
    return pa.Array.from_buffers(pa.string(), len(labels),
                                 [None, pa.py_buffer(offsets), pa.py_buffer(b"".join(encoded))])


def dict_column(codes: np.ndarray, labels: list[str], mask: np.ndarray | None = None) -> pa.Array:
    return pa.DictionaryArray.from_arrays(ints(codes, np.int8, mask), strings(labels))


def ranks(scores: np.ndarray) -> np.ndarray:
    """Competition ranking by score (1 = best; equal scores share the rank)."""
    return 1 + (scores[:, None, :] > scores[:, :, None]).sum(axis=2)


def common_columns(game_ids: np.ndarray, seeds: np.ndarray, seating: list[list[str]], out: dict,
                   scores: np.ndarray, end_labels: list[str], config_hash: str) -> tuple[dict, dict]:
    """The columns every game logs, from a batch's `winners`, `tie`, `decided_by_tiebreak` and
    `end_reason` arrays and the final `scores`: (games columns, players columns), to which a game adds its
    own. A batch may also give `other_winners`, per game the winners that are not seats (a neutral
    painter that a game lets win): they count in the 1/k of a shared win, and a game one of them won alone or
    shared has no single `winner`."""
    winners, players = out["winners"], out["winners"].shape[1]
    tie, decided, end_reason = out["tie"], out["decided_by_tiebreak"], out["end_reason"]
    games = len(game_ids)
    seat_strings = [",".join(names) for names in seating]
    labels = sorted(set(seat_strings))
    n_winners = winners.sum(axis=1) + out.get("other_winners", 0)
    games_cols = {
        "game_id": ints(game_ids, np.int64),
        "seed": ints(seeds, np.uint64),
        "players": ints(np.full(games, players), np.int8),
        "agents": dict_column(np.array([labels.index(x) for x in seat_strings]), labels),
        "winner": ints(winners.argmax(axis=1), np.int8, n_winners != 1),
        "tie": ints(tie, np.bool_),
        "decided_by_tiebreak": ints(decided, np.bool_),
    }
    agent_labels = sorted({name for names in seating for name in names})
    seat_agents = np.array([[agent_labels.index(n) for n in names] for names in seating]).reshape(-1)
    players_cols = {
        "game_id": ints(np.repeat(game_ids, players), np.int64),
        "seat": ints(np.tile(np.arange(players), games), np.int8),
        "agent": dict_column(seat_agents, agent_labels),
        "score": ints(scores.reshape(-1), np.int16),
        "rank": ints(ranks(scores).reshape(-1), np.int8),
        "win_share": ints((winners / np.maximum(n_winners, 1)[:, None]).reshape(-1), np.float32),
    }
    games_cols["end_reason"] = dict_column(end_reason, end_labels)
    games_cols["config_hash"] = dict_column(np.zeros(games), [config_hash])
    return games_cols, players_cols


def to_parquet_bytes(table: pa.Table) -> bytes:
    sink = io.BytesIO()
    pq.write_table(table, sink, compression="zstd", compression_level=9, use_dictionary=True)
    return sink.getvalue()


#: the values table's columns (`balance values`, docs/howto/values.md) and their Arrow integer types
ARMS_COLUMNS = {"game_id": np.int64, "position": np.int16, "component": np.int16, "holder": np.int8,
                "with_power": np.bool_, "seat": np.int8, "score": np.int32, "win_share": np.float64}


def arms_table(columns: dict[str, np.ndarray], first_game: int, base_scores: np.ndarray,
               base_shares: np.ndarray, **extra_base: np.ndarray) -> pa.Table:
    """A `balance values` chunk as one table, ordered by game: each game's intervention arms (``columns``,
    one row per arm and seat, ARMS_COLUMNS plus any game-specific ones), then its own game as rows with
    position -1, component -1, holder -1 (base_scores / base_shares: (games, seats); extra_base: the
    game-specific columns of those rows, (games, seats))."""
    games, players = base_scores.shape
    base = {"game_id": np.repeat(np.arange(first_game, first_game + games), players),
            "position": np.full(games * players, -1), "component": np.full(games * players, -1),
            "holder": np.full(games * players, -1), "with_power": np.ones(games * players, dtype=bool),
            "seat": np.tile(np.arange(players), games), "score": base_scores.reshape(-1),
            "win_share": base_shares.reshape(-1), **{k: v.reshape(-1) for k, v in extra_base.items()}}
    game_ids = np.concatenate([np.asarray(columns["game_id"]), base["game_id"]])
    order = np.argsort(game_ids, kind="stable")  # by game, so the rows do not depend on the chunking
    out = {}
    for name, values in columns.items():
        both = np.concatenate([np.asarray(values), np.asarray(base[name])])[order]
        kind = ARMS_COLUMNS.get(name, np.int16)
        out[name] = pa.array(both) if kind == np.float64 else ints(both, kind)
    return pa.table(out)
