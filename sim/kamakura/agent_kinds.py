"""The agents Kamakura offers (its registry entry's `agents`, sim/kamakura/spec.py): kernel codes,
parameter schemas and the option tuples whose index is the kernels' code. Kernels and policies import
these from here, beneath the spec, which refers to them."""

from sim.core.agent_types import AgentKind, AgentRoster

#: MCTS rollout policies, rewards and trees; the index is the kernels' code (uct.ROLLOUT_*, REWARD_*,
#: TREE_* are derived from these).
ROLLOUTS = ("random", "greedy", "uniform", "quick")
REWARDS = ("win", "score")
TREES = ("turns", "actions")
#: the `expert` agent's evaluation features, in its weights' order (sim/kamakura/expert.py computes them)
EXPERT_RANKED = ("next", "reach_points", "claim_points", "near_points", "mid_points")
EXPERT_FEATURES = ("bias", "points_left", "points_left_per_player", "chits_left", "chits_left_per_player",
                   "red_power", "yellow_power", "green_power", "order_moves") + tuple(
    f"{name}_{rank}" for rank in range(4) for name in EXPERT_RANKED)

AGENTS = {
    "random": AgentKind(0),
    "greedy": AgentKind(1),
    "mcts": AgentKind(2, {"iters": (int, 1000), "c": (float, 0.1), "rollout": (ROLLOUTS, 1),
                          "reward": (REWARDS, 1), "horizon": (int, 1), "prior": (float, 2.0),
                          "tree": (TREES, 0), "width": (int, 8)},
                      lowest={"iters": 1, "c": 0.0, "horizon": 0, "prior": 0.0, "width": 1},
                      # a micro-action tree holds 48 nodes of 80 bytes an iteration (384 MB a seat at
                      # 100,000), a turn tree `width` nodes of 144 (460 MB at 100,000 and width 32); no
                      # game lasts 100 rounds (horizon 0: to the end)
                      highest={"iters": 100_000, "c": 100.0, "horizon": 100, "prior": 100.0, "width": 32},
                      smallest_chunk=10),
    # the planner's `width` best turns, the `deep` best by a learned evaluation played on with greedy turns
    # for `horizon` rounds and scored again (sim/kamakura/expert.py), unless the best leads the second by
    # more than `settle` predicted points (0: always look deep); model: a file of `balance train`
    "expert": AgentKind(3, {"width": (int, 16), "deep": (int, 3), "horizon": (int, 1), "settle": (float, 0.5),
                            "model": (str, "")},
                        lowest={"width": 1, "deep": 1, "horizon": 0, "settle": 0.0},
                        # no lead between two turns comes near 1,000 points
                        highest={"width": 256, "deep": 256, "horizon": 100, "settle": 1000.0},
                        smallest_chunk=100,
                        features=EXPERT_FEATURES),
    # PUCT over whole turns (sim/kamakura/puct.py): `width` planner turns a node, priors a softmax of the
    # expert's quick leads over `temp` predicted points, leaves valued by the expert's evaluation (a softmax
    # of predicted finals over `spread` points), `iters` expansions a turn; model: as the expert's
    "search": AgentKind(4, {"iters": (int, 32), "c": (float, 0.5), "width": (int, 16), "temp": (float, 2.0),
                            "spread": (float, 2.0), "model": (str, "")},
                        lowest={"iters": 1, "c": 0.0, "width": 1, "temp": 0.01, "spread": 0.01},
                        # a node is about 150 bytes and a search holds width * (iters + 1) of them (96 MB
                        # at the ceilings); no lead comes near 1,000 points
                        highest={"iters": 20_000, "c": 100.0, "width": 32, "temp": 1000.0, "spread": 1000.0},
                        smallest_chunk=10,
                        features=EXPERT_FEATURES),
}

#: the agents by the game's name, for the agent parser (sim/core/agent_spec.py) where the spec is not at hand
ROSTER = AgentRoster("kamakura", AGENTS)
