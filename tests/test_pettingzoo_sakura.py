"""The PettingZoo AEC environment (sim/sakura/pettingzoo_env.py): PettingZoo's own API and seed tests at every
player count, and observations that are the OpenSpiel observer's for the same state."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pyspiel")
pytest.importorskip("pettingzoo")

from pettingzoo.test import api_test, seed_test  # noqa: E402

from sim.sakura import openspiel_game as og  # noqa: E402
from sim.sakura.pettingzoo_env import SakuraAECEnv, env, raw_env  # noqa: E402
from tests.sakura_helpers import TACTICAL_CONFIG  # noqa: E402

PLAYERS = (2, 3, 4, 5, 6)
#: api_test's advice for flat observations; a Dict of observation and action mask is the AEC convention
pytestmark = pytest.mark.filterwarnings("ignore:Observation space for each agent",
                                        "ignore:Observation is not")


@pytest.mark.parametrize("players", PLAYERS)
def test_pettingzoo_api_test(players):
    api_test(env(players=players), num_cycles=200, verbose_progress=False)


@pytest.mark.parametrize("players", PLAYERS)
def test_pettingzoo_seed_test(players):
    seed_test(lambda: env(players=players), num_cycles=200)


def test_tactical_variant_passes_the_api_test():
    api_test(env(players=2, config=TACTICAL_CONFIG), num_cycles=200, verbose_progress=False)


@pytest.mark.parametrize("players", PLAYERS)
def test_a_game_observes_as_the_openspiel_observer_and_rewards_the_returns(players):
    e = raw_env(players=players)
    e.reset(seed=players)
    observer = og.load(players).make_py_observer()
    rng = np.random.default_rng(players)
    rewards = dict.fromkeys(e.possible_agents, 0.0)
    for agent in e.agent_iter(max_iter=10_000):
        observation, reward, termination, truncation, _info = e.last()
        rewards[agent] += reward
        seat = e.possible_agents.index(agent)
        observer.set_from(e.position, seat)
        assert np.array_equal(observation["observation"], observer.tensor)
        assert observation["observation"].shape == e.observation_space(agent)["observation"].shape
        for other in e.possible_agents:  # every agent's observation, not only the mover's
            observer.set_from(e.position, e.possible_agents.index(other))
            assert np.array_equal(e.observe(other)["observation"], observer.tensor)
        mask = observation["action_mask"]
        if termination or truncation:
            e.step(None)
            continue
        assert e.position.current_player() == seat
        assert list(np.flatnonzero(mask)) == e.position.legal_actions()
        e.step(int(rng.choice(np.flatnonzero(mask))))
    assert e.position.is_terminal()
    assert [rewards[a] for a in e.possible_agents] == e.position.returns()
    assert sum(rewards.values()) == pytest.approx(1.0)


def test_render_ansi_and_bad_render_mode():
    e = env(players=3, render_mode="ansi")
    e.reset(seed=0)
    text = e.render()
    assert "Sakura, round 1" in text and "your hand" in text
    e.close()
    assert raw_env(players=3).render() is None
    with pytest.raises(ValueError):
        SakuraAECEnv(players=3, render_mode="human")


def test_an_illegal_action_ends_the_game_for_its_agent():
    e = env(players=3)
    e.reset(seed=1)
    observation, *_ = e.last()
    illegal = int(np.flatnonzero(observation["action_mask"] == 0)[0])
    e.step(illegal)
    assert all(e.terminations.values())
    assert e.rewards[e.possible_agents[0]] == -1


def test_the_global_state_is_pettingzoos_not_implemented():
    """`state()` is PettingZoo's global-state call: the environment leaves it unimplemented (a seat's view
    is its observation) rather than hiding it behind an attribute."""
    e = raw_env(players=3)
    e.reset(seed=1)
    with pytest.raises(NotImplementedError):
        e.state()
