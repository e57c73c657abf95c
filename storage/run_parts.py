"""What a run directory's parts should hold, and whether they do.

Every chunk, once its parts are renamed into place, is recorded in `chunks.jsonl`: its game range and each
table's row count, one JSON line appended by the run's one writer (storage/run_lock.py). A reader checks
the recorded chunks against the parts (present, readable, the recorded rows), so a truncated or deleted
part is reported by name instead of a traceback or a silently smaller sample; the writer moves a damaged
chunk's parts aside to `quarantine/` and plays its games again. A chunk finished but not recorded (a run
written before the record existed, or one killed between its rename and its record) is checked by
reading its parts' footers and recorded then.
"""

from __future__ import annotations

import io
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from sim.core.errors import ConfigError
from sim.core.file_reads import read_regular

RECORDS = "chunks.jsonl"
QUARANTINE = "quarantine"


def part_name(start: int, end: int) -> str:
    return f"part-{start:010d}-{end:010d}.parquet"


def rows_of(data: bytes) -> int:
    """The rows of a part's Parquet bytes (from its footer)."""
    return pq.ParquetFile(io.BytesIO(data)).metadata.num_rows


def footer_rows(path: Path) -> int | None:
    """The rows a part's footer says it holds, or None when it cannot be read (missing, truncated)."""
    try:
        return pq.read_metadata(path).num_rows
    except (OSError, pa.ArrowException):
        return None


@dataclass(frozen=True)
class Damage:
    """A chunk whose parts do not hold what was recorded: which part and what is wrong."""

    start: int
    end: int
    table: str
    what: str

    def text(self) -> str:
        return f"{self.table}.parquet/{part_name(self.start, self.end)} {self.what}"


#: what one chunk's record holds; a record file past this many bytes a line is not the toolkit's
_RECORD_KEYS = {"start", "end", "rows"}
MAX_RECORDS_BYTES = 256 * 2**20  # about two million chunks' records: far past any run the runner plans


@dataclass(frozen=True)
class ChunkRecord:
    """One line of chunks.jsonl: a finished chunk's games [start, end) and the rows each of its tables
    holds, which its parts are checked against."""

    start: int
    end: int
    rows: dict[str, int]

    def line(self) -> str:
        return json.dumps({"start": self.start, "end": self.end, "rows": self.rows}) + "\n"

    @classmethod
    def parse(cls, line: str) -> ChunkRecord:
        """A record from its line; ValueError saying what is wrong."""
        try:
            item = json.loads(line, parse_constant=lambda name: float("nan"))
        except RecursionError:
            raise ValueError("JSON nested too deep") from None
        if not isinstance(item, dict) or set(item) != _RECORD_KEYS:
            raise ValueError(f"a JSON object with keys {sorted(_RECORD_KEYS)} is expected")
        start, end, rows = item["start"], item["end"], item["rows"]
        if not all(type(v) is int for v in (start, end)) or not 0 <= start < end:
            raise ValueError(f"start and end must be whole numbers 0 <= start < end, got {start!r}, {end!r}")
        if not isinstance(rows, dict) or not rows \
                or not all(type(v) is int and v >= 0 for v in rows.values()):
            raise ValueError("rows must map each table to its row count, a whole number >= 0")
        return cls(start, end, rows)


def read_records(run: Path) -> dict[tuple[int, int], ChunkRecord]:
    """The recorded chunks by (start, end). A last line cut short by a kill (no newline
    after it) is ignored; any other line that is not a record is refused (ConfigError naming the file and
    line): a record that cannot be read would let a damaged chunk pass as intact."""
    path = run / RECORDS
    if not path.exists() and not path.is_symlink():
        return {}
    try:  # only a regular file, within MAX_RECORDS_BYTES: a FIFO or a device is refused, not read
        text = read_regular(path, "chunk record file", MAX_RECORDS_BYTES).decode()
    except (OSError, UnicodeDecodeError) as err:
        raise ConfigError(f"{path}: unreadable chunk records ({getattr(err, 'strerror', None) or err})") \
            from None
    lines = text.split("\n")
    out: dict[tuple[int, int], ChunkRecord] = {}
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = ChunkRecord.parse(line)
        except ValueError as err:
            if number == len(lines):  # the last line, without its newline: a write a kill cut short
                break
            raise ConfigError(f"{path}: line {number}: not a chunk record ({err}); `balance simulate` with "
                              "the run's arguments cannot trust the run's parts without it: restore the "
                              "line or remove the run") from None
        out[(record.start, record.end)] = record
    return out


def trim_cut_record(run: Path) -> None:
    """The writer's part of `read_records`' leniency: a last line a kill cut short (no newline after it) is
    cut off before anything is appended, so the next record does not land on its end."""
    path = run / RECORDS
    if not path.is_file():
        return
    data = path.read_bytes()
    if data and not data.endswith(b"\n"):
        with open(path, "r+b") as f:
            f.truncate(data.rfind(b"\n") + 1)


def record_chunk(run: Path, record: ChunkRecord) -> None:
    with open(run / RECORDS, "a") as f:
        f.write(record.line())


def damaged(run: Path, tables: tuple[str, ...], finished: list[tuple[int, int]],
            records: dict[tuple[int, int], ChunkRecord]) -> list[Damage]:
    """Every part of a recorded chunk that is missing, unreadable or holds other rows than recorded, and
    every part of a finished, unrecorded chunk that cannot be read."""
    out: list[Damage] = []
    for (start, end), record in sorted(records.items()):
        rows = record.rows
        for table in tables:
            path = run / f"{table}.parquet" / part_name(start, end)
            if not path.is_file():
                out.append(Damage(start, end, table, "is missing"))
                continue
            found = footer_rows(path)
            if found is None:
                out.append(Damage(start, end, table, "cannot be read (truncated or corrupt)"))
            elif table in rows and found != rows[table]:
                out.append(Damage(start, end, table, f"holds {found} rows, {rows[table]} recorded"))
    for start, end in finished:
        if (start, end) in records:
            continue
        for table in tables:
            if footer_rows(run / f"{table}.parquet" / part_name(start, end)) is None:
                out.append(Damage(start, end, table, "cannot be read (truncated or corrupt)"))
    return out


def quarantine(run: Path, tables: tuple[str, ...], ranges: set[tuple[int, int]]) -> Path | None:
    """Move every part of these chunks into quarantine/<time>/ and drop their records: the next writer
    plays their games again. Returns the folder (None when there was nothing to move)."""
    if not ranges:
        return None
    folder = run / QUARANTINE / time.strftime("%Y%m%d-%H%M%S")
    for table in tables:
        for start, end in sorted(ranges):
            path = run / f"{table}.parquet" / part_name(start, end)
            if path.exists():
                (folder / f"{table}.parquet").mkdir(parents=True, exist_ok=True)
                os.replace(path, folder / f"{table}.parquet" / path.name)
    kept = {k: v for k, v in read_records(run).items() if k not in ranges}
    tmp = run / f".{RECORDS}.tmp"
    tmp.write_text("".join(record.line() for _, record in sorted(kept.items())))
    os.replace(tmp, run / RECORDS)
    return folder


def adopt_unrecorded(run: Path, tables: tuple[str, ...], finished: list[tuple[int, int]]) -> None:
    """Record the finished chunks that have no record yet (their parts already checked readable)."""
    records = read_records(run)
    for start, end in finished:
        if (start, end) not in records:
            rows = {t: footer_rows(run / f"{t}.parquet" / part_name(start, end)) for t in tables}
            if all(r is not None for r in rows.values()):
                record_chunk(run, ChunkRecord(start, end, rows))  # type: ignore[arg-type]
