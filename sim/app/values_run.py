"""`balance values`: each component's causal worth by paired intervention (the game's `values` study in the
registry, sim/<game>/values.py), written as a resumable run directory like `balance simulate`'s.

A values run's unit is a base game: seed i of the run (the same seed `simulate` gives game i) sets up the
game, which is played to each position; there every component kind is given to each seat, or to nobody,
and each arm is played on to the end. A chunk of base games is one part of the run's one table,
``values.parquet`` (docs/howto/values.md), so a killed run loses no finished chunk and a resumed one plays
only what is missing, with the same tables at any --jobs or backend.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from sim.app.runner import RunPlan, plan_rules, plan_run
from sim.core.agent_spec import agent_arrays
from sim.core.errors import ConfigError
from sim.core.game_spec import GameSpec
from sim.core.log_tables import to_parquet_bytes
from sim.core.rng import game_seeds

VALUES_TABLES = ("values",)
#: the run's first base games, played (and not written) to check that they reach the positions asked
PROBE_GAMES = 16


@dataclass(frozen=True)
class ValuesPlan(RunPlan):
    """A values run: a RunPlan (game, config, agents, seed) and the positions measured."""

    positions: tuple[int, ...] = (0,)

    study = "values"
    tables = VALUES_TABLES

    def manifest_extra(self) -> dict:
        """The components priced, in the table's `component` index order (labels and attributes)."""
        values = self.spec.values
        return {"components": values.components(plan_rules(self))}

    def play(self, start: int, end: int) -> dict[str, bytes]:
        """Play the arms of base games start..end-1; their values table as Parquet bytes (in a worker)."""
        values = self.spec.values
        rules = plan_rules(self)
        kinds, params = agent_arrays(self.seating(start, end), self.spec, self.played)
        out = values.run(rules, game_seeds(self.seed, start, end - start), kinds, params, self.positions,
                         first_game=start)
        return {"values": to_parquet_bytes(values.table(start, out))}

    def smallest_chunk(self) -> int:
        """Each base game plays about a hundred games: ten base games a chunk at least (one when a seat
        searches)."""
        return max(1, super().smallest_chunk() // 100)


def parse_positions(text: str | None, spec: GameSpec) -> tuple[int, ...]:
    """`--positions 0,9,18`: distinct increasing turn counts within the game's range (default: the
    game's). ConfigError on anything else."""
    values = spec.values
    if text is None:
        return values.positions
    try:
        positions = tuple(int(part) for part in text.split(","))
    except ValueError:
        raise ConfigError(f"--positions: expected whole numbers separated by commas, got {text!r}") from None
    if any(b <= a for a, b in zip(positions, positions[1:], strict=False)) or positions[0] < 0:
        raise ConfigError(f"--positions: must be distinct, increasing and >= 0, got {text!r}")
    if positions[-1] > values.max_position:
        limit = "the start only (0)" if values.max_position == 0 else f"at most {values.max_position}"
        raise ConfigError(f"--positions: {spec.name} values are measured at {limit}, got {text!r}")
    return positions


def plan_values(config: str | os.PathLike[str], players: int, agents: str, seed: int,
                positions: str | None) -> ValuesPlan:
    """Validate the inputs of a values run (ConfigError on anything wrong) and fix its identity."""
    base = plan_run(config, players, agents, seed, rotate_seats=False)
    if base.spec.values is None:
        raise ConfigError(f"{config}: `balance values` knows no components of {base.game}")
    plan = ValuesPlan(**{**base.__dict__, "positions": parse_positions(positions, base.spec)})
    if positions is not None and plan.positions[-1] > 0:
        check_reached(plan)
    return plan


def check_reached(plan: ValuesPlan) -> None:
    """Refuse, before anything is written, positions that none of the run's first base games reaches:
    a component cannot be priced after the game has ended."""
    count = PROBE_GAMES
    kinds, params = agent_arrays(plan.seating(0, count), plan.spec, plan.played)
    out = plan.spec.run_batch(plan_rules(plan), game_seeds(plan.seed, 0, count), kinds, params)
    unit = plan.spec.vocabulary.length
    longest = int(max(out[unit]))
    late = [p for p in plan.positions if p >= longest]
    if late:
        raise ConfigError(f"--positions: no game reaches {unit[:-1]} {late[0]} (the longest of the run's "
                          f"first {count} games lasts {longest} {unit}); choose positions below {longest}")

