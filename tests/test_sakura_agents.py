"""Sakura agents decide from their observation only: hidden information never changes a decision."""

from __future__ import annotations

import copy
import random

import numpy as np
import pytest

from sim.core.rng import new_rng
from sim.sakura.agents import greedy_action, random_action
from sim.sakura.game import SakuraGame
from sim.sakura.kernels import N_ACTIONS_MAX
from sim.sakura.spec import SPEC


def reshuffle_hidden(d: dict, seat: int, rng: random.Random) -> dict:
    """Same observation for `seat`, different hidden information: other hands, the deck order and the
    unrevealed selections of other seats are redealt from the same cards."""
    e = copy.deepcopy(d)
    hidden = list(e["deck"])
    others = [i for i in range(e["players"]) if i != seat]
    for i in others:
        hidden += e["hands"][i]
    revealed = e["phase"] != "select"
    if not revealed:
        hidden += [c for i, c in enumerate(e["selected"]) if i != seat and c is not None]
        if e["court"] and e["court"]["card"] is not None:
            hidden.append(e["court"]["card"])
    rng.shuffle(hidden)
    for i in others:
        n = len(e["hands"][i])
        e["hands"][i], hidden = sorted(hidden[:n]), hidden[n:]
    if not revealed:
        for i in others:
            if e["selected"][i] is not None:
                e["selected"][i], hidden = hidden[0], hidden[1:]
        if e["court"] and e["court"]["card"] is not None:
            e["court"]["card"], hidden = hidden[0], hidden[1:]
    e["deck"] = hidden
    e["rng"] = rng.getrandbits(64)
    return e


def decision(game: SakuraGame, d: dict, agent, seed: int) -> int:
    buf = np.empty(N_ACTIONS_MAX, dtype=np.int64)
    return int(agent(game.from_dict(d).vector.copy(), new_rng(seed, 1), buf))


@pytest.mark.parametrize("players, config", [(4, None), (5, None), (2, None),
                                             (2, "configs/sakura/two-player-tactical.toml")])
@pytest.mark.parametrize("agent", [greedy_action, random_action])
def test_same_observation_same_decision(players: int, config: str | None, agent) -> None:
    rules = SPEC.load_rules(config, players) if config else SPEC.default_rules(players)
    game = SakuraGame(rules)
    rng = random.Random(players)
    checked = 0
    for seed in range(12):
        state = game.new_state(seed)
        while not game.is_over(state):
            d = game.to_dict(state)
            seat = d["to_move"]
            twin = reshuffle_hidden(d, seat, rng)
            assert game.observe(game.from_dict(twin), seat) == game.observe(state, seat)
            assert decision(game, twin, agent, seed) == decision(game, d, agent, seed)
            checked += 1
            state = game.apply(state, rng.choice(game.legal_actions(state)))
    assert checked > 200
