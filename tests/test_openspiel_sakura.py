"""The OpenSpiel adapter (sim/sakura/openspiel_game.py): Sakura as the pyspiel game "python_sakura", with
chance nodes for every card drawn, an observer that never shows a seat another's hidden cards, and
`resample_from_infostate` for OpenSpiel's information-set MCTS."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pyspiel = pytest.importorskip("pyspiel")

from open_spiel.python.algorithms import ismcts, mcts  # noqa: E402
from open_spiel.python.observation import make_observation  # noqa: E402

from sim.core.rng import new_rng, shuffle_slice  # noqa: E402
from sim.sakura import kernels as K  # noqa: E402
from sim.sakura import openspiel_game as og  # noqa: E402
from sim.sakura.policies import GreedyPolicy  # noqa: E402
from tests.sakura_helpers import CONFIG, TACTICAL_CONFIG  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
PLAYERS = (2, 3, 4, 5, 6)
#: (players, config) at every player count, and the two-player tactical variant
GAMES = [(p, CONFIG) for p in PLAYERS] + [(2, TACTICAL_CONFIG)]


def _chance(state, rng: np.random.RandomState) -> None:
    outcomes, probs = zip(*state.chance_outcomes(), strict=True)
    assert sum(probs) == pytest.approx(1.0)
    state.apply_action(int(rng.choice(outcomes, p=probs)))


def _play(state, rng: np.random.RandomState, steps: int | None = None):
    """Uniform random moves and chance outcomes, to the end or for `steps` actions; the state."""
    done = 0
    while not state.is_terminal() and (steps is None or done < steps):
        if state.is_chance_node():
            _chance(state, rng)
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
        done += 1
    return state


def _views(state, seat: int) -> tuple:
    return (state.information_state_string(seat), tuple(state.information_state_tensor(seat)),
            state.observation_string(seat), tuple(state.observation_tensor(seat)))


def test_load_game_parameters_and_info():
    game = og.load(players=3)
    assert isinstance(game, og.SakuraSpielGame)
    assert game.num_players() == 3
    assert game.num_distinct_actions() == og.NUM_ACTIONS == 202
    assert game.max_chance_outcomes() == 60
    assert (game.min_utility(), game.max_utility(), game.utility_sum()) == (0.0, 1.0, 1.0)
    game_type = game.get_type()
    assert game_type.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert game_type.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert game_type.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert pyspiel.load_game("python_sakura").num_players() == 4
    assert pyspiel.load_game("python_sakura(players=6)").num_players() == 6
    knobs = og.load(2, tie_break="shared", two_player_variant="tactical").api.rules
    assert (knobs.tie_break, knobs.two_player_variant) == ("shared", "tactical")
    assert og.load(2, config=TACTICAL_CONFIG).api.rules.two_player_variant == "tactical"
    # before the deal: seat 0's first card is a chance node over the whole deck
    state = game.new_initial_state()
    assert state.is_chance_node()
    assert [a for a, _p in state.chance_outcomes()] == list(range(60))
    assert state.returns() == [0.0, 0.0, 0.0]


def test_bad_parameters_are_refused():
    with pytest.raises(ValueError):
        og.load(players=7)
    with pytest.raises(ValueError):
        og.load(players=4, seed=3)
    with pytest.raises(ValueError):
        og.load(players=2, tie_break="coin")


def test_court_can_win_makes_the_game_general_sum(tmp_path):
    config = tmp_path / "court-wins.toml"
    config.write_text(f'extends = "{CONFIG}"\n[rules]\ncourt_can_win = true\n')
    game = og.load(2, config=config)
    assert game.get_type().utility == pyspiel.GameType.Utility.GENERAL_SUM
    assert og.load(3, config=config).get_type().utility == pyspiel.GameType.Utility.CONSTANT_SUM
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


@pytest.mark.parametrize(("players", "config"), GAMES)
def test_openspiel_random_sim_test(players, config):
    pyspiel.random_sim_test(og.load(players, config), num_sims=3, serialize=True, verbose=False)


@pytest.mark.parametrize(("players", "config"), GAMES)
def test_observer_on_every_state_of_random_games(players, config):
    game = og.load(players, config)
    info_shape, obs_shape = game.information_state_tensor_shape(), game.observation_tensor_shape()
    info_obs = make_observation(game, pyspiel.IIGObservationType(perfect_recall=True))
    plain_obs = make_observation(game)
    for seed in range(2):
        state = game.new_initial_state()
        rng = np.random.RandomState(seed)
        while True:
            for seat in range(players):
                assert len(state.information_state_tensor(seat)) == info_shape[0]
                assert len(state.observation_tensor(seat)) == obs_shape[0]
                assert state.information_state_string(seat) and state.observation_string(seat)
                info_obs.set_from(state, seat)
                plain_obs.set_from(state, seat)
                assert list(info_obs.tensor) == state.information_state_tensor(seat)
                assert list(plain_obs.tensor) == state.observation_tensor(seat)
                assert plain_obs.dict["seat"][seat] == 1 and plain_obs.dict["hand"].sum() <= K.HAND_SIZE
            if state.is_terminal():
                break
            _play(state, rng, steps=1)


@pytest.mark.parametrize(("players", "config"), GAMES)
def test_a_game_is_played_by_the_kernels(players, config):
    """Every card a draw brings is the chance outcome; every position is a valid state of the readable
    API (each card in one place); each court card is the one chance dealt; the returns are the API's."""
    game = og.load(players, config)
    api = game.api
    state = game.new_initial_state()
    rng = np.random.RandomState(players)
    court = None
    while not state.is_terminal():
        d = api.to_dict(state.api_state)
        assert api.to_dict(api.from_dict(d))["hands"] == d["hands"]  # the dict reader checks every card
        if state.is_chance_node():
            outcomes = [a for a, _p in state.chance_outcomes()]
            assert set(outcomes) <= set(c - 1 for c in d["deck"] + d["discard"])
            before = [set(h) for h in d["hands"]]
            _chance(state, rng)
            card = state.history()[-1] + 1
            kind, seat = state.log_entries()[-1][:2]
            if kind == "deal":
                assert [set(h) for h in api.to_dict(state.api_state)["hands"]][seat] == before[seat] | {card}
            else:
                court = card
            continue
        _play(state, rng, steps=1)
        log = state.api_state.vector
        if court is not None and log[K.LOG_ROUND] == d["round"]:
            owners = list(log[K.LOG_OWNER:K.LOG_OWNER + log[K.LOG_N]])
            assert log[K.LOG_CARD + owners.index(players)] == court
            court = None
    assert state.returns() == api.returns(state.api_state)
    assert sum(state.returns()) == pytest.approx(1.0)


#: what the adapter takes of the kernels' dealing and drawing, named when a kernel change breaks it
SEAT_BY_SEAT = ("the OpenSpiel adapter (sim/sakura/openspiel_game.py, {where}) assumes the kernels {what} "
                "seat by seat, all of seat 0's cards from the deck's top, then seat 1's, ...; "
                "kernels.{kernel} no longer does: change the adapter's order of chance draws with it")


def _in_turn(queue: list[int], cards: list[int]) -> dict[int, list[int]]:
    """Per seat, the cards (the deck's top first) that draws for `queue`'s seats, in its order, take."""
    taken: dict[int, list[int]] = defaultdict(list)
    for seat, card in zip(queue, cards, strict=False):
        taken[seat].append(card)
    return taken


@pytest.mark.parametrize("players", PLAYERS)
def test_the_kernels_deal_seat_by_seat_as_the_adapter_assumes(players):
    """The adapter's deal (`_undeal`: five chance draws for seat 0, then five for seat 1, ...) is the kernels'
    own: the hands kernels.new_game deals are its shuffled deck's cards taken from the top in that order,
    and the adapter, given those cards as its chance outcomes, deals the kernels' very hands."""
    game = og.load(players)
    for seed in (0, 1, 7):
        start = game.api.new_state(seed).vector
        deck = np.arange(1, K.DECK_SIZE + 1, dtype=np.int64)
        shuffle_slice(deck, 0, K.DECK_SIZE, new_rng(seed))  # new_game's shuffle, before it deals
        left = K.DECK_SIZE - K.HAND_SIZE * players
        assert og._deck(start) == deck[:left].tolist(), "this test's copy of new_game's shuffle is stale"
        top_first = deck[left:][::-1].tolist()
        queue = og._undeal(start, players)[1]
        assert queue == [q for q in range(players) for _ in range(K.HAND_SIZE)]
        dealt = _in_turn(queue, top_first)
        hands = [og._hand(start, q) for q in range(players)]
        message = SEAT_BY_SEAT.format(where="_undeal", what="deal", kernel="new_game")
        assert hands == [sorted(dealt[q]) for q in range(players)], message
        state = game.new_initial_state()
        for card in top_first:
            state.apply_action(card - 1)
        assert _hands(state) == hands, message


@pytest.mark.parametrize("players", PLAYERS)
@pytest.mark.parametrize("runs_out", [False, True])
def test_the_kernels_draw_seat_by_seat_as_the_adapter_assumes(players, runs_out):
    """At a round's end kernels.end_round draws each seat back to five in seat order, all of a seat's cards
    before the next seat's, the order in which `_owed_draws` owes the draws to chance: with the seats short
    by different numbers of cards (3, 2, 1, 3, ...), each seat draws the deck's cards taken from the top in
    that order; when the deck runs out (`runs_out`), the first draws take the old deck (`_owed_draws`'s
    cards to take first) and the rest come from the reshuffled discard pile."""
    before = og.load(players).api.new_state(5).vector.copy()
    short = [3 - q % 3 for q in range(players)]
    discard = []
    for q in range(players):
        for card in og._hand(before, q)[:short[q]]:
            K.remove_from_hand(before, q, card)
            discard.append(card)
    deck = og._deck(before)
    if runs_out:  # the deck holds two cards fewer than the seats need
        discard += deck[:len(deck) - sum(short) + 2]
        deck = deck[len(deck) - sum(short) + 2:]
    before[K.DECK:K.DECK + K.DECK_SIZE] = 0
    before[K.DECK:K.DECK + len(deck)] = deck
    before[K.DECK_N] = len(deck)
    before[K.DISCARD:K.DISCARD + len(discard)] = discard
    before[K.DISCARD_N] = len(discard)
    after = before.copy()
    K.end_round(after)
    queue, first = og._owed_draws(before, after.copy(), (-1, -1), -1)
    assert queue == [q for q in range(players) for _ in range(short[q])]
    assert first == (frozenset(deck) if runs_out else frozenset())
    from_deck = _in_turn(queue, deck[::-1])
    message = SEAT_BY_SEAT.format(where="_owed_draws", what="draw back to five at a round's end",
                                  kernel="end_round")
    for q in range(players):
        drawn = set(og._hand(after, q)) - set(og._hand(before, q))
        assert len(drawn) == short[q]
        assert set(from_deck[q]) <= drawn, message
        assert drawn - set(from_deck[q]) <= set(discard), message


def _hands(state) -> list[list[int]]:
    return state.get_game().api.to_dict(state.api_state)["hands"]


def _replay(game, history: list[int]):
    state = game.new_initial_state()
    for action in history:
        state.apply_action(action)
    return state


@pytest.mark.parametrize("players", PLAYERS)
def test_no_peeking_when_other_hands_are_dealt_differently(players):
    """The same public history with seat 1's and the last seat's first cards swapped, and seat 1's second
    card swapped with one still in the deck: every other seat sees exactly the same, seats 1 and the last
    see the change. Then seat 0's pick differs: hidden from the others until the reveal."""
    game = og.load(players)
    deal = list(range(60))
    np.random.RandomState(players).shuffle(deal)
    first = _replay(game, deal[:5 * players])
    while first.is_chance_node():  # the court card, with two players
        first.apply_action(first.chance_outcomes()[0][0])
    history = first.history()
    last = players - 1
    other = list(history)
    i, j = 5, 5 * last
    other[i], other[j] = other[j], other[i]
    spare = next(c for c in range(60) if c not in history)
    other[6] = spare
    second = _replay(game, other)
    assert _hands(second)[1] != _hands(first)[1]
    for seat in range(players):
        same = _views(first, seat) == _views(second, seat)
        assert same == (seat not in (1, last)), seat
    # seat 0 picks one card or another: seat 0 sees the difference, nobody else does
    a, b = first.legal_actions()[:2]
    pick_a, pick_b = first.child(a), first.child(b)
    assert _views(pick_a, 0) != _views(pick_b, 0)
    for seat in range(1, players):
        assert _views(pick_a, seat) == _views(pick_b, seat)
    # ... until every card is chosen and revealed
    while pick_a.round() == 1 and not pick_a.revealed(1):
        pick_a.apply_action(pick_a.legal_actions()[0])
        pick_b.apply_action(pick_b.legal_actions()[0])
    assert pick_a.observation_string(1) != pick_b.observation_string(1)


@settings(deadline=None, max_examples=25)
@given(players=st.sampled_from(PLAYERS), seed=st.integers(0, 10_000), steps=st.integers(0, 400),
       tactical=st.booleans())
def test_no_peeking_after_resampling_the_hidden_cards(players, seed, steps, tactical):
    """A state, and one `resample_from_infostate(seat)` draws: the other hands, picks not yet revealed and
    the deck redealt from what the seat has seen. The seat's information state and observation (tensors
    and strings) are identical in both; a seat whose own hand changed sees the difference."""
    config = TACTICAL_CONFIG if tactical and players == 2 else CONFIG
    game = og.load(players, config)
    rng = np.random.RandomState(seed)
    state = _play(game.new_initial_state(), rng, steps)
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    for seat in range(players):
        resampled = state.resample_from_infostate(seat, sampler)
        assert len(resampled.history()) == len(state.history())
        assert resampled.is_terminal() == state.is_terminal()
        assert _views(resampled, seat) == _views(state, seat)
        for other in range(players):
            if _hands(resampled)[other] != _hands(state)[other]:
                assert other != seat
                assert _views(resampled, other) != _views(state, other)
        if not resampled.is_terminal() and not resampled.is_chance_node():
            assert resampled.current_player() == state.current_player()
            if resampled.current_player() == seat:
                assert resampled.legal_actions() == state.legal_actions()


def test_ismcts_plays_a_whole_game():
    game = og.load(2)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(0))
    bot = ismcts.ISMCTSBot(game, evaluator, uct_c=2.0, max_simulations=8,
                           random_state=np.random.RandomState(1))
    rng = np.random.RandomState(2)
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            _chance(state, rng)
            continue
        action = bot.step(state)
        assert action in state.legal_actions()
        state.apply_action(action)
    assert sorted(state.returns()) == [0.0, 1.0]


@pytest.mark.parametrize("players", [2, 4])
def test_our_greedy_against_their_ismcts(players):
    """Our `greedy` (sim/sakura/policies.py, on the adapter's readable-API state) in seat 0 against
    OpenSpiel's ISMCTSBot in every other seat, to the end."""
    game = og.load(players)
    greedy = GreedyPolicy(new_rng(players))
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(0))
    bot = ismcts.ISMCTSBot(game, evaluator, uct_c=2.0, max_simulations=6,
                           random_state=np.random.RandomState(1))
    rng = np.random.RandomState(3)
    state = game.new_initial_state()
    moves = [0, 0]
    while not state.is_terminal():
        if state.is_chance_node():
            _chance(state, rng)
            continue
        ours = state.current_player() == 0
        action = (game.api.action_from_string(greedy.choose(game.api, state.api_state)) if ours
                  else bot.step(state))
        assert action in state.legal_actions()
        moves[ours] += 1
        state.apply_action(action)
    assert min(moves) > 0
    returns = state.returns()
    assert sum(returns) == pytest.approx(1.0) and all(r in (0.0, 1.0) for r in returns)
    assert returns == game.api.returns(state.api_state)


def test_a_court_card_from_an_empty_deck_is_the_one_chance_dealt():
    """With the deck empty at a round's start (rare in play), the court card chance deals is placed where
    the kernels' own reshuffle of the discard pile brings it to the top."""
    start = og.load(2).api.new_state(3).vector
    deck = list(start[K.DECK:K.DECK + start[K.DECK_N]])
    empty = start.copy()
    empty[K.DISCARD:K.DISCARD + len(deck)] = deck
    empty[K.DISCARD_N], empty[K.DECK_N] = len(deck), 0
    empty[K.DECK:K.DECK + len(deck)] = 0
    for card in deck[::7]:
        v = empty.copy()
        og._to_reshuffled_top(v, int(card))
        assert sorted(v[K.DISCARD:K.DISCARD + len(deck)]) == sorted(deck)
        assert K.take_top(v) == card


def test_an_observer_without_the_seats_private_view_is_refused():
    """The observer always shows a seat its own hand and pick, so a public-only (or all-seeing) view is
    refused rather than given with private cards in it."""
    game = og.load(players=3)
    for private in (pyspiel.PrivateInfoType.NONE, pyspiel.PrivateInfoType.ALL_PLAYERS):
        with pytest.raises(ValueError, match="only a seat's own view"):
            game.make_py_observer(pyspiel.IIGObservationType(perfect_recall=False, private_info=private))
    with pytest.raises(ValueError, match="only a seat's own view"):
        game.make_py_observer(pyspiel.IIGObservationType(public_info=False, perfect_recall=False))
