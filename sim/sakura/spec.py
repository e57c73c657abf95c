"""Sakura's entry in the game registry (sim/games.py; the type: sim/core/game_spec.py): its parameters,
agents and vocabulary; its code is referenced by the engine's conventional module names (`engine_spec`)
and loads nothing until asked for."""

from sim.core.game_spec import DesignRule, Vocabulary, engine_spec
from sim.sakura.agent_kinds import AGENTS
from sim.sakura.params import (
    BUMP_FROM,
    DEFAULT_CONFIG,
    GARDEN_ACTIONS,
    MAX_PLAYERS,
    MIN_PLAYERS,
    PAINTER_ACTIONS,
    TIE_BREAKS,
    VARIANTS,
)


def run_label(rules: dict, players: int) -> str:
    """Extra words of a run's label: two-player games name the tactical variant."""
    return "tactical" if players == 2 and rules.get("two_player_variant") == "tactical" else ""


#: what configs/tunes/sakura-4p-deck-explore.toml keeps: "usually the Emperor" (R-11), at least 40 of the
#: garden actions moving him, and the deck's E+2 and E-1 cards near the reconstructed deck's counts
DESIGN_RULES = (
    DesignRule("emperor", "the Emperor moved by {low}-{high} garden actions", "count", "cards[*].garden",
               value=("E+1", "E+2", "E-1", "E+-1"), low=40, high=50),
    DesignRule("e-plus-2", "E+2 on {low}-{high} cards", "count", "cards[*].garden", value="E+2", low=6,
               high=14),
    DesignRule("e-minus-1", "E-1 on {low}-{high} cards", "count", "cards[*].garden", value="E-1", low=3,
               high=9),
)


SPEC = engine_spec(
    "sim.sakura",
    game_class="SakuraGame",
    name="sakura",
    min_players=MIN_PLAYERS,
    max_players=MAX_PLAYERS,
    default_config=DEFAULT_CONFIG,
    vocabulary=Vocabulary(title="Sakura", length="rounds", score="tokens", batch_scores="tokens",
                          components="cards", study_means=(("bumps", "bumps per game"),), tie_rule="R-14"),
    tie_breaks=TIE_BREAKS,
    agents=AGENTS,
    run_label_words=run_label,
    bench_players=4,
    values={"positions": (0,), "games": 300, "groups": ("garden", "painter"), "kinds": ("garden", "painter"),
            "player_columns": (("position", "painter_at"),), "score_unit": "tokens"},
    readings=(("tie_break", None), ("bump_from", None), ("lineup_from_gate", None),
              ("court_can_win", (2,))),  # the court painter plays with two players only
    reconstructed=(("board", "board geometry (R-10)"), ("cards", "deck (R-11)")),
    choices=(("rules.tie_break", TIE_BREAKS), ("rules.two_player_variant", VARIANTS),
             ("rules.bump_from", BUMP_FROM), ("cards[*].garden", GARDEN_ACTIONS),
             ("cards[*].painter", PAINTER_ACTIONS)),
    limit_end=("round_limit", "the 2,000-round limit (kernels.MAX_ROUNDS)"),
    player_variants=((2, "rules.two_player_variant", VARIANTS),),  # docs/rules.md "Two players"
    design_rules=DESIGN_RULES,
)
