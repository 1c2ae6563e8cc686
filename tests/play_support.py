"""Shared helpers for the play/simulate/replay/score tests: games, CLI runs, finished games.

`hansa.load_game` is the engine's API (engine issue); where a checkout does not have it yet, the
`games` fixture stands in with the same contract, built from the in-memory test games of
engine_support, so these tests exercise the commands either way.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from engine_support import GAMES, load_test_game
from hansa.compiler.errors import HansaError, did_you_mean

import hansa
from hansa.cli import main

GAME = "bigbox-hanseatic-45p"


def _stand_in_load_game(name: str, players: int | None = None):
    if name not in GAMES:
        raise HansaError(f"unknown game {name!r}" + did_you_mean(name, GAMES))
    return load_test_game(name, players)


def use_load_game(monkeypatch: pytest.MonkeyPatch):
    """`hansa.load_game`, the real one when the checkout has it (for a `games` fixture)."""
    if not hasattr(hansa, "load_game"):
        monkeypatch.setattr(hansa, "load_game", _stand_in_load_game, raising=False)
    return hansa.load_game


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
