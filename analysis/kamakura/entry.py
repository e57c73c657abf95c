"""Kamakura's entry in the analysis layer: the names `analysis.game_analysis.analysis_of` reads into its
`GameAnalysis` (its report sections, chunk tally, chit values and tie re-scoring)."""

from analysis.kamakura.chit_values import component_values_from as component_values
from analysis.kamakura.report import kamakura_sections as sections
from analysis.kamakura.report import kamakura_tally as tally
from analysis.kamakura.ties import win_shares

__all__ = ["component_values", "sections", "tally", "win_shares"]
