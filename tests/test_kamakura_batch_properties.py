"""Invariants of the batch path's records, over random seeds, seatings and player counts (hypothesis)."""

from __future__ import annotations

import dataclasses

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.core.rng import game_seeds
from sim.kamakura.batch import EVENT_GAIN, EVENT_USE_CHIT, EVENT_USE_ORDER, run_batch
from sim.kamakura.game import KamakuraGame
from sim.kamakura.params import TIE_BREAKS
from sim.kamakura.spec import SPEC


@settings(deadline=None, max_examples=40)
@given(players=st.integers(2, 4), base_seed=st.integers(0, 2**40), data=st.data())
def test_batch_records_are_consistent(players: int, base_seed: int, data: st.DataObject) -> None:
    seating = data.draw(st.lists(st.integers(0, 1), min_size=players, max_size=players))
    tie_break = data.draw(st.sampled_from(TIE_BREAKS))  # R-9 and R-20's last_to_play
    rules = dataclasses.replace(SPEC.default_rules(players), tie_break=tie_break)
    seeds = game_seeds(base_seed, 0, 20)
    out = run_batch(rules, seeds, seating)
    game = KamakuraGame(rules)
    for g, seed in enumerate(seeds):
        chits = game.to_dict(game.new_state(int(seed)))["chits"]
        events = out["events"][g, :out["n_events"][g]]
        gained: dict[int, tuple[int, int]] = {}  # chit -> (seat, turn)
        points = np.zeros(players, dtype=int)
        order_used = set()
        last_turn = -1
        for turn, seat, kind, chit in events.tolist():
            assert turn >= last_turn and 0 <= seat < players
            last_turn = turn
            if kind == EVENT_GAIN:
                assert chit not in gained, "a chit is gained once (40 chits conserved)"
                gained[chit] = (seat, turn)
                points[seat] += chits[chit]["points"]
            elif kind == EVENT_USE_CHIT:
                owner, when = gained[chit]
                assert owner == seat and when < turn, "R-5: only own chits, never on the turn gained"
                assert chit < 30 and chits[chit]["power"] > 0
            else:
                assert kind == EVENT_USE_ORDER and seat != 0 and seat not in order_used, "R-4"
                order_used.add(seat)
        assert points.tolist() == out["scores"][g].tolist(), "score = sum of owned points"
        assert out["scores"][g].sum() <= 100
        winners = out["winners"][g]
        assert winners.sum() >= 1 and out["scores"][g][winners == 1].min() == out["scores"][g].max()
        # each seat's last turn is its final `end` or `pass`: the game's last turn is the latest of
        # them, a passed seat's is its out turn, no two seats share one
        last = out["last_turn"][g, :players]
        assert last.max() == out["turns"][g] - 1 and len(set(last.tolist())) == players
        passed = out["out_turn"][g, :players] >= 0
        assert (last[passed] == out["out_turn"][g, :players][passed]).all()
        tied = np.flatnonzero(out["scores"][g] == out["scores"][g].max())
        expected = {"last_in_order": [tied[-1]], "first_in_order": [tied[0]], "shared": list(tied),
                    "last_to_play": [tied[np.argmax(last[tied])]]}[tie_break]
        assert np.flatnonzero(winners).tolist() == expected
        for seat in range(players):
            out_turn = out["out_turn"][g, seat]
            assert out_turn == -1 or all(t < out_turn for t, s, *_ in events.tolist() if s == seat), \
                "a passed player never acts again"
        if len(gained) < 40:
            assert (out["out_turn"][g] >= 0).all(), "the game ends early only when everyone has passed"
