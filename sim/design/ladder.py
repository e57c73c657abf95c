"""`balance ladder GAME --players N`: a strength ladder (Ludii's SkillTrace; docs/howto/skill.md).

Levels, weakest first: ``random``, ``greedy``, then ``mcts`` at the given iteration counts (default 25, 50,
100, 200, 400: doubling, as SkillTrace doubles), then the ``expert`` agent with its shipped model
(``--no-expert`` leaves it out) against the strongest MCTS level, and last the ``search`` agent
against the level below it (expert) when the game's registry has an agent named ``search`` (the
new rung appears by itself once a game registers it). Each step seats one player of
a level against N-1 players of the level below, seats rotated (each seat holds the stronger player equally
often when the number of games is a multiple of N), and plays G games into its own run directory
``OUT/<higher>-vs-<lower>/`` through `sim.app.runner.simulate`, so the ladder resumes: a finished step is
not touched again, an interrupted one plays only its missing games. ``OUT/ladder.json`` lists the steps;
the report (``OUT/report/``: HTML, CSV, PNG) and the printed table are computed from the run directories'
logs (analysis.ladder_report), and so are the ratings, one per level from all the ladder's games
(analysis.ratings).

Each step is dealt fresh games: its seed is derived from the ladder's seed and the step's name
(`step_seed`), so no step replays another's deals, nor those of a separate run played with the ladder's
seed. With ``--same-deals`` every step plays the ladder's seed itself (game i from the seed of (seed, i)),
the deals common to all steps, so that the steps differ only in who plays. ``ladder.json`` records which
(``deals``: fresh or same) and each step's seed.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from analysis.ladder_report import (
    LADDER_MANIFEST,
    STEP_MARGIN,
    deals_text,
    format_ladder,
    read_ladder,
    read_ladder_manifest,
    read_ladder_ratings,
)
from analysis.run_report import build_report
from sim.app.runner import RunPlan, plan_run, prestart_workers, simulate
from sim.core.errors import ConfigError
from sim.core.game_spec import GameSpec
from storage.backends import StudyCluster
from storage.run_dir import RunDirectory, check_directory, check_out

DEFAULT_ITERS = (25, 50, 100, 200, 400)
DEFAULT_GAMES = 600  # a multiple of every player count 2-6; a 95% interval of about +-3.8 pp at 1/3


@dataclass(frozen=True)
class Level:
    name: str  # random, greedy, mcts25
    agent: str  # the --agents string: random, greedy, mcts:iters=25


@dataclass(frozen=True)
class Step:
    higher: Level
    lower: Level
    plan: RunPlan
    out: Path

    @property
    def name(self) -> str:
        return f"{self.higher.name}-vs-{self.lower.name}"


@dataclass
class LadderResult:
    out: Path
    steps: list[Step]
    played: int = 0
    skipped: int = 0
    report: Path | None = None
    text: str = ""


def parse_iters(text: str | None, highest: float | None = None) -> tuple[int, ...]:
    """``25,50,100`` -> (25, 50, 100): positive, at most ``highest`` (the game's `mcts:iters` limit),
    strictly increasing; ``none`` -> () (random and greedy only); None -> the default."""
    if text is None:
        return DEFAULT_ITERS
    if text.strip().lower() == "none":
        return ()
    values = []
    for part in text.split(","):
        try:
            value = int(part.strip())
        except ValueError:
            raise ConfigError(f"--iters: expected whole numbers separated by commas (or none), "
                              f"got {text!r}") from None
        if value < 1:
            raise ConfigError(f"--iters: iteration counts must be at least 1, got {value}")
        if highest is not None and value > highest:
            raise ConfigError(f"--iters: iteration counts must be at most {highest} (mcts:iters), "
                              f"got {value}")
        values.append(value)
    if any(b <= a for a, b in zip(values, values[1:], strict=False)):
        raise ConfigError(f"--iters: iteration counts must increase, got {text!r}")
    return tuple(values)


def levels(iters: tuple[int, ...], expert: bool = False, search: bool = False) -> list[Level]:
    """The levels, weakest first; with `expert`, the `expert` agent (its shipped model) after the MCTS
    levels, against the strongest of them (or greedy); with `search`, the `search` agent last, against the
    level below it (expert, or the strongest MCTS level without expert)."""
    return [Level("random", "random"), Level("greedy", "greedy"),
            *(Level(f"mcts{i}", f"mcts:iters={i}") for i in iters),
            *([Level("expert", "expert")] if expert else []),
            *([Level("search", "search")] if search else [])]


def game_levels(spec: GameSpec, iters: tuple[int, ...], expert: bool = True) -> list[Level]:
    """The ladder's levels for a game: `levels` with expert when asked and the game has that agent, and
    search whenever the game's registry (``spec.agents``) has an agent named ``search``."""
    return levels(iters, expert and "expert" in spec.agents, "search" in spec.agents)


def default_config(spec: GameSpec) -> Path:
    """The game's base config (registry), by its path relative to the working folder when that folder is
    this checkout (so run labels and manifests read as they always did), else by its absolute path."""
    base = spec.default_config
    path = Path("configs") / base.parent.name / base.name
    return path if path.is_file() and path.resolve() == base.resolve() else base


def default_out(game: str, players: int, seed: int, config: str | os.PathLike[str] | None = None) -> Path:
    """runs/ladder-<game>-<N>p-seed<S> (the config's name is added when it is not base.toml)."""
    stem = Path(config).stem if config else "base"
    variant = "" if stem == "base" else f"-{stem}"
    return Path("runs") / f"ladder-{game}{variant}-{players}p-seed{seed}"


def step_seed(seed: int, step: str) -> int:
    """A step's own seed, from the ladder's seed and the step's name ("mcts50-vs-mcts25"): the first 63
    bits of SHA-256 of "seed:step", so every step is dealt its own games, the same on every machine and
    for every run of the same ladder."""
    digest = hashlib.sha256(f"{seed}:{step}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def plan_ladder(spec: GameSpec, players: int, config: str | os.PathLike[str] | None = None,
                iters: tuple[int, ...] = DEFAULT_ITERS, seed: int = 0,
                out: str | os.PathLike[str] | None = None, expert: bool = True, *,
                same_deals: bool = False) -> tuple[Path, list[Step]]:
    """Validate everything (ConfigError on anything wrong, before any game) and plan the steps, each with
    its own seed (`step_seed`), or the ladder's `seed` in every step with `same_deals`."""
    game = spec.name
    config = Path(config) if config else default_config(spec)
    if iters:
        if "mcts" not in spec.agents:
            raise ConfigError(f"--iters: {game} has no mcts agent in this build; use --iters none for the "
                              "random and greedy levels only")
    out = Path(out) if out else default_out(game, players, seed, config)
    ladder = game_levels(spec, iters, expert)
    steps = []
    for lower, higher in zip(ladder, ladder[1:], strict=False):
        agents = ",".join([higher.agent] + [lower.agent] * (players - 1))
        name = f"{higher.name}-vs-{lower.name}"
        plan = plan_run(config, players, agents, seed if same_deals else step_seed(seed, name),
                        rotate_seats=True)
        if plan.game != game:
            raise ConfigError(f"--config: {config} is a {plan.game} config, the ladder is for {game}")
        steps.append(Step(higher, lower, plan, out / name))
    check_out(out, "ladder folder", (LADDER_MANIFEST,))  # the rule of every --out
    manifest_path = out / LADDER_MANIFEST
    if manifest_path.is_file():
        old = read_ladder_manifest(out)
        ours = {"game": game, "players": players, "config_hash": steps[0].plan.config_hash, "seed": seed,
                "deals": "same" if same_deals else "fresh"}
        theirs = {k: old.get(k, "same" if k == "deals" else None) for k in ours}  # older: the same deals
        differs = [k for k, v in ours.items() if theirs[k] != v]
        if differs:
            shown = "; ".join(f"{k}: ladder has {theirs[k]!r}, asked {ours[k]!r}" for k in differs)
            hint = "" if "deals" not in differs else (
                " (or --same-deals to go on with it)" if not same_deals else " (or leave out --same-deals)")
            raise ConfigError(f"{out}: made by a different ladder ({shown}); use another --out{hint}")
    for step in steps:
        check_directory(RunDirectory(step.out), step.plan.identity(), force=False)
    return out, steps


def ladder_manifest(out: Path, steps: list[Step], games: int, iters: tuple[int, ...], *, seed: int,
                    same_deals: bool = False, margin: float = STEP_MARGIN) -> dict:
    """ladder.json: the ladder's game, config, seed and which deals its steps played (``deals``: fresh or
    same), the step margin its verdicts are judged at, and each step (its agents, seed and run folder)."""
    plan = steps[0].plan
    return {"game": plan.game, "config": plan.config_path, "config_hash": plan.config_hash,
            "players": plan.players, "seed": seed, "deals": "same" if same_deals else "fresh",
            "margin": margin, "games": games, "iters": list(iters),
            "levels": [s.lower.name for s in steps[:1]] + [s.higher.name for s in steps],
            "steps": [{"name": s.name, "higher": s.higher.name, "lower": s.lower.name,
                       "higher_agent": s.higher.agent, "lower_agent": s.lower.agent,
                       "agents": list(s.plan.agents), "run_dir": os.path.relpath(s.out, out),
                       "games": games, "players": s.plan.players, "seed": s.plan.seed} for s in steps]}


def run_ladder(spec: GameSpec, players: int, config: str | os.PathLike[str] | None = None,
               games: int = DEFAULT_GAMES, iters: tuple[int, ...] = DEFAULT_ITERS, jobs: int = 1,
               seed: int = 0, out: str | os.PathLike[str] | None = None,
               say: Callable[[str], None] = print, expert: bool = True,
               cluster: StudyCluster | None = None,
               same_deals: bool = False, margin: float = STEP_MARGIN) -> LadderResult:
    """Plan (refusing bad input before any game), play every unfinished step, write the report. `cluster`:
    the ladder's one Dask cluster (storage.backends.StudyCluster), every step played on it; None: on
    `jobs` processes here. `same_deals`: every step on the ladder's seed (else fresh deals per step,
    `step_seed`); `margin`: the win-share margin a step is shown level within (analysis.ladder_report)."""
    game = spec.name
    out, steps = plan_ladder(spec, players, config=config, iters=iters, seed=seed, out=out, expert=expert,
                             same_deals=same_deals)
    out.mkdir(parents=True, exist_ok=True)
    text = json.dumps(ladder_manifest(out, steps, games, iters, seed=seed, same_deals=same_deals,
                                      margin=margin), indent=2)
    path = out / LADDER_MANIFEST
    if not path.is_file() or path.read_text() != text:
        path.write_text(text)
    result = LadderResult(out, steps)
    if jobs > 1 and cluster is None and any(RunDirectory(s.out).finished_games() < games for s in steps):
        prestart_workers(jobs, spec)
    for i, step in enumerate(steps, 1):
        label = f"[{i}/{len(steps)}] {step.name}"
        if RunDirectory(step.out).finished_games() >= games:
            result.skipped += 1
            say(f"{label}: finished already ({step.out})")
            continue
        res = simulate(step.plan, games, step.out, jobs=jobs,  # small chunks for MCTS: RunPlan.smallest_chunk
                       cluster=cluster)
        result.played += res.played
        say(f"{label}: {res.played} games in {res.seconds:.1f} s ({step.out})")

    result.report = build_report([out], out / "report")
    manifest, table, summary, runs = read_ladder(out)
    ratings = read_ladder_ratings(out, manifest, runs)
    result.text = (f"{game} ladder, {players} players, {manifest['config']}, {games:,} games per step, "
                   f"{deals_text(manifest)}:\n" + format_ladder(table, summary, ratings))
    return result
