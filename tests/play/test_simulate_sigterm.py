"""`hansa simulate --jobs 2` stopped with SIGTERM (what `kill`, systemd and CI runners send) ends
its workers too; before, the parent died at once and its workers played on, orphaned."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from clock_support import HANG_GUARD
from clock_support import deadline as hang_deadline

REPO = Path(__file__).resolve().parents[2]


def _children(pid: int) -> set[int]:
    """Processes whose parent is `pid` (from /proc)."""
    found = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[1]) == pid:
            found.add(int(entry.name))
    return found


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def test_sigterm_to_the_parent_leaves_no_worker_running(tmp_path: Path) -> None:
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "hansa",
            "simulate",
            "bigbox-hanseatic-45p",
            "-n",
            "100000",
            "--jobs",
            "2",
            "--agents",
            "random",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=tmp_path,  # no spec/ here: the built-in game
        start_new_session=True,
    )
    try:
        workers: set[int] = set()
        deadline = hang_deadline()
        while len(workers) < 2 and time.monotonic() < deadline:
            time.sleep(0.2)
            workers = _children(process.pid)
        assert len(workers) >= 2, "the workers never started"
        time.sleep(0.5)
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=HANG_GUARD)
        assert process.returncode == 143, err
        assert b"Traceback" not in err
        deadline = hang_deadline()
        while any(_alive(pid) for pid in workers) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not [pid for pid in workers if _alive(pid)]
    finally:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        process.wait()
