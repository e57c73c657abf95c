"""One API test run on every registered game (like OpenSpiel's random_sim_test or pgx's api_test).

For each GameSpec in sim/games.py and each of its player counts: random and greedy games through the
readable API and through the compiled batch path agree (same seeds, same results, same logs); to_dict /
from_dict round-trips at every position; legal_actions is stable and in the kernels' code order;
illegal actions raise ValueError; result and returns are consistent; and the log tables do not depend on
how a run is split into chunks. A game's log check (what the batch path records beside the result) is the
one per-game part, in LOG_CHECKS; a game without one is still checked on everything else.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sim import games
from sim.core.agent_spec import agent_arrays
from sim.core.errors import ConfigError
from sim.core.rng import game_seeds, new_rng

ROOT = Path(__file__).resolve().parents[1]
CASES = [(name, players) for name in games.names()
         for players in range(games.spec(name).min_players, games.spec(name).max_players + 1)]
IDS = [f"{name}-{players}p" for name, players in CASES]
# Extra configs every game ships that change its rules path (played at their smallest player count).
VARIANTS = {"sakura": [ROOT / "configs" / "sakura" / "two-player-tactical.toml"],
            "kamakura": [ROOT / "configs" / "kamakura" / "random-layout.toml"]}


# ---- per-game log checks: what the batch path logs, recovered from the API game ------------------------
def _kamakura_log(steps: list[tuple[dict, str]], game) -> list[tuple[int, int, int, int]]:
    """The events the batch path records (turn, seat, kind, chit) from the API game's (dict, action)
    steps: a gain, a chit activation or an order chit; a void turn (R-8) erases its turn's activations."""
    from sim.kamakura.batch import EVENT_GAIN, EVENT_USE_CHIT, EVENT_USE_ORDER

    events: list[tuple[int, int, int, int]] = []
    turn_start = 0
    for d, action in steps:
        seat, turn = d["to_move"], d["turn"]
        if "turn_state" not in d:
            turn_start = len(events)
        words = action.split()
        if action == "pass":
            del events[turn_start:]
        elif action == "use order":
            events.append((turn, seat, EVENT_USE_ORDER, -1))
        elif words[0] == "use":
            events.append((turn, seat, EVENT_USE_CHIT, int(words[1])))
        elif words[0] == "gain":
            events.append((turn, seat, EVENT_GAIN, int(words[1])))
    return events


def _kamakura_batch_log(batch: dict, g: int) -> list[tuple[int, int, int, int]]:
    return [tuple(int(x) for x in row) for row in batch["events"][g, :batch["n_events"][g]]]


def _kamakura_check(steps, final: dict, game, batch: dict, g: int) -> None:
    assert _kamakura_log(steps, game) == _kamakura_batch_log(batch, g), f"game {g}: events differ"
    assert [-1 if x is None else x for x in final["out_turn"]] == batch["out_turn"][g].tolist()


def _sakura_check(steps, final: dict, game, batch: dict, g: int) -> None:
    """Every card a player chose (play, court) is logged in its round; the only logged card no action
    chose is the deck's top card played for the court painter (two players, court variant). Bumps agree."""
    players = game.players
    chosen = sorted((d["round"], d["to_move"] if a.startswith("play ") else players, int(a.split()[1]))
                    for d, a in steps if a.startswith(("play ", "court ")))
    log = batch["cards_played"]
    logged = sorted((int(r), int(p), int(c)) for _, r, p, c, *_ in log[log[:, 0] == g].tolist())
    from_deck = [entry for entry in logged if entry not in chosen]
    assert [entry for entry in logged if entry in chosen] == chosen, f"game {g}: cards played differ"
    assert all(p == players for _, p, _ in from_deck) and (players == 2 or not from_deck)
    assert final["bumps"] == batch["bumps"][g]
    assert batch["positions"][g, :players].tolist() == final["painters"]  # R-14's re-scoring input
    if final["court"] is not None:  # two players: the court painter's final tokens and place
        assert batch["tokens"][g, players] == final["court"]["tokens"]
        assert batch["positions"][g, players] == final["court"]["painter"]


LOG_CHECKS: dict[str, Callable] = {"kamakura": _kamakura_check, "sakura": _sakura_check}


# ---- playing -----------------------------------------------------------------------------------------
def play_api(game, seed: int, agents: list[str], round_trip: bool = False, check_each: bool = False):
    """One game with the API policies (one generator per game shared by the seats, as the batch loop
    draws). Returns the (dict before, action) steps and the final state."""
    policies = games.spec(game.name).policies
    state = game.new_state(seed)
    rng = new_rng(seed, 1)
    seats = [policies[name](rng) for name in agents]
    steps = []
    while not game.is_over(state):
        d = game.to_dict(state)
        if check_each:
            check_position(game, state)
        action = seats[game.to_move(state)].choose(game, state)
        steps.append((d, action))
        state = game.apply(state, action)
        if round_trip:
            state = game.from_dict(game.to_dict(state))
    return steps, state


def check_position(game, state) -> None:
    """The API's invariants at one position."""
    d = game.to_dict(state)
    again = game.from_dict(d)
    assert again == state and game.to_dict(again) == d  # the dict holds the whole position
    actions = game.legal_actions(state)
    assert actions == game.legal_actions(state)  # stable
    codes = game.legal_action_codes(state)
    assert list(codes) == sorted(set(codes.tolist())) and len(codes) == len(actions)  # code order, no repeats
    assert [game.action_from_string(a) for a in actions] == codes.tolist()
    legal = set(codes.tolist())
    illegal = next(c for c in range(10_000) if c not in legal)
    with pytest.raises(ValueError):
        game.apply_code(state, illegal)
    with pytest.raises(ValueError):
        game.apply(state, "no such action")
    before = game.to_dict(state)
    game.apply(state, actions[0])
    assert game.to_dict(state) == before  # apply returns a new state; the old one is unchanged
    assert game.returns(state) == [0.0] * game.players and not game.result(state)["over"]


def check_result(game, state) -> None:
    result = game.result(state)
    assert result["over"] and game.is_over(state) and game.legal_actions(state) == []
    winners = result["winners"]
    assert winners and all(0 <= w < game.players for w in winners)
    assert result["tie"] == (len(winners) > 1 or result["decided_by_tiebreak"])
    returns = game.returns(state)
    assert sum(returns) == pytest.approx(1.0) and all(returns[w] == pytest.approx(1 / len(winners))
                                                      for w in winners)
    with pytest.raises(ValueError, match="over"):
        game.apply_code(state, 0)


def compare(name: str, players: int, agents: list[str], n: int, seed: int, config: Path | None = None,
            round_trip: bool = False) -> None:
    spec = games.spec(name)
    rules = spec.load_rules(config, players)
    game = spec.game_class(rules)
    seeds = game_seeds(seed, 0, n)
    kinds, params = agent_arrays([agents], games.spec(name))
    batch = spec.run_batch(rules, seeds, kinds[0], params[0])
    length, scores = spec.vocabulary.length, spec.vocabulary.batch_scores
    for g, s in enumerate(seeds):
        steps, final_state = play_api(game, int(s), agents, round_trip)
        result = game.result(final_state)
        assert result["scores"] == batch[scores][g, :players].tolist(), f"game {g}: scores differ"
        assert result["winners"] == np.flatnonzero(batch["winners"][g]).tolist()
        assert result["tie"] == bool(batch["tie"][g])
        assert result["decided_by_tiebreak"] == bool(batch["decided_by_tiebreak"][g])
        assert result[length] == batch[length][g]
        if name in LOG_CHECKS:
            LOG_CHECKS[name](steps, game.to_dict(final_state), game, batch, g)


# ---- the tests ---------------------------------------------------------------------------------------
def test_log_checks_name_registered_games():
    assert set(LOG_CHECKS) <= set(games.names()) and set(VARIANTS) <= set(games.names())


@pytest.mark.parametrize(("name", "players"), CASES, ids=IDS)
def test_random_games_agree_between_api_and_batch(name: str, players: int) -> None:
    compare(name, players, ["random"] * players, 150, seed=11)


@pytest.mark.parametrize(("name", "players"), CASES, ids=IDS)
def test_greedy_games_agree_with_dict_round_trips(name: str, players: int) -> None:
    agents = ["greedy" if seat % 2 == 0 else "random" for seat in range(players)]
    compare(name, players, agents, 15, seed=5, round_trip=True)


@pytest.mark.parametrize("name", games.names())
def test_variant_configs_agree(name: str) -> None:
    spec = games.spec(name)
    for config in VARIANTS.get(name, []):
        compare(name, spec.min_players, ["random"] * spec.min_players, 100, seed=22, config=config)
        compare(name, spec.min_players, ["greedy"] * spec.min_players, 15, seed=24, config=config)


@pytest.mark.parametrize(("name", "players"), CASES, ids=IDS)
@settings(deadline=None, max_examples=4, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**40), greedy_seat=st.integers(-1, 5))
def test_api_invariants_at_every_position(name: str, players: int, seed: int, greedy_seat: int) -> None:
    spec = games.spec(name)
    game = spec.game_class(spec.default_rules(players))
    agents = ["greedy" if seat == greedy_seat else "random" for seat in range(players)]
    _, state = play_api(game, seed, agents, check_each=True)
    check_result(game, state)
    again = game.from_dict(game.to_dict(state))
    assert again == state and game.result(again) == game.result(state)


@pytest.mark.parametrize("name", games.names())
def test_new_state_refuses_a_bad_seed(name: str) -> None:
    game = games.load(name, players=games.spec(name).min_players)
    for bad in (-1, 1.5, "7", True):
        with pytest.raises(ValueError):
            game.new_state(bad)


@pytest.mark.parametrize("name", games.names())
def test_rules_with_overrides_read_as_a_file_holding_them(name: str, tmp_path: Path) -> None:
    """One way to read rules (sim/core/config.py's `load_rules_file`): the registry and the game's own
    `params.load_rules` (its OpenSpiel and PettingZoo knobs) give, for a tie-break written over the base
    config, the rules of a file that extends the base and sets it; a bad override is refused by file and
    key, as the file's value would be."""
    import importlib

    spec = games.spec(name)
    params = importlib.import_module(f"sim.{name}.params")
    players = spec.min_players
    base = spec.load_rules(None, players)
    other = next(rule for rule in spec.tie_breaks if rule != base.tie_break)
    written = tmp_path / "other.toml"
    written.write_text(f'extends = "{spec.default_config.as_posix()}"\n[rules]\ntie_break = "{other}"\n')
    from_file = spec.load_rules(written, players)
    assert from_file.tie_break == other and from_file.config_hash != base.config_hash
    for read in (spec.load_rules, params.load_rules):
        assert read(None, players) == base
        overridden = read(None, players, {"tie_break": other})
        assert overridden.config_hash == from_file.config_hash
        assert overridden.source == str(spec.default_config)
        with pytest.raises(ConfigError, match=r"base\.toml.*rules\.tie_break"):
            read(None, players, {"tie_break": "coin_flip"})


@pytest.mark.parametrize(("name", "players"), CASES, ids=IDS)
def test_tables_do_not_depend_on_the_split(name: str, players: int) -> None:
    """Games 0..199 as one chunk and as four give the same three tables (the runner's promise)."""
    spec = games.spec(name)
    rules = spec.default_rules(players)
    seating = [["greedy"] + ["random"] * (players - 1)] * 200
    kinds, params = agent_arrays(seating, games.spec(name))
    seeds = game_seeds(3, 0, 200)
    whole = spec.tables(0, seeds, seating, spec.run_batch(rules, seeds, kinds, params), rules)
    parts = [spec.tables(a, seeds[a:a + 50], seating[a:a + 50],
                         spec.run_batch(rules, seeds[a:a + 50], kinds[a:a + 50], params[a:a + 50]), rules)
             for a in range(0, 200, 50)]
    for table in ("games", "players", "events"):
        joined = pa.concat_tables([p[table] for p in parts], promote_options="permissive")
        assert joined.to_pydict() == whole[table].to_pydict(), table
