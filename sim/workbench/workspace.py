"""The workbench's folder: the designer's draft configs (`*.toml` at its top), the run directories the page
starts (`runs/`) and the jobs' records (`.workbench/jobs/`).

Every file a request names is a bare name checked here (`Workspace.draft`, `Workspace.run_dir`) or a
starting config picked from a list the server made (`Workspace.start`); anything with a path in it is
refused, never followed, so no request reads or writes outside the workspace.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from sim import games
from sim.core.game_spec import GameSpec

#: a name a request may give a draft or a run: letters, digits, '_', '-', '.', no leading dot
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,99}")


class Refused(ValueError):
    """A request the workbench will not carry out. `field` is the config key the message belongs to (shown
    beside that field), if any; `at` says where within a field of rows, when that is known: the row (the
    form's, from 1) and its inputs at fault, e.g. {"row": 2, "inputs": ["min"]} for the tune form (no
    "inputs": the whole row)."""

    def __init__(self, message: str, field: str | None = None, at: dict | None = None) -> None:
        super().__init__(message)
        self.field = field
        self.at = at


@dataclass(frozen=True)
class Start:
    """A config a draft can start from: `ref` is how the page names it ("shipped:<game>/base.toml" or
    "workspace:my-variant.toml"), `path` where it is."""

    ref: str
    path: Path
    spec: GameSpec
    label: str


def checked_name(text: str, what: str, suffix: str = "") -> str:
    """`text` if it is a bare name (with `suffix`), else Refused: a path is never followed."""
    if not NAME.fullmatch(text or "") or ".." in text or (suffix and not text.endswith(suffix)):
        raise Refused(f"{what}: {text!r} is not a name in the workspace (letters, digits, '_', '-', '.'"
                      f"{', ending ' + suffix if suffix else ''}); paths are refused")
    return text


class Workspace:
    """One workspace folder (created when missing)."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root).resolve()
        self.root.mkdir(parents=True, exist_ok=True)
        self.runs = self.root / "runs"
        self.jobs = self.root / ".workbench" / "jobs"
        self.jobs.mkdir(parents=True, exist_ok=True)
        self.written = self.root / ".workbench" / "drafts.json"

    def draft(self, name: str) -> Path:
        """The workspace file of a draft config named `name` (a bare `*.toml` name); a link or anything
        but a regular file there is refused, never followed."""
        path = self.root / checked_name(name, "config", ".toml")
        if path.is_symlink() or (path.exists() and not path.is_file()):
            raise Refused(f"config: {name} is a link or not a regular file; the workbench only reads and "
                          "writes its own files", "draft")
        return path

    def _hashes(self) -> dict[str, str]:
        """What the workbench last wrote to each draft (name -> sha256 of the text)."""
        try:
            data = json.loads(self.written.read_text())
        except (OSError, ValueError):
            return {}
        return {k: v for k, v in data.items() if isinstance(k, str) and isinstance(v, str)} \
            if isinstance(data, dict) else {}

    def owned(self, path: Path) -> bool:
        """Whether `path` holds exactly what the workbench last wrote there."""
        try:
            text = path.read_bytes()
        except OSError:
            return False
        return self._hashes().get(path.name) == hashlib.sha256(text).hexdigest()

    def check_owned(self, path: Path, action: str) -> None:
        """Refuse to `action` (reset, edit, apply) a file the workbench did not write, or that was changed
        outside it since: the workbench never overwrites a designer's own file."""
        if not self.owned(path):
            raise Refused(f"{action}: {path.name} is not a draft this workbench wrote (or it was changed "
                          "outside it since), so the workbench will not overwrite it: give the draft another "
                          "name (a config of yours can be chosen under 'start from')", "draft")

    def write_draft(self, path: Path, text: str) -> None:
        """Write a draft (whole, through a temporary file) and remember it as the workbench's own."""
        tmp = path.with_name(f".{path.name}.tmp")
        tmp.write_text(text)
        os.replace(tmp, path)
        hashes = {**self._hashes(), path.name: hashlib.sha256(path.read_bytes()).hexdigest()}
        record = self.written.with_suffix(".tmp")
        record.write_text(json.dumps(hashes, indent=1, sort_keys=True))
        os.replace(record, self.written)

    def run_dir(self, name: str) -> Path:
        """The run directory `runs/<name>` (a bare name)."""
        return self.runs / checked_name(name, "run")

    def relative(self, path: Path) -> str:
        """How a command run in the workspace names `path`: relative inside it, absolute outside."""
        path = Path(path).resolve()
        return str(path.relative_to(self.root)) if path.is_relative_to(self.root) else str(path)

    def starts(self) -> list[Start]:
        """Every config a draft can start from: each game's shipped configs, then the workspace's TOML
        files (those whose `game` key names a registered game)."""
        out = []
        for spec in games.specs():
            for path in sorted(spec.default_config.parent.glob("*.toml")):
                out.append(Start(f"shipped:{spec.name}/{path.name}", path, spec,
                                 f"{spec.name}/{path.name} (shipped)"))
        for path in sorted(self.root.glob("*.toml")):
            game = _game_of(path)
            if game:
                label = f"{path.name} (workspace)"
                out.append(Start(f"workspace:{path.name}", path, games.spec(game), label))
        return out

    def start(self, ref: str) -> Start:
        """The starting config the page names `ref`; anything not in `starts()` is refused."""
        for start in self.starts():
            if start.ref == ref:
                return start
        raise Refused(f"start: {ref!r} is not one of the configs the workbench lists (shipped, or a TOML "
                      "file in the workspace); paths are refused")


def _game_of(path: Path) -> str | None:
    """The registered game a TOML file's `game` key names (its own or, through `extends`, none: a draft is
    written whole), or None for anything else."""
    try:
        game = tomllib.loads(path.read_text()).get("game")
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None
    return game if game in games.names() else None

