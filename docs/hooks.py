"""MkDocs hook (mkdocs.yml `hooks`): the page reference/commands.md gets every `balance` subcommand's
help, generated from the parser itself (`sim.commands.build_parser`), so the reference cannot drift from
the code. The marker `<!-- commands -->` is replaced by one section per subcommand."""

from __future__ import annotations

import argparse
import os
import sys

MARKER = "<!-- commands -->"
#: reference/configs.md: the tune file's [target], [racing] and [search] keys with their defaults, read off
#: the dataclasses the tune file is parsed into (sim/design/tune_file.py)
TUNE_MARKER = "<!-- tune-defaults -->"
#: reference/agents.md: every agent parameter's default and range, read off each game's registry entry
AGENTS_MARKER = "<!-- agent-params -->"


def _subcommands() -> list[tuple[str, str, argparse.ArgumentParser]]:
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if root not in sys.path:
        sys.path.insert(0, root)
    from sim.commands import COMMANDS, build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return [(name, COMMANDS[name], sub.choices[name]) for name in COMMANDS]


def commands_markdown() -> str:
    os.environ["COLUMNS"] = "100"  # argparse wraps at the terminal's width: the same page everywhere
    parts = []
    for name, help_line, parser in _subcommands():
        parts.append(f"## `balance {name}`\n\n{help_line}\n\n```text\n{parser.format_help().rstrip()}\n```\n")
    return "\n".join(parts)


def tune_defaults_markdown() -> str:
    from dataclasses import MISSING, fields

    _subcommands()  # puts the repository on the path
    from sim.design.tune_file import Racing, Search, Target

    rows = ["| key | default |", "| --- | --- |"]
    for table, cls in (("target", Target), ("racing", Racing), ("search", Search)):
        for f in fields(cls):
            value = f.default if f.default is not MISSING else None
            shown = "none" if value is None else f"`{list(value) if isinstance(value, tuple) else value}`"
            rows.append(f"| `{table}.{f.name}` | {shown} |")
    return "\n".join(rows)


def agent_params_markdown() -> str:
    """One row per numeric or choice parameter of every game's agents: its default and allowed values."""
    _subcommands()  # puts the repository on the path
    from sim import games

    rows = ["| game | agent | parameter | default | allowed |", "| --- | --- | --- | --- | --- |"]
    for spec in games.specs():
        for name, kind in spec.agents.items():
            for key, (of, default) in kind.params.items():
                if isinstance(of, tuple):
                    shown, allowed = of[int(default)], ", ".join(of)
                elif of is str:
                    shown, allowed = "the shipped model", "a model file of `balance train`"
                else:
                    shown, allowed = of(default), f"{kind.lowest[key]} to {kind.highest[key]}"
                rows.append(f"| {spec.name} | `{name}` | `{key}` | {shown} | {allowed} |")
    return "\n".join(rows)


def on_page_markdown(markdown: str, page, config, files) -> str:
    if MARKER in markdown:
        markdown = markdown.replace(MARKER, commands_markdown())
    if TUNE_MARKER in markdown:
        markdown = markdown.replace(TUNE_MARKER, tune_defaults_markdown())
    if AGENTS_MARKER in markdown:
        markdown = markdown.replace(AGENTS_MARKER, agent_params_markdown())
    return markdown
