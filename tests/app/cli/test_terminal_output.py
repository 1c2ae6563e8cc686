"""What `hansa` prints cannot drive the terminal: names from specs cannot hold control characters
(tests/compiler/test_language_limits.py), and whatever else reaches standard output (a path, a name
from a state, a log or a module built elsewhere) has its controls, format characters and line
separators written as `\\u001b` escapes, which stay valid inside JSON output."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import pytest
from hansa.runtime.errors import terminal_safe

import hansa
from hansa.cli import _TerminalSafe, main

ROOT = Path(__file__).resolve().parents[3]
HOSTILE = "\x1b[2J\x1b]0;title\x07\x9b31m\u202e\u2028\U000e0041"
RAW = ("\x1b", "\x07", "\x9b", "\u202e", "\u2028", "\U000e0041")


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def assert_safe(text: str) -> None:
    assert not any(ch in text for ch in RAW), repr(text)


def test_terminal_safe_escapes_what_a_terminal_acts_on_and_keeps_json_valid():
    line = json.dumps({"name": HOSTILE, "city": "Łódź\tx"}, ensure_ascii=False)
    safe = terminal_safe(line)
    assert_safe(safe)
    assert json.loads(safe) == {"name": HOSTILE, "city": "Łódź\tx"}
    assert terminal_safe("plain text\nwith a tab\t") == "plain text\nwith a tab\t"


def test_paths_with_controls_are_escaped_in_replay_output(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    log = f"game{HOSTILE}.jsonl"
    assert run(capsys, "play", "bigbox-hanseatic-3p", "--max-decisions", "30", "--log", log)[0] == 0
    code, out, err = run(capsys, "replay", log)
    assert code == 0, err
    assert_safe(out + err)
    assert "\\u001b[2J" in out
    code, out, _err = run(capsys, "replay", log, "--json")
    assert code == 0
    assert_safe(out)
    assert json.loads(out)["log"] == log


def test_check_json_output_stays_valid_json_with_a_hostile_path(tmp_path, capsys):
    path = tmp_path / f"x{HOSTILE}.hansa"
    shutil.copy(ROOT / "spec" / "house" / "short_game.hansa", path)
    code, out, err = run(capsys, "check", "--json", str(path))
    assert code == 0, err
    assert_safe(out + err)
    assert json.loads(out)["files"] == [str(path)]


@pytest.mark.parametrize("command", ["score", "play"])
def test_names_of_a_module_built_elsewhere_are_escaped(command, tmp_path, capsys, monkeypatch):
    """A generated module is trusted code, but its names are data: a score label holding an
    escape (from a compiler without the name checks) is printed escaped."""
    game = hansa.load_game("bigbox-hanseatic-3p")
    module = game.module
    monkeypatch.setattr(module, "SCORE_KINDS", (HOSTILE,) + tuple(module.SCORE_KINDS[1:]))
    monkeypatch.chdir(tmp_path)  # no ./spec here: the commands load the built-in module
    state = game.new_initial_state(seed=1)
    (tmp_path / "s.json").write_text(state.to_json(), encoding="utf-8")
    argv = (
        ("score", str(tmp_path / "s.json"), "--game", "bigbox-hanseatic-3p")
        if command == "score"
        else ("play", "bigbox-hanseatic-3p", "--max-decisions", "20")
    )
    code, out, err = run(capsys, *argv)
    assert code == 0, err
    assert_safe(out + err)
    assert "\\u001b[2J" in out


def test_colours_hansa_writes_pass_and_no_other_sequence_does(capsys):
    """`diff --color` writes colour sequences itself; a sequence that conceals text (SGR 8),
    clears the screen or sets the window title is escaped whatever writes it."""
    stream = io.StringIO()
    _TerminalSafe(stream).write("\x1b[1;32m+ ok\x1b[0m \x1b[8mhidden\x1b[2J\x1b]0;t\x07")
    assert stream.getvalue() == (
        "\x1b[1;32m+ ok\x1b[0m \\u001b[8mhidden\\u001b[2J\\u001b]0;t\\u0007"
    )
    code, out, _err = run(capsys, "diff", "original_2009", "bigbox_2021", "--color", "always")
    assert code == 1 and "\x1b[32m" in out
