"""The look-ahead's shortcuts equal the long way: kernels.copy_round_fields undoes a resolved
round exactly (so the agents copy ~50 fields back instead of the whole vector), and the expert's hand
features, read off one walk per painter (expert._hand), equal each painter action's destination by the
rules' own targets (kernels.forward_target, leapfrog_target, painters_between)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from sim.core.rng import new_rng
from sim.sakura import kernels as K
from sim.sakura.agents import simulate_round
from sim.sakura.expert import FEATURES, MIX, N_GARDEN, features, hand_mix, pool_mix, unseen_cards
from sim.sakura.game import SakuraGame
from sim.sakura.spec import SPEC

CONFIGS = [(2, None), (2, "configs/sakura/two-player-tactical.toml"), (4, None), (6, None)]


def positions(players: int, config: str | None, games: int, seed: int) -> list[np.ndarray]:
    """Every decision's state vector in `games` games of uniformly random moves."""
    rules = SPEC.load_rules(config, players) if config else SPEC.default_rules(players)
    game = SakuraGame(rules)
    rng = random.Random(seed)
    out = []
    for g in range(games):
        state = game.new_state(seed * 100 + g)
        while not game.is_over(state):
            out.append(state.vector.copy())
            state = game.apply(state, rng.choice(game.legal_actions(state)))
    return out


@pytest.mark.parametrize(("players", "config"), CONFIGS)
def test_copying_the_round_fields_back_undoes_a_resolved_round(players: int, config: str | None) -> None:
    """From every decision of random games: guessed cards placed, the round ordered and resolved (a tree
    scored on the way, or the game ended, in some of them), then copy_round_fields(t, s) gives back s,
    every slot of the vector; and the resolution really moved something in most of them."""
    rng = new_rng(5, 1)
    moved = total = 0
    for s in positions(players, config, 6, players):
        t = s.copy()
        scratch = s.copy()
        order = np.empty(K.MAX_PAINTERS, dtype=np.int64)
        gained = np.zeros(K.MAX_PAINTERS, dtype=np.int64)
        me = max(int(s[K.TO_MOVE]), 0)
        if s[K.PHASE] == K.PH_SELECT:
            cards = [c for c in range(1, K.DECK_SIZE + 1) if c not in s[K.HAND:K.HAND + 30]]
            for p in range(int(s[K.N_PAINTERS])):
                t[K.SELECTED + p] = cards[int(rng[0] % 5) + 5 * p]
            K.order_pending(t)
            forced = -1
        else:
            forced = 1
        simulate_round(t, me, forced, scratch, order, gained)
        total += 1
        moved += not np.array_equal(t, s)
        K.copy_round_fields(t, s)
        assert np.array_equal(t, s)
        assert np.array_equal(scratch[:K.EMPEROR], s[:K.EMPEROR])
    assert moved > 0.9 * total


def reference_hand(t: np.ndarray, p: int, mix: np.ndarray) -> tuple[float, float, float]:
    """hand_advance, hand_lead, hand_bump of painter p by each action's destination from the kernels'
    targets, one action at a time (the expert's features before the one-walk reading)."""
    mine = int(t[K.PAINTER + p])
    closest_other = max([0] + [int(t[K.PAINTER + q]) for q in range(int(t[K.N_PAINTERS])) if q != p])
    advance = lead = bumped = 0.0
    for a in range(8):
        share = mix[N_GARDEN + a]
        if share == 0.0:
            continue
        if a <= K.P_3:
            dest = K.forward_target(t, p, a - K.P_1 + 1)
        elif a <= K.P_PM3:
            dest = K.forward_target(t, p, a - K.P_PM1 + 1)
            dest = mine if dest < 0 else dest
        elif a == K.P_LEAP:
            target = K.leapfrog_target(t, p)
            dest = mine if target < 0 else (-1 if target == t[K.EMPEROR] else target)
        else:
            n = K.painters_between(t, p)
            dest = mine if n == 0 else K.forward_target(t, p, n)
        if dest < 0:
            bumped += share
        else:
            advance += share * (dest - mine)
            lead += share if dest > closest_other else 0.0
    return advance, lead, bumped


@pytest.mark.parametrize(("players", "config"), CONFIGS)
def test_the_hand_features_are_the_rules_own_destinations(players: int, config: str | None) -> None:
    """At every select position of random games, each competing painter's hand features (its own hand,
    or the unseen cards' mix for the others) equal the action-by-action reference exactly, and the
    positions include bumps, leads and count moves of more than three spaces' walk."""
    names = [FEATURES.index(n) for n in ("hand_advance", "hand_lead", "hand_bump")]
    seen_bump = seen_lead = 0
    for s in positions(players, config, 6, 10 + players):
        if s[K.PHASE] != K.PH_SELECT:
            continue
        me = int(s[K.TO_MOVE])
        mixes = np.zeros((K.MAX_PAINTERS, MIX))
        pool = np.empty(K.DECK_SIZE, dtype=np.int64)
        pool_mix(s, pool, unseen_cards(s, me, pool), mixes[0])
        mixes[1:] = mixes[0]
        hand_mix(s, me, -1, mixes[me])
        feats = np.zeros((K.MAX_PAINTERS, len(FEATURES)))
        features(s, mixes, np.empty(K.MAX_PAINTERS, dtype=np.int64), feats)
        for p in range(int(K.rivals(s))):
            expected = reference_hand(s, p, mixes[p])
            assert tuple(feats[p, names]) == expected
            seen_bump += expected[2] > 0
            seen_lead += expected[1] > 0
    assert seen_bump > 0 and seen_lead > 0
