"""Sakura as an OpenSpiel game (`pyspiel`), over the readable API of game.py and the kernels.

Importing this module registers the Python game ``python_sakura``::

    import pyspiel
    from sim.sakura import openspiel_game  # noqa: F401  (registers the game)
    game = pyspiel.load_game("python_sakura", {"players": 4})

It only translates: every rule (legality, resolution, bumps, scoring, the end, winners) comes from
`SakuraGame` and the kernels (kernels.py); the adapter decides only *which* card each draw brings, as an
OpenSpiel chance outcome. Needs the optional dependency ``open-spiel`` (``pip install -e .[openspiel]``).

Parameters
    ``players`` (2-6, default 4); ``config``: path of a Sakura TOML config, ``""`` (the default) for
    ``configs/sakura/base.toml``; ``tie_break`` and ``two_player_variant``: ``""`` (the default) keeps the
    config's knob, otherwise the knob's value (``"closest_to_emperor"`` / ``"shared"``, ``"court"`` /
    ``"tactical"``), as in a config's ``[rules]`` table.

Modelling: sequential turns with hidden choices (not SIMULTANEOUS dynamics)
    Each round the seats pick their card in seat order, as the kernels already ask them (docs/rules.md,
    "A round": "the simulator asks the seats in turn, but no seat sees another's choice"); a pick is hidden
    from the other seats (in their information states and observations) until every card is chosen and
    the cards are revealed. Sequential turns are what OpenSpiel's information-set MCTS
    (``open_spiel/python/algorithms/ismcts.py``, which asserts ``Dynamics.SEQUENTIAL``) and most of its
    imperfect-information algorithms take, and `resample_from_infostate` is implemented for it. Nothing is
    given away: a seat's information state shows that the seats before it have picked, never what. The
    forward-or-back choices of a resolving card are ordinary sequential moves of the card's owner; in the
    tactical two-player variant the further player then picks the court painter's card (action
    ``court N``).

Chance (EXPLICIT_STOCHASTIC, one card at a time)
    Every card that enters play comes from a chance node whose outcomes are the cards it may be (outcome
    ``card - 1``, uniform; at most 60 outcomes): the deal at the start (five per seat, seat 0 first), each
    seat's draws back to five at the end of a round (in seat order; after the deck runs out, from the
    reshuffled discard pile, R-19) and, with two players, the court painter's card from the deck (dealt
    face down at the start of the round; revealed with the players' cards). The kernels still do the
    moving: a draw puts the chosen card on top of the deck and calls the kernel's own draw; after a kernel
    step that drew cards (the end of a round) the adapter puts the drawn cards back and asks chance for
    them one by one. The deck's order is therefore never information: only its contents are. The chance
    draws follow the kernels' order, which `_undeal` and `_owed_draws` assume: seat by seat, all of seat
    0's cards from the deck's top, then seat 1's, ... (kernels.new_game, kernels.end_round); in
    tests/test_openspiel_sakura.py, test_the_kernels_deal_seat_by_seat_as_the_adapter_assumes and
    test_the_kernels_draw_seat_by_seat_as_the_adapter_assumes check it against the kernels.

Action ids (``num_distinct_actions`` 202, the kernels' codes)
    ``N`` (1..60) plays card N (``play N``), ``100 + N`` gives card N to the court painter
    (``court N``, tactical variant), 200 ``forward``, 201 ``back``. Chance outcomes 0..59 are cards 1..60.

Observer (`make_py_observer`)
    Observation (per seat): the seat, who is to move, the phase, the round, the Emperor's and each painter's
    space (one-hot), tokens, sakura scored, the seat's hand and its own pick (60 bits each), the revealed
    cards of the round per painter, the cards still to resolve, who has picked, hand sizes, deck size and
    the discard pile (as a set). The information state adds, per card, the painter who last played it
    (publicly) and whether the seat ever held it; its string is the observation string followed by the
    seat's whole action-observation history (its own draws and picks, the others' draws and picks shown
    as ``?`` until revealed, revealed cards, forward/back choices), so the string has perfect recall and
    the tensor is a fixed-size summary of it. Hidden from a seat: the other hands, the deck's contents
    and order, the court card and the others' picks before the reveal.

Utility
    The win share of `SakuraGame.returns` at the end (1/k to each of k winners), 0 before: CONSTANT_SUM 1,
    except with two players under ``court_can_win`` (R-23), where a court win gives both seats 0
    (GENERAL_SUM).

Cloning
    pyspiel clones a Python state by ``copy.deepcopy`` of every entry of its ``__dict__``; the game's API
    object and the history log are shared by reference (both immutable).
"""

from __future__ import annotations

import bisect
import os
from typing import Any

import numpy as np
import pyspiel

from sim.sakura import kernels as K
from sim.sakura.game import SakuraGame, SakuraState, action_to_string
from sim.sakura.params import MAX_PLAYERS, MIN_PLAYERS, load_rules

__all__ = [
    "GAME_TYPE",
    "NUM_ACTIONS",
    "SHORT_NAME",
    "SakuraObserver",
    "SakuraSpielGame",
    "SakuraSpielState",
    "load",
]

SHORT_NAME = "python_sakura"
N_CARDS = K.DECK_SIZE
NUM_ACTIONS = K.A_BACK + 1
_DEFAULT_PARAMS: dict[str, Any] = {"players": 4, "config": "", "tie_break": "", "two_player_variant": ""}
_KNOB_PARAMS = ("tie_break", "two_player_variant")
_RESAMPLE_TRIES = 50
F = K.FIELDS


def _game_type(utility: pyspiel.GameType.Utility) -> pyspiel.GameType:
    return pyspiel.GameType(
        short_name=SHORT_NAME,
        long_name="Python Sakura",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=utility,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=MAX_PLAYERS,
        min_num_players=MIN_PLAYERS,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=_DEFAULT_PARAMS,
    )


GAME_TYPE = _game_type(pyspiel.GameType.Utility.CONSTANT_SUM)


class _Shared:
    """Per-game objects a cloned state shares: `copy.deepcopy` passes the handle through unchanged."""

    __slots__ = ("api", "court", "path_len", "players", "sakura")

    def __init__(self, api: SakuraGame, v: np.ndarray) -> None:
        self.api = api
        self.players = api.players
        self.court = int(F.get(v, "has_court"))
        self.path_len = int(F.get(v, "path_len"))
        self.sakura = int(F.get(v, "n_sakura"))

    def __deepcopy__(self, memo: dict) -> _Shared:
        return self


class _Log:
    """The history as the adapter reads it, one entry per action: (kind, seat, action, round). Immutable
    (appending makes a new log), so clones share it."""

    __slots__ = ("entries",)

    def __init__(self, entries: tuple = ()) -> None:
        self.entries = entries

    def plus(self, entry: tuple) -> _Log:
        return _Log((*self.entries, entry))

    def __deepcopy__(self, memo: dict) -> _Log:
        return self


def _rules(params: dict[str, Any]):
    overrides = {knob: params[knob] for knob in _KNOB_PARAMS if params[knob]}
    return load_rules(params["config"], int(params["players"]), overrides)


def max_game_length(players: int) -> int:
    """An upper bound on the actions of a game, chance outcomes included: the deal, then per round (at most
    kernels.MAX_ROUNDS) a pick per seat, a court pick, two choices per seat's card, a court card and the
    draws back to five."""
    per_round = players + 1 + 2 * players + 1 + players + 1
    return K.HAND_SIZE * players + K.MAX_ROUNDS * per_round


class SakuraSpielGame(pyspiel.Game):
    """Sakura for one player count and config (the game parameters)."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = {**_DEFAULT_PARAMS, **(params or {})}
        params["players"], params["config"] = int(params["players"]), str(params["config"])
        rules = _rules(params)
        self.api = SakuraGame(rules)
        start = self.api.new_state(0).vector
        self._shared = _Shared(self.api, start)
        self._start, self._deal = _undeal(start, self.api.players)
        court_wins = rules.players == 2 and rules.court_can_win
        kinds = pyspiel.GameType.Utility
        utility = kinds.GENERAL_SUM if court_wins else kinds.CONSTANT_SUM
        info = pyspiel.GameInfo(
            num_distinct_actions=NUM_ACTIONS,
            max_chance_outcomes=N_CARDS,
            num_players=rules.players,
            min_utility=0.0,
            max_utility=1.0,
            utility_sum=None if court_wins else 1.0,
            max_game_length=max_game_length(rules.players),
        )
        super().__init__(_game_type(utility), info, {k: params[k] for k in _DEFAULT_PARAMS})

    def new_initial_state(self) -> SakuraSpielState:
        """Before the deal: every card in the deck, the first chance node deals seat 0's first card."""
        return SakuraSpielState(self)

    def make_py_observer(self, iig_obs_type=None, params=None) -> SakuraObserver:
        """The observer of `iig_obs_type` (default: the observation; perfect recall: the information
        state)."""
        return SakuraObserver(iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False),
                              self._shared, params)


def _undeal(v: np.ndarray, players: int) -> tuple[np.ndarray, list[int]]:
    """The kernels' start with every hand put back on the deck; the seats to deal to, in order."""
    v = v.copy()
    queue = []
    for seat in range(players):
        cards = _hand(v, seat)
        for card in cards:
            _undraw(v, seat, card)
        queue += [seat] * len(cards)
    return v, queue


def _hand(v: np.ndarray, seat: int) -> list[int]:
    return [int(c) for c in v[K.HAND + seat * K.HAND_SIZE:K.HAND + seat * K.HAND_SIZE + v[K.HAND_N + seat]]]


def _deck(v: np.ndarray) -> list[int]:
    return [int(c) for c in v[K.DECK:K.DECK + v[K.DECK_N]]]


def _discard(v: np.ndarray) -> list[int]:
    return [int(c) for c in v[K.DISCARD:K.DISCARD + v[K.DISCARD_N]]]


def _undraw(v: np.ndarray, seat: int, card: int) -> None:
    """A drawn card back from the seat's hand to the deck (the kernel's own removal)."""
    K.remove_from_hand(v, seat, card)
    v[K.DECK + v[K.DECK_N]] = card
    v[K.DECK_N] += 1


def _to_top(v: np.ndarray, card: int) -> None:
    """Swap `card` (in the deck) onto the deck's top, where the kernels draw from."""
    n = int(v[K.DECK_N])
    i = _deck(v).index(card)
    v[K.DECK + i], v[K.DECK + n - 1] = v[K.DECK + n - 1], v[K.DECK + i]


def _to_reshuffled_top(v: np.ndarray, card: int) -> None:
    """The deck is empty: place `card` (in the discard pile) where the kernels' reshuffle (R-19, its own
    generator) will bring it to the top: the position whose entry a probe of the same shuffle draws."""
    n = int(v[K.DISCARD_N])
    probe = v.copy()
    probe[K.DISCARD:K.DISCARD + n] = np.arange(1, n + 1)
    j = int(K.take_top(probe)) - 1
    i = _discard(v).index(card)
    v[K.DISCARD + i], v[K.DISCARD + j] = v[K.DISCARD + j], v[K.DISCARD + i]


def _court_from_deck(v: np.ndarray, players: int) -> bool:
    """With two players, at a round's start: will the court card of this round come from the deck (the
    basic game, or tactical with both players on the gate)? Asked of the kernels by playing the round's
    picks on a copy."""
    t = v.copy()
    buf = np.empty(K.N_ACTIONS_MAX, dtype=np.int64)
    for _ in range(players):
        K.legal_actions(t, buf)
        K.apply_action(t, buf[0])
    return int(t[K.LOG_ROUND]) == int(v[K.ROUND])


def _card_of(action: int) -> int:
    return action - K.A_COURT if action >= K.A_COURT else action


class SakuraSpielState(pyspiel.State):
    """An OpenSpiel state: the kernels' state vector plus the draws chance still owes."""

    def __init__(self, game: SakuraSpielGame) -> None:
        super().__init__(game)
        self._shared = game._shared
        self._v = game._start.copy()
        self._queue = list(game._deal)   # seats owed one card each, in the order the kernels drew them
        self._first = frozenset()        # cards the next draws must take first (the deck before a reshuffle)
        self._court_due = False          # two players: the court card of this round is owed
        self._court_round = 0            # the round whose court card was looked at
        self._court_card = -1            # the court card placed for the kernels to take, until taken
        self._log = _Log()

    # ---- what the state is --------------------------------------------------------------------------
    @property
    def api_state(self) -> SakuraState:
        """The position as a readable-API state (a copy, for `SakuraGame` calls and our agents)."""
        return SakuraState(self._v.copy())

    def round(self) -> int:
        return int(F.get(self._v, "round"))

    def revealed(self, rnd: int) -> bool:
        """Are the picks (and court card) of round `rnd` revealed by now?"""
        return self.round() > rnd or int(F.get(self._v, "phase")) != K.PH_SELECT

    def log_entries(self) -> tuple:
        return self._log.entries

    def current_player(self) -> int:
        if self._queue or self._court_due:
            return pyspiel.PlayerId.CHANCE
        if self._shared.api.is_over(SakuraState(self._v)):
            return pyspiel.PlayerId.TERMINAL
        return int(F.get(self._v, "to_move"))

    def is_terminal(self) -> bool:
        return self.current_player() == pyspiel.PlayerId.TERMINAL

    def returns(self) -> list[float]:
        if not self.is_terminal():
            return [0.0] * self._shared.players
        return self._shared.api.returns(SakuraState(self._v))

    def _pool(self) -> list[int]:
        """The cards the owed chance draw may bring, ascending."""
        if self._queue:
            return sorted(self._first or _deck(self._v))
        return sorted(_deck(self._v) if self._v[K.DECK_N] > 0 else _discard(self._v))

    def chance_outcomes(self) -> list[tuple[int, float]]:
        pool = self._pool()
        return [(card - 1, 1.0 / len(pool)) for card in pool]

    def _legal_actions(self, player: int) -> list[int]:
        return self._shared.api.legal_action_codes(SakuraState(self._v)).tolist()

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"card {action + 1}"
        return action_to_string(int(action))

    # ---- moves --------------------------------------------------------------------------------------
    def _apply_action(self, action: int) -> None:
        action = int(action)
        if self._queue or self._court_due:
            self._apply_chance(action + 1)
        else:
            self._apply_move(action)
        self._settle()

    def _apply_chance(self, card: int) -> None:
        v = self._v
        if self._queue:
            seat = self._queue.pop(0)
            _to_top(v, card)
            K.draw_card(v, seat)
            self._first = self._first - {card}
            self._log = self._log.plus(("deal", seat, card - 1, self.round()))
            return
        if v[K.DECK_N] > 0:
            _to_top(v, card)
        else:
            _to_reshuffled_top(v, card)
        self._court_due = False
        self._court_card = card
        self._log = self._log.plus(("court", -1, card - 1, self.round()))

    def _apply_move(self, action: int) -> None:
        before = self._v
        seat, rnd = int(F.get(before, "to_move")), self.round()
        after = self._shared.api.apply_code(SakuraState(before), action).vector
        court = -1
        if self._court_card >= 0 and after[K.LOG_ROUND] == rnd and before[K.LOG_ROUND] != rnd:
            court, self._court_card = self._court_card, -1  # the kernels took it: the round is revealed
        played = _card_of(action) if action < K.A_FORWARD else -1
        self._queue, self._first = _owed_draws(before, after, (seat, played), court)
        self._v = after
        kind = "choice" if action >= K.A_FORWARD else "pick" if action >= K.A_COURT else "select"
        self._log = self._log.plus((kind, seat, action, rnd))

    def _settle(self) -> None:
        """With two players, at a round's start once the draws are done: owe the court card if the round
        takes it from the deck."""
        v = self._v
        if (self._queue or self._court_due or not self._shared.court or self.round() == self._court_round
                or int(F.get(v, "phase")) != K.PH_SELECT):
            return
        self._court_round = self.round()
        self._court_due = _court_from_deck(v, self._shared.players)

    # ---- sampling what a seat cannot see ------------------------------------------------------------
    def resample_from_infostate(self, player_id: int, probability_sampler) -> SakuraSpielState:
        """A state `player_id` cannot tell from this one: the same public history and the same own cards,
        the other seats' cards (their draws and their picks not yet revealed), the court card not yet
        revealed and the deck drawn afresh, consistent with every card revealed since. The other seats'
        draws are replayed: a draw takes a card the seat is later seen to play if the deck holds one (the
        one played soonest), else a card with no later sighting, at random. Consistent, not exactly the
        posterior."""
        rng = np.random.default_rng(int(probability_sampler() * 2**31))
        sightings = _sightings(self, player_id)
        for _ in range(_RESAMPLE_TRIES):
            state = _replay(self, player_id, sightings, rng)
            if state is not None:
                return state
        raise RuntimeError(f"no consistent resample for seat {player_id} in {_RESAMPLE_TRIES} tries")

    def __str__(self) -> str:
        d = self._shared.api.to_dict(SakuraState(self._v))
        who = self.current_player()
        head = "chance" if who == pyspiel.PlayerId.CHANCE else "over" if who < 0 else f"to move {who}"
        return (f"round {d['round']} | {head} | emperor {d['emperor']} | painters {d['painters']} | "
                f"tokens {d['tokens']} | hands {d['hands']} | selected {d['selected']} | "
                f"deck {len(d['deck'])} | discard {len(d['discard'])}")


def _owed_draws(before: np.ndarray, after: np.ndarray, move: tuple[int, int],
                court: int) -> tuple[list[int], frozenset]:
    """Put back the cards the kernel step from `before` to `after` drew (end of round) and return the
    seats owed them, in the kernels' order, and the cards the first of them must take (the old deck, when
    the deck ran out and the discard pile was reshuffled in). `move`: (seat, card played or -1); `court`:
    the court card the step took from the deck, or -1."""
    seat, played = move
    old = set(_deck(before)) if before[K.DECK_N] > 0 else set(_discard(before)) if court >= 0 else set()
    old.discard(court)
    queue: list[int] = []
    for q in range(int(F.get(before, "players"))):
        kept = set(_hand(before, q)) - ({played} if q == seat else set())
        drawn = [c for c in _hand(after, q) if c not in kept]
        for card in drawn:
            _undraw(after, q, card)
        queue += [q] * len(drawn)
    return queue, frozenset(old) if len(queue) > len(old) else frozenset()


def _sightings(state: SakuraSpielState, player: int) -> dict[int, list[tuple[int, int]]]:
    """Per card, where `player` knows it was at which point of the history: (log index, seat) for its
    own draws, every pick it saw revealed (or made) and every court card revealed (seat -1)."""
    out: dict[int, list[tuple[int, int]]] = {}
    for i, (kind, seat, action, rnd) in enumerate(state.log_entries()):
        if kind == "choice" or (kind == "deal" and seat != player):
            continue
        card = action + 1 if kind in ("deal", "court") else _card_of(action)
        if kind == "deal" or kind == "pick" or state.revealed(rnd) or seat == player:
            out.setdefault(card, []).append((i, seat))
    return out


def _next_sighting(sightings: dict, card: int, i: int) -> tuple[int, int] | None:
    seen = sightings.get(card, [])
    k = bisect.bisect_right(seen, (i, MAX_PLAYERS))
    return seen[k] if k < len(seen) else None


def _draw_for(state: SakuraSpielState, seat: int, i: int, sightings: dict, rng) -> int | None:
    """A card for another seat's draw at log index `i`: one it is seen to play next, soonest first, else a
    card nobody is seen with later; None if there is none."""
    pool = state._pool()
    needed = []
    free = []
    for card in pool:
        nxt = _next_sighting(sightings, card, i)
        if nxt is None:
            free.append(card)
        elif nxt[1] == seat:
            needed.append((nxt[0], card))
    if needed:
        return min(needed)[1]
    return int(rng.choice(free)) if free else None


def _replay(state: SakuraSpielState, player: int, sightings: dict, rng) -> SakuraSpielState | None:
    """The history of `state` replayed with what `player` cannot see redrawn; None on a dead end."""
    out = state.get_game().new_initial_state()
    for i, (kind, seat, action, rnd) in enumerate(state.log_entries()):
        hidden = not state.revealed(rnd) and seat != player
        if kind == "deal" and seat != player:
            card = _draw_for(out, seat, i, sightings, rng)
            action = None if card is None else card - 1
        elif kind == "court" and hidden:
            free = [c for c in out._pool() if _next_sighting(sightings, c, i) is None]
            action = int(rng.choice(free)) - 1 if free else None
        elif kind == "select" and hidden:
            action = int(rng.choice(out.legal_actions()))
        legal = [a for a, _p in out.chance_outcomes()] if out.is_chance_node() else out.legal_actions()
        if action is None or action not in legal:
            return None
        out.apply_action(action)
    return out


# ---- the observer ---------------------------------------------------------------------------------------
_PHASES = ("chance", "select", "court", "garden", "painter", "over")


class SakuraObserver:
    """Observation and information-state tensors and strings (the PyObserver interface of OpenSpiel's
    observation.py). Pieces, for P seats, NP painters (P, plus the court painter with two players), a path
    of L spaces after the gate and S sakura: seat P, to_move P, phase 6, round 1, emperor L+1, painters
    NP x (L+1), tokens NP, scored S, hand 60, my_pick 60, table NP x 60, unresolved 60, picked P,
    hand_sizes P, deck_size 1, discard 60; with perfect recall also last_played_by NP x 60, ever_held 60."""

    def __init__(self, iig_obs_type, shared: _Shared, params=None) -> None:
        if params:
            raise ValueError(f"observation parameters not supported; passed {params}")
        if iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER or not iig_obs_type.public_info:
            raise ValueError("only a seat's own view is provided (public and its private information): "
                             f"asked for {iig_obs_type}")
        self.shared = shared
        self.perfect_recall = bool(iig_obs_type.perfect_recall)
        p, np_, spaces = shared.players, shared.players + shared.court, shared.path_len + 1
        pieces = [("seat", (p,)), ("to_move", (p,)), ("phase", (len(_PHASES),)), ("round", (1,)),
                  ("emperor", (spaces,)), ("painters", (np_, spaces)), ("tokens", (np_,)),
                  ("scored", (shared.sakura,)), ("hand", (N_CARDS,)), ("my_pick", (N_CARDS,)),
                  ("table", (np_, N_CARDS)), ("unresolved", (N_CARDS,)), ("picked", (p,)),
                  ("hand_sizes", (p,)), ("deck_size", (1,)), ("discard", (N_CARDS,))]
        if self.perfect_recall:
            pieces += [("last_played_by", (np_, N_CARDS)), ("ever_held", (N_CARDS,))]
        self.tensor = np.zeros(sum(int(np.prod(shape)) for _, shape in pieces), np.float32)
        self.dict: dict[str, np.ndarray] = {}
        at = 0
        for name, shape in pieces:
            size = int(np.prod(shape))
            self.dict[name] = self.tensor[at:at + size].reshape(shape)
            at += size

    def _view(self, state: SakuraSpielState, player: int) -> dict[str, Any]:
        """What `player` sees: `SakuraGame.observe`, with the adapter's phase and the discard as a set."""
        d = self.shared.api.observe(SakuraState(state._v), player)
        who = state.current_player()
        if who == pyspiel.PlayerId.CHANCE:
            phase = "chance"
        elif d["phase"] == "choose":
            phase = d["choosing"]
        else:
            phase = "court" if d["phase"] == "select" and state._v[K.COURT_PICKER] >= 0 else d["phase"]
        d.update(view_phase=phase, who=who, discard=sorted(d["discard"]))
        table = [] if d["phase"] == "select" else [(seat, card) for seat, card in enumerate(d["selected"])
                                                    if card is not None]
        if d["court"] is not None and d["court"]["card"] is not None and d["phase"] != "select":
            table.append((self.shared.players, d["court"]["card"]))
        d["table"] = table
        return d

    def set_from(self, state: SakuraSpielState, player: int) -> None:
        self.tensor.fill(0)
        d, t = self._view(state, player), self.dict
        court = [d["court"]] if d["court"] is not None else []
        t["seat"][player] = 1
        if d["who"] >= 0:
            t["to_move"][d["who"]] = 1
        t["phase"][_PHASES.index(d["view_phase"])] = 1
        t["round"][0] = d["round"]
        t["emperor"][d["emperor"]] = 1
        for i, index in enumerate(d["painters"] + [c["painter"] for c in court]):
            t["painters"][i, index] = 1
        t["tokens"][:] = d["tokens"] + [c["tokens"] for c in court]
        t["scored"][:] = d["scored"]
        t["hand"][[c - 1 for c in d["hand"]]] = 1
        if d["phase"] == "select" and d["selected"][player] is not None:
            t["my_pick"][d["selected"][player] - 1] = 1
        for painter, card in d["table"]:
            t["table"][painter, card - 1] = 1
        t["unresolved"][[c - 1 for c, _owner in d["pending"]]] = 1
        t["picked"][:] = d.get("has_selected", [c is not None for c in d["selected"]])
        t["hand_sizes"][:] = d["hand_sizes"]
        t["deck_size"][0] = d["deck_size"]
        t["discard"][[c - 1 for c in d["discard"]]] = 1
        if self.perfect_recall:
            last, held = _memory(state, player)
            for card, painter in last.items():
                t["last_played_by"][painter, card - 1] = 1
            t["ever_held"][[c - 1 for c in held]] = 1

    def string_from(self, state: SakuraSpielState, player: int) -> str:
        d = self._view(state, player)
        mine = d["selected"][player] if d["phase"] == "select" else None
        text = (f"seat {player} | round {d['round']} | {d['view_phase']} | to move {d['who']} | "
                f"emperor {d['emperor']} | painters {d['painters']} | tokens {d['tokens']} | "
                f"court {d['court']} | scored {d['scored']} | hand {d['hand']} | my pick {mine} | "
                f"table {d['table']} | unresolved {d['pending']} | "
                f"picked {d.get('has_selected', [c is not None for c in d['selected']])} | "
                f"hand sizes {d['hand_sizes']} | deck {d['deck_size']} | discard {d['discard']}")
        if self.perfect_recall:
            text += " | history " + " ".join(_history_words(state, player))
        return text


def _memory(state: SakuraSpielState, player: int) -> tuple[dict[int, int], set[int]]:
    """Per card, the painter `player` last saw play it; and the cards `player` ever held."""
    last: dict[int, int] = {}
    held: set[int] = set()
    players = state._shared.players
    for kind, seat, action, rnd in state.log_entries():
        if kind == "deal" and seat == player:
            held.add(action + 1)
        elif kind == "court" and state.revealed(rnd):
            last[action + 1] = players
        elif kind == "pick":
            last[_card_of(action)] = players
        elif kind == "select" and (seat == player or state.revealed(rnd)):
            last[action] = seat
    return last, held


def _history_words(state: SakuraSpielState, player: int) -> list[str]:
    """`player`'s action-observation history: a word per action, hidden cards as ``?``."""
    words = []
    for kind, seat, action, rnd in state.log_entries():
        shown = seat == player or state.revealed(rnd)
        if kind == "deal":
            words.append(f"d{seat}:{action + 1 if seat == player else '?'}")
        elif kind == "court":
            words.append(f"c:{action + 1 if state.revealed(rnd) else '?'}")
        elif kind == "select":
            words.append(f"s{seat}:{action if shown else '?'}")
        elif kind == "pick":
            words.append(f"k{seat}:{_card_of(action)}")
        else:
            words.append(f"{seat}:{action_to_string(action)}")
    return words


pyspiel.register_game(GAME_TYPE, SakuraSpielGame)


def load(players: int = 4, config: str | os.PathLike[str] | None = None, **knobs: str) -> SakuraSpielGame:
    """``pyspiel.load_game(SHORT_NAME, ...)`` with this module's parameters (config None: base.toml; knobs:
    ``tie_break``, ``two_player_variant``)."""
    unknown = set(knobs) - set(_KNOB_PARAMS)
    if unknown:
        raise ValueError(f"unknown Sakura game parameter(s) {sorted(unknown)}; known: {_KNOB_PARAMS}")
    return pyspiel.load_game(SHORT_NAME, {"players": players, "config": os.fspath(config or ""), **knobs})
