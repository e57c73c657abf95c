"""Errors the toolkit reports to users."""


class ConfigError(ValueError):
    """A configuration (or other user input) is wrong.

    The message names the file, the dotted key and what is wrong; the CLI prints it alone and exits 2.
    """
