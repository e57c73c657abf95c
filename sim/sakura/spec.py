"""Sakura's entry in the game registry (sim/games.py; the type: sim/game_spec.py): its parameters,
agents, forward model and state, as references that load nothing until asked for."""

from sim.game_spec import AgentKind, GameSpec, ValuesStudy, Vocabulary
from sim.sakura.params import DEFAULT_CONFIG, MAX_PLAYERS, MIN_PLAYERS, TIE_BREAKS

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
                      lowest={"iters": 1, "c": 0.0}, smallest_chunk=10),
    # each card in hand played against `samples` guesses of the hidden cards (the greedy's look-ahead of
    # the round), the position reached scored by a learned evaluation of every player's tokens to come
    # (sim/sakura/expert.py) as a chance of winning, a spread of `temp` tokens times the root of the
    # trees left (0: the plain lead); up to `most` guesses where the choice is close (a race: 16 more
    # for each card not yet `z` standard errors behind the best); model: a file of `balance train`
    "expert": AgentKind(3, {"samples": (int, 48), "temp": (float, 2.0), "most": (int, 192),
                            "z": (float, 2.5), "model": (str, "")},
                        lowest={"samples": 1, "temp": 0.0, "most": 0, "z": 0.0}, smallest_chunk=100,
                        features=EXPERT_FEATURES),
}

SPEC = GameSpec(
    name="sakura",
    min_players=MIN_PLAYERS,
    max_players=MAX_PLAYERS,
    default_config=DEFAULT_CONFIG,
    vocabulary=Vocabulary(title="Sakura", length="rounds", score="tokens", batch_scores="tokens",
                          components="cards", study_means=(("bumps", "bumps per game"),), tie_rule="R-14"),
    tie_breaks=TIE_BREAKS,
    agents=AGENTS,
    rules_ref="sim.sakura.params:rules_from_mapping",
    batch_ref="sim.sakura.batch:run_batch",
    tables_ref="sim.sakura.tables:run_tables",
    game_ref="sim.sakura.game:SakuraGame",
    policies_ref="sim.sakura.policies:POLICIES",
    terminal_ref="sim.sakura.terminal:VIEW",
    report_ref="analysis.sakura.report:sakura_sections",
    report_tally_ref="analysis.sakura.report:sakura_tally",
    tally_values_ref="analysis.sakura.card_values:component_values_from",
    bench_ref="sim.sakura.bench:BENCH",
    run_label_ref="sim.sakura.spec:run_label",
    bench_players=4,
    training_ref="sim.sakura.training:positions",
    values=ValuesStudy(run_ref="sim.sakura.values:run_values", table_ref="sim.sakura.values:values_table",
                       components_ref="sim.sakura.values:components", positions=(0,), games=300,
                       groups=("garden", "painter"), kinds=("garden", "painter"),
                       shares_ref="analysis.sakura.ties:win_shares",
                       player_columns=(("position", "painter_at"),), score_unit="tokens"),
    readings=(("tie_break", None), ("bump_from", None), ("lineup_from_gate", None),
              ("court_can_win", (2,))),  # the court painter plays with two players only
    reconstructed=(("board", "board geometry (R-10)"), ("cards", "deck (R-11)")),
)


def run_label(rules: dict, players: int) -> str:
    """Extra words of a run's label: two-player games name the tactical variant."""
    return "tactical" if players == 2 and rules.get("two_player_variant") == "tactical" else ""
