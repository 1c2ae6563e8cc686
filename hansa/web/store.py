"""Sessions kept in SQLite (`hansa serve --store FILE`), so games survive a restart of the server.

A session is stored as what makes it: its game's name and player count, the first position (as
state JSON), the seed, the seats, the opened file's name and the tokens of its links; then one
row per decision, written (and committed) as the decision is made; and its players' names and
chat messages (`hansa.web.talk`), each written as it is made. Loading a session replays its
decisions from the first position, so a server killed at any moment (even `kill -9`) comes back
with every decision but the one being made. The database is the server's own: it holds hidden
information (the seed, the first position) and the tokens, and is never sent anywhere.

Only the server's user may read it: the file (and SQLite's -wal and -shm files beside it) is
made 0600 and a folder made for it 0700, whatever the umask; an existing file with wider modes is
tightened on opening. An existing folder that others may enter is tightened when it is the
store's own (the default folder, `own_folder`), and refused otherwise (`StoreRefused`): hansa
never changes the modes of a folder you named, which may be shared for other things.

SQLite's write-ahead log makes each commit survive the process; `synchronous=NORMAL` trades the
last commits of a power cut for speed, which a table game can afford.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import stat
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

MAX_STORED = 1000  # sessions kept in the file; the least recently changed beyond this are dropped

SCHEMA = """
CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY,
    game TEXT NOT NULL,
    players INTEGER NOT NULL,
    mode TEXT NOT NULL,
    seed INTEGER,
    seats TEXT NOT NULL,
    initial TEXT NOT NULL,
    source TEXT,
    tokens TEXT NOT NULL,
    changed REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS moves (
    session TEXT NOT NULL,
    n INTEGER NOT NULL,
    player INTEGER NOT NULL,
    action INTEGER NOT NULL,
    PRIMARY KEY (session, n)
);
CREATE TABLE IF NOT EXISTS names (
    session TEXT NOT NULL,
    seat INTEGER NOT NULL,
    name TEXT NOT NULL,
    PRIMARY KEY (session, seat)
);
CREATE TABLE IF NOT EXISTS chat (
    session TEXT NOT NULL,
    n INTEGER NOT NULL,
    role TEXT NOT NULL,
    seat INTEGER,
    text TEXT NOT NULL,
    PRIMARY KEY (session, n)
);
"""


@dataclass
class Stored:
    """One stored session, as read back."""

    id: str
    game: str
    players: int
    mode: str
    seed: int | None
    seats: list[str]
    initial: str
    source: str | None
    tokens: dict[str, dict]
    moves: list[tuple[int, int]]
    names: dict[int, str]
    chat: list[dict]


class StoreRefused(Exception):
    """The store's folder may be entered by other users and is not the store's own."""


SIDE_FILES = ("-wal", "-shm", "-journal")  # SQLite's files beside the database


def private_place(path: Path, own_folder: bool) -> None:
    """Make `path`'s folder 0700 and `path` (with SQLite's side files) 0600, or refuse."""
    folder = path.parent
    if not folder.is_dir():
        folder.parent.mkdir(parents=True, exist_ok=True)
        folder.mkdir(mode=0o700)
    mode = stat.S_IMODE(folder.stat().st_mode)
    if mode & 0o077:
        if not own_folder:
            raise StoreRefused(
                f"its folder {folder} may be entered by other users (mode {mode:04o}), and the "
                "store holds every game's links; make it private (chmod 700) or choose a "
                "private folder"
            )
        folder.chmod(0o700)
    os.close(os.open(path, os.O_RDWR | os.O_CREAT, 0o600))  # created 0600 whatever the umask
    for name in (path, *(path.with_name(path.name + side) for side in SIDE_FILES)):
        if name.exists() and stat.S_IMODE(name.stat().st_mode) != 0o600:
            name.chmod(0o600)


class Store:
    """The sessions' file. One connection, used under a lock by every thread."""

    def __init__(self, path: str | Path, own_folder: bool = False) -> None:
        self.path = Path(path)
        private_place(self.path, own_folder)
        self.lock = threading.Lock()
        self.problem: str | None = None  # the first write that failed
        self.db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.executescript(SCHEMA)

    def _write(self, work: Callable[[], None]) -> None:
        """Run `work` in one transaction. A failing disk (full, removed) is reported once on
        stderr and the game goes on in memory: a request never fails for it."""
        with self.lock:
            try:
                self.db.execute("BEGIN")
                work()
                self.db.execute("COMMIT")
            except sqlite3.Error as exc:
                with contextlib.suppress(sqlite3.Error):
                    self.db.execute("ROLLBACK")
                if self.problem is None:
                    self.problem = str(exc)
                    print(f"hansa serve: cannot write to {self.path}: {exc}", file=sys.stderr)

    def add_session(self, session) -> None:
        tokens = {t: {"role": v.role, "seat": v.seat} for t, v in session.tokens.items()}
        row = (
            session.id,
            session.game.name,
            session.game.num_players(),
            session.mode,
            session.seed,
            json.dumps(session.seats),
            session.initial.to_json(),
            session.source_name,
            json.dumps(tokens),
            time.time(),
        )
        moves = [(session.id, n, p, a) for n, (p, a) in enumerate(session.moves)]

        def work() -> None:
            self.db.execute("DELETE FROM moves WHERE session = ?", (session.id,))
            self.db.execute("INSERT OR REPLACE INTO sessions VALUES (?,?,?,?,?,?,?,?,?,?)", row)
            self.db.executemany("INSERT INTO moves VALUES (?,?,?,?)", moves)
            self._prune()

        self._write(work)

    def add_move(self, sid: str, n: int, player: int, action: int) -> None:
        def work() -> None:
            move = (sid, n, player, action)
            self.db.execute("INSERT OR REPLACE INTO moves VALUES (?,?,?,?)", move)
            self.db.execute("UPDATE sessions SET changed = ? WHERE id = ?", (time.time(), sid))

        self._write(work)

    def add_name(self, sid: str, seat: int, name: str) -> None:
        def work() -> None:
            self.db.execute("INSERT OR REPLACE INTO names VALUES (?,?,?)", (sid, seat, name))

        self._write(work)

    def add_message(self, sid: str, message: dict, keep: int) -> None:
        """A chat message of `sid`; only its last `keep` messages stay."""

        def work() -> None:
            row = (sid, message["n"], message["role"], message["seat"], message["text"])
            self.db.execute("INSERT OR REPLACE INTO chat VALUES (?,?,?,?,?)", row)
            self.db.execute(
                "DELETE FROM chat WHERE session = ? AND n <= ?", (sid, message["n"] - keep)
            )

        self._write(work)

    def truncate(self, sid: str, length: int) -> None:
        """Forget the decisions of `sid` from number `length` on (one was taken back)."""

        def work() -> None:
            self.db.execute("DELETE FROM moves WHERE session = ? AND n >= ?", (sid, length))
            self.db.execute("UPDATE sessions SET changed = ? WHERE id = ?", (time.time(), sid))

        self._write(work)

    def load(self, sid: str) -> Stored | None:
        """The stored session `sid`, or None (also for a row that cannot be read)."""
        with self.lock:
            try:
                row = self.db.execute(
                    "SELECT id, game, players, mode, seed, seats, initial, source, tokens "
                    "FROM sessions WHERE id = ?",
                    (sid,),
                ).fetchone()
                if row is None:
                    return None
                moves = self.db.execute(
                    "SELECT n, player, action FROM moves WHERE session = ? ORDER BY n", (sid,)
                ).fetchall()
                kept = []
                for n, player, action in moves:  # a gap (never written) ends the record
                    if n != len(kept):
                        break
                    kept.append((player, action))
                names = self.db.execute(
                    "SELECT seat, name FROM names WHERE session = ?", (sid,)
                ).fetchall()
                chat = self.db.execute(
                    "SELECT n, role, seat, text FROM chat WHERE session = ? ORDER BY n", (sid,)
                ).fetchall()
                sid, game, players, mode, seed, seats, initial, source, tokens = row
                return Stored(
                    sid,
                    game,
                    players,
                    mode,
                    seed,
                    json.loads(seats),
                    initial,
                    source,
                    json.loads(tokens),
                    kept,
                    {seat: name for seat, name in names},
                    [{"n": n, "role": r, "seat": st, "text": t} for n, r, st, t in chat],
                )
            except (sqlite3.Error, ValueError, TypeError):
                return None

    def _prune(self) -> None:
        old = self.db.execute(
            "SELECT id FROM sessions ORDER BY changed DESC LIMIT -1 OFFSET ?", (MAX_STORED,)
        ).fetchall()
        for (sid,) in old:
            self.db.execute("DELETE FROM moves WHERE session = ?", (sid,))
            self.db.execute("DELETE FROM names WHERE session = ?", (sid,))
            self.db.execute("DELETE FROM chat WHERE session = ?", (sid,))
            self.db.execute("DELETE FROM sessions WHERE id = ?", (sid,))

    def close(self) -> None:
        with self.lock:
            self.db.close()


def default_store() -> Path:
    """Where `hansa serve` keeps its games unless told: $HANSA_STORE, else the user's state
    folder ($XDG_STATE_HOME or ~/.local/state)/hansa/serve.sqlite."""

    if os.environ.get("HANSA_STORE"):
        return Path(os.environ["HANSA_STORE"])
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(
        os.path.expanduser("~"), ".local", "state"
    )
    return Path(base) / "hansa" / "serve.sqlite"
