"""Sakura's entry in the game registry (sim/games.py; the type: sim/game_spec.py): its parameters,
agents, forward model and state, as references that load nothing until asked for."""

from sim.game_spec import GameSpec, ValuesStudy, Vocabulary
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


# ---- the game's code, imported on first use: importing the spec loads no kernels --------------------
def _rules():
    from sim.sakura.params import rules_from_mapping

    return rules_from_mapping


def _batch():
    from sim.sakura.batch import run_batch

    return run_batch


def _tables():
    from sim.sakura.tables import run_tables

    return run_tables


def _game():
    from sim.sakura.game import SakuraGame

    return SakuraGame


def _policies():
    from sim.sakura.policies import POLICIES

    return POLICIES


def _terminal():
    from sim.sakura.terminal import VIEW

    return VIEW


def _report():
    from analysis.sakura.report import sakura_sections

    return sakura_sections


def _report_tally():
    from analysis.sakura.report import sakura_tally

    return sakura_tally


def _tally_values():
    from analysis.sakura.card_values import component_values_from

    return component_values_from


def _bench():
    from sim.sakura.bench import BENCH

    return BENCH


def _training():
    from sim.sakura.training import positions

    return positions


def _values_run():
    from sim.sakura.interventions import run_values

    return run_values


def _values_table():
    from sim.sakura.interventions import values_table

    return values_table


def _values_components():
    from sim.sakura.interventions import components

    return components


def _values_shares():
    from analysis.sakura.ties import win_shares

    return win_shares


def run_label(rules: dict, players: int) -> str:
    """Extra words of a run's label: two-player games name the tactical variant."""
    return "tactical" if players == 2 and rules.get("two_player_variant") == "tactical" else ""


SPEC = GameSpec(
    name="sakura",
    min_players=MIN_PLAYERS,
    max_players=MAX_PLAYERS,
    default_config=DEFAULT_CONFIG,
    vocabulary=Vocabulary(title="Sakura", length="rounds", score="tokens", batch_scores="tokens",
                          components="cards", study_means=(("bumps", "bumps per game"),), tie_rule="R-14"),
    tie_breaks=TIE_BREAKS,
    agents=AGENTS,
    rules_ref=_rules,
    batch_ref=_batch,
    tables_ref=_tables,
    game_ref=_game,
    policies_ref=_policies,
    terminal_ref=_terminal,
    report_ref=_report,
    report_tally_ref=_report_tally,
    tally_values_ref=_tally_values,
    bench_ref=_bench,
    run_label_words=run_label,
    bench_players=4,
    training_ref=_training,
    values=ValuesStudy(run_ref=_values_run, table_ref=_values_table,
                       components_ref=_values_components, positions=(0,), games=300,
                       groups=("garden", "painter"), kinds=("garden", "painter"),
                       shares_ref=_values_shares,
                       player_columns=(("position", "painter_at"),), score_unit="tokens"),
    readings=(("tie_break", None), ("bump_from", None), ("lineup_from_gate", None),
              ("court_can_win", (2,))),  # the court painter plays with two players only
    reconstructed=(("board", "board geometry (R-10)"), ("cards", "deck (R-11)")),
    choices=(("rules.tie_break", TIE_BREAKS), ("rules.two_player_variant", VARIANTS),
             ("rules.bump_from", BUMP_FROM), ("cards[*].garden", GARDEN_ACTIONS),
             ("cards[*].painter", PAINTER_ACTIONS)),
    limit_end=("round_limit", "the 2,000-round limit (kernels.MAX_ROUNDS)"),
    player_variants=((2, "rules.two_player_variant", VARIANTS),),  # docs/rules.md "Two players"
)
