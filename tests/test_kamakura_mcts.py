"""The Kamakura `mcts` agent over micro-actions (`tree=actions`, sim/kamakura/mcts.py): it finds forced best
claims in constructed positions, plays only legal actions (readable API and batch loop), is deterministic
per seed and seating, keeps its tree correctly between the decisions of a turn, and is named on the command
line as docs/reference/agents.md says. The default whole-turn tree (`tree=turns`) has
tests/test_kamakura_turn_mcts.py.

Positions are built with tests/kamakura_helpers.make_state on the R-1 LATIN board, where every line holds
one tile of each colour, so a chit with 1 icon is eligible everywhere and one with 4 icons (the helper's
default chit) is never within reach of a turn's free swap.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from sim import ConfigError, games
from sim.core.agent_spec import AgentSpec, agent_arrays, agent_row, parse_agents
from sim.core.rng import game_seeds, new_rng, rng_seeded
from sim.kamakura import kernels as K
from sim.kamakura.agent_kinds import AGENTS, REWARDS, ROLLOUTS
from sim.kamakura.agents import AGENT_CODES, AGENT_MCTS, MAX_PLAN, agent_plan
from sim.kamakura.batch import EVENT_GAIN, EVENT_USE_CHIT, EVENT_USE_ORDER, run_batch
from sim.kamakura.game import action_to_string, kernel_rules
from sim.kamakura.mcts import mcts_action, tree_capacity
from sim.kamakura.policies import POLICIES
from sim.kamakura.search import search
from sim.kamakura.turn_mcts import PLAN_WIDTH, turn_mcts_plan, turn_tree_capacity
from sim.kamakura.uct import (
    M_NODES,
    M_VALID,
    N_PARAMS,
    P_C,
    P_HORIZON,
    P_ITERS,
    P_PRIOR,
    P_REWARD,
    P_ROLLOUT,
    P_TREE,
    P_WIDTH,
    TREE_ACTIONS,
    TREE_TURNS,
    Tree,
    new_tree,
)
from tests.kamakura_helpers import ADJACENT, CONFIG, LATIN, chit, count, game, load, make_state, swapped
from tests.test_runner import assert_same_tables, simulate

SEEDS = range(6)  # search seeds of the forced-claim tests (each docstring says how many more were tried)
# The micro-action tree with the settings that were its defaults before whole turns became the agent's.
ACTIONS = {"tree": TREE_ACTIONS, "rollout": ROLLOUTS.index("random"), "horizon": 2}
ACTIONS_SPEC = "tree=actions,rollout=random,horizon=2"


def actions_tree(spec: str) -> str:
    """An agent string searching micro-actions; its own rollout/horizon settings win."""
    given = {item.split("=")[0] for item in spec.partition(":")[2].split(",") if item}
    extra = [item for item in ACTIONS_SPEC.split(",") if item.split("=")[0] not in given]
    return spec + "," + ",".join(extra) if spec.startswith("mcts") else spec


def play_own_turn(d: dict, seed: int, **params) -> tuple[dict, list[str]]:
    """Let MCTS (fresh search at every decision, as MctsPolicy) play the whole turn of the seat to move:
    search, apply, search again while the same seat's turn lasts. Returns the state dict after the turn
    and the actions played; every action must be legal."""
    g, s = load(d)
    seat, turn = d["to_move"], g.to_dict(s)["turn"]
    rng = new_rng(seed, 1)
    actions: list[str] = []
    while not g.is_over(s) and g.to_dict(s)["to_move"] == seat and g.to_dict(s)["turn"] == turn:
        action = action_to_string(search(s.vector, rng, **params))
        assert action in g.legal_actions(s), (action, actions)
        actions.append(action)
        s = g.apply(s, action)
        assert len(actions) < 20, actions
    return g.to_dict(s), actions


def gained_by(d: dict, seat: int, before: dict) -> set[int]:
    return {c["id"] for c in d["chits"] if c["owner"] == seat and before["chits"][c["id"]]["owner"] is None}


# --------------------------------------------------------------------------------------------------------
# 1. Forced best claims


def yellow_double_claim() -> dict:
    """Row 0 (line 0) offers three eligible chits: red 0 (1 point), green 20 and blue 30 (9 points each);
    every other line offers only its red chit (1 point). Seat 0 owns an unspent yellow (chit 19, power 1).
    Best turn: activate the yellow (before or after the first gain, R-5) and gain 20 and 30 from the one
    line (R-6 yellow: same line, each eligible on its own) = 18 points; without the yellow at most 9, and
    a wrong second chit (red 0) gives 10."""
    chits = {cid: chit(1, 1, 0) for cid in range(10)}  # every red: 1 icon, 1 point
    chits[20] = chit(1, 9, 0)
    chits[30] = chit(1, 9, 0)
    chits[19] = chit(1, 1, 1)
    return make_state(chits=chits, owners={19: 0})


def one_swap_claim() -> dict:
    """Blue 30 (row 0) needs 2 blue tiles in row 0 and is worth 10; every red (1 icon, 1 point) is
    eligible as the board stands. Row 0 of LATIN is R Y G B: only `swap 1 5` (Y<->B, vertical) brings a
    second blue into it. Best turn: that free swap first (R-7: moves before gains), then gain 30."""
    chits = {cid: chit(1, 1, 0) for cid in range(10)}
    chits[30] = chit(2, 10, 0)
    return make_state(chits=chits)


def test_constructed_positions_are_what_the_docstrings_say():
    d = yellow_double_claim()
    g, s = load(d)
    assert {"gain 0", "gain 20", "gain 30", "use 19"} <= set(g.legal_actions(s))
    assert {c["id"] for c in d["chits"] if c["owner"] is None and c["icons"] == 1} == {*range(10), 20, 30}
    d = one_swap_claim()
    g, s = load(d)
    assert "gain 30" not in g.legal_actions(s) and count(LATIN, "B", 0) == 1
    assert [(a, b) for a, b in ADJACENT if count(swapped(LATIN, a, b), "B", 0) == 2] == [(1, 5)]
    assert "gain 30" in g.legal_actions(g.apply(s, "swap 1 5"))


@pytest.mark.parametrize("params", [{"iters": 2000, "prior": 0.0, **ACTIONS}, ACTIONS],
                         ids=["search-only", "defaults"])
def test_mcts_finds_the_yellow_double_claim(params):
    """R-5 / R-6 yellow: MCTS, playing the turn decision by decision, ends it owning green 20 and blue 30
    (18 points), not red 0. prior=0 switches off the greedy agent's bias, so the search alone must find it;
    "defaults" is the micro-action tree's former defaults (prior 2). Checked with 100 search seeds each;
    the test runs SEEDS."""
    before = yellow_double_claim()
    for seed in SEEDS:
        d, actions = play_own_turn(before, seed, **params)
        assert gained_by(d, 0, before) == {20, 30}, (seed, actions)
        assert actions[-1] == "end" and "use 19" in actions
        assert d["chits"][19]["spent"] and d["to_move"] == 1


@pytest.mark.parametrize("params", [{"iters": 3000, "c": 0.5, "prior": 0.0, **ACTIONS}, ACTIONS],
                         ids=["search-only", "defaults"])
def test_mcts_finds_the_claim_behind_one_swap(params):
    """R-7 (swaps before gains) with the turn's free swap: MCTS plays `swap 1 5`, then gains blue 30
    (10 points) instead of any 1-point red eligible without a swap. The search-only variant (prior=0)
    explores more (c=0.5, 3000 iterations): with c=0.1 and prior=0 the search misses this two-step plan
    in about half of the seeds even at 2000 iterations, and with c=0.5 at 2000 in 1 of 60. Checked with
    140 search seeds (search-only) and 60 (defaults)."""
    before = one_swap_claim()
    for seed in SEEDS:
        d, actions = play_own_turn(before, seed, **params)
        assert gained_by(d, 0, before) == {30}, (seed, actions)
        assert actions == ["swap 1 5", "gain 30", "end"], (seed, actions)
        assert d["board"] == swapped(LATIN, 1, 5)


# --------------------------------------------------------------------------------------------------------
# 2. Legality: readable API and batch loop


def policy(name: str, rng: np.ndarray):
    if name == "mcts":
        return POLICIES["mcts"](rng, iters=30, **ACTIONS)
    if name == "mcts-turns":
        return POLICIES["mcts"](rng, iters=30)
    return POLICIES[name](rng)


@pytest.mark.parametrize("seats", [("mcts", "mcts"), ("mcts", "greedy", "random"),
                                   ("random", "mcts", "greedy", "mcts-turns")])
def test_mcts_plays_legal_complete_games_through_the_readable_api(seats):
    g = game(len(seats))
    for seed in range(2):
        s = g.new_state(seed=seed)
        agents = [policy(name, new_rng(seed, 10 + i)) for i, name in enumerate(seats)]
        steps = 0
        while not g.is_over(s):
            seat = g.to_dict(s)["to_move"]
            action = agents[seat].choose(g, s)
            assert action in g.legal_actions(s), (seats[seat], action)
            s = g.apply(s, action)
            steps += 1
            assert steps < 2000
        result = g.result(s)
        d = g.to_dict(s)
        assert result["over"] and result["winners"]
        assert result["scores"] == [sum(c["points"] for c in d["chits"] if c["owner"] == seat)
                                    for seat in range(len(seats))]


def check_batch_records(rules, seeds, out) -> None:
    """Basic invariants of run_batch records: the score is the sum of the gained chits' points, each chit
    is gained once, powers are used only by their owner after the turn they were gained (R-5), order chits
    once and never by seat 0 (R-4), winners hold the top score, a passed player never acts again (R-8)."""
    players = rules.players
    for g in range(len(seeds)):
        events = out["events"][g, :out["n_events"][g]].tolist()
        gained: dict[int, tuple[int, int]] = {}
        points = np.zeros(players, dtype=int)
        order_used: set[int] = set()
        for turn, seat, kind, chit_id in events:
            assert 0 <= seat < players and turn < out["turns"][g]
            if kind == EVENT_GAIN:
                assert chit_id not in gained
                gained[chit_id] = (seat, turn)
                points[seat] += out["chits"][g, chit_id, 1]
            elif kind == EVENT_USE_CHIT:
                owner, when = gained[chit_id]
                assert owner == seat and when < turn and chit_id < 30 and out["chits"][g, chit_id, 2] > 0
            else:
                assert kind == EVENT_USE_ORDER and seat != 0 and seat not in order_used
                order_used.add(seat)
        assert points.tolist() == out["scores"][g].tolist()
        winners = out["winners"][g]
        assert winners.sum() >= 1 and out["scores"][g][winners == 1].min() == out["scores"][g].max()
        for seat in range(players):
            out_turn = out["out_turn"][g, seat]
            assert out_turn == -1 or all(t < out_turn for t, s, *_ in events if s == seat)
        if len(gained) < 40:
            assert (out["out_turn"][g] >= 0).all() and out["end_reason"][g] == K.END_ALL_PASSED
        else:
            assert out["end_reason"][g] == K.END_ALL_GAINED


SEATINGS = {players: [[actions_tree(spec) for spec in row] for row in rows] for players, rows in {
    2: [["mcts:iters=30", "greedy"], ["random", "mcts:iters=30,rollout=quick"]],
    3: [["mcts:iters=30", "greedy", "random"], ["greedy", "mcts:iters=30,reward=win", "mcts:iters=30"]],
    4: [["random", "mcts:iters=30", "greedy", "mcts:iters=30,prior=0,horizon=0"]],
}.items()}


def batch(players: int, seeds, seating_rows):
    rules = games.load("kamakura", config=str(CONFIG), players=players).rules
    rows = [seating_rows[i % len(seating_rows)] for i in range(len(seeds))]
    kinds, params = agent_arrays(rows, games.spec("kamakura"))
    return rules, kinds, params, run_batch(rules, seeds, kinds, params)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_run_batch_with_mcts_seats_keeps_the_invariants(players):
    seeds = game_seeds(11, 0, 4)
    rules, kinds, params, out = batch(players, seeds, SEATINGS[players])
    assert (kinds == AGENT_MCTS).any()
    check_batch_records(rules, seeds, out)


def replay_batch_game(rules, seed, kinds, params, reuse: bool = True) -> np.ndarray:
    """A Python re-statement of one game of batch.play_batch (same generator streams, one tree per seat,
    the history of actions for tree reuse; micro-action and whole-turn searchers alike), asserting that
    every action is legal; reuse=False searches afresh at every decision. Returns the final state."""
    players = rules.players
    searchers = [p for p in range(players) if kinds[p] == AGENT_MCTS]
    capacity = max([turn_tree_capacity(int(params[p, P_ITERS]), int(params[p, P_WIDTH]))
                    if params[p, P_TREE] == TREE_TURNS else tree_capacity(int(params[p, P_ITERS]))
                    for p in searchers] + [1])
    trees = [new_tree(capacity, PLAN_WIDTH) for _ in range(players)]
    history = np.empty(4096, dtype=np.int64)
    n_history = 0
    s = K.new_game(kernel_rules(rules), np.uint64(seed))
    rng = rng_seeded(np.uint64(seed), np.uint64(1))
    plan = np.empty(MAX_PLAN, dtype=np.int64)
    buf = np.empty(K.N_ACTIONS, dtype=np.int64)
    while not s[K.OVER]:
        seat = s[K.TO_MOVE]
        row = params[seat]
        if kinds[seat] == AGENT_MCTS and not reuse:
            trees[seat].meta[M_VALID] = 0
        if kinds[seat] == AGENT_MCTS and row[P_TREE] == TREE_TURNS:
            n = turn_mcts_plan(s, rng, row, trees[seat], history, n_history, plan)
            actions = plan[:n].tolist()
        elif kinds[seat] == AGENT_MCTS:
            actions = [mcts_action(s, rng, row, trees[seat], history, n_history)]
        else:
            n = agent_plan(kinds[seat], s, rng, plan, buf)
            actions = plan[:n].tolist()
        for action in actions:
            n = K.legal_actions(s, buf)
            assert action in buf[:n].tolist(), (seat, action_to_string(int(action)))
            K.apply_action(s, action)
            history[n_history] = action
            n_history += 1
    return s


@pytest.mark.parametrize("players", [2, 3])
def test_batch_path_with_tree_reuse_and_fresh_searches_are_legal(players):
    """The batch loop keeps each seat's tree between decisions (reuse). Replaying its games in Python with
    a legality check at every action reproduces run_batch exactly (so every batch action was legal); the
    same loop with a fresh tree at every decision is legal too."""
    seeds = game_seeds(5, 0, 3)
    rules, kinds, params, out = batch(players, seeds, SEATINGS[players])
    score = np.zeros(K.MAX_PLAYERS, dtype=np.int64)
    for g, seed in enumerate(seeds):
        s = replay_batch_game(rules, seed, kinds[g], params[g], reuse=True)
        K.scores(s, score)
        assert score[:players].tolist() == out["scores"][g].tolist()
        assert s[K.TURN] == out["turns"][g]
        events = out["events"][g, :out["n_events"][g]]
        owners = {int(c): int(seat) for _, seat, kind, c in events.tolist() if kind == EVENT_GAIN}
        assert owners == {c: int(s[K.OWNER + c]) for c in range(40) if s[K.OWNER + c] >= 0}
        fresh = replay_batch_game(rules, seed, kinds[g], params[g], reuse=False)
        assert fresh[K.OVER] == 1


# --------------------------------------------------------------------------------------------------------
# 3. Determinism


def same_records(a: dict, b: dict, rows_a=slice(None), rows_b=slice(None)) -> None:
    for key in ("scores", "winners", "tie", "decided_by_tiebreak", "turns", "end_reason", "out_turn",
                "n_events", "chits"):
        assert np.array_equal(a[key][rows_a], b[key][rows_b]), key
    for ga, gb in zip(range(len(a["turns"]))[rows_a], range(len(b["turns"]))[rows_b], strict=True):
        n = a["n_events"][ga]
        assert np.array_equal(a["events"][ga, :n], b["events"][gb, :n])


def test_run_batch_with_mcts_is_deterministic_and_independent_of_batching():
    """Game i depends on its seed and seating only: the same batch twice gives identical records, and the
    games split into other batches (or run one by one) give the same records."""
    seeds = game_seeds(3, 0, 6)
    rules, kinds, params, first = batch(3, seeds, SEATINGS[3])
    _, _, _, again = batch(3, seeds, SEATINGS[3])
    same_records(first, again)
    for cut in (1, 4):
        head = run_batch(rules, seeds[:cut], kinds[:cut], params[:cut])
        tail = run_batch(rules, seeds[cut:], kinds[cut:], params[cut:])
        same_records(first, head, slice(0, cut))
        same_records(first, tail, slice(cut, None))
    single = run_batch(rules, seeds[5:], kinds[5:], params[5:])
    same_records(first, single, slice(5, None))


def test_a_game_does_not_depend_on_the_budgets_of_other_games_in_its_batch():
    """batch.py: 'a game's record depends on its seed and seating alone, not on which batch it ran in'.
    This seating fills its tree (NODES_PER_ITER * iters nodes) now and then under reuse (in games of seeds
    1, 5 and 6 here): a tree sized for another game's larger budget would play a different game, so each
    search keeps to its own budget's capacity."""
    rules = games.load("kamakura", config=str(CONFIG), players=2).rules
    spec = ["mcts:iters=100,c=0,prior=3,horizon=6,rollout=random,reward=score,tree=actions", "random"]
    seeds = [1, 5, 6]
    kinds, params = agent_arrays([spec] * 3, games.spec("kamakura"))
    alone = run_batch(rules, seeds, kinds, params)
    rows = [spec] * 3 + [[actions_tree("mcts:iters=400"), "random"]]
    kinds, params = agent_arrays(rows, games.spec("kamakura"))
    together = run_batch(rules, seeds + [8], kinds, params)
    same_records(alone, together, slice(0, 3), slice(0, 3))


def test_simulate_with_mcts_gives_the_same_tables_for_any_jobs(tmp_path: Path):
    common = (str(CONFIG), "--players", "3", "--games", "8", "--agents", "mcts:iters=20,greedy,random",
              "--rotate-seats", "--seed", "3")
    for jobs in ("1", "2"):
        run = simulate(*common, "--jobs", jobs, "--out", str(tmp_path / jobs))
        assert run.returncode == 0, run.stderr
    assert_same_tables(tmp_path / "1", tmp_path / "2")
    for name in ("games.parquet", "players.parquet"):
        assert (tmp_path / "1" / name).exists()


# --------------------------------------------------------------------------------------------------------
# 4. Tree reuse


SEARCH = {P_C: 0.1, P_ROLLOUT: 0, P_REWARD: 1, P_HORIZON: 2, P_PRIOR: 2.0, P_TREE: TREE_ACTIONS}


def run_search(s, seed, iters, tree, history, n_history):
    row = np.zeros(N_PARAMS)
    for index, value in SEARCH.items():
        row[index] = value
    row[P_ITERS] = iters
    return int(mcts_action(s.copy(), new_rng(seed, 1), row, tree, history, n_history))


def subtree(tree, node: int) -> tuple:
    """(action, visits, value sums, children...) of the subtree under `node`, children in block order."""
    first, count, action, visits, value = tree.first, tree.count, tree.edge, tree.visits, tree.value
    kids = tuple(subtree(tree, first[node] + k) for k in range(count[node])) if first[node] >= 0 else ()
    return int(action[node]), int(visits[node]), tuple(np.round(value[node], 12)), kids


def check_layout(tree, compacted: bool = True) -> None:
    """Every node's children are one contiguous block inside [1, meta[0]) and the blocks together hold
    every node but the root exactly once; after a compaction the blocks follow breadth-first order
    (before it, the order in which nodes were expanded)."""
    first, count, meta = tree.first, tree.count, tree.meta
    n = meta[M_NODES]
    covered = np.zeros(n, dtype=int)
    expected_block = 1
    for node in range(n):
        if first[node] >= 0:
            assert node < first[node] and first[node] + count[node] <= n, (node, first[node], count[node])
            if compacted:
                assert first[node] == expected_block, "children blocks in breadth-first order"
            expected_block += count[node]
            covered[first[node]:first[node] + count[node]] += 1
        else:
            assert count[node] == 0
    assert expected_block == n
    assert covered[0] == 0 and (covered[1:] == 1).all()


def copy_tree(tree):
    return Tree(*(a.copy() for a in tree))


def test_tree_reuse_keeps_the_subtree_of_the_position_reached():
    g = game(3)
    s0 = g.new_state(seed=4).vector.copy()
    capacity = tree_capacity(200)
    tree = new_tree(capacity)
    history = np.zeros(64, dtype=np.int64)
    run_search(s0, 1, 200, tree, history, 0)
    first, count, action, visits, meta = tree.first, tree.count, tree.edge, tree.visits, tree.meta
    assert meta[M_NODES] > 1 + count[0], "iterations expanded nodes below the root"
    check_layout(tree, compacted=False)
    # Walk into the most visited root child whose position is still the same turn with several choices.
    buf = np.empty(K.N_ACTIONS, dtype=np.int64)
    children = sorted(range(first[0], first[0] + count[0]), key=lambda c: -visits[c])
    for child in children:
        s1 = s0.copy()
        K.apply_action(s1, action[child])
        if s1[K.TURN] == s0[K.TURN] and count[child] > 1 and K.legal_actions(s1, buf) > 1:
            break
    else:
        pytest.fail("no root child to walk into")
    old = subtree(tree, child)
    old_size = sum(1 for _ in iter_nodes(old))
    assert old_size > 1 + count[child], "the kept subtree reaches below the child's children"
    history[0] = action[child]

    kept = copy_tree(tree)
    run_search(s1, 2, 0, kept, history, 1)  # no iterations: the walk and the compaction alone
    assert kept.meta[M_NODES] == old_size < meta[M_NODES]
    assert subtree(kept, 0) == old, "the child's subtree is kept whole as the new root"
    check_layout(kept)

    one = copy_tree(tree)
    run_search(s1, 2, 1, one, history, 1)
    assert one.visits[0] == visits[child] + 1
    check_layout(one, compacted=False)  # the one new expansion is appended after the compacted nodes

    more = copy_tree(tree)
    run_search(s1, 2, 150, more, history, 1)
    assert more.visits[0] == visits[child] + 150
    check_layout(more, compacted=False)
    # Searching again at the same position (nothing played since) keeps the whole tree.
    again = copy_tree(more)
    run_search(s1, 3, 1, again, history, 1)
    assert again.visits[0] == more.visits[0] + 1


def iter_nodes(node: tuple):
    yield node
    for kid in node[3]:
        yield from iter_nodes(kid)


def test_a_position_outside_the_tree_starts_a_fresh_one():
    g = game(3)
    s0 = g.new_state(seed=4).vector.copy()
    capacity = tree_capacity(100)
    history = np.zeros(64, dtype=np.int64)
    tree = new_tree(capacity)
    run_search(s0, 1, 100, tree, history, 0)
    # the greedy agent plays the whole turn: the next turn's position is outside the tree
    s1 = s0.copy()
    plan = np.empty(MAX_PLAN, dtype=np.int64)
    buf = np.empty(K.N_ACTIONS, dtype=np.int64)
    n = agent_plan(AGENT_CODES["greedy"], s1.copy(), new_rng(0, 1), plan, buf)
    for i in range(n):
        K.apply_action(s1, plan[i])
        history[i] = plan[i]
    assert s1[K.TURN] == s0[K.TURN] + 1
    fresh = copy_tree(tree)
    run_search(s1, 2, 0, fresh, history, n)
    assert fresh.visits[0] == 0 and fresh.meta[M_NODES] == 1 + fresh.count[0]
    check_layout(fresh, compacted=False)
    # a history that leaves the tree within the same turn resets it too
    unknown = copy_tree(tree)
    history[0] = K.A_PASS  # never a child at a position where a gain is reachable
    run_search(s0, 2, 0, unknown, history, 1)
    assert unknown.visits[0] == 0 and unknown.meta[M_NODES] == 1 + unknown.count[0]


# --------------------------------------------------------------------------------------------------------
# 5. Agent strings


def test_mcts_agent_string_parses():
    specs = parse_agents("mcts:iters=50,c=0.5,rollout=greedy", 3, games.spec("kamakura"))
    assert specs == [AgentSpec("mcts", {"iters": 50, "c": 0.5, "rollout": "greedy"})] * 3
    defaults = {key: default for key, (_, default) in AGENTS["mcts"].params.items()}
    row = agent_row(specs[0], games.spec("kamakura"))
    assert row == [50.0, 0.5, float(ROLLOUTS.index("greedy")), float(defaults["reward"]),
                   float(defaults["horizon"]), float(defaults["prior"]), float(defaults["tree"]),
                   float(defaults["width"])]
    assert row[P_TREE] == TREE_TURNS and row[P_WIDTH] == 8
    kamakura = games.spec("kamakura")
    assert agent_row(parse_agents("mcts:tree=actions", 3, kamakura)[0], kamakura)[P_TREE] == TREE_ACTIONS
    mixed = parse_agents("mcts:iters=20,reward=win,greedy,random", 3, games.spec("kamakura"))
    assert [str(s) for s in mixed] == ["mcts:iters=20,reward=win", "greedy", "random"]
    assert agent_row(mixed[0], games.spec("kamakura"))[P_REWARD] == REWARDS.index("win")
    kinds, params = agent_arrays([[str(s) for s in mixed]], games.spec("kamakura"))
    assert kinds.tolist() == [[AGENT_MCTS, AGENT_CODES["greedy"], AGENT_CODES["random"]]]
    assert params[0, 0, P_ITERS] == 20 and not params[0, 1:].any()


@pytest.mark.parametrize("text, key", [("mcts:iters=0", "iters"), ("mcts:rollout=foo", "rollout"),
                                       ("mcts:nope=1", "nope"), ("greedy:iters=5", "iters"),
                                       ("mcts:iters=abc", "iters"), ("mcts:c=-1", "c"),
                                       ("mcts:horizon=-1", "horizon"), ("mcts:tree=moves", "tree"),
                                       ("mcts:width=0", "width")])
def test_bad_mcts_agent_strings_are_refused_naming_the_key(text, key):
    with pytest.raises(ConfigError, match=key):
        parse_agents(text, 3, games.spec("kamakura"))


def test_sakura_mcts_has_no_kamakura_only_parameters():
    parse_agents("mcts:iters=10,c=0.3,reward=score", 4, games.spec("sakura"))
    with pytest.raises(ConfigError, match="rollout"):
        parse_agents("mcts:rollout=greedy", 4, games.spec("sakura"))


def test_simulate_refuses_a_bad_mcts_parameter_in_one_line(tmp_path: Path):
    run = simulate(str(CONFIG), "--players", "3", "--games", "8", "--agents", "mcts:iters=abc",
                   "--out", str(tmp_path / "out"))
    assert run.returncode == 2
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and "iters" in lines[0] and "abc" in lines[0], run.stderr
    assert "Traceback" not in run.stderr + run.stdout
    assert not (tmp_path / "out" / "games.parquet").exists()

