"""Errors the toolkit reports to users."""


class ConfigError(ValueError):
    """A configuration (or other user input) is wrong.

    The message names the file, the dotted key and what is wrong; the CLI prints it alone and exits 2.
    """


class RunFailed(RuntimeError):
    """A run stopped part-way by a failure of the machine (a full disk, a folder made read-only): the
    chunks finished before it are safe and the manifest says how many; the CLI prints it alone and exits
    1. Running the same command again plays the rest."""
