"""Property tests for Kamakura: random play through the public API from `new_state(seed)`, checking after
every action the invariants of docs/rules.md (Kamakura) and of the readable API, against a small independent
reference of the rules.

The reference tracks the turn (swaps left, gains allowed, greens activated and assigned) from the actions
alone and predicts the exact legal set, except for the R-8 reachability search behind `pass`, which it checks
where it is cheap (at most two swaps left to make or buy). A second property holds `pass` to an exact
breadth-first search on small random positions.
"""

from __future__ import annotations

import json
import random
import tomllib

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from tests.kamakura_helpers import (
    ADJACENT,
    COLOURS,
    CONFIG,
    GREEN,
    LATIN,
    RED,
    YELLOW,
    chit,
    colour_of,
    count,
    game,
    line_of,
    load,
    make_state,
    off_board,
    owned_points,
    swap_actions,
    swapped,
)

MAX_ACTIONS = 3000
TIE_BREAKS = ("last_in_order", "first_in_order", "shared", "last_to_play")


def config_rules() -> dict:
    with open(CONFIG, "rb") as f:
        r = tomllib.load(f)["rules"]
    return {k: r[k] for k in ("green_min_requirement", "tie_break", "voluntary_pass")}


class Turn:
    """Reference bookkeeping for the turn in progress (reset at every `end` / `pass`)."""

    def __init__(self, d: dict):
        self.start = d
        self.swaps_left = 1
        self.swaps_done = 0
        self.gains_allowed = 1
        self.gained: list[int] = []
        self.greens: list[int] = []  # powers of activated, still unassigned greens
        self.activated: list[int] = []
        self.order_used = False


def eligible(board: str, c: dict, greens: list[int], gmin: int) -> int | None:
    """None if chit c is not eligible; else the deficit a green must cover (0: none needed)."""
    n = count(board, colour_of(c["id"]), line_of(c["id"]))
    if n == c["icons"]:
        return 0
    deficit = c["icons"] - n
    if deficit > 0 and n >= gmin and any(p >= deficit for p in greens):
        return deficit
    return None


def reference_gains(d: dict, t: Turn, gmin: int) -> set[str]:
    if len(t.gained) >= t.gains_allowed:
        return set()
    line = line_of(t.gained[0]) if t.gained else None
    out = set()
    for c in d["chits"]:
        if c["owner"] is not None or (line is not None and line_of(c["id"]) != line):
            continue
        if eligible(d["board"], c, t.greens, gmin) is not None:
            out.add(f"gain {c['id']}")
    return out


def reference_uses(d: dict, t: Turn, seat: int) -> set[str]:
    colours = (RED, YELLOW, GREEN) if not t.gained else (YELLOW, GREEN)
    out = {
        f"use {c['id']}"
        for c in d["chits"]
        if c["owner"] == seat
        and c["power"] > 0
        and not c["spent"]
        and c["id"] not in t.gained
        and colour_of(c["id"]) in colours
    }
    if not t.gained and not d["order_spent"][seat] and d["order_moves"][seat] > 0:
        out.add("use order")
    return out


def reachable_within(d: dict, t: Turn, seat: int, gmin: int, depth: int) -> bool:
    """Some chit can be gained after at most `depth` more swaps, with any green the player could still use."""
    greens = list(t.greens) + [
        c["power"]
        for c in d["chits"]
        if c["owner"] == seat and colour_of(c["id"]) == GREEN and c["power"] > 0 and not c["spent"]
    ]
    best = [max(greens)] if greens else []
    on_board = [c for c in d["chits"] if c["owner"] is None]
    boards = {d["board"]}
    for _ in range(depth):
        boards |= {swapped(b, x, y) for b in boards for x, y in ADJACENT if b[x] != b[y]}
    return any(eligible(b, c, best, gmin) is not None for b in boards for c in on_board)


def swaps_still_buyable(d: dict, t: Turn, seat: int) -> int:
    more = sum(
        c["power"]
        for c in d["chits"]
        if c["owner"] == seat and colour_of(c["id"]) == RED and c["power"] > 0 and not c["spent"]
    )
    if not d["order_spent"][seat]:
        more += d["order_moves"][seat]
    return t.swaps_left + more


def check_state(g, s, d: dict, d0: dict) -> None:
    players = d0["players"]
    assert d["game"] == "kamakura" and d["players"] == players
    assert len(d["board"]) == 16 and sorted(d["board"]) == sorted(COLOURS * 4), d["board"]
    assert [c["id"] for c in d["chits"]] == list(range(40))
    for c, c0 in zip(d["chits"], d0["chits"], strict=True):
        assert (c["icons"], c["points"], c["power"]) == (c0["icons"], c0["points"], c0["power"])
        assert c["owner"] is None or 0 <= c["owner"] < players
    assert d["order_moves"] == d0["order_moves"]
    assert d.get("rules") == d0.get("rules")
    r = g.result(s)
    assert r["scores"] == [owned_points(d, p) for p in range(players)]
    # JSON-safe, and the round trip reproduces the state exactly
    assert json.loads(json.dumps(d)) == d
    s_rt = g.from_dict(d)
    assert g.to_dict(s_rt) == d
    assert g.legal_actions(s_rt) == g.legal_actions(s)
    assert g.result(s_rt) == r


def check_result(d: dict, r: dict, tie_break: str, finished: list) -> None:
    """The winners under `tie_break`; `finished`: the reference's turn number of each seat's last `end` or
    `pass` (R-20)."""
    players = d["players"]
    scores = [owned_points(d, p) for p in range(players)]
    top = max(scores)
    tied = [p for p in range(players) if scores[p] == top]
    assert r["tie"] is (len(tied) > 1)
    if tie_break == "shared":
        assert r["winners"] == tied
    elif tie_break == "first_in_order":
        assert r["winners"] == [tied[0]]
    elif tie_break == "last_to_play":  # whose own last turn came latest
        assert r["winners"] == [max(tied, key=lambda p: finished[p])]
    else:
        assert r["winners"] == [tied[-1]]
    if len(tied) == 1:
        assert r["decided_by_tiebreak"] is False
    elif tie_break != "shared":
        assert r["decided_by_tiebreak"] is True


@settings(deadline=None, max_examples=40, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**31 - 1),
    players=st.integers(2, 4),
    play_seed=st.integers(0, 2**31 - 1),
    shuffle_board=st.booleans(),
    eager=st.booleans(),
    rules=st.one_of(
        st.none(),
        st.fixed_dictionaries(
            {
                "green_min_requirement": st.sampled_from([1, 2]),
                "tie_break": st.sampled_from(TIE_BREAKS),
                "voluntary_pass": st.sampled_from([False, False, False, True]),
            }
        ),
    ),
)
def test_random_play_keeps_the_rules(seed, players, play_seed, shuffle_board, eager, rules):
    """Random play (uniform, or `eager` to gain and activate) keeps every invariant after every action."""
    g = game(players)
    rng = random.Random(play_seed)
    s = g.new_state(seed=seed)
    if shuffle_board or rules:
        d = g.to_dict(s)
        if shuffle_board:  # R-1 "random" layout, set through the state dict
            tiles = list(LATIN)
            rng.shuffle(tiles)
            d["board"] = "".join(tiles)
        if rules:
            d["rules"] = {**d.get("rules", {}), **rules}
        s = g.from_dict(d)
    d0 = g.to_dict(s)
    knobs = {**config_rules(), **(d0.get("rules") or {}), **(rules or {})}
    gmin, voluntary = knobs["green_min_requirement"], knobs["voluntary_pass"]

    t = Turn(d0)
    d = d0
    passed_seen: set[int] = set()
    finished: list = [None] * d0["players"]  # the turn of each seat's latest `end` or `pass`
    turns_done = 0
    for _step in range(MAX_ACTIONS):
        check_state(g, s, d, d0)
        assert d["last_turn"] == finished
        r = g.result(s)
        acts = g.legal_actions(s)
        assert len(acts) == len(set(acts))
        if r["over"]:
            assert acts == []
            on_board = sum(c["owner"] is None for c in d["chits"])
            assert on_board == 0 or all(d["passed"])
            check_result(d, r, knobs["tie_break"], finished)
            return
        assert acts, "a game that is not over must offer an action"
        m = d["to_move"]
        assert not d["passed"][m] and m not in passed_seen, "a passed player is to move"
        assert any(not p for p in d["passed"]) and any(c["owner"] is None for c in d["chits"])
        if m == 0:
            assert "use order" not in acts

        # ---- the exact legal set, up to the R-8 pass decision
        acts_set = set(acts)
        pass_only = acts == ["pass"]
        if pass_only and not t.gained:
            assert not reference_gains(d, t, gmin), "pass offered while a gain is eligible now"
            depth = min(swaps_still_buyable(d, t, m), 2)
            assert not reachable_within(d, t, m, gmin, depth), f"pass offered, {depth} swaps reach a gain"
        else:
            assert not pass_only or (voluntary and not t.gained)
            want = reference_gains(d, t, gmin) | reference_uses(d, t, m)
            if not t.gained and t.swaps_left > 0:
                want |= swap_actions(d["board"])
            if t.gained:
                want.add("end")
            elif voluntary:
                want.add("pass")
            assert acts_set == want, (sorted(acts_set ^ want), d, vars(t))
            if not t.gained:
                # pass not offered: a gain must be reachable; check it where the reference can
                budget = swaps_still_buyable(d, t, m)
                if budget <= 2:
                    assert reachable_within(d, t, m, gmin, budget), "no gain reachable but no pass"

        # ---- play a random legal action and check what it did
        keen = [x for x in acts if x.startswith(("gain", "use"))]
        a = rng.choice(keen if eager and keen and rng.random() < 0.7 else acts)
        prev, s_prev = d, s
        s = g.apply(s, a)
        d = g.to_dict(s)
        assert g.to_dict(s_prev) == prev  # apply returns a new state and leaves its input alone
        kind, _, arg = a.partition(" ")
        before_owners = [c["owner"] for c in prev["chits"]]
        after_owners = [c["owner"] for c in d["chits"]]
        if kind != "pass":
            assert d["passed"] == prev["passed"]
        if kind in ("swap", "use"):
            assert after_owners == before_owners and d["to_move"] == m
        if kind == "swap":
            x, y = map(int, arg.split())
            assert d["board"] == swapped(prev["board"], x, y)
            t.swaps_left -= 1
            t.swaps_done += 1
        elif kind == "use":
            assert d["board"] == prev["board"]
            if arg == "order":
                assert d["order_spent"][m] is True
                t.swaps_left += d["order_moves"][m]
                t.order_used = True
            else:
                cid = int(arg)
                c = d["chits"][cid]
                assert c["spent"] is True and c["owner"] == m
                t.activated.append(cid)
                if colour_of(cid) == RED:
                    t.swaps_left += c["power"]
                elif colour_of(cid) == YELLOW:
                    t.gains_allowed += c["power"]
                elif colour_of(cid) == GREEN:
                    t.greens.append(c["power"])
        elif kind == "gain":
            cid = int(arg)
            assert d["board"] == prev["board"] and d["to_move"] == m
            assert before_owners[cid] is None and after_owners[cid] == m
            assert [o for i, o in enumerate(after_owners) if i != cid] == [
                o for i, o in enumerate(before_owners) if i != cid
            ]
            deficit = eligible(prev["board"], prev["chits"][cid], t.greens, gmin)
            assert deficit is not None
            if deficit:
                t.greens.remove(min(p for p in t.greens if p >= deficit))  # smallest sufficient green
            t.gained.append(cid)
        elif kind in ("end", "pass"):
            finished[m] = turns_done
            turns_done += 1
            start = t.start
            if kind == "end":
                assert t.gained
                assert d["board"] == prev["board"]
                assert [c["spent"] for c in d["chits"]] == [c["spent"] for c in prev["chits"]]
                assert d["order_spent"] == prev["order_spent"]
            else:
                assert not t.gained
                # the void turn restores the board and the powers
                assert d["board"] == start["board"]
                assert [c["spent"] for c in d["chits"]] == [c["spent"] for c in start["chits"]]
                assert d["order_spent"] == start["order_spent"]
                assert after_owners == [c["owner"] for c in start["chits"]]
                assert d["passed"][m] is True
                assert [p for i, p in enumerate(d["passed"]) if i != m] == [
                    p for i, p in enumerate(prev["passed"]) if i != m
                ]
                passed_seen.add(m)
            over = g.result(s)["over"]
            assert over == (all(o is not None for o in after_owners) or all(d["passed"]))
            if not over:
                n = players
                nxt = next(p for p in ((m + k) % n for k in range(1, n + 1)) if not d["passed"][p])
                assert d["to_move"] == nxt
            t = Turn(d)
        else:
            raise AssertionError(f"unknown action {a!r}")
        for p in passed_seen:
            assert d["passed"][p] is True
    raise AssertionError(f"game did not end within {MAX_ACTIONS} actions")


def _bfs_to_gain(board: str, on_board: list[dict], greens: list[int], gmin: int, depth: int):
    """Fewest swaps (<= depth) after which some chit is eligible: (swaps, chit) or None."""
    parent: dict[str, tuple[str, tuple[int, int]] | None] = {board: None}
    layer = [board]
    for level in range(depth + 1):
        for b in layer:
            for c in on_board:
                if eligible(b, c, greens, gmin) is not None:
                    path = []
                    while parent[b] is not None:
                        b, sw = parent[b]
                        path.append(sw)
                    return path[::-1], c
        if level == depth:
            return None
        nxt = []
        for b in layer:
            for x, y in ADJACENT:
                if b[x] != b[y]:
                    nb = swapped(b, x, y)
                    if nb not in parent:
                        parent[nb] = (b, (x, y))
                        nxt.append(nb)
        layer = nxt
    return None


@settings(deadline=None, max_examples=200, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31 - 1))
def test_r8_pass_offered_exactly_when_no_gain_is_reachable(seed):
    """R-8: on a random board with 1-3 chits left (icons 1-3 tiles off the line's count), seat 0 (free swap,
    maybe a red of power 1-2, maybe a green) is offered only `pass` exactly when a breadth-first search finds
    no gain; otherwise the shortest plan the search finds is accepted action by action."""
    rng = random.Random(seed)
    tiles = list(LATIN)
    rng.shuffle(tiles)
    board = "".join(tiles)
    ids = rng.sample(range(40), rng.choice((1, 1, 2, 3)))
    chits = {}
    for cid in ids:
        n = count(board, colour_of(cid), line_of(cid))
        k = rng.choice((0, 1, 1, 2, 2, 3, 3))
        chits[cid] = chit(max(1, n + k if n + k <= 4 else n - k), 1, 0)
    red_power = rng.choice((0, 1, 2))
    green_power = rng.choice((0, 0, 1, 2))
    gmin = rng.choice((1, 2))
    owners = off_board(ids, 1)
    red_id = next(cid for cid in range(0, 10) if cid not in ids)
    green_id = next(cid for cid in range(20, 30) if cid not in ids)
    if red_power:
        owners[red_id] = 0
        chits[red_id] = chit(1, 1, red_power)
    if green_power:
        owners[green_id] = 0
        chits[green_id] = chit(1, 1, green_power)
    d = make_state(board=board, chits=chits, owners=owners, players=2, rules={"green_min_requirement": gmin})
    g, s = load(d)
    on_board = [c for c in d["chits"] if c["owner"] is None]
    found = _bfs_to_gain(board, on_board, [green_power] if green_power else [], gmin, 1 + red_power)
    acts = g.legal_actions(s)
    event("nothing reachable" if found is None else f"gain after {len(found[0])} swaps")
    if found is None:
        assert acts == ["pass"], (board, chits, red_power, green_power, gmin)
        return
    assert "pass" not in acts, (board, chits, red_power, green_power, gmin, found)
    path, c = found
    plan = ([f"use {red_id}"] if len(path) > 1 else []) + [f"swap {x} {y}" for x, y in path]
    b = board
    for x, y in path:
        b = swapped(b, x, y)
    if eligible(b, c, [], gmin) is None:
        plan.append(f"use {green_id}")
    plan += [f"gain {c['id']}", "end"]
    for a in plan:
        assert a in g.legal_actions(s), (a, plan, g.to_dict(s))
        s = g.apply(s, a)
    assert g.to_dict(s)["chits"][c["id"]]["owner"] == 0
