"""Kamakura's entry in the game registry (sim/games.py; the type: sim/core/game_spec.py): its parameters,
agents and vocabulary; its code is referenced by the engine's conventional module names (`engine_spec`)
and loads nothing until asked for."""

from sim.core.game_spec import DesignRule, Vocabulary, engine_spec
from sim.kamakura.agent_kinds import AGENTS
from sim.kamakura.params import DEFAULT_CONFIG, MAX_PLAYERS, MIN_PLAYERS, TIE_BREAKS

#: what configs/tunes/kamakura-3p-chit-points-explore.toml keeps: rarer chits worth at least as much (and red
#: and yellow ones at least as strong) as commoner ones of their colour, and the rules' "about 100 points to
#: be gained" (R-3), as the draft's own total within 5 points
DESIGN_RULES = (
    DesignRule("rising", "points rise with icons within {each}", "nondecreasing", "chits.*[*].points",
               by="chits.*[*].icons", each="colour"),
    DesignRule("total", "the chits' total {low}-{high}", "sum", "chits.*[*].points", within=5),
    DesignRule("red-power", "red powers rise with icons", "nondecreasing", "chits.red[*].power",
               by="chits.red[*].icons"),
    DesignRule("yellow-power", "yellow powers rise with icons", "nondecreasing", "chits.yellow[*].power",
               by="chits.yellow[*].icons"),
)

SPEC = engine_spec(
    "sim.kamakura",
    game_class="KamakuraGame",
    name="kamakura",
    min_players=MIN_PLAYERS,
    max_players=MAX_PLAYERS,
    default_config=DEFAULT_CONFIG,
    vocabulary=Vocabulary(title="Kamakura", length="turns", score="score", batch_scores="scores",
                          components="chits", tie_rule="R-9, R-20"),
    tie_breaks=TIE_BREAKS,
    agents=AGENTS,
    bench_players=3,
    values={"positions": (0, 9, 18), "games": 900, "groups": ("colour", "points", "power"),
            "player_columns": (("last_turn", "last_turn"),), "max_position": 200},
    readings=(("tie_break", None),),  # R-9's sentence read two ways: last_in_order and R-20's last_to_play
    reconstructed=(("rules.layout", "layout (R-1)"), ("chits", "chit set (R-3)"),
                   ("rules.order_chit_moves", "order-chit moves (R-4)")),
    choices=(("rules.tie_break", TIE_BREAKS),),
    described_players=(3, 4),  # the tips speak of 3 and 4 players; 2 is simulated (docs/rules.md)
    design_rules=DESIGN_RULES,
)
