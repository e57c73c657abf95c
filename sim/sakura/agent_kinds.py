"""The agents Sakura offers (its registry entry's `agents`, sim/sakura/spec.py): kernel codes, parameter
schemas and the option tuples whose index is the kernels' code. Kernels and policies import these from
here, beneath the spec, which refers to them."""

from sim.core.agent_types import AgentKind, AgentRoster

#: MCTS rewards; the index is the kernels' code (mcts.REWARD_* are derived from it).
REWARDS = ("win", "score")
#: the `expert` agent's evaluation features, in its weights' order (sim/sakura/expert.py computes them from
#: one seat's observation: positions, tokens, the trees, and its own hand by action, never card ids)
EXPERT_FEATURES = ("bias", "trees_left", "last_tree", "emperor_to_tree",
                   "award", "award_near", "award_mid", "award_last", "first", "first_near", "first_last",
                   "painters_ahead", "gap", "gap_near", "gap_last", "adjacent", "on_gate",
                   "hand_advance", "hand_lead", "hand_lead_near", "hand_lead_last", "hand_bump",
                   "hand_emperor", "hand_emperor_first", "hand_order")

AGENTS = {
    "random": AgentKind(0),
    "greedy": AgentKind(1),
    "mcts": AgentKind(2, {"iters": (int, 2000), "c": (float, 0.7), "reward": (REWARDS, 0)},
                      lowest={"iters": 1, "c": 0.0},
                      # a tree holds a node of about 100 bytes an iteration: 100 MB a seat at 1,000,000
                      highest={"iters": 1_000_000, "c": 100.0}, smallest_chunk=10),
    # each card in hand played against `samples` guesses of the hidden cards (the greedy's look-ahead of
    # the round), the position reached scored by a learned evaluation of every player's tokens to come
    # (sim/sakura/expert.py) as a chance of winning, a spread of `temp` tokens times the root of the
    # trees left (0: the plain lead); up to `most` guesses where the choice is close (a race: 16 more
    # for each card not yet `z` standard errors behind the best); the race's first look after `first`
    # guesses when fewer than `samples` (a card clearly behind stops early; 0: after `samples`);
    # first=0,most=192 plays exactly as the expert before its speed work; model: a file of `balance train`
    "expert": AgentKind(3, {"samples": (int, 48), "temp": (float, 2.0), "most": (int, 96),
                            "z": (float, 2.5), "first": (int, 16), "model": (str, "")},
                        lowest={"samples": 1, "temp": 0.0, "most": 0, "z": 0.0, "first": 0},
                        highest={"samples": 10_000, "temp": 100.0, "most": 10_000, "z": 10.0,
                                 "first": 10_000},
                        smallest_chunk=100,
                        features=EXPERT_FEATURES),
    # the rung above expert (sim/sakura/search.py): each card played in determinizations drawn from the
    # seat's observation, the other seats choosing by the expert's policy (`inner` guesses a card) on the
    # hands dealt to them, then `depth` more rounds of every seat playing that policy, the position scored
    # by the expert's evaluation (spread `temp`); `samples` determinizations a card, up to `most` where the
    # choice is close (a race at `z` standard errors); model: a file of `balance train`, as expert's
    "search": AgentKind(4, {"samples": (int, 8), "most": (int, 32), "z": (float, 2.5), "depth": (int, 0),
                            "inner": (int, 6), "temp": (float, 2.0), "model": (str, "")},
                        lowest={"samples": 1, "most": 0, "z": 0.0, "depth": 0, "inner": 1, "temp": 0.0},
                        highest={"samples": 10_000, "most": 10_000, "z": 10.0, "depth": 10, "inner": 1_000,
                                 "temp": 100.0},
                        smallest_chunk=20,
                        features=EXPERT_FEATURES),
}

#: the agents by the game's name, for the agent parser (sim/core/agent_spec.py) where the spec is not at hand
ROSTER = AgentRoster("sakura", AGENTS)
