"""Shared helpers for the play/simulate/replay/score tests: games, CLI runs, clean errors."""

from __future__ import annotations

import json
from pathlib import Path

import hansa
from hansa.cli import main

GAME = "bigbox-hanseatic-45p"


def load_game(name: str, players: int | None = None):
    """The committed generated module of a game (`hansa.load_game`)."""
    return hansa.load_game(name, players)


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
