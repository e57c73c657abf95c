from sim.app.cli import entry

entry()
