"""`balance sweep`: run a grid or a list of config variants and compare them (docs/howto/tune.md).

A sweep file (TOML) names a base config, player counts, agents, games per variant and the variants, as
dotted-key overrides of the base::

    base = "../<game>/base.toml"          # relative to this file, or absolute
    players = [3, 4]
    agents = ["greedy"]                   # one --agents value per entry ("greedy" or "greedy,random,...")
    games = 20000
    seed = 1                              # optional (0); every variant plays the same game seeds
    [grid]                                # every combination of these
    "rules.order_chit_moves" = [[0, 1, 2, 3], [0, 2, 3, 4]]
    "rules.tie_break" = ["last_in_order", "shared"]
    # and/or named variants:
    [[variants]]
    name = "cheap blue"
    "chits.blue[0].points" = 1
    [[variants]]
    name = "court can win"
    players = [2]                         # optional: only at these of the sweep's player counts
    "rules.court_can_win" = true

The base (no overrides) is always a variant; a grid point or named variant that leaves the base config
unchanged is the base, and two variants with the same config are run once. A named variant may name
``players``, some of the sweep's player counts, to run only there: a knob that acts at some player counts
only (a two-player rule) is then not replayed, unchanged, at the others. Every variant is validated by
the game's own validator before anything runs or is written (a bad key or value: the sweep file, the key,
what is wrong). Each variant's config is written as a standalone TOML file that `balance simulate` accepts
(``<out>/configs/<slug>.toml``), and each variant x player count x agents is a run directory
``<out>/<slug>-<N>p/`` (``-<agents>`` added when the sweep has several agent lineups) written by
`sim.app.runner.simulate`: a finished run is not touched again, an interrupted one resumes. ``sweep.json``
lists it all for the report (`analysis.sweep_report`), written to ``<out>/report/``.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import os
import re
import time
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, NamedTuple

from analysis.sweep_report import build_sweep_report
from sim.app.runner import RunPlan, free_space, log_bytes_needed, prestart_workers, simulate
from sim.core.agent_spec import check_models, parse_agents
from sim.core.config import (
    check_unknown_keys,
    expect_bool,
    expect_int,
    expect_list,
    expect_str,
    expect_table,
    fail,
    load_toml,
)
from sim.core.game_spec import GameSpec
from sim.design.files import (
    MAX_GAMES,
    agent_lineups,
    check_agents,
    finished_games,
    games_count,
    load_base,
    player_counts,
    validate,
    write_if_changed,
)
from sim.design.overrides import (
    KeyPath,
    apply_overrides,
    dump_toml,
    format_value,
    get_path,
    parse_key,
    path_text,
)
from storage.backends import StudyCluster
from storage.run_dir import RunDirectory, check_directory, check_out
from storage.run_lock import RunLock

_SWEEP_KEYS = {"base", "description", "players", "agents", "games", "seed", "rotate_seats", "grid",
               "variants"}
SWEEP_MANIFEST = "sweep.json"
#: the most variants (grid points and named variants) a sweep file may list: each is validated at every
#: player count and runs as its own run directories, so a grid of a million points is refused at once, by
#: its count, before one is expanded (a larger search is `balance tune`'s)
MAX_VARIANTS = 1000


@dataclass(frozen=True)
class Variant:
    """One config of a sweep: the base with ``overrides`` (dotted-key path -> value) applied."""

    name: str
    slug: str
    overrides: dict[KeyPath, Any]
    config: dict[str, Any]
    named: bool = False
    aliases: tuple[str, ...] = ()
    players: tuple[int, ...] | None = None  # None: every player count of the sweep

    @property
    def is_base(self) -> bool:
        return not self.overrides

    def player_counts(self, sweep_players: tuple[int, ...]) -> tuple[int, ...]:
        """The player counts this variant runs at: its own `players`, or the sweep's."""
        return sweep_players if self.players is None else self.players

    def value(self, key: KeyPath) -> Any:
        """The variant's effective value at a dotted key (from its config, so the base has one too)."""
        try:
            return get_path(self.config, key)
        except (KeyError, IndexError, TypeError):
            return None


@dataclass(frozen=True)
class Sweep:
    file: str
    base: str
    spec: GameSpec  # the base config's game, looked up once when the file is read
    base_config: dict[str, Any]
    players: tuple[int, ...]
    agents: tuple[str, ...]
    games: int
    seed: int
    rotate_seats: bool
    grid_keys: tuple[KeyPath, ...]
    variants: tuple[Variant, ...]  # the base first
    description: str = ""
    grid_values: tuple[tuple[Any, ...], ...] = ()  # the choices of each grid key, in the file's order

    @property
    def game(self) -> str:
        """The game's name, as sweep.json records it."""
        return self.spec.name


@dataclass(frozen=True)
class SweepRun:
    variant: Variant
    players: int
    agents: str
    plan: RunPlan
    out: Path
    config_text: str  # the variant's standalone config file, as written to plan.config_path


@dataclass
class SweepResult:
    out: Path
    runs: list[SweepRun]
    played: int
    skipped: int
    seconds: float
    report: Path | None = None
    log: list[str] = field(default_factory=list)


# ---- reading a sweep file ----------------------------------------------------------------------------
def _flatten_grid(table: dict[str, Any], file: str, prefix: str = "") -> dict[str, Any]:
    """`[grid]` keys, quoted (``"rules.tie_break" = [...]``) or as nested tables (``rules.tie_break =``)."""
    out: dict[str, Any] = {}
    for key, value in table.items():
        full = f"{prefix}.{key}" if prefix else key
        if isinstance(value, dict):
            out.update(_flatten_grid(value, file, full))
        else:
            out[full] = value
    return out


def _flatten_overrides(table: dict[str, Any], file: str, where: str) -> dict[KeyPath, Any]:
    """A named variant's override keys. An unquoted dotted key (``rules.tie_break = "shared"``) arrives as
    a table, ``rules = {tie_break = "shared"}``, which merges into the config's table key by key (as
    ``extends`` does), so it overrides that one key too."""
    out: dict[KeyPath, Any] = {}
    for key, value in table.items():
        out[parse_key(key, file, f"{where}{json.dumps(key)}")] = value
    return out


def slugify(text: str) -> str:
    slug = re.sub(r"[^A-Za-z0-9_.=+-]+", "-", text).strip("-.") or "variant"
    if len(slug) > 60:
        slug = slug[:51].rstrip("-.") + "-" + hashlib.sha256(text.encode()).hexdigest()[:8]
    return slug


def _value_slug(value: Any) -> str:
    if isinstance(value, list) and all(isinstance(v, int | str | float) and not isinstance(v, bool)
                                       for v in value):
        return "-".join(str(v) for v in value)
    if isinstance(value, bool | int | float | str):
        return str(value).lower() if isinstance(value, bool) else str(value)
    return hashlib.sha256(format_value(value).encode()).hexdigest()[:8]


def _key_slug(path: KeyPath) -> str:
    tail = path[1:] if len(path) > 1 else path
    return ".".join(str(p) for p in tail)


def overrides_text(overrides: dict[KeyPath, Any]) -> str:
    return ", ".join(f"{path_text(k)} = {format_value(v)}" for k, v in overrides.items())


def _canonical(config: dict[str, Any]) -> str:
    without = {k: v for k, v in config.items() if k != "description"}
    return json.dumps(without, sort_keys=True, separators=(",", ":"))


class Listed(NamedTuple):
    """A grid point or named variant as the sweep file lists it, before it is validated and merged."""

    name: str
    overrides: dict[KeyPath, Any]
    named: bool
    where: str                        # for messages
    players: tuple[int, ...] | None   # a named variant's own player counts (None: the sweep's)


def load_sweep(path: str | os.PathLike[str]) -> Sweep:
    """Read and validate a sweep file: every variant is checked for every player count and agent lineup
    (ConfigError naming the sweep file and the key) before anything runs."""
    file = os.fspath(path)
    data, _ = load_toml(file)
    fields = _read_head(data, file)
    grid_keys: list[KeyPath] = []
    choices: list[list[Any]] = []
    listed: list[Listed] = []
    if "grid" in data:
        grid_keys, choices, listed = _read_grid(data["grid"], file)
    if "variants" in data:
        listed += _read_variants(data["variants"], file, fields["spec"], fields["players"])
    if len(listed) > MAX_VARIANTS:
        fail(file, "variants", f"the grid's points and the named variants are {len(listed):,}; a sweep runs "
                               f"at most {MAX_VARIANTS:,} variants")
    variants = _variants(listed, file, fields["spec"], fields["base_config"], fields["players"])
    return Sweep(file=file, **fields, grid_keys=tuple(grid_keys), variants=tuple(variants),
                 grid_values=tuple(tuple(c) for c in choices))


def _read_head(data: dict[str, Any], file: str) -> dict[str, Any]:
    """The sweep's base config, player counts, agent lineups (each checked against the base), games, seed,
    seat rotation and description, as Sweep fields; refused without a grid or variants."""
    check_unknown_keys(data, _SWEEP_KEYS, file, "")
    for key in ("base", "players", "agents", "games"):
        if key not in data:
            fail(file, key, "missing key (a sweep names base, players, agents and games)")
    base, spec, base_config = load_base(file, data["base"])
    players = player_counts(file, data["players"], spec)
    agents = agent_lineups(file, data["agents"])
    games = games_count(data["games"], file, "games")
    seed = expect_int(data.get("seed", 0), file, "seed", 0, 2**63 - 1)
    rotate = expect_bool(data.get("rotate_seats", False), file, "rotate_seats")
    description = expect_str(data.get("description", ""), file, "description")
    for n in players:
        validate(spec, base_config, n, base)
        for i, lineup in enumerate(agents):
            key = f"agents[{i}]" if isinstance(data["agents"], list) else "agents"
            check_agents(file, key, lineup, n, spec)
    if "grid" not in data and "variants" not in data:
        fail(file, "grid", "missing: a sweep needs a [grid] table or [[variants]] (or both)")
    return {"base": base, "spec": spec, "base_config": base_config, "players": players, "agents": agents,
            "games": games, "seed": seed, "rotate_seats": rotate, "description": description}


def _read_grid(table: Any, file: str) -> tuple[list[KeyPath], list[list[Any]], list[Listed]]:
    """The ``[grid]``: its keys, each key's choices, and every combination of them."""
    grid = _flatten_grid(expect_table(table, file, "grid"), file)
    if not grid:
        fail(file, "grid", "is empty")
    grid_keys: list[KeyPath] = []
    choices: list[list[Any]] = []
    for key, values in grid.items():
        where = f"grid.{json.dumps(key)}"
        grid_keys.append(parse_key(key, file, where))
        values = expect_list(values, file, where)
        if not values:
            fail(file, where, "must list at least one value")
        if len({format_value(v) for v in values}) < len(values):
            fail(file, where, "repeats a value")
        choices.append(values)
    points = math.prod(len(c) for c in choices)
    if points > MAX_VARIANTS:
        fail(file, "grid", f"has {points:,} points (every combination of its keys' values); a sweep runs at "
                           f"most {MAX_VARIANTS:,} variants: split it, or search it with `balance tune`")
    listed = []
    for combo in itertools.product(*choices):
        overrides = dict(zip(grid_keys, combo, strict=True))
        text = overrides_text(overrides)
        listed.append(Listed(text, overrides, False, "grid: " + text, None))
    return grid_keys, choices, listed


def _read_variants(items: Any, file: str, spec: GameSpec, players: tuple[int, ...]) -> list[Listed]:
    """The ``[[variants]]``: each named once, with its overrides and its own player counts."""
    items = expect_list(items, file, "variants")
    if not items:
        fail(file, "variants", "is empty: list at least one [[variants]] table, or leave the key out")
    names: set[str] = set()
    listed = []
    for i, item in enumerate(items):
        key = f"variants[{i}]"
        table = dict(expect_table(item, file, key))
        name = expect_str(table.pop("name", f"variant {i + 1}"), file, f"{key}.name")
        if not name.strip():
            fail(file, f"{key}.name", f"is empty: name the variant, or leave name out for 'variant {i + 1}'")
        if name in names:
            fail(file, f"{key}.name", f"repeats the name {name!r}")
        names.add(name)
        only = _variant_players(file, f"{key}.players", table.pop("players"), spec, players) \
            if "players" in table else None
        overrides = _flatten_overrides(table, file, f"{key}.")
        if name == "base" and overrides:
            fail(file, f"{key}.name", '"base" is the variant without overrides; choose another name')
        listed.append(Listed(name, overrides, True, f"variant {name!r}", only))
    return listed


def _variants(listed: list[Listed], file: str, spec: GameSpec, base_config: dict[str, Any],
              players: tuple[int, ...]) -> list[Variant]:
    """The base, then each listed config validated at its player counts; one equal to an earlier
    variant's config (or the base's) is run once, as that variant, under both names."""
    variants: list[Variant] = [Variant("base", "base", {}, base_config)]
    seen = {_canonical(base_config): 0}
    slugs = {"base"}
    for name, overrides, named, where, only in listed:
        source = f"{file} ({where})"
        config = apply_overrides(base_config, overrides, source) if overrides else base_config
        for n in only or players:
            validate(spec, config, n, source)
        canon = _canonical(config)
        if canon in seen:  # the same config as an earlier variant (or the base): run once, where either runs
            i = seen[canon]
            variants[i] = _also(variants[i], name, only, players)
            continue
        slug = slugify(name) if named else slugify("+".join(f"{_key_slug(k)}={_value_slug(v)}"
                                                             for k, v in overrides.items()))
        if slug in slugs:
            slug = f"{slug}-{hashlib.sha256(canon.encode()).hexdigest()[:6]}"
        slugs.add(slug)
        seen[canon] = len(variants)
        variants.append(Variant(name=name, slug=slug, overrides=overrides, config=config, named=named,
                                players=only))
    return variants


def _also(kept: Variant, name: str, only: tuple[int, ...] | None, players: tuple[int, ...]) -> Variant:
    """A variant that is also listed as `name` (at `only`, or every player count): the name an alias,
    the player counts both's."""
    counts = None if kept.players is None or only is None else tuple(
        n for n in players if n in kept.players or n in only)
    return replace(kept, aliases=(*kept.aliases, name) if name != kept.name else kept.aliases, players=counts)


def _variant_players(file: str, key: str, value: object, spec: GameSpec,
                     sweep_players: tuple[int, ...]) -> tuple[int, ...]:
    """A named variant's own player counts: some of the sweep's, in the sweep's order."""
    counts = player_counts(file, value, spec, key)
    outside = [n for n in counts if n not in sweep_players]
    if outside:
        fail(file, key, f"player counts {outside} are not among the sweep's players "
                        f"{list(sweep_players)}")
    return tuple(n for n in sweep_players if n in counts)


# ---- running -----------------------------------------------------------------------------------------
def variant_config_text(sweep_file: str, base: str, variant: Variant, game_description: str = "") -> str:
    """A variant's config as standalone TOML (what `simulate` reads), with a header saying where it came
    from."""
    header = (f"Config of sweep variant {variant.name!r}, written by `balance sweep {sweep_file}`.\n"
              f"= {base} with " + (overrides_text(variant.overrides) or "no overrides") +
              ".\nStandalone: `balance simulate` accepts this file as it is.")
    config = dict(variant.config)
    if not variant.is_base:
        desc = str(config.get("description") or game_description or "")
        config["description"] = (desc + " | " if desc else "") + f"sweep variant: {variant.name}"
        config = {"game": config.pop("game"), "description": config.pop("description"), **config}
    return dump_toml(config, header)


def _agents_slug(lineup: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.=-]+", "_", lineup)


def plan_sweep(sweep: Sweep, out: str | os.PathLike[str], force: bool = False) -> list[SweepRun]:
    """Every variant x player count x agent lineup as a run plan and a run directory under ``out``. Once
    every plan is made, each directory is checked: one that holds a different run is refused (ConfigError,
    nothing touched), or with `force` emptied."""
    out = Path(out)
    check_out(out, "sweep folder", (SWEEP_MANIFEST,))  # the rule of every --out
    runs = []
    base_description = str(sweep.base_config.get("description") or "")
    for variant in sweep.variants:
        config_file = out / "configs" / f"{variant.slug}.toml"
        text = variant_config_text(sweep.file, sweep.base, variant, base_description)
        config = tomllib.loads(text)  # exactly what `simulate` will read from the file
        for n in variant.player_counts(sweep.players):
            rules = validate(sweep.spec, config, n, os.fspath(config_file))
            for lineup in sweep.agents:
                specs = parse_agents(lineup, n, sweep.spec)
                check_models(specs, sweep.spec, n, rules.config_hash, config_file)
                agents = tuple(str(a) for a in specs)
                plan = RunPlan(spec=sweep.spec, config_path=os.fspath(config_file), config=config,
                               config_hash=rules.config_hash, players=n, agents=agents,
                               rotate_seats=sweep.rotate_seats, seed=sweep.seed)
                name = f"{variant.slug}-{n}p" + (f"-{_agents_slug(lineup)}" if len(sweep.agents) > 1 else "")
                runs.append(SweepRun(variant=variant, players=n, agents=lineup, plan=plan, out=out / name,
                                     config_text=text))
    for run in runs:
        check_directory(RunDirectory(run.out), run.plan.identity(), force=force)
    _check_disk(sweep, runs, out)
    return runs


def _check_disk(sweep: Sweep, runs: list[SweepRun], out: Path) -> None:
    """Refuse, before anything is written, a sweep whose runs' logs (the games each still lacks, at
    runner.LOG_BYTES a game) cannot fit on the disk, naming the sweep file's `games`."""
    need = sum(log_bytes_needed(run.plan, sweep.games, run.out) for run in runs)
    place, free = free_space(out)
    if need > free:
        fail(sweep.file, "games", f"{sweep.games:,} games x {len(runs)} runs: their logs need about "
                                  f"{need / 1e9:,.1f} GB and {place} has {free / 1e9:,.1f} GB free; ask for "
                                  f"fewer games (at most {MAX_GAMES:,} a run)")


def sweep_manifest(sweep: Sweep, runs: list[SweepRun], out: Path) -> dict[str, Any]:
    variants = []
    for variant in sweep.variants:
        variants.append({
            "name": variant.name, "slug": variant.slug, "named": variant.named, "is_base": variant.is_base,
            "aliases": list(variant.aliases),
            "players": list(variant.player_counts(sweep.players)),
            "overrides": {path_text(k): v for k, v in variant.overrides.items()},
            "values": {path_text(k): variant.value(k) for k in sweep.grid_keys},
            "config_file": os.path.relpath(out / "configs" / f"{variant.slug}.toml", out),
            "runs": [{"players": r.players, "agents": r.agents, "dir": os.path.relpath(r.out, out)}
                     for r in runs if r.variant is variant]})
    return {"sweep_file": sweep.file, "base": sweep.base, "game": sweep.game,
            "description": sweep.description, "players": list(sweep.players), "agents": list(sweep.agents),
            "games": sweep.games, "seed": sweep.seed, "rotate_seats": sweep.rotate_seats,
            "grid_keys": [path_text(k) for k in sweep.grid_keys],
            "grid": {path_text(k): list(v) for k, v in zip(sweep.grid_keys, sweep.grid_values, strict=True)},
            "variants": variants}


def default_out(sweep_file: str | os.PathLike[str]) -> Path:
    return Path("runs") / "sweeps" / Path(sweep_file).stem


def run_sweep(sweep_file: str | os.PathLike[str], out: str | os.PathLike[str] | None = None, jobs: int = 1,
              report: bool = True, force: bool = False, say: Callable[[str], None] = print,
              wait: bool = False, cluster: StudyCluster | None = None) -> SweepResult:
    """Validate the sweep, run every variant (finished runs are left alone), write the report. `cluster`:
    the sweep's one Dask cluster (storage.backends.StudyCluster), every run played on it; None: on `jobs`
    processes here."""
    started = time.perf_counter()
    sweep = load_sweep(sweep_file)
    out = Path(out) if out else default_out(sweep_file)
    runs = plan_sweep(sweep, out, force)
    with RunLock(out, wait=wait):  # one sweep writes a sweep folder at a time (storage/run_lock.py)
        return _run_locked(sweep, out, runs, jobs=jobs, report=report, say=say, started=started,
                           cluster=cluster)


def _run_locked(sweep: Sweep, out: Path, runs: list, jobs: int, report: bool, say: Callable[[str], None],
                started: float, cluster: StudyCluster | None = None) -> SweepResult:
    (out / "configs").mkdir(parents=True, exist_ok=True)
    for run in runs:
        write_if_changed(Path(run.plan.config_path), run.config_text)
    manifest = json.dumps(sweep_manifest(sweep, runs, out), indent=2, default=str)
    write_if_changed(out / SWEEP_MANIFEST, manifest)
    if jobs > 1 and cluster is None and any(finished_games(r.out) < sweep.games for r in runs):
        prestart_workers(jobs, sweep.spec)
    played = skipped = 0
    result = SweepResult(out, runs, 0, 0, 0.0)
    for i, run in enumerate(runs, 1):
        label = f"[{i}/{len(runs)}] {run.variant.name}, {run.players}p, {run.agents}"
        if finished_games(run.out) >= sweep.games:
            skipped += 1
            say(f"{label}: finished already ({run.out})")
            continue
        res = simulate(run.plan, sweep.games, run.out, jobs=jobs, cluster=cluster)
        played += res.played
        say(f"{label}: {res.played} games in {res.seconds:.1f} s ({run.out})")
    result.played, result.skipped = played, skipped
    if report:
        result.report = build_sweep_report(out, jobs=jobs)
    result.seconds = time.perf_counter() - started
    return result
