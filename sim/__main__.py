from sim.commands import entry

entry()
