"""Builders and a small reference of the rules for the Sakura tests (docs/rules.md, Sakura; the
readable API's states and actions, sim/sakura/game.py).

Everything here works on the public, readable API only: state dicts, `from_dict`, `to_dict`,
`legal_actions`, `apply`, `result`, `observe`. The card list is read straight from the shipped TOML config,
not from the engine.

`make_state` fills a full, valid state dict (all 60 cards accounted for across hands, deck, discard,
selected and the court card) from a few overrides. `ref_apply` is an independent, deliberately plain
re-statement of the rules (movement, bumps, R-12..R-19, and the alternative readings R-21 bump_from, R-22
lineup_from_gate and R-23 court_can_win) used by the property tests to predict the next state of the
engine after any action, and `ref_winners` of who wins.
"""

from __future__ import annotations

import copy
import functools
import tomllib
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from sim import games

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "configs" / "sakura" / "base.toml"
TACTICAL_CONFIG = ROOT / "configs" / "sakura" / "two-player-tactical.toml"

HAND = 5
DECK_SIZE = 60
DEFAULT_RULES = {"tie_break": "closest_to_emperor", "two_player_variant": "court",
                 "bump_from": "emperor", "lineup_from_gate": False, "court_can_win": False}  # R-21..R-23

# R-10 reconstructed board, as played: (path_length, torii, sakura). With 5-6 players each of the bridges
# 8, 16, 24, 26 is three spaces, so every later index moves up by 2 per bridge below it.
BOARD_2_4 = (30, 4, (12, 20, 28))
BOARD_5_6 = (38, 4, (14, 24, 36))


def board(players: int) -> tuple[int, int, tuple[int, ...]]:
    return BOARD_5_6 if players >= 5 else BOARD_2_4


@functools.cache
def config_cards() -> dict[int, tuple[str, str]]:
    """order -> (garden id, painter id), from configs/sakura/base.toml."""
    with open(CONFIG, "rb") as f:
        data = tomllib.load(f)
    cards = {c["order"]: (c["garden"], c["painter"]) for c in data["cards"]}
    assert sorted(cards) == list(range(1, DECK_SIZE + 1))
    return cards


def cards_list() -> list[list]:
    """The `cards` entry of a state dict: [order, garden, painter] per card, by order."""
    return [[o, g, p] for o, (g, p) in sorted(config_cards().items())]


def garden(card: int) -> str:
    return config_cards()[card][0]


def painter(card: int) -> str:
    return config_cards()[card][1]


def cards_with(garden_id: str | None = None, painter_id: str | None = None) -> list[int]:
    return [
        o
        for o, (g, p) in sorted(config_cards().items())
        if (garden_id is None or g == garden_id) and (painter_id is None or p == painter_id)
    ]


@functools.cache
def game(players: int = 4, config: str = str(CONFIG)):
    return games.load("sakura", config=config, players=players)


def load(d: dict):
    """(game, state) for a state dict."""
    g = game(d["players"])
    return g, g.from_dict(copy.deepcopy(d))


def legal(g, s) -> set[str]:
    acts = g.legal_actions(s)
    assert len(acts) == len(set(acts)), f"duplicate legal actions: {acts}"
    return set(acts)


def play(g, s, *actions: str):
    for a in actions:
        s = g.apply(s, a)
    return s


def run(d: dict, *actions: str) -> dict:
    """The state dict after applying `actions` to the state `d`."""
    g, s = load(d)
    return g.to_dict(play(g, s, *actions))


def _per_seat(value, players: int, default) -> list:
    if value is None:
        return [copy.deepcopy(default) for _ in range(players)]
    if isinstance(value, dict):
        out = [copy.deepcopy(default) for _ in range(players)]
        for seat, v in value.items():
            out[seat] = v
        return out
    out = list(value)
    assert len(out) == players, (value, players)
    return out


def make_state(
    players: int = 4,
    *,
    emperor: int = 16,
    painters: list[int] | None = None,
    tokens: list[int] | None = None,
    scored: list[bool] | None = None,
    hands: dict[int, Iterable[int]] | None = None,
    selected: dict[int, int] | list | None = None,
    deck: Iterable[int] = (),
    discard: Iterable[int] = (),
    rest: str = "deck",
    court: dict | None = None,
    pending: list[list[int]] | None = None,
    phase: str = "select",
    choosing: str | None = None,
    to_move: int | None = None,
    round: int = 1,
    rules: dict | None = None,
    rng: int | None = None,
    hand_sizes: dict[int, int] | None = None,
) -> dict:
    """A full state dict in `to_dict`'s form.

    hands: {seat: cards that must be in that hand}; each hand is then filled (ascending, from the cards
    nobody else holds) up to 5 minus the cards that seat has selected (or `hand_sizes[seat]`). deck: the
    top of the deck, top first; every card left over goes to the bottom of the deck in ascending order
    (rest="deck") or onto the discard pile (rest="discard"). selected: {seat: card}. court (2 players):
    overrides of {"painter": 0, "tokens": 5, "card": None}. scored default: the sakura the Emperor has
    reached. to_move default: the first seat still to select (phase select), the owner of the first pending
    card (phase choose), None (phase over). rules: partial knobs completed from DEFAULT_RULES; None leaves
    the key out (the config applies).
    """
    length, torii, sakura = board(players)
    painters = list(painters if painters is not None else [0] * players)
    tokens = list(tokens if tokens is not None else [5] * players)
    assert len(painters) == len(tokens) == players
    selected_l = _per_seat(selected, players, None)
    if scored is None:
        scored = [emperor >= s for s in sakura]
    court_d = None
    if players == 2:
        court_d = {"painter": 0, "tokens": 5, "card": None, **(court or {})}
    else:
        assert court is None

    deck = list(deck)
    discard = list(discard)
    want_hands = {seat: list(cs) for seat, cs in (hands or {}).items()}
    used: list[int] = [c for c in selected_l if c is not None] + deck + discard
    if court_d and court_d["card"] is not None:
        used.append(court_d["card"])
    for cs in want_hands.values():
        used.extend(cs)
    dup = [c for c, n in Counter(used).items() if n > 1]
    assert not dup, f"cards placed twice: {dup}"
    assert all(1 <= c <= DECK_SIZE for c in used), used
    pool = [c for c in range(1, DECK_SIZE + 1) if c not in set(used)]

    out_hands = []
    for seat in range(players):
        size = HAND - (selected_l[seat] is not None)
        if hand_sizes and seat in hand_sizes:
            size = hand_sizes[seat]
        h = list(want_hands.get(seat, []))
        assert len(h) <= size, (seat, h, size)
        while len(h) < size:
            h.append(pool.pop(0))
        out_hands.append(sorted(h))
    if rest == "deck":
        deck = deck + pool
    else:
        assert rest == "discard"
        discard = discard + pool

    if to_move is None:
        if phase == "select":
            to_move = next(seat for seat in range(players) if selected_l[seat] is None)
        elif phase == "choose":
            to_move = pending[0][1]
    d = {
        "game": "sakura",
        "players": players,
        "round": round,
        "path_length": length,
        "torii": torii,
        "sakura": list(sakura),
        "scored": list(scored),
        "emperor": emperor,
        "painters": painters,
        "tokens": tokens,
        "cards": cards_list(),
        "hands": out_hands,
        "deck": deck,
        "discard": discard,
        "selected": selected_l,
        "court": court_d,
        "pending": [list(p) for p in (pending or [])],
        "phase": phase,
        "to_move": to_move,
    }
    if phase == "choose":
        assert choosing in ("garden", "painter")
        d["choosing"] = choosing
    if rules is not None:
        d["rules"] = {**DEFAULT_RULES, **rules}
    if rng is not None:
        d["rng"] = rng
    check_cards(d)
    return d


def all_cards(d: dict) -> list[int]:
    """Every card the state holds: hands, deck, discard, selected, the court card."""
    out = [c for h in d["hands"] for c in h] + list(d["deck"]) + list(d["discard"])
    out += [c for c in d["selected"] if c is not None]
    if d.get("court") and d["court"].get("card") is not None:
        out.append(d["court"]["card"])
    return out


def check_cards(d: dict) -> None:
    cards = all_cards(d)
    counts = Counter(cards)
    assert sorted(cards) == list(range(1, DECK_SIZE + 1)), (
        f"cards not accounted for exactly once: missing {sorted(set(range(1, 61)) - set(cards))}, "
        f"twice {sorted(c for c, n in counts.items() if n > 1)}"
    )


def rules_of(d: dict, players: int | None = None) -> dict:
    return {**DEFAULT_RULES, **(d.get("rules") or {})}


# --------------------------------------------------------------------------------------------------------
# Reference of the rules (docs/rules.md, Sakura and the API decisions), on state dicts.


class NeedsShuffle(Exception):
    """The next step draws from an empty deck: the seeded shuffle cannot be predicted here."""


def _court(d: dict) -> int | None:
    return d["players"] if d.get("court") is not None else None


def positions(d: dict) -> list[int]:
    """Painter positions, the court painter (if any) last, at index `players`."""
    pos = list(d["painters"])
    if d.get("court") is not None:
        pos.append(d["court"]["painter"])
    return pos


def _set_pos(d: dict, who: int, pos: int) -> None:
    if who == d["players"]:
        d["court"]["painter"] = pos
    else:
        d["painters"][who] = pos


def _lose_token(d: dict, who: int) -> None:
    if who == d["players"]:
        d["court"]["tokens"] = max(0, d["court"]["tokens"] - 1)
    else:
        d["tokens"][who] = max(0, d["tokens"][who] - 1)


def _gain_tokens(d: dict, who: int, n: int) -> None:
    if who == d["players"]:
        d["court"]["tokens"] += n
    else:
        d["tokens"][who] += n


def _others(d: dict, who: int) -> set[int]:
    return {p for i, p in enumerate(positions(d)) if i != who and p > 0}


def bump(d: dict, who: int, start: int | None = None) -> None:
    """Lose a token if any, then back 3 empty spaces counted from `start`, which does not count itself:
    the Emperor's space (R-15; start None), or under bump_from "painter" (R-21) the space where the
    painter's own move stopped. The painter's own former space is empty; the gate ends the move."""
    _lose_token(d, who)
    occ = _others(d, who)
    q, n = (d["emperor"] if start is None else start), 0
    while n < 3:
        q -= 1
        if q <= 0:
            q = 0
            break
        if q not in occ:
            n += 1
    _set_pos(d, who, q)


def own_move_bump(d: dict, who: int, stopped: int) -> None:
    """A painter's own move reached the Emperor; `stopped`: the last empty space it counted, or where it
    started if it counted none. R-15 counts back from the Emperor, R-21 from `stopped`."""
    bump(d, who, stopped if rules_of(d)["bump_from"] == "painter" else None)


def move_painter(d: dict, who: int, n: int, forward: bool) -> None:
    """Count only empty spaces; bump at the Emperor; back beyond the path stops at the gate."""
    pos = positions(d)[who]
    occ = _others(d, who)
    for _ in range(n):
        if forward:
            q = pos + 1
            while q in occ:
                q += 1
            if q == d["emperor"]:
                own_move_bump(d, who, pos)  # pos: the last space counted (or the start)
                return
            pos = q
        else:
            q = pos - 1
            while q > 0 and q in occ:
                q -= 1
            pos = max(q, 0)
            if pos == 0:
                break
    _set_pos(d, who, pos)


def closest(d: dict) -> int | None:
    pos = positions(d)
    top = max(pos)
    return None if top == 0 else pos.index(top)


def furthest(d: dict) -> int | None:
    pos = positions(d)
    if pos.count(0) >= 2:
        return None
    return pos.index(min(pos))


def emperor_forward(d: dict, n: int) -> None:
    for _ in range(n):
        if d["emperor"] >= d["path_length"]:
            return
        d["emperor"] += 1
        if on_unscored_sakura(d):
            return  # a sakura entered for the first time stops him at once


def emperor_back(d: dict) -> None:
    d["emperor"] = max(1, d["emperor"] - 1)
    for who, p in enumerate(positions(d)):
        if p == d["emperor"]:
            bump(d, who)  # from his space, which is the painter's own: agree


def on_unscored_sakura(d: dict) -> bool:
    return any(s == d["emperor"] and not done for s, done in zip(d["sakura"], d["scored"], strict=True))


def do_garden(d: dict, card: int, forward: bool) -> None:
    g = garden(card)
    if g == "E+1":
        emperor_forward(d, 1)
    elif g == "E+2":
        emperor_forward(d, 2)
    elif g == "E-1":
        emperor_back(d)
    elif g == "E+-1":
        if forward:
            emperor_forward(d, 1)
        else:
            emperor_back(d)
    elif g == "closest-2":
        who = closest(d)
        if who is not None:
            move_painter(d, who, 2, forward=False)
    elif g == "furthest+2":
        who = furthest(d)
        if who is not None:
            move_painter(d, who, 2, forward=True)
    else:
        raise AssertionError(g)


def do_painter(d: dict, card: int, who: int, forward: bool) -> None:
    p = painter(card)
    mine = positions(d)[who]
    if p in ("P+1", "P+2", "P+3"):
        move_painter(d, who, int(p[-1]), forward=True)
    elif p in ("P+-1", "P+-2", "P+-3"):
        move_painter(d, who, int(p[-1]), forward=forward)
    elif p == "leapfrog":
        ahead = [q for q in _others(d, who) if q > mine]
        if not ahead:
            return
        target = min(ahead) + 1
        occ = _others(d, who)
        while target in occ:
            target += 1
        if target == d["emperor"]:
            own_move_bump(d, who, mine)  # a leapfrog counts no space: R-21 counts from its start
        else:
            _set_pos(d, who, target)
    elif p == "count":
        n = sum(1 for q in _others(d, who) if mine < q < d["emperor"])
        if n:
            move_painter(d, who, n, forward=True)
    else:
        raise AssertionError(p)


def ranking(d: dict) -> list[int]:
    """Painters by proximity to the Emperor; gate painters only when alone there (R-13)."""
    pos = positions(d)
    ranked = sorted((w for w in range(len(pos)) if pos[w] > 0), key=lambda w: -pos[w])
    gate = [w for w in range(len(pos)) if pos[w] == 0]
    if len(gate) == 1:
        ranked.append(gate[0])
    return ranked


def score(d: dict) -> None:
    """Score the sakura the Emperor stands on; line up (R-18) or end the game."""
    idx = d["sakura"].index(d["emperor"])
    last = idx == len(d["sakura"]) - 1
    points = [4 if last else 3, 2, 1] + ([1] if d["players"] >= 5 else [])
    order = ranking(d)
    for who, pts in zip(order, points, strict=False):
        _gain_tokens(d, who, pts)
    d["scored"][idx] = True
    if last:
        d["phase"] = "over"
        d["to_move"] = None
        d.pop("choosing", None)
        return
    pos = positions(d)
    prev = pos[order[0]] if order else 0
    for who in order[1:]:
        if pos[who] == 0 and not rules_of(d)["lineup_from_gate"]:
            continue  # the lone gate painter stays; R-22: it lines up like the others
        prev = max(prev - 1, 0)
        _set_pos(d, who, prev)


def end_round(d: dict) -> None:
    """Discard the round's cards, draw in seat order up to 5 (R-19), next round. When a draw finds the deck
    empty the reference cannot know the shuffle: it sets d["_shuffled"] and leaves the hands short."""
    d["discard"] = list(d["discard"]) + [c for c in d["selected"] if c is not None]
    if d.get("court") is not None and d["court"]["card"] is not None:
        d["discard"].append(d["court"]["card"])
        d["court"]["card"] = None
    d["selected"] = [None] * d["players"]
    d["pending"] = []
    d.pop("choosing", None)
    for seat in range(d["players"]):
        while len(d["hands"][seat]) < HAND:
            if not d["deck"]:
                # the seeded shuffle is the engine's; the reference stops drawing and says so.
                d["_shuffled"] = True
                break
            d["hands"][seat].append(d["deck"].pop(0))
        d["hands"][seat].sort()
    d["round"] += 1
    d["phase"] = "select"
    d["to_move"] = 0


def _resolve(d: dict, answer: bool | None) -> None:
    """Resolve pending cards until a decision or the end of the round. `answer`: the forward/back answer to
    the decision the state was waiting for (None: no decision pending)."""
    court = _court(d)
    while d["pending"]:
        card, who = d["pending"][0]
        stage = d.pop("choosing", None) if answer is not None else None
        if stage is None:
            if garden(card) == "E+-1" and who != court:
                d["phase"], d["choosing"], d["to_move"] = "choose", "garden", who
                return
            do_garden(d, card, forward=True)
        elif stage == "garden":
            do_garden(d, card, forward=answer)
            answer = None
        if stage != "painter":
            if painter(card).startswith("P+-") and who != court:
                d["phase"], d["choosing"], d["to_move"] = "choose", "painter", who
                return
            do_painter(d, card, who, forward=True)
        else:
            do_painter(d, card, who, forward=answer)
            answer = None
        if on_unscored_sakura(d):
            score(d)
            if d["phase"] == "over":
                return
            end_round(d)
            return
        d["pending"].pop(0)
    end_round(d)


def _reveal(d: dict) -> None:
    entries = [[c, seat] for seat, c in enumerate(d["selected"])]
    if d.get("court") is not None:
        entries.append([d["court"]["card"], d["players"]])
    d["pending"] = sorted(entries)
    _resolve(d, None)


def tactical_court_seat(d: dict) -> int | None:
    """Two players, tactical: the seat further from the Emperor; None when both are on the gate."""
    a, b = d["painters"]
    if a == b == 0:
        return None
    return 0 if a < b else 1


def ref_apply(d0: dict, action: str) -> dict:
    """The state the rules say follows `d0` after `action` (raises NeedsShuffle when the court card needs a
    reshuffle, ValueError for an action the reference deems illegal; see `end_round` for draws)."""
    d = copy.deepcopy(d0)
    kind, _, arg = action.partition(" ")
    players = d["players"]
    if d["phase"] == "select":
        m = d["to_move"]
        card = int(arg) if arg else None
        if kind == "play" and d["selected"][m] is None and card in d["hands"][m]:
            d["hands"][m].remove(card)
            d["selected"][m] = card
            if m + 1 < players:
                d["to_move"] = m + 1
                return d
            if players == 2:
                variant = rules_of(d)["two_player_variant"]
                seat = tactical_court_seat(d) if variant == "tactical" else None
                if seat is not None:
                    d["to_move"] = seat
                    return d
                if not d["deck"]:
                    raise NeedsShuffle
                d["court"]["card"] = d["deck"].pop(0)
            _reveal(d)
            return d
        if (
            kind == "court"
            and players == 2
            and all(c is not None for c in d["selected"])
            and d["court"]["card"] is None
            and card in d["hands"][m]
        ):
            d["hands"][m].remove(card)
            d["court"]["card"] = card
            _reveal(d)
            return d
        raise ValueError(action)
    if d["phase"] == "choose" and kind in ("forward", "back") and not arg:
        _resolve(d, kind == "forward")
        return d
    raise ValueError(action)


def ref_legal(d: dict) -> set[str]:
    if d["phase"] == "over":
        return set()
    if d["phase"] == "choose":
        return {"forward", "back"}
    m = d["to_move"]
    if d["selected"][m] is None:
        return {f"play {c}" for c in d["hands"][m]}
    return {f"court {c}" for c in d["hands"][m]}


def ref_winners(d: dict) -> tuple[list[int], bool, bool]:
    """(winners, tie, decided_by_tiebreak) at the end of the game (R-14). Under court_can_win with two
    players (R-23) the court painter competes like a third player and appears among the winners as
    index `players`; otherwise it never wins."""
    tokens = list(d["tokens"])
    pos = list(d["painters"])
    if d.get("court") is not None and rules_of(d)["court_can_win"]:
        tokens.append(d["court"]["tokens"])
        pos.append(d["court"]["painter"])
    top = max(tokens)
    tied = [p for p in range(len(tokens)) if tokens[p] == top]
    if len(tied) == 1:
        return tied, False, False
    if rules_of(d)["tie_break"] == "shared":
        return tied, True, False
    best = max(pos[p] for p in tied)
    if best == 0:
        return tied, True, False
    return [p for p in tied if pos[p] == best], True, True
