"""What `bin/run` leaves in a fresh clone is never offered for commit: its SQLite databases run in WAL mode
(storefront/settings.py), so beside each one SQLite keeps a `-wal` and a `-shm` file while it is open."""

from __future__ import annotations

from fnmatch import fnmatch
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def ignored(name: str) -> bool:
    # .gitignore's patterns here are plain names and globs without slashes: fnmatch reads them as git does.
    patterns = [
        line.strip()
        for line in (ROOT / ".gitignore").read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.startswith("#")
    ]
    return any(fnmatch(name, pattern) for pattern in patterns)


def test_the_development_databases_and_their_wal_files_are_ignored():
    for database in ("db.sqlite3", "sandbox.sqlite3"):
        for name in (database, f"{database}-wal", f"{database}-shm"):
            assert ignored(name), f"{name} is not in .gitignore"
