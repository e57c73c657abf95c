"""`balance sheet CONFIG`: the balance sheet of a config (docs/howto/skill.md).

Every player count the game allows (and, where a rule exists at one count only, that count once per value
of it, `GameSpec.player_variants`) is one *table*: a profile of the two top levels (default: the game's
two strongest agents, `expert` and `search`) played until decided
(sim/design/profile.py: each level until its own verdicts are decided, then both together until every
answer's change between them is), `--games` the cap of each level, into ``OUT/<table>/``. A variant's
config is written as ``OUT/configs/<table>.toml``: the designer's config extended with the one key.

``OUT/sheet.json`` lists the tables; ``OUT/report/`` leads with the sheet (analysis.sheet_report: for each
table the seat, start-player and tie-break verdicts at the top level and whether the two top levels agree
on each), then every table's own sections. The sheet resumes like a profile: a decided table plays nothing.
"""

from __future__ import annotations

import copy
import json
import os
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import tomlkit

from analysis.change_verdicts import stable_at_top
from analysis.run_report import build_report
from analysis.run_tally import read_run_tally
from analysis.sheet_report import sheet_frame, sheet_row, sheet_section, sheet_text
from analysis.verdicts import DEFAULT_MARGINS, duration, run_verdicts
from sim import games
from sim.app.until_decided import check_caps
from sim.core.config import load_toml
from sim.core.errors import ConfigError
from sim.core.game_spec import GameSpec
from sim.design.profile import default_levels, level_slug, plan_profile, run_profile, split_levels
from storage.backends import StudyCluster
from storage.run_dir import check_out, load_manifest, read_json_object

if TYPE_CHECKING:
    import pandas as pd

SHEET_MANIFEST = "sheet.json"
#: each level's cap at each table: the top rung is about 20 times the expert's cost
DEFAULT_CAP = 4000
#: with --minutes, the seconds kept aside for the report a table (and one more for the sheet's own part):
#: about what a table's sections take to write here (analysis.run_report), at most a quarter of the time
REPORT_SECONDS = 3.0
#: what the sheet judges: the seats, the start player and the tie-break
DEFAULT_QUESTIONS = "seats,start,ties"


@dataclass(frozen=True)
class Table:
    """One table of the sheet: a player count, or a count with one value of a rule that exists there only."""

    label: str  # "3 players", "2 players (tactical)"
    slug: str  # its folder: "3p", "2p-tactical"
    players: int
    config: Path
    out: Path
    variant: dict[str, str] = field(default_factory=dict)  # dotted key -> value, for a variant table


@dataclass
class SheetResult:
    out: Path
    tables: list[Table]
    played: int = 0
    report: Path | None = None
    text: str = ""
    seconds: float = 0.0
    stops: dict[str, str] = field(default_factory=dict)  # table label -> how its top stage ended


def default_out(game: str, config: str | os.PathLike[str]) -> Path:
    """runs/sheets/<game>-<config stem>."""
    return Path("runs") / "sheets" / f"{game}-{Path(config).stem}"


def top_levels(spec: GameSpec, text: str | None) -> str:
    """The two levels of the sheet: the game's two strongest by default; exactly two if given."""
    if text is None:
        return ",".join(split_levels(default_levels(spec))[-2:])
    if len(split_levels(text)) != 2:
        raise ConfigError("--levels: the sheet compares two levels, the second strongest then the "
                          f"strongest; got {text!r}")
    return text


def plan_tables(spec: GameSpec, config: Path, out: Path, players: list[int] | None = None) -> list[Table]:
    """The tables of the sheet: every player count (or those asked), a count with a rule of its own once
    per value of that rule."""
    counts = players or list(range(spec.min_players, spec.max_players + 1))
    for n in counts:
        if not spec.min_players <= n <= spec.max_players:
            raise ConfigError(f"--players: {spec.name} is played by {spec.min_players} to {spec.max_players} "
                              f"players, got {n}")
    tables = []
    for n in counts:
        variants = [(key, values) for count, key, values in spec.player_variants if count == n]
        if not variants:
            tables.append(Table(label=f"{n} players", slug=f"{n}p", players=n, config=config,
                                out=out / f"{n}p"))
            continue
        for key, values in variants:
            for value in values:
                slug = f"{n}p-{value}"
                tables.append(Table(label=f"{n} players ({value})", slug=slug, players=n,
                                    config=out / "configs" / f"{slug}.toml", out=out / slug,
                                    variant={key: value}))
    return tables


def _variant_text(config: Path, variant: dict[str, str], label: str) -> str:
    """A variant table's config: the designer's, extended with the one key."""
    doc = tomlkit.document()
    doc.add(tomlkit.comment(f"written by `balance sheet`: {label}"))
    doc["extends"] = str(config.resolve())
    for dotted, value in variant.items():
        *tables, key = dotted.split(".")
        node: Any = doc
        for name in tables:
            node = node.setdefault(name, tomlkit.table())
        node[key] = value
    return tomlkit.dumps(doc)


def _parse_players(text: str | None) -> list[int] | None:
    if text is None:
        return None
    try:
        counts = [int(part) for part in text.split(",")]
    except ValueError:
        raise ConfigError(f"--players: whole numbers separated by commas, got {text!r}") from None
    if len(set(counts)) != len(counts):
        raise ConfigError(f"--players: a player count given twice in {text!r}")
    return counts


def run_sheet(config: str | os.PathLike[str], *, players: str | None = None, levels: str | None = None,
              games_cap: int = DEFAULT_CAP, minutes: float | None = None, margins: Any = None, jobs: int = 1,
              seed: int = 0, out: str | os.PathLike[str] | None = None, force: bool = False,
              say: Callable[[str], None] = print, cluster: StudyCluster | None = None) -> SheetResult:
    """Plan every table (refusing bad input before any game or file), play each as a profile until
    decided, write sheet.json and the report. `cluster`: the sheet's one Dask cluster
    (storage.backends.StudyCluster), every table's games played on it; None: on `jobs` processes here."""
    started = time.perf_counter()
    margins = margins or DEFAULT_MARGINS
    check_caps(games_cap, minutes)
    config = Path(config)
    merged, _ = load_toml(config)
    spec = games.spec_of_config(merged, config)
    levels = top_levels(spec, levels)
    out = Path(out) if out else default_out(spec.name, config)
    check_out(out, "balance sheet folder", (SHEET_MANIFEST,))
    tables = plan_tables(spec, config, out, _parse_players(players))
    config_hash = spec.rules(merged, tables[0].players, os.fspath(config)).config_hash
    identity = {"game": spec.name, "config_hash": config_hash, "seed": seed, "levels": levels}
    _check_earlier(out, identity, force)
    _check_tables(spec, merged, config, tables, levels=levels, seed=seed, force=force)
    out.mkdir(parents=True, exist_ok=True)
    for table in tables:
        if table.variant:
            _write_variant(table, config)
    manifest = {"study": "sheet", **identity, "config": str(config), "games": games_cap, "minutes": minutes,
                "tables": [{"label": t.label, "players": t.players, "variant": t.variant,
                            "config": os.path.relpath(t.config, out) if t.variant else str(config),
                            "dir": os.path.relpath(t.out, out)} for t in tables]}
    (out / SHEET_MANIFEST).write_text(json.dumps(manifest, indent=2))
    result = SheetResult(out, tables)
    deadline = None
    if minutes:  # the sheet's report is written after the last stage: its time is kept aside
        keep = min(0.25 * 60 * minutes, REPORT_SECONDS * (len(tables) + 1))
        deadline = time.monotonic() - (time.perf_counter() - started) + 60 * minutes - keep
    for i, table in enumerate(tables, 1):
        # the tables share the time left evenly, and each table's stages share its part (run_profile)
        ends = None if deadline is None else \
            time.monotonic() + max(0.0, deadline - time.monotonic()) / (len(tables) - i + 1)
        share = "" if ends is None else f", about {duration(max(1.0, ends - time.monotonic()))} of the " \
            f"{minutes:g} min"
        say(f"[{i}/{len(tables)}] {table.label}: {levels}, until decided (cap {games_cap:,} games a level"
            f"{share})")
        done = run_profile(table.config, table.players, levels=levels, games=games_cap, jobs=jobs, seed=seed,
                           out=table.out, force=force, say=say, until_decided=True, minutes=minutes,
                           margins=margins, deadline=ends, report=False, cluster=cluster)
        result.played += done.played
        stable = done.stable
        result.stops[table.label] = ("decided" if stable.decided else f"undecided at the {stable.reason}") \
            if stable is not None else "not played"
    result.report, result.text = write_sheet_report(out, margins)
    result.seconds = time.perf_counter() - started
    return result


def _check_tables(spec: GameSpec, merged: dict, config: Path, tables: list[Table], *, levels: str, seed: int,
                  force: bool) -> None:
    """Refuse (ConfigError), before any game or file, a table the config, the levels or a folder in the way
    would fail: each count's rules (a variant's with its key set), its levels' agents and models, its
    folder."""
    for table in tables:
        rules_of = copy.deepcopy(merged)
        for dotted, value in table.variant.items():
            *names, key = dotted.split(".")
            node = rules_of
            for name in names:
                node = node.setdefault(name, {})
            node[key] = value
        spec.rules(rules_of, table.players, os.fspath(config))
        # the levels at this count (agents, models): a variant table's folder is checked once its config is
        # written; here its levels are planned on the designer's config, into a folder that is not there
        nowhere = Path(tempfile.gettempdir()) / f"balance-sheet-{os.getpid()}"
        where = nowhere if table.variant else table.out
        plan_profile(config, table.players, levels=levels, seed=seed, out=where, force=force)


def _check_earlier(out: Path, identity: dict[str, Any], force: bool) -> None:
    """Refuse a folder holding a sheet of another config, seed or levels (with --force its tables are
    replaced, as a profile's)."""
    if force or not (out / SHEET_MANIFEST).is_file():
        return
    old = read_sheet_manifest(out)
    differs = [k for k, v in identity.items() if old.get(k) != v]
    if differs:
        shown = "; ".join(f"{k}: sheet has {old.get(k)!r}, asked {identity[k]!r}" for k in differs)
        raise ConfigError(f"{out}: made by a different sheet ({shown}); use another --out, or --force to "
                          "replace its tables")


def _write_variant(table: Table, config: Path) -> None:
    """Write a variant table's config (the tool's own file, in the sheet's folder)."""
    table.config.parent.mkdir(parents=True, exist_ok=True)
    text = _variant_text(config, table.variant, table.label)
    if not table.config.is_file() or table.config.read_text() != text:
        table.config.write_text(text)


def read_sheet_manifest(out: Path) -> dict[str, Any]:
    return read_json_object(out / SHEET_MANIFEST, "sheet manifest", ("tables",))


def sheet_frame_of(out: Path, margins: Any) -> pd.DataFrame:
    """The sheet of a sheet folder, from its tables' runs alone (analysis.sheet_report.sheet_frame)."""
    manifest = read_sheet_manifest(out)
    below, top = split_levels(manifest["levels"])
    rows = []
    for table in manifest["tables"]:
        folder = out / table["dir"]
        top_run, below_run = (read_run_tally(folder / level_slug(name)) for name in (top, below))
        paired = stable_at_top(top_run, below_run, margins)
        rows.append(sheet_row(table["label"], table["players"], top=top, below=below,
                              top_verdicts=run_verdicts(top_run, margins), stable_verdicts=paired,
                              games=top_run.n_games, paired=paired[0].n if paired else 0))
    return sheet_frame(rows)


def sheet_seconds(out: Path) -> float:
    """The wall time the sheet's games took to play: every level run's sessions, from their manifests."""
    runs = sorted(out.glob("*/*/manifest.json"))
    return sum(float(load_manifest(path).wall_time_s) for path in runs)


def write_sheet_report(out: Path, margins: Any) -> tuple[Path, str]:
    """The sheet's report from its tables' runs alone: OUT/report/ (the sheet first, then every table's
    sections) and the printed sheet."""
    frame = sheet_frame_of(out, margins)
    folders = [out / table["dir"] for table in read_sheet_manifest(out)["tables"]]
    named = {"seats": "seats", "start": "start player", "tiebreak": "tie-break"}
    margins_text = "margins: " + ", ".join(f"{word} ±{margins.text(q)}" for q, word in named.items()
                                           if margins.judges(q))
    report = build_report(folders, out / "report", margins=margins, lead=[sheet_section(frame, margins_text)])
    return report, sheet_text(frame)
