"""The OpenSpiel adapter (sim/kamakura/openspiel_game.py): Kamakura as the pyspiel game "python_kamakura"
must play exactly like the readable API, pass OpenSpiel's own consistency checks with its observer at every
player count, and work with OpenSpiel's own MCTSBot, also against one of our agents."""

from __future__ import annotations

import copy

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from open_spiel.python.algorithms import mcts  # noqa: E402
from open_spiel.python.observation import INFO_STATE_OBS_TYPE, make_observation  # noqa: E402

from sim import games  # noqa: E402
from sim.core.rng import new_rng  # noqa: E402
from sim.kamakura import kernels as K  # noqa: E402
from sim.kamakura import openspiel_game as og  # noqa: E402
from sim.kamakura.game import action_from_string, action_to_string  # noqa: E402
from sim.kamakura.observer import observation_size  # noqa: E402
from sim.kamakura.policies import GreedyPolicy  # noqa: E402
from tests.kamakura_helpers import CONFIG  # noqa: E402

TIE_SHARED = CONFIG.parent / "tie-shared.toml"


def _random_playout(state, rng: np.random.RandomState) -> list[int]:
    """Play uniform random legal actions to the end; the codes played."""
    played = []
    while not state.is_terminal():
        action = int(rng.choice(state.legal_actions()))
        played.append(action)
        state.apply_action(action)
    return played


def test_load_game_parameters_and_info():
    game = pyspiel.load_game("python_kamakura", {"players": 4, "seed": 5})
    assert isinstance(game, og.KamakuraSpielGame)
    assert game.num_players() == 4
    assert game.num_distinct_actions() == K.N_ACTIONS
    assert (game.min_utility(), game.max_utility(), game.utility_sum()) == (0.0, 1.0, 1.0)
    game_type = game.get_type()
    assert game_type.chance_mode == pyspiel.GameType.ChanceMode.DETERMINISTIC
    assert game_type.utility == pyspiel.GameType.Utility.CONSTANT_SUM
    assert pyspiel.load_game("python_kamakura").num_players() == 3
    assert pyspiel.load_game("python_kamakura(players=2,seed=1)").num_players() == 2
    # the seeded setup is the API's new_state(seed)
    api = games.load("kamakura", config=CONFIG, players=4)
    state = game.new_initial_state()
    assert og.to_state_dict(state) == api.to_dict(api.new_state(seed=5))
    assert state.current_player() == 0
    assert [state.action_to_string(a) for a in state.legal_actions()] == api.legal_actions(api.new_state(5))


def test_bad_parameters_are_refused():
    with pytest.raises(ValueError):
        og.load(players=5)


@pytest.mark.parametrize(("players", "config", "seed"), [(2, CONFIG, 1), (3, CONFIG, 2), (4, CONFIG, 3),
                                                        (3, TIE_SHARED, 4), (4, TIE_SHARED, 5)])
def test_random_game_matches_readable_api(players, config, seed):
    game = og.load(players, config=config, seed=seed)
    state = game.new_initial_state()
    played = _random_playout(state, np.random.RandomState(seed))
    assert state.current_player() == pyspiel.PlayerId.TERMINAL
    assert state.history() == played

    api = games.load("kamakura", config=config, players=players)
    s = api.new_state(seed=seed)
    for code in played:
        s = api.apply(s, action_to_string(code))
    result = api.result(s)
    assert result["over"]
    assert og.to_state_dict(state) == api.to_dict(s)
    returns = state.returns()
    share = 1.0 / len(result["winners"])
    assert returns == [share if seat in result["winners"] else 0.0 for seat in range(players)]
    assert sum(returns) == pytest.approx(1.0)


def test_returns_zero_before_the_end():
    state = og.load(3).new_initial_state()
    assert state.returns() == [0.0, 0.0, 0.0]
    assert not state.is_terminal()


def test_state_dict_round_trip_at_start_mid_turn_and_end():
    api = games.load("kamakura", config=CONFIG, players=3)
    s = api.new_state(seed=11)
    rng = np.random.RandomState(0)
    positions = [api.to_dict(s)]
    while not api.is_over(s):
        s = api.apply(s, rng.choice(api.legal_actions(s)))
        d = api.to_dict(s)
        if "turn_state" in d and len(positions) < 4:
            positions.append(d)
    positions.append(api.to_dict(s))
    assert any("turn_state" in d for d in positions)
    for d in positions:
        state = og.from_state_dict(copy.deepcopy(d))
        assert og.to_state_dict(state) == d
        assert state.is_terminal() == (d is positions[-1])
        if not state.is_terminal():
            assert state.current_player() == d["to_move"]
            assert state.legal_actions() == list(api.legal_action_codes(api.from_dict(d)))


def test_clone_is_independent():
    state = og.load(3, seed=2).new_initial_state()
    state.apply_action(state.legal_actions()[0])
    before = og.to_state_dict(state)
    clone = state.clone()
    assert isinstance(clone, og.KamakuraSpielState)
    assert clone.api_state.vector is not state.api_state.vector
    assert og.to_state_dict(clone) == before and clone.history() == state.history()
    clone.apply_action(clone.legal_actions()[-1])
    assert og.to_state_dict(state) == before
    assert len(state.history()) == 1 and len(clone.history()) == 2
    after_clone = og.to_state_dict(clone)
    state.apply_action(state.legal_actions()[0])
    assert og.to_state_dict(clone) == after_clone
    # even an in-place write to the clone's vector leaves the original alone
    clone.clone().api_state.vector[K.BOARD:K.BOARD + 16] = 0
    assert og.to_state_dict(clone) == after_clone


@pytest.mark.parametrize("players", [2, 3, 4])
def test_openspiel_random_sim_test(players):
    """OpenSpiel's own checks of random games: serialization, clones, returns, and (the game type says it
    provides them) the observation tensor's size and the observation and information state strings."""
    game = og.load(players, seed=players)
    game_type = game.get_type()
    assert game_type.provides_observation_tensor and game_type.provides_observation_string
    assert game_type.provides_information_state_string and not game_type.provides_information_state_tensor
    pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)


def _random_states(game, seed: int) -> list:
    """Every state of one random game, start to end."""
    rng = np.random.RandomState(seed)
    state = game.new_initial_state()
    states = [state.clone()]
    while not state.is_terminal():
        state.apply_action(int(rng.choice(state.legal_actions())))
        states.append(state.clone())
    return states


@pytest.mark.parametrize("players", [2, 3, 4])
def test_observer_on_every_state_of_a_random_game(players):
    game = og.load(players, seed=10 + players)
    size = observation_size(players)
    assert size == 429 + 48 * players and game.observation_tensor_shape() == [size]
    observer, again = make_observation(game), make_observation(game)
    info = make_observation(game, INFO_STATE_OBS_TYPE)
    api = game.api
    for state in _random_states(game, players):
        s = state.api_state
        twin = og.from_state_dict(og.to_state_dict(state))  # the same position, built afresh
        for seat in range(players):
            observer.set_from(state, seat)
            assert observer.tensor.shape == (size,) and observer.tensor.dtype == np.float32
            assert np.array_equal(observer.tensor, np.array(state.observation_tensor(seat), np.float32))
            again.set_from(twin, seat)  # a function of the position alone
            assert np.array_equal(observer.tensor, again.tensor)
            text = observer.string_from(state, seat)
            assert text and text == state.observation_string(seat) == again.string_from(twin, seat)
            expected = f"{state.start_key} {state.history_str()}".rstrip()  # the start's key, the moves
            assert info.string_from(state, seat) == state.information_state_string(seat) == expected
        d = observer.dict  # the views name what the state holds
        assert d["player"].tolist() == [1.0 if p == players - 1 else 0.0 for p in range(players)]
        assert (d["board"].sum(axis=0) == 1).all() and (d["board"].sum(axis=1) == 4).all()
        assert d["scores"].tolist() == api.result(s)["scores"]
        to_move = [] if state.is_terminal() else [state.current_player()]
        assert np.flatnonzero(d["to_move"]).tolist() == to_move
        assert d["turn"][4] == float(state.is_terminal())
        owners = [c["owner"] for c in api.to_dict(s)["chits"]]
        assert [int(np.argmax(d["chit_owner"][:, i])) if d["chit_owner"][:, i].any() else None
                for i in range(K.N_CHITS)] == owners
    assert observer.tensor.min() >= 0.0


def test_knob_parameters_override_the_config():
    game = og.load(2, tie_break="shared", voluntary_pass=1, green_min_requirement=2, layout="random")
    rules = game.api.rules
    assert (rules.tie_break, rules.voluntary_pass, rules.green_min_requirement, rules.layout) == \
        ("shared", True, 2, "random")
    plain = og.load(2).api.rules
    assert (plain.tie_break, plain.voluntary_pass, plain.green_min_requirement) == ("last_in_order", False, 1)
    from_string = pyspiel.load_game("python_kamakura(players=2,tie_break=shared,voluntary_pass=1)")
    assert from_string.api.rules.tie_break == "shared" and from_string.api.rules.voluntary_pass
    assert og.load(2, config=TIE_SHARED, tie_break="last_in_order").api.rules.tie_break == "last_in_order"
    with pytest.raises(ValueError, match="tie_break"):
        og.load(2, tie_break="coin")
    with pytest.raises(ValueError, match="voluntary_pass"):
        og.load(2, voluntary_pass=2)
    with pytest.raises(ValueError, match="unknown"):
        og.load(2, ties="shared")


def _mcts_bot(game, seed: int, simulations: int = 8) -> mcts.MCTSBot:
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(seed))
    return mcts.MCTSBot(game, uct_c=2 ** 0.5, max_simulations=simulations, evaluator=evaluator,
                        random_state=np.random.RandomState(seed + 1))


@pytest.mark.parametrize("players", [2, 3, 4])
def test_mcts_bot_plays_a_full_game_against_random(players):
    game = og.load(players, seed=9)
    bot = _mcts_bot(game, seed=0)
    rng = np.random.RandomState(2)
    state = game.new_initial_state()
    api = game.api
    s = api.new_state(seed=9)
    bot_moves = 0
    while not state.is_terminal():
        legal = state.legal_actions()
        if state.current_player() == 0:
            action = bot.step(state)
            bot_moves += 1
        else:
            action = int(rng.choice(legal))
        assert action in legal
        s = api.apply(s, state.action_to_string(action))  # the API accepts every move as legal
        state.apply_action(action)
    assert bot_moves > 0
    returns = state.returns()
    assert sum(returns) == pytest.approx(1.0)
    assert all(0.0 <= r <= 1.0 for r in returns)
    assert returns == api.returns(s)


def test_our_greedy_agent_against_openspiel_mcts_bot():
    """Ours against theirs through the pyspiel state: our compiled greedy planner (the readable API's
    GreedyPolicy) in seat 0, OpenSpiel's MCTSBot in seat 1, to the end."""
    game = og.load(2, seed=4)
    state = game.new_initial_state()
    greedy, bot = GreedyPolicy(new_rng(4)), _mcts_bot(game, seed=5, simulations=16)
    moves = {0: 0, 1: 0}
    while not state.is_terminal():
        seat = state.current_player()
        if seat == 0:
            action = action_from_string(greedy.choose(game.api, state.api_state))
        else:
            action = bot.step(state)
        assert action in state.legal_actions()
        state.apply_action(action)
        moves[seat] += 1
    assert moves[0] > 0 and moves[1] > 0
    result = game.api.result(state.api_state)
    assert result["over"] and result["winners"] and len(result["winners"]) == 1
    returns = state.returns()
    assert returns == [1.0 if seat in result["winners"] else 0.0 for seat in range(2)]
    assert sum(result["scores"]) > 0


def test_mcts_iters_per_s_is_positive():
    d = og.to_state_dict(og.load(3).new_initial_state())
    rate = og.openspiel_mcts_iters_per_s(d, iterations=5, repeats=2, seed=0)
    assert rate > 0 and np.isfinite(rate)


def test_states_started_at_different_positions_have_different_information_states():
    """A state made by from_state_dict has an empty history, so its information state starts with its
    position's key: two positions differ, the same position built twice does not, and a game's moves add
    to its start's key."""
    game = og.load(players=3)
    start = game.new_initial_state()
    moved = start.clone()
    moved.apply_action(moved.legal_actions()[0])
    at_start = og.from_state_dict(og.to_state_dict(start))
    at_moved = og.from_state_dict(og.to_state_dict(moved))
    assert at_start.information_state_string(0) == start.information_state_string(0) == start.start_key
    assert at_moved.information_state_string(0) != at_start.information_state_string(0)
    assert og.from_state_dict(og.to_state_dict(moved)).information_state_string(1) == \
        at_moved.information_state_string(1)
    assert moved.information_state_string(1) == f"{start.start_key} {moved.history_str()}"
