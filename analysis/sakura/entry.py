"""Sakura's entry in the analysis layer: the names `analysis.game_analysis.analysis_of` reads into its
`GameAnalysis` (its report sections, chunk tally, card values and tie re-scoring)."""

from analysis.sakura.card_values import component_values_from as component_values
from analysis.sakura.report import sakura_sections as sections
from analysis.sakura.report import sakura_tally as tally
from analysis.sakura.ties import win_shares

__all__ = ["component_values", "sections", "tally", "win_shares"]
