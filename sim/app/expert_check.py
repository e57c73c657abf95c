"""The expert on a variant, measured: is a level that plays a learned model (`expert`, and `search`, whose
priors and leaf values are the same model's) still strong on a config its model was not trained on?

The check plays one seat of the level, with the model it would play there, against players-1 `greedy`
seats (seats rotated: the level in seat g mod players in game g), `GAMES` games on the config played and
the same games (the same seeds, so the same deals where the configs deal alike) on the config the model
was trained on. The level's win share on each, and their difference paired game by game, say how much
weaker the model plays on the variant; more than `TOLERANCE_PP` percentage points weaker is a warning,
with the figures and the way out: `balance train --from-config VARIANT.toml` fits a model for it, which
the tool then plays there. Why greedy and why 5 pp: docs/reference/agents.md, "The expert on a variant".

A level's shares on a config are measured once: each is kept, per (game, players, config hash, model
identity, level, reference, games, seed, kernels' sources), as a small JSON file in a user cache folder
(`cache_dir`), so the model's own config is played once for every variant checked against it. A cache that
cannot be read or written (a read-only home, a full disk) is passed over: the check is measured again.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import sys
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any

import numpy as np

from analysis.stats import Z95, wilson_interval
from sim.app.train import level_shares
from sim.core import numba_cache
from sim.core.agent_spec import AgentSpec, model_file, parse_agents, parse_spec
from sim.core.errors import ConfigError
from sim.core.expert_model import ROOT, ExpertModel, PlayedConfig, load_model, shown_path
from sim.core.game_spec import GameSpec
from sim.games import load_config

#: the model-free reference the level plays against: cheap (600 games of one expert seat take about 2 s
#: on one core) and beaten by a wide margin, so a model that misleads the level shows at once
REFERENCE = "greedy"
#: games on each config
GAMES = 600
#: how much weaker (percentage points of win share) a level may play on a variant before it is a warning
TOLERANCE_PP = 5.0
#: the environment variable naming the cache folder (default: $XDG_CACHE_HOME/balance, ~/.cache/balance)
CACHE_ENV = "BALANCE_CACHE_DIR"


@dataclass(frozen=True)
class ExpertCheck:
    """One level's check on one config: its win share there and on the config its model was trained on
    (None when that config could not be played: `note` says why), their paired difference, the
    tolerance. `weak`: more than the tolerance weaker; `sentence()`: the figures in words."""

    agent: str             # the level as asked (`expert`, `search:iters=64`)
    config: str            # the config played (its file)
    config_hash: str
    players: int
    model: str             # the model file the level plays there
    model_identity: str    # a hash of its weights and of the config it was trained on
    trained_on: str        # the config the model was trained on (its file, as the model records it)
    trained_on_hash: str
    against: str = REFERENCE
    games: int = GAMES
    seed: int = 0
    wins: float | None = None       # the level's win share on `config` (None: not measured)
    base_wins: float | None = None  # ... on the config its model was trained on, the same seeds
    drop: float | None = None       # base_wins - wins: how much weaker (a share, not pp)
    drop_sd: float | None = None    # the standard deviation of the game-by-game differences
    tolerance: float = TOLERANCE_PP
    note: str = ""                  # why it was not measured (the model's own config cannot be played)

    @property
    def measured(self) -> bool:
        """Whether both configs were played (the comparison exists)."""
        return self.drop is not None

    @property
    def weak(self) -> bool:
        """More than the tolerance weaker on this config than on the model's own, and weaker beyond the
        noise (the drop's 95% interval above 0: a level no weaker is flagged in at most 2.5% of checks,
        whatever the game's spread)."""
        return self.measured and 100 * self.drop > self.tolerance and self.intervals()["drop"][0] > 0

    def intervals(self) -> dict[str, tuple[float, float]]:
        """The 95% intervals: of each win share (Wilson) and of the drop (the paired differences' mean);
        empty when not measured."""
        if not self.measured:
            return {}
        half = Z95 * (self.drop_sd or 0.0) / math.sqrt(self.games)
        return {"wins": wilson_interval(self.wins * self.games, self.games),
                "base_wins": wilson_interval(self.base_wins * self.games, self.games),
                "drop": (self.drop - half, self.drop + half)}

    def sentence(self) -> str:
        """The check in one sentence: 'expert on this variant (v.toml, 3 players): wins 76.0% [72.4, 79.2]
        of games against greedy, n = 600 a config, against 94.5% [92.4, 96.1] on the config its model was
        trained on (configs/<game>/base.toml): 18.5 pp weaker [+14.7, +22.3 pp], beyond the 5 pp
        tolerance; ...'."""
        if not self.measured:
            return (f"{self.agent} on this variant ({self.config}, {self.players} players) plays "
                    f"{self.model}, trained on another config ({self.trained_on}), whose strength here is "
                    f"not checked: {self.note}.")
        ci = self.intervals()
        head = (f"{self.agent} on this variant ({self.config}, {self.players} players): wins "
                f"{_share(self.wins, ci['wins'])} of games against {self.against}, "
                f"n = {self.games:,} a config")
        drop, (low, high) = 100 * self.drop, ci["drop"]
        way = f"{drop:.1f} pp weaker" if drop >= 0 else f"{-drop:.1f} pp stronger"
        said = (f"{head}, against {_share(self.base_wins, ci['base_wins'])} on the config its model was "
                f"trained on ({self.trained_on}): {way} [{100 * low:+.1f}, {100 * high:+.1f} pp]")
        if not self.weak:
            why = "within" if drop <= self.tolerance else "not beyond the noise of"
            return f"{said}, {why} the {self.tolerance:g} pp tolerance."
        return (f"{said}, beyond the {self.tolerance:g} pp tolerance; its figures may not hold for good "
                f"players. Fit a model for it: balance train --from-config {self.config} --players "
                f"{self.players}")


def _share(share: float, interval: tuple[float, float]) -> str:
    return f"{100 * share:.1f}% [{100 * interval[0]:.1f}, {100 * interval[1]:.1f}]"


def cache_dir(environ: dict | os._Environ = os.environ) -> Path:
    """Where measured shares are kept: $BALANCE_CACHE_DIR, else $XDG_CACHE_HOME/balance, else
    ~/.cache/balance; the `expert-checks` folder in it."""
    given = environ.get(CACHE_ENV) or ""
    if given:
        return Path(given).expanduser() / "expert-checks"
    base = environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "balance" / "expert-checks"


@dataclass(frozen=True)
class _Level:
    """What one level's check plays: the game, the level, its model (file and identity), the reference,
    games and seed. Without a model file (`cached_checks`) it can only be looked up in the cache."""

    spec: GameSpec
    players: int
    agent: AgentSpec
    identity: str
    model_path: Path | None = None
    against: str = REFERENCE
    games: int = GAMES
    seed: int = 0
    say: Callable[[str], None] = field(default=lambda line: None, repr=False, compare=False)

    def played_text(self) -> str:
        """The level as the kernels play it: with its model file named, so both configs play that model."""
        return str(AgentSpec(self.agent.name, {**self.agent.params, "model": os.fspath(self.model_path)}))

    def key(self, config_hash: str) -> str:
        """The cache key of the level's shares on a config: everything that decides them."""
        level = AgentSpec(self.agent.name, {k: v for k, v in self.agent.params.items() if k != "model"})
        what = [self.spec.name, self.players, config_hash, self.identity, str(level), self.against,
                self.games, self.seed, numba_cache.source_digest()]
        return hashlib.sha256(json.dumps(what).encode()).hexdigest()[:24]


def _read_cached(folder: Path | None, key: str, games_wanted: int) -> np.ndarray | None:
    """The shares kept under `key`, or None (none kept, or a file that is not what this module writes)."""
    if folder is None:
        return None
    try:
        data = json.loads((folder / f"{key}.json").read_text())
        shares = np.array(data["shares"], dtype=np.float64)
    except (OSError, ValueError, KeyError, TypeError):
        return None
    ok = shares.shape == (games_wanted,) and bool(np.all((shares >= 0) & (shares <= 1)))
    return shares if ok else None


def _write_cached(folder: Path | None, key: str, shares: np.ndarray, about: dict[str, Any]) -> None:
    """Keep `shares` under `key` (atomically); nothing when the folder cannot be written."""
    if folder is None:
        return
    try:
        folder.mkdir(parents=True, exist_ok=True)
        tmp = folder / f".tmp-{key}-{os.getpid()}.json"
        tmp.write_text(json.dumps({**about, "shares": [round(float(x), 6) for x in shares]}))
        os.replace(tmp, folder / f"{key}.json")
    except OSError:
        pass


def _shares(level: _Level, config: tuple[str, dict, str], jobs: int, folder: Path | None) -> np.ndarray:
    """The level's win share in each game on `config` (file, merged table, hash): kept, or played."""
    path, merged, config_hash = config
    key = level.key(config_hash)
    kept = _read_cached(folder, key, level.games)
    if kept is not None:
        return kept
    level.say(f"checking {level.agent}'s model on {path}: {level.games:,} games of one {level.agent} seat "
              f"against {level.against} (measured once, then kept)")
    shares = level_shares(level.spec, merged, path, level.players, level.played_text(), against=level.against,
                          n_games=level.games, seed=level.seed, jobs=jobs)
    _write_cached(folder, key, shares, {"game": level.spec.name, "players": level.players, "config": path,
                                       "model": shown_path(level.model_path), "level": str(level.agent),
                                       "against": level.against, "seed": level.seed})
    return shares


def trained_config(model: ExpertModel, spec: GameSpec,
                   players: int) -> tuple[tuple[str, dict, str] | None, str]:
    """The config a model was trained on, as (file, merged table, hash): the file it names (from here, then
    from the repository's root), or the game's base config (what the shipped models are trained on, named
    as it was where they were trained), whichever has the hash the model records; or None and why not."""
    places = [Path(model.config), ROOT / model.config] if model.config else []
    changed = False
    for place in [*places, Path(spec.default_config)]:
        try:
            if not place.is_file():
                continue
            found, merged, rules = load_config(place, players)
        except (OSError, ConfigError):
            continue
        if rules.config_hash == model.config_hash and found.name == model.game:
            return (_shown_config(place), merged, rules.config_hash), ""
        changed = changed or place in places
    if not model.config:
        return None, "the model does not name the config it was trained on"
    if changed:
        return None, f"{model.config} has changed since the model was trained on it"
    return None, f"{model.config}, which it was trained on, is not found"


def _shown_config(place: Path) -> str:
    """A config file as a sentence names it: relative to the repository's root when inside it."""
    try:
        return place.resolve().relative_to(ROOT).as_posix()
    except (OSError, ValueError):
        return os.fspath(place)


def check_level(config_path: str | os.PathLike[str], players: int, agent: str = "expert", jobs: int = 1,
                seed: int = 0, **options: Any) -> ExpertCheck | None:
    """One level's check on a config (`check_expert`'s options: games, against, tolerance, cache); None
    when the level plays no model or plays the model trained on this very config."""
    return next(iter(check_expert(config_path, players, agent, jobs, seed, **options)), None)


def check_expert(config_path: str | os.PathLike[str], players: int, agents: str = "expert", jobs: int = 1,
                 seed: int = 0, *, games: int = GAMES, against: str = REFERENCE,
                 tolerance: float = TOLERANCE_PP, cache: Path | None | bool = True,
                 say: Callable[[str], None] = lambda line: None) -> list[ExpertCheck]:
    """The check of every level in `agents` (one for all seats or one per seat, as `--agents`) that plays a
    model trained on another config than `config_path`'s, one ExpertCheck each (empty: none does).
    cache: True for `cache_dir()`, a folder, or False for none; say: told before games are played.
    ConfigError on a bad config, agent or model, before any game."""
    if games < 2:
        raise ConfigError(f"games: the check needs at least 2 games, got {games}")
    spec, merged, rules = load_config(config_path, players)
    played = PlayedConfig(os.fspath(config_path), rules.config_hash)
    folder = cache_dir() if cache is True else (Path(cache) if cache else None)
    parse_agents(against, players, spec)  # a bad reference is refused as --agents would be
    out, seen = [], set()
    for agent in parse_agents(agents, players, spec):
        kind = spec.agents[agent.name]
        if not kind.features or str(agent) in seen:
            continue
        seen.add(str(agent))
        path = model_file(agent, spec, players, played)
        model = load_model(path, spec.name, players, kind.features)
        if model.config_hash == rules.config_hash:
            continue
        level = _Level(spec, players, agent, model.identity, path, against=against, games=games, seed=seed,
                       say=say)
        out.append(_measured(level, model, (os.fspath(config_path), merged, rules.config_hash), jobs,
                             (folder, tolerance)))
    return out


def _measured(level: _Level, model: ExpertModel, config: tuple[str, dict, str], jobs: int,
              kept: tuple[Path | None, float]) -> ExpertCheck:
    """Play (or read from the cache) the level on the config and on its model's own; the ExpertCheck.
    kept: the cache folder (None: none) and the tolerance."""
    folder, tolerance = kept
    check = ExpertCheck(agent=str(level.agent), config=config[0], config_hash=config[2],
                        players=level.players, model=shown_path(level.model_path),
                        model_identity=model.identity,
                        trained_on=model.config or "(unnamed)", trained_on_hash=model.config_hash,
                        against=level.against, games=level.games, seed=level.seed, tolerance=tolerance)
    base_config, why = trained_config(model, level.spec, level.players)
    if base_config is None:  # nothing to compare with: no game is played
        return replace(check, note=why)
    variant = _shares(level, config, jobs, folder)
    base = _shares(level, base_config, jobs, folder)
    return _compared(replace(check, trained_on=base_config[0]), variant, base)


def _compared(check: ExpertCheck, variant: np.ndarray, base: np.ndarray) -> ExpertCheck:
    """The check with both configs' shares: each win share, and their paired difference."""
    differences = base - variant
    return replace(check, wins=float(variant.mean()), base_wins=float(base.mean()),
                   drop=float(differences.mean()), drop_sd=float(differences.std(ddof=1)))


def check_plan(plan: Any, jobs: int = 1, say: Callable[[str], None] = lambda line: None) -> list[ExpertCheck]:
    """The checks of a run's plan (sim.app.runner.RunPlan: its config, players and agents), at the check's
    own seed and games (not the run's: one measurement serves every run of that config), cached."""
    return check_expert(plan.config_path, plan.players, ",".join(plan.agents), jobs, games=GAMES, say=say)


def cached_checks(spec: GameSpec, players: int, config: tuple[str, str], models: Any,
                  folder: Path | None = None, *, games: int | None = None) -> list[ExpertCheck]:
    """The checks already measured for a run (its game, players, config as (file, hash), and its
    manifest's `models` records, agent_spec.model_seats), read from the cache alone (`games` a config:
    the default check's): no game is played. A level whose model was trained on the run's config, or
    whose shares are not both kept, is left out."""
    folder = folder if folder is not None else cache_dir()
    games = games or GAMES
    out = []
    for record in models or ():
        if record.get("trained_on_hash") in (None, config[1]):
            continue
        agent = parse_spec(str(record.get("agent", "")), spec)
        level = _Level(spec, players, agent, str(record.get("identity", "")), games=games)
        variant = _read_cached(folder, level.key(config[1]), level.games)
        base = _read_cached(folder, level.key(str(record["trained_on_hash"])), level.games)
        if variant is None or base is None:
            continue
        check = ExpertCheck(agent=str(agent), config=config[0], config_hash=config[1], players=players,
                            model=str(record.get("file", "")), model_identity=level.identity,
                            trained_on=str(record.get("trained_on", "")),
                            trained_on_hash=str(record["trained_on_hash"]), games=games)
        out.append(_compared(check, variant, base))
    return out


def check_json(check: ExpertCheck) -> dict[str, Any]:
    """A check as a JSON object (every field, and whether it is weak), for a run's or a study's record."""
    return {**asdict(check), "weak": check.weak}


def check_of_json(data: dict[str, Any]) -> ExpertCheck:
    """The ExpertCheck of `check_json`'s object (keys it does not know are left out)."""
    names = {f.name for f in fields(ExpertCheck)}
    return ExpertCheck(**{key: value for key, value in data.items() if key in names})


def say_checks(checks: list[ExpertCheck], say: Callable[[str], None]) -> None:
    """Each check in words: a weak one as a warning (stderr, always), the others through `say` (the
    command's progress lines, silent under --quiet)."""
    for check in checks:
        if check.weak:
            print(f"balance: warning: {check.sentence()}", file=sys.stderr, flush=True)
        else:
            say(check.sentence())
