"""Which player plays the rest of a Sakura game better, from the same positions (a paired phase study).

Why: two agents' whole-game win shares against the same opponents differ by a point or two at most, and
each needs thousands of games to be told apart; the study asks where in the game a difference lies. It
collects positions of self-play of one agent (`--source`) right after a tree scores (`--trees-left` still
unscored), then plays the rest of each game once per arm: the arm in one seat (seat i % players for
position i, so every seat is studied equally), `--opponent` in the others, and the same generator for
every arm (common random numbers: arms that choose alike play the same game, so their difference comes
only from where they choose differently). Each arm's win share (R-14's winner; a shared win split) and
each arm's paired difference to the first arm come with 95% normal intervals over positions (one game
per position, so the positions are independent).

    python -m sim.sakura.phase_study --positions 3000 --trees-left 1 --arms "expert;mcts" --jobs 2

The positions are states of the full game (hands and deck as dealt); every agent still decides from its
own seat's observation.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

import numpy as np
from joblib import Parallel, delayed

from sim.core.agent_spec import agent_arrays
from sim.core.rng import game_seeds
from sim.sakura.game import kernel_rules
from sim.sakura.phase_play import collect, finish
from sim.sakura.spec import SPEC


def positions(players: int, source: str, count: int, seed: int, trees_left: int,
              config: str | None = None) -> np.ndarray:
    """States of `source` self-play right after a tree scores with `trees_left` trees to go (at most
    `count`; games that end first give none)."""
    game = SPEC.game_class(SPEC.load_rules(config, players))
    args = kernel_rules(game.rules)
    seeds = game_seeds(seed, 0, count)
    kinds, params = agent_arrays([[source] * players], SPEC)
    out = np.zeros((count, game.new_state(0).vector.shape[0]), dtype=np.int64)
    n = collect(args, seeds, kinds[0], params[0], trees_left, out)
    return out[:n]


def _arm_tables(arm: str, opponent: str, players: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """For each seat, the agent codes and parameter rows of a table with `arm` there, `opponent` elsewhere."""
    tables = []
    for seat in range(players):
        row = [opponent] * players
        row[seat] = arm
        kinds, params = agent_arrays([row], SPEC)
        tables.append((kinds[0], params[0]))
    return tables


def _play(states: np.ndarray, index: np.ndarray, seed: int, arms: Sequence[str], opponent: str,
          players: int) -> np.ndarray:
    tables = [_arm_tables(arm, opponent, players) for arm in arms]
    seeds = game_seeds(seed, 0, len(states))
    out = np.zeros((len(index), len(arms)))
    for row, i in enumerate(index):
        seat = int(i) % players
        for a, table in enumerate(tables):
            kinds, params = table[seat]
            out[row, a] = finish(states[i], seeds[i], kinds, params, seat)
    return out


def play_arms(states: np.ndarray, arms: Sequence[str], opponent: str, players: int, seed: int,
              jobs: int = 1) -> np.ndarray:
    """Each arm's win share at each position, (positions, arms); the same for any `jobs`."""
    parts = [part for part in np.array_split(np.arange(len(states)), max(1, 8 * jobs)) if len(part)]
    results = Parallel(n_jobs=jobs)(delayed(_play)(states, index=part, seed=seed, arms=arms,
                                                   opponent=opponent, players=players) for part in parts)
    return np.concatenate(results) if results else np.zeros((0, len(arms)))


def interval(values: np.ndarray) -> tuple[float, float, float]:
    """The mean and its 95% normal interval."""
    mean = float(values.mean())
    half = 1.96 * float(values.std(ddof=1)) / np.sqrt(len(values)) if len(values) > 1 else float("nan")
    return mean, mean - half, mean + half


def report(shares: np.ndarray, arms: Sequence[str]) -> list[str]:
    """Lines: each arm's win share, then each arm's paired difference to the first, in percentage points."""
    lines = []
    for a, arm in enumerate(arms):
        mean, low, high = interval(shares[:, a])
        lines.append(f"{arm:<40} win share {100 * mean:5.1f}% [{100 * low:.1f}, {100 * high:.1f}]")
    for a in range(1, len(arms)):
        diff = shares[:, a] - shares[:, 0]
        mean, low, high = interval(diff)
        mean, low, high = (round(100 * x, 2) + 0.0 for x in (mean, low, high))  # never "-0.00"
        lines.append(f"{arms[a]} - {arms[0]}: {mean:+.2f} pp [{low:+.2f}, "
                     f"{high:+.2f}], the rest of the game differs at {100 * np.mean(diff != 0):.0f}% "
                     "of positions")
    return lines


def _at_least(lowest: int):
    def parse(text: str) -> int:
        value = int(text)
        if value < lowest:
            raise argparse.ArgumentTypeError(f"must be at least {lowest}, got {value}")
        return value
    return parse


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m sim.sakura.phase_study",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=_at_least(2), default=4)
    parser.add_argument("--config", default=None)
    parser.add_argument("--positions", type=_at_least(2), default=1000,
                        help="self-play games to take positions from")
    parser.add_argument("--trees-left", type=_at_least(1), default=1)
    parser.add_argument("--source", default="expert", help="the agent whose self-play gives the positions")
    parser.add_argument("--arms", default="expert;mcts",
                        help="agents to compare, ';'-separated, the first is the base")
    parser.add_argument("--opponent", default="mcts")
    parser.add_argument("--seed", type=int, default=77)
    parser.add_argument("--jobs", type=_at_least(1), default=1)
    ns = parser.parse_args(argv)
    arms = ns.arms.split(";")
    try:
        SPEC.game_class(SPEC.load_rules(ns.config, ns.players))  # the config and player count first
        for agent in (ns.source, ns.opponent, *arms):  # every agent refused before any game is played
            agent_arrays([[agent] * ns.players], SPEC)
        states = positions(players=ns.players, source=ns.source, count=ns.positions, seed=ns.seed,
                           trees_left=ns.trees_left, config=ns.config)
    except ValueError as error:  # ConfigError: a bad agent, config or player count
        print(f"phase_study: {error}", file=sys.stderr)
        raise SystemExit(2) from None
    if len(states) < 2:
        print(f"phase_study: fewer than 2 of {ns.positions} games reached {ns.trees_left} tree(s) left",
              file=sys.stderr)
        raise SystemExit(2)
    shares = play_arms(states=states, arms=arms, opponent=ns.opponent, players=ns.players, seed=ns.seed,
                       jobs=ns.jobs)
    print(f"{len(states)} positions of {ns.source} self-play with {ns.trees_left} tree(s) left; "
          f"the others: {ns.opponent}")
    print("\n".join(report(shares, arms)))


if __name__ == "__main__":
    main()
