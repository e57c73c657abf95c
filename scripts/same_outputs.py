"""Behaviour unchanged by a refactoring: play the demo's runs, build their report, and keep every summary.json
and CSV of it (and `balance summary`'s text), the wall-clock estimates ("about 40 s on this machine")
masked, and the temporary folder's name. `--save DIR` keeps them; `--against DIR` compares and shows where
each file that differs first differs (exit 1). Run from the repository root:

    python scripts/same_outputs.py --save /tmp/before      # on the commit before
    python scripts/same_outputs.py --against /tmp/before   # on the commit after
"""

from __future__ import annotations

import argparse
import difflib
import re
import subprocess
import sys
import tempfile
from pathlib import Path

Q = "--seed 1 --quiet"
DEMO = [
    "profile configs/kamakura/base.toml --players 3 --levels greedy,expert --games 2000 --seed 1 "
    "--out {d}/profile --quiet",
    "simulate configs/kamakura/base.toml --players 4 --games 20000 --agents greedy --out {d}/k4 " + Q,
    "simulate configs/sakura/base.toml --players 4 --games 20000 --agents greedy --out {d}/s4 " + Q,
    "values configs/kamakura/base.toml --players 3 --agents greedy --games 150 --out {d}/values " + Q,
    "report {d}/values {d}/profile {d}/k4 {d}/s4 --out {d}/report",
]
SUMMARY = "summary {d}/profile/greedy {d}/profile/expert {d}/k4 {d}/s4"
#: the one wall-clock figure in the outputs: how long the games a verdict still needs would take here
ON_THIS_MACHINE = re.compile(r"about [^()\"]*? on this machine")


def masked(text: str, folder: Path) -> str:
    return ON_THIS_MACHINE.sub("about T on this machine", text).replace(str(folder), "DIR")


def balance(command: str, folder: Path) -> str:
    args = [sys.executable, "-m", "sim", *command.format(d=folder).split()]
    return subprocess.run(args, check=True, capture_output=True, text=True).stdout


def outputs(folder: Path) -> dict[str, str]:
    """name -> masked text of every output compared."""
    for command in DEMO:
        balance(command, folder)
    found = {"summary.txt": masked(balance(SUMMARY, folder), folder)}
    for path in sorted((folder / "report").rglob("*")):
        if path.suffix in (".json", ".csv"):
            found[str(path.relative_to(folder / "report"))] = masked(path.read_text(), folder)
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("--save", type=Path, metavar="DIR")
    which.add_argument("--against", type=Path, metavar="DIR")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        found = outputs(Path(folder))
    if args.save:
        for name, text in found.items():
            (args.save / name).parent.mkdir(parents=True, exist_ok=True)
            (args.save / name).write_text(text)
        print(f"{len(found)} files kept in {args.save}")
        return 0
    before = {str(p.relative_to(args.against)): p.read_text() for p in args.against.rglob("*") if p.is_file()}
    differ = sorted(k for k in before.keys() | found.keys() if before.get(k) != found.get(k))
    for name in differ:
        lines = difflib.unified_diff(before.get(name, "").splitlines(), found.get(name, "").splitlines(),
                                     "before", "after", n=0, lineterm="")
        print(f"differs: {name}\n" + "\n".join(list(lines)[:8]))
    print(f"{len(found)} files, {len(differ)} differ")
    return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(main())
