"""Kamakura's entry in the analysis layer: the names `analysis.game_analysis.analysis_of` reads into its
`GameAnalysis` (its report sections, chunk tally, chit values, tie re-scoring and lead changes)."""

from analysis.kamakura.chit_values import component_values_from as component_values
from analysis.kamakura.game_flow import lead_changes_of_batch as lead_changes
from analysis.kamakura.game_flow import run_lead_changes
from analysis.kamakura.report import kamakura_sections as sections
from analysis.kamakura.report import kamakura_tally as tally
from analysis.kamakura.ties import win_shares

__all__ = ["component_values", "lead_changes", "run_lead_changes", "sections", "tally", "win_shares"]
