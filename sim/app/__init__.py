"""The application: the `balance` command line, the parallel runner and its run directories, `study`,
`bench` and `play`. It drives the engines only through the game registry (sim/games.py)."""
