"""The PettingZoo environment (sim/kamakura/pettingzoo_env.py): PettingZoo's own API and seed tests at every
player count, and the same game, observations and rewards as the readable API and the OpenSpiel game."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pettingzoo")
pytest.importorskip("gymnasium")

from pettingzoo.test import api_test, seed_test  # noqa: E402

from sim.kamakura import kernels as K  # noqa: E402
from sim.kamakura import pettingzoo_env as pz  # noqa: E402
from sim.kamakura.game import KamakuraGame  # noqa: E402
from sim.kamakura.observer import observation_size  # noqa: E402
from sim.kamakura.params import load_rules  # noqa: E402
from tests.kamakura_helpers import CONFIG  # noqa: E402

#: api_test's warnings for any Dict observation (PettingZoo's own classic environments are exempted by name)
DICT_OBSERVATION = ("ignore:Observation space for each agent probably should be:UserWarning",
                    "ignore:Observation is not a NumPy array:UserWarning")


@pytest.mark.filterwarnings(*DICT_OBSERVATION)
@pytest.mark.parametrize("players", [2, 3, 4])
def test_pettingzoo_api_test(players):
    """PettingZoo's API test; 100 cycles of every agent outlast a game of random moves (80-300 steps)."""
    api_test(pz.env(players=players, seed=players), num_cycles=100, verbose_progress=False)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_pettingzoo_seed_test(players):
    seed_test(lambda: pz.env(players=players), num_cycles=100)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_spaces_and_first_observation(players):
    e = pz.env(players=players)
    e.reset(seed=3)
    assert e.possible_agents == [f"player_{seat}" for seat in range(players)]
    assert e.agent_selection == "player_0"
    space = e.observation_space("player_1")
    assert space["observation"].shape == (observation_size(players),) == (429 + 48 * players,)
    assert e.action_space("player_0").n == K.N_ACTIONS
    api = KamakuraGame(load_rules(None, players))
    start = api.new_state(3)
    first = e.observe("player_0")
    assert list(np.flatnonzero(first["action_mask"])) == list(api.legal_action_codes(start))
    assert not e.observe("player_1")["action_mask"].any()  # only the agent to move has legal actions
    assert space.contains(first)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_whole_game_matches_the_readable_api_and_pays_the_returns(players):
    e = pz.raw_env(players=players, config=CONFIG, render_mode="ansi")
    e.reset(seed=20 + players)
    rewards_seen = {agent: 0.0 for agent in e.possible_agents}
    api = KamakuraGame(load_rules(CONFIG, players))
    s = api.new_state(20 + players)
    rng = np.random.RandomState(players)
    for agent in e.agent_iter():
        observation, reward, termination, truncation, _info = e.last()
        rewards_seen[agent] = reward
        assert not truncation
        if termination:
            e.step(None)
            continue
        assert agent == f"player_{api.to_move(s)}"
        action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
        s = api.apply_code(s, action)
        e.step(action)
    assert api.is_over(s) and e.agents == []
    assert [rewards_seen[a] for a in e.possible_agents] == api.returns(s)
    assert sum(rewards_seen.values()) == pytest.approx(1.0)
    assert e.render().startswith("Kamakura, after")


def test_reset_is_deterministic_and_moves_on_to_the_next_seed():
    e = pz.raw_env(players=3, seed=5)
    e.reset()
    first = e.observe("player_0")["observation"]
    e.reset(seed=5)
    assert np.array_equal(e.observe("player_0")["observation"], first)
    e.reset()  # the next seed: 6
    sixth = e.observe("player_0")["observation"]
    e.reset(seed=6)
    assert np.array_equal(e.observe("player_0")["observation"], sixth)
    assert not np.array_equal(first, sixth)


def test_rule_overrides_and_bad_arguments():
    e = pz.raw_env(players=2, rules={"tie_break": "shared", "voluntary_pass": True})
    assert (e.api.rules.tie_break, e.api.rules.voluntary_pass) == ("shared", True)
    with pytest.raises(ValueError, match="tie_break"):
        pz.raw_env(rules={"tie_break": "coin"})
    with pytest.raises(ValueError):
        pz.raw_env(render_mode="human")
    e = pz.env(players=2)
    e.reset(seed=0)
    illegal = int(np.flatnonzero(e.observe("player_0")["action_mask"] == 0)[0])
    with pytest.raises(ValueError, match="illegal action"):
        e.step(illegal)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_observation_equals_the_openspiel_observer(players):
    pyspiel = pytest.importorskip("pyspiel")
    from open_spiel.python.observation import make_observation

    from sim.kamakura import openspiel_game as og

    game = og.load(players, seed=players)
    state = game.new_initial_state()
    observer = make_observation(game)
    e = pz.raw_env(players=players, seed=players)
    e.reset()
    rng = np.random.RandomState(players)
    checked = 0
    while True:
        for seat, agent in enumerate(e.possible_agents):
            observer.set_from(state, seat)
            mine = e.observe(agent)
            assert np.array_equal(mine["observation"], observer.tensor)
            assert np.array_equal(mine["observation"], np.array(state.observation_tensor(seat), np.float32))
            checked += 1
        if state.is_terminal():
            break
        action = int(rng.choice(state.legal_actions()))
        assert e.observe(e.agent_selection)["action_mask"][action] == 1
        assert e.agent_selection == f"player_{state.current_player()}"
        e.step(action)
        state.apply_action(action)
    assert e.terminations == dict.fromkeys(e.possible_agents, True)
    assert [e._cumulative_rewards[a] for a in e.possible_agents] == state.returns()
    assert state.current_player() == pyspiel.PlayerId.TERMINAL and checked > 10 * players
