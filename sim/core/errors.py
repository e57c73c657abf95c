"""Errors the toolkit reports to users."""


class ConfigError(ValueError):
    """A configuration (or other user input) is wrong.

    The message names the file, the dotted key and what is wrong; the CLI prints it alone and exits 2.
    """


class RunFailed(RuntimeError):
    """A run stopped part-way by a failure of the machine (a full disk, a folder made read-only): the
    chunks finished before it are safe and the manifest says how many; the CLI prints it alone and exits
    1. Running the same command again plays the rest."""


class Interrupted(KeyboardInterrupt):
    """Ctrl-C stopped a run: its chunks finished before the signal are on disk and recorded, the manifest
    says how many games that is, and the message says where they are; the CLI prints it alone and exits
    130. A KeyboardInterrupt still, so that whatever stops on Ctrl-C stops on it."""
