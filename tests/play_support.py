"""Shared helpers for the play/simulate/replay/score tests: games, CLI runs, clean errors."""

from __future__ import annotations

import functools
import json
import shutil
from pathlib import Path

import pytest

import hansa
from hansa.cli import main

GAME = "bigbox-hanseatic-45p"
NO_C_COMPILER = shutil.which("cc") is None and shutil.which("gcc") is None
NO_C_COMPILER_REASON = "no C compiler: the native backend cannot be built here"
# the native backend's tests: skipped where no C compiler can build its rule modules
needs_c_compiler = pytest.mark.skipif(NO_C_COMPILER, reason=NO_C_COMPILER_REASON)


def load_game(name: str, players: int | None = None):
    """The committed generated module of a game (`hansa.load_game`)."""
    return hansa.load_game(name, players)


@functools.cache
def game_cases() -> list[tuple[str, int]]:
    """(game, players) for every built game and each of its player counts, for `parametrize`:
    read from the committed modules (imported, nothing compiled) once per process."""
    return [
        (name, players)
        for name in sorted(hansa.available_games())
        for players in hansa.load_game(name).info.player_counts
    ]


def run_cli(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def assert_clean_error(code: int, out: str, err: str, *fragments: str) -> None:
    """Exit 1, one error message on stderr containing every fragment, no traceback."""
    assert code == 1, (out, err)
    assert "Traceback" not in err and "Traceback" not in out
    assert "error" in err
    for fragment in fragments:
        assert fragment in err, (fragment, err)


def write_json(path: Path, data) -> Path:
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


def without_cost(report: str | dict) -> str:
    """A JSON report (`hansa simulate --json`, `hansa diff --simulate --format json` or a
    `to_json()` dict) without its `cost` object, the one part that changes from run to run
    (CPU and wall seconds): what must be byte-identical across --jobs and executors."""
    data = json.loads(report) if isinstance(report, str) else json.loads(json.dumps(report))
    data.pop("cost", None)
    if isinstance(data.get("simulation"), dict):
        data["simulation"].pop("cost", None)
    return json.dumps(data, indent=1, ensure_ascii=False)
