"""The readable Sakura API (docs/reference/python-api.md): a thin face over the kernels in kernels.py.

Strings become action codes, dicts become state vectors and back; every rule is the kernels'.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from sim.core.game_face import KernelGame, KernelState
from sim.core.rng import new_rng
from sim.sakura import kernels as K
from sim.sakura.params import BUMP_FROM, GARDEN_ACTIONS, PAINTER_ACTIONS, TIE_BREAKS, VARIANTS, SakuraRules

F = K.FIELDS  # the state vector's named fields
_PHASES = {K.PH_SELECT: "select", K.PH_CHOOSE: "choose", K.PH_OVER: "over"}
_END_REASONS = {K.END_NONE: None, K.END_LAST_SAKURA: "last_sakura", K.END_ROUND_LIMIT: "round_limit"}
_DEFAULT_RNG = int(new_rng(0, 2)[0])  # reshuffle generator of a dict that gives none


def kernel_rules(rules: SakuraRules) -> K.KernelRules:
    """The rules as the kernels take them (`kernels.new_game`, `batch.play_batch`), the path as played for
    this player count."""
    path_length, torii, sakura, _bridges = rules.played_board()
    return K.KernelRules(players=rules.players, variant=VARIANTS.index(rules.two_player_variant),
                         tie_break=TIE_BREAKS.index(rules.tie_break), path_len=path_length, torii=torii,
                         sakura=np.array(sakura, dtype=np.int64), cards=np.array(rules.cards, dtype=np.int64),
                         bump_from=BUMP_FROM.index(rules.bump_from),
                         lineup_from_gate=int(rules.lineup_from_gate),
                         court_can_win=int(rules.court_can_win))


class SakuraState(KernelState):
    """A position: the kernels' state vector. Treat as immutable; `SakuraGame.apply` returns a new one.
    Equal when the vectors agree up to LOG_START: the last round's log behind it is bookkeeping, not
    position."""

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, SakuraState)
                and np.array_equal(self.vector[:K.LOG_START], other.vector[:K.LOG_START]))

    def __hash__(self) -> int:
        return hash(self.vector[:K.LOG_START].tobytes())


def action_to_string(code: int) -> str:
    if code == K.A_FORWARD:
        return "forward"
    if code == K.A_BACK:
        return "back"
    if code >= K.A_COURT:
        return f"court {code - K.A_COURT}"
    return f"play {code - K.A_PLAY}"


def action_from_string(action: str) -> int:
    words = action.split() if isinstance(action, str) else []
    if words == ["forward"]:
        return K.A_FORWARD
    if words == ["back"]:
        return K.A_BACK
    if len(words) == 2 and words[0] in ("play", "court") and words[1].isdigit() and 1 <= int(words[1]) <= 60:
        return (K.A_PLAY if words[0] == "play" else K.A_COURT) + int(words[1])
    raise ValueError(f"not a Sakura action: {action!r}")


class SakuraGame(KernelGame):
    """Sakura for one validated rules object (a player count and a config)."""

    name = "sakura"
    kernels = K
    state_type = SakuraState
    max_actions = K.N_ACTIONS_MAX
    kernel_rules = staticmethod(kernel_rules)
    action_to_string = staticmethod(action_to_string)
    action_from_string = staticmethod(action_from_string)

    def is_over(self, s: SakuraState) -> bool:
        return F.get(s.vector, "phase") == K.PH_OVER

    def result(self, s: SakuraState) -> dict[str, Any]:
        v = s.vector
        players = F.get(v, "players")
        over = self.is_over(s)
        out: dict[str, Any] = {"over": over, "scores": _ints(F.view(v, "tokens")[:players]),
                               "winners": [], "tie": False, "decided_by_tiebreak": False,
                               "rounds": F.get(v, "round"),
                               "end_reason": _END_REASONS[F.get(v, "end_reason")]}
        if F.get(v, "has_court"):
            out["court_wins"] = False  # true when the court painter won or shared the win
        if over:
            win = np.zeros(K.MAX_PAINTERS, dtype=np.int64)
            tie, decided = K.winners(v, win)
            out.update(winners=[i for i in range(players) if win[i]], tie=bool(tie),
                       decided_by_tiebreak=bool(decided))
            if F.get(v, "has_court"):
                out["court_wins"] = bool(win[players])
        return out

    def returns(self, s: SakuraState) -> list[float]:
        """Win share per seat: 1/k to each of k winners, the court painter among them under R-23 (so a
        game it won alone gives every seat 0); 0 before the end."""
        r = self.result(s)
        k = len(r["winners"]) + int(r.get("court_wins", False))
        return [1.0 / k if seat in r["winners"] else 0.0 for seat in range(self.players)]

    def new_state(self, seed: int = 0) -> SakuraState:
        """A fresh game after setup (every shuffle seeded by `seed`) that keeps each round's steps for
        `balance play` (kernels.LOG_STEPS; batch play skips them)."""
        state = super().new_state(seed)
        state.vector[K.LOG_STEPS] = 1
        return state

    def to_dict(self, s: SakuraState) -> dict[str, Any]:
        return state_to_dict(s.vector)

    def from_dict(self, d: dict[str, Any]) -> SakuraState:
        return SakuraState(state_from_dict(d, self.rules))

    def observe(self, s: SakuraState, seat: int) -> dict[str, Any]:
        """What `seat` may know: its own hand, positions, tokens, the discard pile and revealed cards;
        never other hands, the deck order (nor the generator that will reshuffle it) or other players'
        selections of a round still being chosen."""
        players = F.get(s.vector, "players")
        if not 0 <= seat < players:
            raise ValueError(f"no seat {seat} in a {players}-player game")
        d = state_to_dict(s.vector)
        hands = d.pop("hands")
        d["seat"] = seat
        d["hand"] = hands[seat]
        d["hand_sizes"] = [len(h) for h in hands]
        d["deck_size"] = len(d.pop("deck"))
        del d["rng"]
        if d["phase"] == "select":
            d["has_selected"] = [card is not None for card in d["selected"]]
            d["selected"] = [card if i == seat else None for i, card in enumerate(d["selected"])]
        return d


def _ints(values: np.ndarray) -> list[int]:
    return [int(x) for x in values]


def _set(v: np.ndarray, name: str, value: int) -> None:
    """Write the one-entry field `name`."""
    F.view(v, name)[0] = value


def _hands(v: np.ndarray) -> np.ndarray:
    """The hands as a (MAX_PLAYERS, HAND_SIZE) view of the vector, a row per seat."""
    return F.view(v, "hand").reshape(K.MAX_PLAYERS, K.HAND_SIZE)


def state_to_dict(v: np.ndarray) -> dict[str, Any]:
    players = F.get(v, "players")
    n_sakura = F.get(v, "n_sakura")
    phase = _PHASES[F.get(v, "phase")]
    hands, hand_n = _hands(v), F.view(v, "hand_n")
    garden, pact = F.view(v, "garden"), F.view(v, "pact")
    selected, painter, tokens = F.view(v, "selected"), F.view(v, "painter"), F.view(v, "tokens")
    pending, owners = F.view(v, "pending"), F.view(v, "pend_owner")
    d: dict[str, Any] = {
        "game": "sakura",
        "players": players,
        "round": F.get(v, "round"),
        "path_length": F.get(v, "path_len"),
        "sakura": _ints(F.view(v, "sakura")[:n_sakura]),
        "scored": [bool(x) for x in F.view(v, "scored")[:n_sakura]],
        "emperor": F.get(v, "emperor"),
        "painters": _ints(painter[:players]),
        "tokens": _ints(tokens[:players]),
        "cards": [[order, GARDEN_ACTIONS[int(garden[order])], PAINTER_ACTIONS[int(pact[order])]]
                  for order in range(1, K.DECK_SIZE + 1)],
        "hands": [_ints(hands[seat, :hand_n[seat]]) for seat in range(players)],
        "deck": _ints(F.view(v, "deck")[:F.get(v, "deck_n")][::-1]),
        "discard": _ints(F.view(v, "discard")[:F.get(v, "discard_n")]),
        "selected": [None if card < 0 else int(card) for card in selected[:players]],
        "court": None,
        "pending": [[int(pending[i]), int(owners[i])]
                    for i in range(F.get(v, "pend_pos"), F.get(v, "pend_n"))] if phase == "choose" else [],
        "phase": phase,
        "to_move": None if phase == "over" else F.get(v, "to_move"),
        "torii": F.get(v, "torii"),
        "rules": {"tie_break": TIE_BREAKS[F.get(v, "tie_break")],
                  "two_player_variant": VARIANTS[F.get(v, "variant")],
                  "bump_from": BUMP_FROM[F.get(v, "bump_from")],
                  "lineup_from_gate": bool(F.get(v, "lineup_from_gate")),
                  "court_can_win": bool(F.get(v, "court_can_win"))},
        "rng": int(F.view(v, "rng").view(np.uint64)[0]),
        "bumps": F.get(v, "bumps"),
    }
    if F.get(v, "has_court"):
        card = int(selected[players])
        d["court"] = {"painter": int(painter[players]), "tokens": int(tokens[players]),
                      "card": None if card < 0 else card}
    if phase == "choose":
        d["choosing"] = "garden" if F.get(v, "choosing") == 0 else "painter"
    if phase == "over":
        d["end_reason"] = _END_REASONS[F.get(v, "end_reason")]
    return d


def _int(value: Any, key: str, lo: int | None = None, hi: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise ValueError(f"state dict: {key} must be an integer, got {value!r}")
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        raise ValueError(f"state dict: {key} must be in {lo}..{hi}, got {value}")
    return int(value)


def _list(d: dict, key: str, length: int | None = None) -> list:
    value = d.get(key)
    if not isinstance(value, list) or (length is not None and len(value) != length):
        want = f" of {length} entries" if length is not None else ""
        raise ValueError(f"state dict: {key} must be a list{want}, got {value!r}")
    return value


def state_from_dict(d: dict[str, Any], rules: SakuraRules) -> np.ndarray:
    """Build a state vector from a dict of `to_dict`'s form at any decision point; "rules" overrides knobs."""
    if not isinstance(d, dict) or d.get("game") != "sakura":
        raise ValueError("state dict: game must be 'sakura'")
    players = _int(d.get("players"), "players", 2, K.MAX_PLAYERS)
    has_court = players == 2
    v = np.zeros(K.STATE_SIZE, dtype=np.int64)
    v[K.LOG_STEPS] = 1  # the readable API keeps each round's steps (`balance play`)
    _set(v, "players", players)
    _set(v, "has_court", has_court)
    _set(v, "n_painters", players + has_court)
    _read_knobs(v, d.get("rules", {}), rules)
    path_length = _int(d.get("path_length"), "path_length", 2)
    _set(v, "path_len", path_length)
    emperor = _read_path(v, d, rules, path_length)
    court_card = _read_painters(v, d, players, has_court, path_length=path_length, emperor=emperor)
    _read_cards(v, _list(d, "cards", K.DECK_SIZE))
    _read_card_places(v, d, players, court_card)
    _read_phase(v, d, players, has_court)
    rng = d.get("rng", _DEFAULT_RNG)
    F.view(v, "rng").view(np.uint64)[0] = np.uint64(_int(rng, "rng", 0, 2**64 - 1))
    _set(v, "round", _int(d.get("round"), "round", 1))
    _set(v, "bumps", _int(d.get("bumps", 0), "bumps", 0))
    return v


def _read_path(v: np.ndarray, d: dict[str, Any], rules: SakuraRules, path_length: int) -> int:
    """The sakura spaces (and which are scored), the torii and the Emperor, who is past no unscored
    sakura; his space."""
    sakura = _list(d, "sakura")
    scored = _list(d, "scored", len(sakura))
    if not 1 <= len(sakura) <= K.MAX_SAKURA:
        raise ValueError(f"state dict: sakura must list 1..{K.MAX_SAKURA} spaces")
    _set(v, "n_sakura", len(sakura))
    sakura_at, scored_at = F.view(v, "sakura"), F.view(v, "scored")
    for k, (index, done) in enumerate(zip(sakura, scored, strict=True)):
        sakura_at[k] = _int(index, f"sakura[{k}]", 1, path_length)
        scored_at[k] = bool(done)
    _set(v, "torii", _int(d.get("torii", rules.played_board()[1]), "torii", 1, path_length))
    emperor = _int(d.get("emperor"), "emperor", 1, path_length)
    _set(v, "emperor", emperor)
    for k in range(len(sakura)):
        if not scored[k] and emperor > sakura_at[k]:
            raise ValueError(f"state dict: the Emperor ({emperor}) cannot be past the unscored "
                             f"sakura at {sakura_at[k]}: he stops on a sakura entered for the first time")
    return emperor


def _read_painters(v: np.ndarray, d: dict[str, Any], players: int, has_court: bool, *, path_length: int,
                   emperor: int) -> int:
    """Each seat's painter and tokens, and with two players the court painter's (painter index
    `players`), each painter on a space of its own behind the Emperor; the court's card (-1: none)."""
    painters = _list(d, "painters", players)
    tokens = _list(d, "tokens", players)
    painter_at, tokens_of = F.view(v, "painter"), F.view(v, "tokens")
    for seat in range(players):
        painter_at[seat] = _int(painters[seat], f"painters[{seat}]", 0, path_length)
        tokens_of[seat] = _int(tokens[seat], f"tokens[{seat}]", 0)
    court = d.get("court")
    court_card = -1
    if has_court:  # the court painter is painter index `players` (2)
        if not isinstance(court, dict):
            raise ValueError("state dict: court must be {painter, tokens, card} with two players")
        painter_at[players] = _int(court.get("painter"), "court.painter", 0, path_length)
        tokens_of[players] = _int(court.get("tokens"), "court.tokens", 0)
        if court.get("card") is not None:
            court_card = _int(court["card"], "court.card", 1, K.DECK_SIZE)
    elif court is not None:
        raise ValueError("state dict: court must be null unless there are two players")
    occupied = [int(index) for index in painter_at[:players + has_court] if index > 0]
    if len(occupied) != len(set(occupied)):
        raise ValueError(f"state dict: painters share a path space: {occupied}")
    if any(index >= emperor for index in occupied):
        raise ValueError("state dict: every painter must be behind the Emperor (R-16)")
    return court_card


def _read_cards(v: np.ndarray, cards: list) -> None:
    """The deck's cards in id order, each [id, garden action, painter action]."""
    garden, pact = F.view(v, "garden"), F.view(v, "pact")
    for i, card in enumerate(cards):
        if (not isinstance(card, list | tuple) or len(card) != 3 or card[0] != i + 1
                or card[1] not in GARDEN_ACTIONS or card[2] not in PAINTER_ACTIONS):
            raise ValueError(f"state dict: cards[{i}] must be [{i + 1}, garden id, painter id], got {card!r}")
        garden[i + 1] = GARDEN_ACTIONS.index(card[1])
        pact[i + 1] = PAINTER_ACTIONS.index(card[2])


class _CardPlaces:
    """Where the cards of a state dict lie: each card in one place only."""

    def __init__(self) -> None:
        self.seen: dict[int, str] = {}

    def place(self, card: Any, where: str) -> int:
        card = _int(card, where, 1, K.DECK_SIZE)
        if card in self.seen:
            raise ValueError(f"state dict: card {card} is both in {self.seen[card]} and in {where}")
        self.seen[card] = where
        return card


def _read_card_places(v: np.ndarray, d: dict[str, Any], players: int, court_card: int) -> None:
    """The hands, deck, discard and the cards selected (and the court's), every card in exactly one."""
    places = _CardPlaces()
    hands = _list(d, "hands", players)
    hand_rows, hand_n = _hands(v), F.view(v, "hand_n")
    hand_rows[:] = -1
    for seat, hand in enumerate(hands):
        if not isinstance(hand, list) or len(hand) > K.HAND_SIZE:
            raise ValueError(f"state dict: hands[{seat}] must list at most {K.HAND_SIZE} cards")
        for i, card in enumerate(sorted(places.place(c, f"hands[{seat}]") for c in hand)):
            hand_rows[seat, i] = card
        hand_n[seat] = len(hand)
    deck = [places.place(c, "deck") for c in _list(d, "deck")]
    F.view(v, "deck")[:len(deck)] = deck[::-1]
    _set(v, "deck_n", len(deck))
    discard = [places.place(c, "discard") for c in _list(d, "discard")]
    F.view(v, "discard")[:len(discard)] = discard
    _set(v, "discard_n", len(discard))
    selected = _list(d, "selected", players)
    chosen = F.view(v, "selected")
    chosen[:] = -1
    for seat, card in enumerate(selected):
        if card is not None:
            chosen[seat] = places.place(card, f"selected[{seat}]")
    if court_card >= 0:
        chosen[players] = places.place(court_card, "court.card")
    if len(places.seen) != K.DECK_SIZE:
        missing = sorted(set(range(1, K.DECK_SIZE + 1)) - set(places.seen))
        raise ValueError(f"state dict: cards missing from hands, deck, discard and table: {missing}")


#: The rule knobs a state dict's "rules" may set (under their config keys, docs/howto/rule-readings.md), each
#: with its SakuraRules attribute and its choices (the value's index is the kernels' code).
_KNOBS: dict[str, tuple[Any, ...]] = {
    "tie_break": TIE_BREAKS,
    "two_player_variant": VARIANTS,
    "bump_from": BUMP_FROM,
    "lineup_from_gate": (False, True),
    "court_can_win": (False, True),
}
_KNOB_FIELDS = {"tie_break": "tie_break", "two_player_variant": "variant", "bump_from": "bump_from",
                "lineup_from_gate": "lineup_from_gate", "court_can_win": "court_can_win"}


def _read_knobs(v: np.ndarray, knobs: Any, rules: SakuraRules) -> None:
    """The state's rule knobs: those `knobs` (a state dict's "rules") names, the game's config for the
    rest. A misspelt key or a value outside its choices is refused (booleans must be booleans: 0 and 1
    are not accepted, as in a config)."""
    if not isinstance(knobs, dict):
        raise ValueError(f"state dict: rules must be a table of rule knobs, got {knobs!r}")
    unknown = sorted(set(knobs) - set(_KNOBS))
    if unknown:
        raise ValueError(f"state dict: rules: unknown knob(s) {unknown} (known: {', '.join(_KNOBS)})")
    for key, choices in _KNOBS.items():
        value = knobs.get(key, getattr(rules, key))
        if isinstance(choices[0], bool):
            ok, code = isinstance(value, bool | np.bool_), int(bool(value))
        else:
            ok = isinstance(value, str) and value in choices
            code = choices.index(value) if ok else -1
        if not ok:
            raise ValueError(f"state dict: rules.{key} must be one of "
                             f"{', '.join(json.dumps(c) for c in choices)}, got {value!r}")
        _set(v, _KNOB_FIELDS[key], code)


def _read_phase(v: np.ndarray, d: dict[str, Any], players: int, has_court: bool) -> None:
    phase = d.get("phase")
    if phase not in ("select", "choose", "over"):
        raise ValueError(f"state dict: phase must be select, choose or over, got {phase!r}")
    _set(v, "phase", {"select": K.PH_SELECT, "choose": K.PH_CHOOSE, "over": K.PH_OVER}[phase])
    _set(v, "court_picker", -1)
    selected = _ints(F.view(v, "selected")[:players + has_court])
    if phase == "over":
        _set(v, "to_move", -1)
        reason = d.get("end_reason", "last_sakura")
        _set(v, "end_reason", K.END_ROUND_LIMIT if reason == "round_limit" else K.END_LAST_SAKURA)
        return
    to_move = _int(d.get("to_move"), "to_move", 0, players - 1)
    _set(v, "to_move", to_move)
    if phase == "select":
        played = [card >= 0 for card in selected[:players]]
        if all(played):
            if not has_court or selected[players] >= 0:
                raise ValueError("state dict: every card is chosen, so the phase is not select")
            _set(v, "court_picker", to_move)  # tactical: the further player picks the court painter's card
        elif played != [seat < to_move for seat in range(players)]:
            raise ValueError("state dict: in phase select, exactly the seats before to_move have played")
        return
    pending = _list(d, "pending")
    if not pending:
        raise ValueError("state dict: phase choose needs the pending cards, the first one waiting")
    table = sorted((card, p) for p, card in enumerate(selected) if card >= 0)
    waiting = [(int(c), int(p)) for c, p in pending]
    done = [entry for entry in table if entry not in waiting]
    if sorted(done + waiting) != table or done + waiting != sorted(done + waiting):
        raise ValueError("state dict: pending must list this round's unresolved cards in order number")
    cards, owners = F.view(v, "pending"), F.view(v, "pend_owner")
    for i, (card, owner) in enumerate(done + waiting):
        cards[i], owners[i] = card, owner
    _set(v, "pend_n", len(table))
    _set(v, "pend_pos", len(done))
    choosing = d.get("choosing")
    if choosing not in ("garden", "painter"):
        raise ValueError(f"state dict: choosing must be garden or painter, got {choosing!r}")
    _set(v, "choosing", 0 if choosing == "garden" else 1)
    _set(v, "half", F.get(v, "choosing"))  # the garden half is done when the painter half is chosen
    if waiting[0][1] != to_move:
        raise ValueError("state dict: to_move must own the first pending card in phase choose")
