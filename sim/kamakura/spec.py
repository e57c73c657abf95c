"""Kamakura's entry in the game registry (sim/games.py; the type: sim/game_spec.py): its parameters,
agents, forward model and state, as references that load nothing until asked for."""

from sim.game_spec import AgentKind, GameSpec, ValuesStudy, Vocabulary
from sim.kamakura.params import DEFAULT_CONFIG, MAX_PLAYERS, MIN_PLAYERS, TIE_BREAKS

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
                      smallest_chunk=10),
    # the planner's `width` best turns, the `deep` best by a learned evaluation played on with greedy turns
    # for `horizon` rounds and scored again (sim/kamakura/expert.py); model: a file of `balance train`
    "expert": AgentKind(3, {"width": (int, 16), "deep": (int, 3), "horizon": (int, 1), "model": (str, "")},
                        lowest={"width": 1, "deep": 1, "horizon": 0}, smallest_chunk=100,
                        features=EXPERT_FEATURES),
}

SPEC = GameSpec(
    name="kamakura",
    min_players=MIN_PLAYERS,
    max_players=MAX_PLAYERS,
    default_config=DEFAULT_CONFIG,
    vocabulary=Vocabulary(title="Kamakura", length="turns", score="score", batch_scores="scores",
                          components="chits", tie_rule="R-9, R-20"),
    tie_breaks=TIE_BREAKS,
    agents=AGENTS,
    rules_ref="sim.kamakura.params:rules_from_mapping",
    batch_ref="sim.kamakura.batch:run_batch",
    tables_ref="sim.kamakura.tables:run_tables",
    game_ref="sim.kamakura.game:KamakuraGame",
    policies_ref="sim.kamakura.policies:POLICIES",
    terminal_ref="sim.kamakura.terminal:VIEW",
    report_ref="analysis.kamakura.report:kamakura_sections",
    report_tally_ref="analysis.kamakura.report:kamakura_tally",
    tally_values_ref="analysis.kamakura.chit_values:component_values_from",
    bench_ref="sim.kamakura.bench:BENCH",
    bench_players=3,
    training_ref="sim.kamakura.training:positions",
    values=ValuesStudy(run_ref="sim.kamakura.values:run_values", table_ref="sim.kamakura.values:values_table",
                       components_ref="sim.kamakura.values:components", positions=(0, 9, 18), games=900,
                       groups=("colour", "points", "power"), shares_ref="analysis.kamakura.ties:win_shares",
                       player_columns=(("last_turn", "last_turn"),), max_position=200),
    readings=(("tie_break", None),),  # R-9's sentence read two ways: last_in_order and R-20's last_to_play
    reconstructed=(("rules.layout", "layout (R-1)"), ("chits", "chit set (R-3)"),
                   ("rules.order_chit_moves", "order-chit moves (R-4)")),
    described_players=(3, 4),  # the tips speak of 3 and 4 players; 2 is simulated (RULES.md, player count)
)
