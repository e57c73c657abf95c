"""Property tests for Sakura: random play through the public API from `new_state(seed)` for 2..6 players
(both two-player variants, both tie-breaks, both readings of R-21 bump_from and R-22 lineup_from_gate at
every player count, both of R-23 court_can_win at two players), checking after every action the
invariants of docs/rules.md (Sakura) and of the readable API, and the
engine's step against the plain reference of the rules
in tests/sakura_helpers.py (`ref_apply`: movement, bumps R-15 / R-21, leapfrog / count R-17, scoring R-13,
line-up R-18 / R-22, draws R-19 up to the seeded shuffle, the court painter, the tactical variant; and
`ref_winners`: R-14, R-23).

Invariants: painters never share a non-gate space (court painter included); every painter strictly behind
the Emperor (R-16); tokens never negative; the 60 cards held exactly once across hands, deck, discard,
selected and the court card; hands at most 5 (exactly 5 in phase select before the seat plays), sorted;
the Emperor within 1..path_length; JSON-safe to_dict / from_dict round trip; legal actions as the reference
gives them; the game ends (after the last sakura scores) with the winners R-14 gives; observations do not
depend on information the seat may not see.
"""

from __future__ import annotations

import copy
import json
import random

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from tests.sakura_helpers import (
    HAND,
    NeedsShuffle,
    board,
    check_cards,
    game,
    load,
    make_state,
    positions,
    ref_apply,
    ref_legal,
    ref_winners,
    rules_of,
)

MAX_ACTIONS = 4000

# Compared with the reference after every action; hands / deck / discard only while no shuffle is involved,
# and the card piles not at all once the game is over (the API does not say where the last round's cards go).
POSITION_KEYS = ("emperor", "painters", "tokens", "scored", "phase", "to_move")
ROUND_KEYS = ("round", "pending", "selected")


def check_state(g, s, d: dict, d0: dict) -> None:
    players = d0["players"]
    assert d["game"] == "sakura" and d["players"] == players
    assert d["cards"] == d0["cards"] and d["sakura"] == d0["sakura"]
    assert d["path_length"] == d0["path_length"]
    assert d.get("rules") == d0.get("rules")
    length = d["path_length"]
    # the Emperor on the path, never below 1
    assert 1 <= d["emperor"] <= length, d["emperor"]
    pos = positions(d)
    assert len(d["painters"]) == len(d["tokens"]) == players
    assert (d["court"] is not None) == (players == 2)
    # painters never share a space except the gate; R-16 strictly behind the Emperor
    on_path = [p for p in pos if p > 0]
    assert len(on_path) == len(set(on_path)), f"painters share a space: {pos}"
    assert all(0 <= p < d["emperor"] for p in pos), f"painter not behind the Emperor {d['emperor']}: {pos}"
    # tokens never negative
    assert all(t >= 0 for t in d["tokens"]), d["tokens"]
    if d["court"] is not None:
        assert d["court"]["tokens"] >= 0
    # every card once
    check_cards(d)
    # hands
    for seat, h in enumerate(d["hands"]):
        assert len(h) <= HAND and h == sorted(h), (seat, h)
        if d["phase"] == "select" and d["selected"][seat] is None:
            assert len(h) == HAND, (seat, h)
    # an unscored sakura is never behind the Emperor (scored ones stay scored: checked by the caller)
    for sak, done in zip(d["sakura"], d["scored"], strict=True):
        if not done:
            assert d["emperor"] <= sak
            if d["emperor"] == sak:  # he just entered it: only the card's painter half may still wait
                assert d["phase"] == "choose" and d["choosing"] == "painter", d
    # phase / to_move
    assert d["phase"] in ("select", "choose", "over")
    if d["phase"] == "over":
        assert d["to_move"] is None
    else:
        assert 0 <= d["to_move"] < players
    if d["phase"] == "choose":
        assert d["choosing"] in ("garden", "painter")
        assert d["pending"] and d["pending"][0][1] == d["to_move"]
    if d["phase"] == "select":
        assert d["pending"] == []
    # result agrees with the dict
    r = g.result(s)
    assert r["over"] is (d["phase"] == "over")
    assert r["scores"] == d["tokens"]
    # JSON-safe, and the round trip reproduces the state exactly
    assert json.loads(json.dumps(d)) == d
    s_rt = g.from_dict(copy.deepcopy(d))
    assert g.to_dict(s_rt) == d
    assert g.legal_actions(s_rt) == g.legal_actions(s)
    assert g.result(s_rt) == r


def compare_with_reference(want: dict, got: dict, action: str, prev: dict) -> None:
    ctx = (action, prev)
    for key in POSITION_KEYS:
        assert got[key] == want[key], (key, got[key], want[key], ctx)
    if got["court"] is not None:
        for key in ("painter", "tokens"):
            assert got["court"][key] == want["court"][key], ("court", key, got["court"], want["court"], ctx)
    if want["phase"] == "over":
        return
    for key in ROUND_KEYS:
        assert got[key] == want[key], (key, got[key], want[key], ctx)
    assert got.get("choosing") == want.get("choosing"), (got.get("choosing"), want.get("choosing"), ctx)
    if got["court"] is not None:
        assert got["court"]["card"] == want["court"]["card"], ("court card", got["court"], want["court"], ctx)
    if want.get("_shuffled"):
        # cards only move from the old deck, the discard pile and the round's cards into hands and the
        # new deck; hands kept what they held before the draw.
        for seat in range(got["players"]):
            assert set(want["hands"][seat]) <= set(got["hands"][seat]), ("hand lost a card", seat, ctx)
        event("reshuffle at a draw")
        return
    assert got["hands"] == want["hands"], ("hands", got["hands"], want["hands"], ctx)
    assert got["deck"] == want["deck"], ("deck", ctx)
    assert sorted(got["discard"]) == sorted(want["discard"]), ("discard", ctx)


def hidden_variant(d: dict, seat: int, rng: random.Random) -> dict:
    """The same position with everything `seat` may not see redealt: other hands, the deck order, (phase
    select) the other players' selections this round, and the generator state behind future reshuffles."""
    out = copy.deepcopy(d)
    if "rng" in out:
        out["rng"] = rng.randrange(2**63)
    slots: list[tuple[str, int]] = []
    pool: list[int] = []
    for other in range(d["players"]):
        if other == seat:
            continue
        pool += d["hands"][other]
        slots += [("hand", other)] * len(d["hands"][other])
        if d["phase"] == "select" and d["selected"][other] is not None:
            pool.append(d["selected"][other])
            slots.append(("selected", other))
    pool += d["deck"]
    slots += [("deck", 0)] * len(d["deck"])
    rng.shuffle(pool)
    out["deck"] = []
    for other in range(d["players"]):
        if other != seat:
            out["hands"][other] = []
    for (where, other), card in zip(slots, pool, strict=True):
        if where == "hand":
            out["hands"][other].append(card)
        elif where == "selected":
            out["selected"][other] = card
        else:
            out["deck"].append(card)
    for h in out["hands"]:
        h.sort()
    check_cards(out)
    return out


#: Every rule knob's values (R-14, two players, R-21, R-22, R-23), which the strategies draw from.
KNOB_VALUES = {"tie_break": ["closest_to_emperor", "shared"], "two_player_variant": ["court", "tactical"],
               "bump_from": ["emperor", "painter"], "lineup_from_gate": [False, True],
               "court_can_win": [False, True]}
TWO_PLAYER_KNOBS = ("two_player_variant", "court_can_win")  # they act only with the court painter


def knobs() -> st.SearchStrategy[dict]:
    """A full "rules" table of a state dict, every knob drawn from all its values."""
    return st.fixed_dictionaries({key: st.sampled_from(values) for key, values in KNOB_VALUES.items()})


def new_game(players: int, seed: int, rules: dict):
    g = game(players)
    s = g.new_state(seed=seed)
    d = g.to_dict(s)
    d["rules"] = {**rules_of(d), **rules}
    return g, g.from_dict(d)


def winners_of(r: dict, players: int) -> list[int]:
    """A result's winners as ref_winners gives them: the seats, then the court painter (index `players`)
    when it won or shared the win (R-23)."""
    return r["winners"] + ([players] if r.get("court_wins") else [])


@settings(deadline=None, max_examples=120, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**31 - 1),
    players=st.integers(2, 6),
    rules=knobs(),
    play_seed=st.integers(0, 2**31 - 1),
)
def test_random_play_keeps_the_rules(seed, players, rules, play_seed):
    """Random play keeps every invariant after every action and agrees with the reference of the rules,
    under every reading (R-14, R-21, R-22, R-23, both two-player variants)."""
    play_and_check(players, seed, rules, play_seed)


#: Each reading at every player count it applies to, so that none is left to the draw: R-21 and R-22 at
#: 2-6 players, R-23 at two players with both variants (the other knobs drawn).
READINGS = ([(n, {"bump_from": v}) for n in range(2, 7) for v in KNOB_VALUES["bump_from"]]
            + [(n, {"lineup_from_gate": v}) for n in range(2, 7) for v in (False, True)]
            + [(2, {"court_can_win": c, "two_player_variant": v}) for c in (False, True)
               for v in KNOB_VALUES["two_player_variant"]])


@pytest.mark.parametrize(("players", "fixed"), READINGS,
                         ids=[f"{n}p-" + "-".join(f"{k}={v}" for k, v in f.items()) for n, f in READINGS])
@settings(deadline=None, max_examples=8, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31 - 1), rules=knobs(), play_seed=st.integers(0, 2**31 - 1))
def test_random_play_under_each_reading(players, fixed, seed, rules, play_seed):
    """R-21 (bump_from), R-22 (lineup_from_gate), R-23 (court_can_win): random play under each value at
    each player count it applies to keeps every invariant and agrees with the reference step by step."""
    play_and_check(players, seed, {**rules, **fixed}, play_seed)


def play_and_check(players: int, seed: int, rules: dict, play_seed: int) -> None:
    """One random game from new_state(seed) under `rules` (a full "rules" table), checked after every
    action against the invariants and the reference, and at the end against ref_winners (R-14, R-23)."""
    event(f"{players}p, " + ", ".join(f"{k}={v}" for k, v in sorted(rules.items())
                                       if players == 2 or k not in TWO_PLAYER_KNOBS))
    g, s = new_game(players, seed, rules)
    rng = random.Random(play_seed)
    d0 = d = g.to_dict(s)
    assert d["rules"] == rules
    scored_before = list(d["scored"])
    for step in range(MAX_ACTIONS):
        check_state(g, s, d, d0)
        assert all(b <= a for b, a in zip(scored_before, d["scored"], strict=True)), "a sakura unscored"
        scored_before = list(d["scored"])
        r = g.result(s)
        acts = g.legal_actions(s)
        assert len(acts) == len(set(acts))
        assert set(acts) == ref_legal(d), (sorted(acts), sorted(ref_legal(d)), d)
        if r["over"]:
            assert acts == []
            assert all(d["scored"]), "the game ended before the last sakura scored"
            assert r["end_reason"] != "round_limit"
            assert r["rounds"] == d["round"]
            winners, tie, decided = ref_winners(d)
            assert winners_of(r, players) == winners, (r, d["tokens"], d["painters"], d["court"])
            assert r["tie"] is tie
            if not tie or rules["tie_break"] == "shared":
                assert r["decided_by_tiebreak"] is False
            elif decided:
                assert r["decided_by_tiebreak"] is True
            assert all(0 <= w < players for w in r["winners"])  # seats; the court painter is court_wins
            if r.get("court_wins"):
                assert players == 2 and rules["court_can_win"], r  # R-23 only
                event("R-23: the court painter won" + (" (shared)" if r["winners"] else ""))
            shares = g.returns(s)  # win shares: 1/k to each of k winners, the court painter among them
            assert shares == [1 / len(winners) if seat in winners else 0.0 for seat in range(players)]
            return
        if step % 7 == 0 and d["to_move"] is not None:  # observations hide what the seat may not see
            seat = d["to_move"]
            other = g.from_dict(hidden_variant(d, seat, rng))
            assert g.observe(other, seat) == g.observe(s, seat), "observation depends on hidden information"
        a = rng.choice(acts)
        s2 = g.apply(s, a)
        d2 = g.to_dict(s2)
        assert g.to_dict(s) == d, "apply changed its input"
        try:
            want = ref_apply(d, a)
        except NeedsShuffle:
            event("reshuffle for the court card")
        else:
            compare_with_reference(want, d2, a, d)
        s, d = s2, d2
    raise AssertionError(f"game did not end within {MAX_ACTIONS} actions")


@settings(deadline=None, max_examples=30, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31 - 1), players=st.integers(2, 6), n=st.integers(0, 40))
def test_illegal_actions_raise_and_change_nothing(seed, players, n):
    """API: any action not in legal_actions raises ValueError and leaves the state as it was."""
    g = game(players)
    s = g.new_state(seed=seed)
    rng = random.Random(seed)
    for _ in range(n):
        acts = g.legal_actions(s)
        if not acts:
            break
        s = g.apply(s, rng.choice(acts))
    d = g.to_dict(s)
    acts = set(g.legal_actions(s))
    candidates = ["forward", "back", "pass", "play 0", "play 61", "court 0", "play x", ""]
    candidates += [f"play {c}" for c in range(1, 61)] + [f"court {c}" for c in range(1, 61)]
    for a in rng.sample(candidates, 25):
        if a in acts:
            continue
        try:
            g.apply(s, a)
        except ValueError:
            pass
        else:
            raise AssertionError(f"illegal action {a!r} accepted in {d}")
        assert g.to_dict(s) == d


def random_position(seed: int) -> dict:
    """A random valid state in phase select (round start): any player count and variant, the Emperor
    anywhere before the next unscored sakura, painters (court included) on distinct spaces behind him or
    on the gate, 0-3 tokens, a random deal and a deck of any size (the rest on the discard pile)."""
    rng = random.Random(seed)
    players = rng.randint(2, 6)
    length, _torii, sakura = board(players)
    k = rng.randrange(len(sakura))
    emperor = rng.randint(1, sakura[k] - 1)
    n = players + (players == 2)
    m = rng.randint(0, min(n, emperor - 1))
    spots = rng.sample(range(1, emperor), m) + [0] * (n - m)
    rng.shuffle(spots)
    tokens = [rng.randint(0, 3) for _ in range(n)]
    cards = list(range(1, 61))
    rng.shuffle(cards)
    hands = {seat: cards[HAND * seat:HAND * seat + HAND] for seat in range(players)}
    rest = cards[HAND * players:]
    cut = rng.choice([0, 1, 2, 3, 5, len(rest) // 2, len(rest)])
    rules = {key: rng.choice(values) for key, values in KNOB_VALUES.items()}  # every reading
    court = {"painter": spots[-1], "tokens": tokens[-1]} if players == 2 else None
    return make_state(players, emperor=emperor, painters=spots[:players], tokens=tokens[:players],
                      scored=[i < k for i in range(len(sakura))], hands=hands, deck=rest[:cut],
                      discard=rest[cut:], court=court, rules=rules, rng=rng.randrange(2**32),
                      round=rng.randint(1, 30))


@settings(deadline=None, max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31 - 1), play_seed=st.integers(0, 2**31 - 1))
def test_random_positions_follow_the_reference(seed, play_seed):
    """From random positions (bumps with no tokens left, the Emperor near the gate, crowded paths, short
    decks, the court painter anywhere), a few random rounds agree with the reference step by step."""
    d = random_position(seed)
    g, s = load(d)
    d = g.to_dict(s)
    d0 = d
    rng = random.Random(play_seed)
    start_round = d["round"]
    for _ in range(MAX_ACTIONS):
        check_state(g, s, d, d0)
        acts = g.legal_actions(s)
        assert set(acts) == ref_legal(d), (sorted(acts), sorted(ref_legal(d)), d)
        if not acts or d["round"] >= start_round + 4:
            event("over" if not acts else "four rounds")
            if not acts:
                winners, tie, _decided = ref_winners(d)
                r = g.result(s)
                assert winners_of(r, d["players"]) == winners and r["tie"] is tie, (r, d)
            return
        a = rng.choice(acts)
        s2 = g.apply(s, a)
        d2 = g.to_dict(s2)
        try:
            want = ref_apply(d, a)
        except NeedsShuffle:
            event("reshuffle for the court card")
        else:
            compare_with_reference(want, d2, a, d)
        s, d = s2, d2
    raise AssertionError("no progress")

