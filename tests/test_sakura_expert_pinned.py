"""The Sakura expert's decisions are pinned: fixed-seed expert self-play batches at 2, 4 and 6
players (and the tactical variant, the plain-lead evaluation and a wider race) give tables identical to
those of the expert before its speed-ups (commit 1dd45e3), so every speed-up keeps its strength by
construction. The expert of that commit is `expert:first=0,most=192` since (the speed work made an
earlier first look of the race and a shorter race the defaults, measured in docs/design/notes.md).

The digest covers every result array of the batch path (tokens, winners, ties, rounds, end reasons,
bumps, positions) and its card and sakura logs, which hold every card each seat played in each round.
A deliberate change of the expert's decisions regenerates the digests and says so in its commit.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from sim import games
from sim.core.agent_spec import agent_arrays
from sim.core.rng import game_seeds
from sim.sakura.batch import run_batch
from sim.sakura.spec import SPEC

# (players, config or None for the base config, agent text, games, seed) -> sha256 of the tables
PINNED = {
    (2, None, "expert:first=0,most=192", 16, 3):
        "1824a688f9605df42e4b45ca89708c6dcbbee0c992b9c29671186e7456b92d42",
    (2, "configs/sakura/two-player-tactical.toml", "expert:first=0,most=192", 12, 4):
        "50d7651ddec22d7a6c4b95d1859d5bcf1d8d8be166c087117ec0031195a0a6ae",
    (4, None, "expert:first=0,most=192", 24, 5):
        "c638e0d8c21c14ed69000b4fbb01e59061cf70c63177e7ec6b30dfbd6d92f93a",
    (4, None, "expert:temp=0,samples=12,most=0", 12, 6):
        "730d9a62cc72ceafc2f9a04d1969aac0f5d53dde8d9e7428c957f02d832ecbc3",
    (4, None, "expert:samples=8,most=64,z=1", 12, 7):
        "8dc9b98b3c75f413ed72391a975065b066150b522fa6cbf85586804d62d9c1c9",
    (6, None, "expert:first=0,most=192", 12, 8):
        "24720e99f071d48962c3dca80f0ceccb9f1fa2e05f2c1480c4c71068d47ada48",
}
# The defaults since the speed work (the race's first look after 16 guesses, most 96), pinned from then on.
PINNED_DEFAULTS = {
    (4, None, "expert", 24, 9): "0beb9c16346148245e1e7e8eb6c0a44f27f2e68e206e005692d114a586ee8e71",
    (2, None, "expert", 12, 10): "e2475db611316f7435e4fa5af3267899ad42523b458e7dc9b924e9ca1c19118c",
}


def expert_digest(players: int, config: str | None, agent: str, n_games: int, seed: int) -> str:
    """sha256 over every table of a batch of expert self-play (all seats `agent`)."""
    spec = games.spec("sakura")
    rules = SPEC.load_rules(config, players) if config else SPEC.default_rules(players)
    kinds, params = agent_arrays([[agent] * players] * n_games, spec)
    result = run_batch(rules, game_seeds(seed, 0, n_games), kinds, params)
    digest = hashlib.sha256()
    for name in sorted(result):
        array = np.ascontiguousarray(result[name])
        digest.update(name.encode())
        digest.update(str(array.dtype).encode())
        digest.update(str(array.shape).encode())
        digest.update(array.tobytes())
    return digest.hexdigest()


@pytest.mark.parametrize("case", sorted(PINNED, key=str), ids=lambda c: f"{c[0]}p-{c[2]}-{c[1] or 'base'}")
def test_expert_tables_identical_to_before_the_speed_ups(case):
    assert expert_digest(*case) == PINNED[case]


@pytest.mark.parametrize("case", sorted(PINNED_DEFAULTS, key=str), ids=lambda c: f"{c[0]}p-defaults")
def test_the_default_expert_tables_are_pinned(case):
    assert expert_digest(*case) == PINNED_DEFAULTS[case]
