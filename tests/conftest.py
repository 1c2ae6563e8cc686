"""Test-session setup. The suite writes nothing into the checkout, so it passes in a read-only one:

- games compiled from a spec folder are cached in a temporary folder, never in the user's
  ~/.cache/hansa (see hansa.resolve);
- Python's bytecode, Hypothesis's example database and the browser tests' screenshots go under
  the system's temporary folder (`SCRATCH`), for this process and every process it starts;
- at the end, the checkout's `git status --porcelain --ignored` is compared with the start: anything
  new fails the run, naming the paths.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from hypothesis import configuration

ROOT = Path(__file__).resolve().parent.parent
SCRATCH = Path(tempfile.gettempdir()) / "hansa-tests"
STARTED = time.time()

sys.pycache_prefix = str(SCRATCH / "pycache")
os.environ["PYTHONPYCACHEPREFIX"] = sys.pycache_prefix
os.environ["HYPOTHESIS_STORAGE_DIRECTORY"] = str(SCRATCH / "hypothesis")
configuration.set_hypothesis_home_dir(SCRATCH / "hypothesis")


def checkout_status() -> set[str] | None:
    """Changed, untracked and ignored paths of the checkout (None outside a git work tree)."""
    git = shutil.which("git")
    if git is None or not (ROOT / ".git").exists():
        return None
    result = subprocess.run(
        [git, "status", "--porcelain", "--ignored", "--untracked-files=all"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    if result.returncode != 0:
        return None
    return set(result.stdout.splitlines())


def is_installation(path: str) -> bool:
    """What installing the project makes (the virtual environment, the egg-info), not the suite.
    A path inside an ignored folder that existed before the run (`.hypothesis/` of an older run,
    say) does not show: `git status` names the folder only."""
    first = path.split("/", 1)[0]
    return first.startswith(".venv") or first == "venv" or first.endswith(".egg-info")


def own_bytecode() -> list[Path]:
    """This file's bytecode, which pytest writes beside it before this file can say where."""
    folder = Path(__file__).parent / "__pycache__"
    return [p for p in folder.glob("conftest.*.pyc") if p.stat().st_mtime >= STARTED - 5]


def pytest_sessionstart(session: pytest.Session) -> None:
    session.config.stash[BEFORE] = checkout_status()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if hasattr(session.config, "workerinput"):
        return  # a worker of pytest-xdist: the controller compares
    for pyc in own_bytecode():
        pyc.unlink(missing_ok=True)
    folder = Path(__file__).parent / "__pycache__"
    if folder.is_dir() and not any(folder.iterdir()):
        folder.rmdir()
    before, after = session.config.stash.get(BEFORE, None), checkout_status()
    if before is None or after is None:
        return
    new = sorted(line for line in after - before if not is_installation(line[3:]))
    if new:
        shown = "\n  ".join(new[:20])
        print(f"\nthe suite wrote into the checkout (it must write nothing there):\n  {shown}")
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


BEFORE = pytest.StashKey[set[str] | None]()


@pytest.fixture(autouse=True, scope="session")
def _private_compile_cache(tmp_path_factory):
    before = os.environ.get("HANSA_CACHE")
    os.environ["HANSA_CACHE"] = str(tmp_path_factory.mktemp("hansa-cache"))
    yield
    if before is None:
        os.environ.pop("HANSA_CACHE", None)
    else:
        os.environ["HANSA_CACHE"] = before
