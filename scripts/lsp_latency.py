"""How long `hansa lsp` takes from an edit to its diagnostics (docs/editor.md quotes the result).

Starts the server over stdio as an editor does (with no quiet time, so the figure is the check
alone), opens a file in a workspace, then changes one number in it again and again (each time to
a value not used before, so nothing the server keeps between checks answers for it) and measures
from each change to the diagnostics of that version, and the processor time the server used
meanwhile (what the wait would be on a machine with nothing else to do; Linux's /proc).
Two workspaces: a copy of the bundled spec folder (every game there depends on
spec/bigbox_2021.hansa, so an edit to it re-checks all 30), and a folder holding that file
alone with one game; the same for the 4-5 player Hanseatic board.

    .venv/bin/python scripts/lsp_latency.py [--edits 20]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from lsp_support import Client  # noqa: E402


def _published(client: Client, uri: str, after: int, timeout: float = 60) -> None:
    """Wait for diagnostics of `uri` published after the first `after` notifications."""
    deadline = time.monotonic() + timeout
    with client.arrived:
        while not any(
            n["method"] == "textDocument/publishDiagnostics" and n["params"]["uri"] == uri
            for n in client.notifications[after:]
        ):
            if not client.arrived.wait(max(0.0, deadline - time.monotonic())):
                raise TimeoutError(f"no diagnostics for {uri}")


def _cpu_seconds(pid: int) -> float:
    """The processor time a process has used (user and system), from /proc (Linux)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def measure(
    root: Path, file: Path, old: str, new: str, edits: int
) -> tuple[list[float], list[float], list[float]]:
    """(seconds to the edited file's diagnostics, to those of the games file, of the server's
    processor time until then) per edit: the last is what a quiet machine would wait."""
    client = Client(root, debounce=0.0)
    try:
        text = file.read_text(encoding="utf-8")
        uri = client.open(file)
        games = client.open(root / "games.hansa")
        client.diagnostics(uri)
        client.diagnostics(games)
        own, every, cpu = [], [], []
        for n in range(edits):
            changed = text.replace(old, new.format(n + 1), 1)  # a text not seen before
            seen = len(client.notifications)
            used = _cpu_seconds(client.process.pid)
            started = time.perf_counter()
            version = client.change(uri, changed)
            client.diagnostics(uri, lambda p, v=version: p["version"] == v, timeout=60)
            own.append(time.perf_counter() - started)
            _published(client, games, seen)
            every.append(time.perf_counter() - started)
            cpu.append(_cpu_seconds(client.process.pid) - used)
        return own, every, cpu
    finally:
        client.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edits", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        whole = Path(scratch) / "whole" / "spec"
        shutil.copytree(ROOT / "spec", whole)
        alone = Path(scratch) / "alone"
        alone.mkdir()
        shutil.copy(ROOT / "spec" / "bigbox_2021.hansa", alone)
        (alone / "games.hansa").write_text(
            "game g = bigbox_2021 on hanseatic_45p players 4..5\n", encoding="utf-8"
        )
        board_alone = Path(scratch) / "board"
        board_alone.mkdir()
        shutil.copy(ROOT / "spec" / "boards" / "hanseatic_45p.hansa", board_alone)
        (board_alone / "games.hansa").write_text(
            "game g = bigbox_2021 on hanseatic_45p players 4..5\n", encoding="utf-8"
        )
        cases = [
            ("bigbox_2021.hansa, the bundled spec folder", whole, whole / "bigbox_2021.hansa"),
            ("bigbox_2021.hansa, alone with one game", alone, alone / "bigbox_2021.hansa"),
            (
                "hanseatic_45p.hansa, the bundled spec folder",
                whole,
                whole / "boards/hanseatic_45p.hansa",
            ),
            (
                "hanseatic_45p.hansa, alone with one game",
                board_alone,
                board_alone / "hanseatic_45p.hansa",
            ),
        ]
        for title, root, file in cases:
            if file.name.startswith("bigbox"):  # the end: a threshold of 21, 22, …
                old, new = "track_pp >= 20", "track_pp >= {}"
            else:  # a city moved on the board: still a valid board, so every game is built
                old, new = "city Bremen at (0.4817,", "city Bremen at (0.4{:03d},"
            own, every, cpu = measure(root, file, old, new, args.edits)
            print(
                f"{title}: its own diagnostics median {statistics.median(own) * 1000:.0f} ms"
                f" (max {max(own) * 1000:.0f}), every file's median"
                f" {statistics.median(every) * 1000:.0f} ms (max {max(every) * 1000:.0f}),"
                f" the server's processor time median {statistics.median(cpu) * 1000:.0f} ms"
                f" (max {max(cpu) * 1000:.0f}) over {len(own)} edits"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
