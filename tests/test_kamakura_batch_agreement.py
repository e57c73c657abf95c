"""The batch path (compiled self-play) and the readable API are one engine: same seeds, same games."""

from __future__ import annotations

import numpy as np
import pytest

from sim.kamakura.agents import AGENT_CODES
from sim.kamakura.batch import EVENT_GAIN, EVENT_USE_CHIT, EVENT_USE_ORDER, run_batch
from sim.kamakura.game import KamakuraGame
from sim.kamakura.params import default_rules
from sim.kamakura.policies import POLICIES
from sim.rng import game_seeds, new_rng


def play_through_api(game: KamakuraGame, seed: int, agents: list[str], round_trip: bool) -> dict:
    """Play one game with the API policies; collect what the batch path reports."""
    state = game.new_state(seed)
    rng = new_rng(seed, 1)  # one generator per game, shared by the seats, as in the batch loop
    policies = [POLICIES[name](rng) for name in agents]
    events: list[tuple[int, int, int, int]] = []
    turn_start = 0
    while not game.is_over(state):
        d = game.to_dict(state)
        seat, turn = d["to_move"], d["turn"]
        if "turn_state" not in d:
            turn_start = len(events)
        action = policies[seat].choose(game, state)
        words = action.split()
        if action == "pass":
            del events[turn_start:]
        elif action == "use order":
            events.append((turn, seat, EVENT_USE_ORDER, -1))
        elif words[0] == "use":
            events.append((turn, seat, EVENT_USE_CHIT, int(words[1])))
        elif words[0] == "gain":
            events.append((turn, seat, EVENT_GAIN, int(words[1])))
        state = game.apply(state, action)
        if round_trip:
            state = game.from_dict(game.to_dict(state))
    result = game.result(state)
    return {"result": result, "events": events, "out_turn": game.to_dict(state)["out_turn"]}


def compare(players: int, agents: list[str], games: int, base_seed: int, round_trip: bool = False) -> None:
    rules = default_rules(players)
    game = KamakuraGame(rules)
    seeds = game_seeds(base_seed, 0, games)
    batch = run_batch(rules, seeds, [AGENT_CODES[a] for a in agents])
    for g, seed in enumerate(seeds):
        api = play_through_api(game, int(seed), agents, round_trip)
        res = api["result"]
        assert res["scores"] == batch["scores"][g].tolist(), f"game {g} (seed {seed}): scores differ"
        assert res["winners"] == np.flatnonzero(batch["winners"][g]).tolist()
        assert res["tie"] == bool(batch["tie"][g])
        assert res["decided_by_tiebreak"] == bool(batch["decided_by_tiebreak"][g])
        assert res["turns"] == batch["turns"][g]
        assert [-1 if x is None else x for x in api["out_turn"]] == batch["out_turn"][g].tolist()
        n = batch["n_events"][g]
        assert api["events"] == [tuple(int(x) for x in row) for row in batch["events"][g, :n]], \
            f"game {g} (seed {seed}): events differ"


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_agents_agree_on_500_games(players: int) -> None:
    compare(players, ["random"] * players, 500 if players == 3 else 100, base_seed=11)


def test_greedy_and_random_agree_with_dict_round_trips() -> None:
    compare(3, ["greedy", "random", "greedy"], 60, base_seed=5, round_trip=True)
    compare(4, ["greedy"] * 4, 30, base_seed=6)


def test_same_seed_same_batch_whatever_the_split() -> None:
    rules = default_rules(3)
    seeds = game_seeds(3, 0, 200)
    whole = run_batch(rules, seeds, [0, 1, 0])
    parts = [run_batch(rules, seeds[i:i + 50], [0, 1, 0]) for i in range(0, 200, 50)]
    joined = {key: np.concatenate([p[key] for p in parts]) for key in whole}
    for key, value in whole.items():
        if key != "events":  # rows past n_events are unused scratch
            assert np.array_equal(value, joined[key]), key
    for g, n in enumerate(whole["n_events"]):
        assert np.array_equal(whole["events"][g, :n], joined["events"][g, :n])
