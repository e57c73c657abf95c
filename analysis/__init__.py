"""The analysis side: pure functions from a run directory's tables to DataFrames, figures and report pages.

Game-independent modules live here (`runs`, `stats`, `seats`, `ties`, `compare`, `charts`, `page` (the
report's page kit), `report`, `summary`, `ladder`, `sweep_report`, `tune_report`, `browser`); what is
specific to one game lives in its package `analysis/<game>/` (its statistics, its tie re-scoring, its
report sections), which the game registry (`sim.games`) names in the game's `GameSpec`.
"""
