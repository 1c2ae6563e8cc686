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

# The quick subset for everyday work, `pytest -n auto -m "not slow"` (README): the modules whose
# tests build native games, start servers, browsers or Ray clusters, or play many whole games are
# `slow`. CI runs everything.
SLOW_MODULES = {
    "test_native": "builds and verifies every game natively",
    "test_native_favour": "native builds",
    "test_native_cache": "native builds in fresh processes",
    "test_state_layout": "native builds with widened types",
    "test_bounds": "native builds at every limit",
    "test_backends_property": "native builds of drawn rule sets",
    "test_rules_words_facts": "native builds of words rules",
    "test_places_native": "native builds of the places and per-player state rules",
    "test_applied": "every house rule simulated on both backends",
    "test_diff_simulate": "whole simulated studies",
    "test_diff_golden": "whole simulated studies",
    "test_ladder_native": "builds a game natively",
    "test_mcts": "tree searches",
    "test_rl_serialize": "every game's OpenSpiel simulation with serialization; native builds",
    "test_cluster": "starts Ray",
    "test_cluster_nodes": "starts a Ray cluster",
    "test_serve_browser": "drives a browser",
    "test_serve_table_browser": "drives a browser",
    "test_serve_hidden": "plays whole games through the server",
    "test_serve_doors": "a server under load",
    "test_serve_api": "a server",
    "test_board_features": "plays the boards' features through",
    "test_codegen": "builds every game",
    "test_properties": "many random games",
    "test_cli_qa": "the console script in fresh folders",
    "test_render": "draws every board",
    "test_lsp": "language servers checking a spec folder on every edit",
    "test_lsp_neovim": "drives Neovim and a language server",
    "test_lsp_fuzz": "thousands of random edits checked",
    "test_lsp_cache": "random edit sequences, each checked kept and fresh",
    "test_native_greedy": "the C greedy policy against the Python one: native builds, whole games",
    "test_serve_connection": "drives a browser while the server stops and starts",
    "test_serve_turn_signal": "drives two browsers",
    "test_serve_safety": "servers over TLS and behind a proxy",
    "test_serve_store": "servers killed and started again",
    "test_rl": "each library's own checker on every built game",
    "test_rl_rewards": "each library's own checker with every reward choice",
}


def _builds_native_games(item: pytest.Item) -> bool:
    """A test named for the native target, or run with a `native` parameter, builds native games
    (a C compiler run the first time in each process): slow, whatever module it is in."""
    params = getattr(getattr(item, "callspec", None), "params", {})
    return "native" in item.originalname.split("_") or "native" in map(str, params.values())


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto`: one worker more than the cores. A fifth of the suite's time is waiting on
    other processes (browsers, servers, Ray, the C compiler); the extra worker fills it."""
    return (os.cpu_count() or 1) + 1


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "slow: left out of the quick subset (-m 'not slow')")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if item.path.stem in SLOW_MODULES or _builds_native_games(item):
            item.add_marker(pytest.mark.slow)


@pytest.fixture(autouse=True, scope="session")
def _private_compile_cache(tmp_path_factory):
    """Each process its own compile cache (spec folders' modules come and go per test), except
    the native extensions: the xdist workers of one run share them (`native/` links to one folder
    of the run), so each game is built by a C compiler once per run, not once per worker. The
    native cache is made for that: files replaced atomically, records verified before use."""
    before = os.environ.get("HANSA_CACHE")
    cache = tmp_path_factory.mktemp("hansa-cache")
    if os.environ.get("PYTEST_XDIST_WORKER"):
        shared = tmp_path_factory.getbasetemp().parent / "hansa-native"
        shared.mkdir(mode=0o700, exist_ok=True)
        (cache / "native").symlink_to(shared, target_is_directory=True)
    os.environ["HANSA_CACHE"] = str(cache)
    yield
    if before is None:
        os.environ.pop("HANSA_CACHE", None)
    else:
        os.environ["HANSA_CACHE"] = before


# ---- shared fixtures: games are loaded (or compiled) when a test first asks, never at import
@pytest.fixture
def games():
    """How the play tests load a game by name: the committed generated module."""
    from play_support import load_game

    return load_game


@pytest.fixture(scope="session")
def bigbox():
    """The Big Box game, 4 players (the committed module)."""
    import hansa

    return hansa.load_game("bigbox-hanseatic-45p", players=4)
