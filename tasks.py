#!/usr/bin/env python3
"""The project's commands, for a fresh machine with only Python 3.11 and pip:

    python3 tasks.py zoo      the main job: the `pgm-models zoo` command on a bundled dataset
    python3 tasks.py test     the whole test suite (notebooks included)
    python3 tasks.py docs     the documentation site, into docs/_build/html (warnings are errors)

Each creates ./.venv on first use and (re)installs the package with its test and docs extras
whenever pyproject.toml changes. Extra arguments are passed on (to pgm-models, pytest or sphinx-build).
"""

import hashlib
import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
STAMP = VENV / ".pgm_models-installed"


def ensure_environment() -> None:
    wanted = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()
    if STAMP.exists() and STAMP.read_text() == wanted:
        return
    if not (BIN / "python").exists():
        print(f"creating {VENV}", flush=True)
        venv.create(VENV, with_pip=True)
    python = str(BIN / "python")
    subprocess.run([python, "-m", "pip", "install", "--quiet", "--upgrade", "pip"], check=True)
    subprocess.run([python, "-m", "pip", "install", "--quiet", "-e", f"{ROOT}[test,docs]"], check=True)
    STAMP.write_text(wanted)


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in ("zoo", "test", "docs"):
        print(__doc__)
        return 2
    ensure_environment()
    if argv[0] == "zoo":
        command = [str(BIN / "pgm-models"), "zoo", *argv[1:]]
    elif argv[0] == "docs":
        html = ROOT / "docs" / "_build" / "html"
        command = [
            str(BIN / "python"),
            "-m",
            "sphinx",
            "-W",
            "--keep-going",
            "-b",
            "html",
            "docs",
            str(html),
            *argv[1:],
        ]
    else:
        command = [str(BIN / "python"), "-m", "pytest", *argv[1:]]
    return subprocess.run(command, cwd=ROOT).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
