"""Kamakura's entry in the game registry (sim/games.py; the type: sim/game_spec.py): its parameters,
agents, forward model and state, as references that load nothing until asked for."""

from sim.game_spec import GameSpec, ValuesStudy, Vocabulary
from sim.kamakura.agent_kinds import AGENTS
from sim.kamakura.params import DEFAULT_CONFIG, MAX_PLAYERS, MIN_PLAYERS, TIE_BREAKS


# ---- the game's code, imported on first use: importing the spec loads no kernels --------------------
def _rules():
    from sim.kamakura.params import rules_from_mapping

    return rules_from_mapping


def _batch():
    from sim.kamakura.batch import run_batch

    return run_batch


def _tables():
    from sim.kamakura.tables import run_tables

    return run_tables


def _game():
    from sim.kamakura.game import KamakuraGame

    return KamakuraGame


def _policies():
    from sim.kamakura.policies import POLICIES

    return POLICIES


def _terminal():
    from sim.kamakura.terminal import VIEW

    return VIEW


def _report():
    from analysis.kamakura.report import kamakura_sections

    return kamakura_sections


def _report_tally():
    from analysis.kamakura.report import kamakura_tally

    return kamakura_tally


def _tally_values():
    from analysis.kamakura.chit_values import component_values_from

    return component_values_from


def _bench():
    from sim.kamakura.bench import BENCH

    return BENCH


def _training():
    from sim.kamakura.training import positions

    return positions


def _values_run():
    from sim.kamakura.interventions import run_values

    return run_values


def _values_table():
    from sim.kamakura.interventions import values_table

    return values_table


def _values_components():
    from sim.kamakura.interventions import components

    return components


def _values_shares():
    from analysis.kamakura.ties import win_shares

    return win_shares


SPEC = GameSpec(
    name="kamakura",
    min_players=MIN_PLAYERS,
    max_players=MAX_PLAYERS,
    default_config=DEFAULT_CONFIG,
    vocabulary=Vocabulary(title="Kamakura", length="turns", score="score", batch_scores="scores",
                          components="chits", tie_rule="R-9, R-20"),
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
    bench_players=3,
    training_ref=_training,
    values=ValuesStudy(run_ref=_values_run, table_ref=_values_table,
                       components_ref=_values_components, positions=(0, 9, 18), games=900,
                       groups=("colour", "points", "power"), shares_ref=_values_shares,
                       player_columns=(("last_turn", "last_turn"),), max_position=200),
    readings=(("tie_break", None),),  # R-9's sentence read two ways: last_in_order and R-20's last_to_play
    reconstructed=(("rules.layout", "layout (R-1)"), ("chits", "chit set (R-3)"),
                   ("rules.order_chit_moves", "order-chit moves (R-4)")),
    choices=(("rules.tie_break", TIE_BREAKS),),
    described_players=(3, 4),  # the tips speak of 3 and 4 players; 2 is simulated (docs/rules.md)
)
