"""The foundation every other layer stands on: what a game and an agent are (`game_spec`, `agent_spec`,
`agent_types`), configuration files (`config`), the seeded generator (`rng`), state layouts, the readable
API over any game's kernels (`game_face`), log tables, errors and numba's cache. It imports nothing of
the project above it."""
