"""The application: the parallel runner and its run directories, `study`, `bench`, `play`, `compare`,
`train`, values runs and the until-decided loop. It drives the engines only through the game registry
(sim/games.py); the `balance` command line and the design studies sit above it, and it imports neither."""
