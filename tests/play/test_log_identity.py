"""Game logs replay by a stable identity (`key`), survive `hansa fmt`, check their header and
decision numbers, and stay one record per line whatever the city names hold."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from hansa.play.logs import action_keys, json_line, read_log

from hansa.cli import main
from hansa.resolve import load_game

ROOT = Path(__file__).resolve().parents[2]


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _reorder_routes(path: Path) -> None:
    """Write the board's routes in reverse order, each with its cities swapped."""
    lines = path.read_text(encoding="utf-8").split("\n")
    where = [i for i, line in enumerate(lines) if line.strip().startswith("route ")]
    routes = [re.sub(r"route (\S+) -- (\S+):", r"route \2 -- \1:", lines[i]) for i in where]
    for i, line in zip(where, reversed(routes), strict=True):
        lines[i] = line
    path.write_text("\n".join(lines), encoding="utf-8")


def test_a_log_written_before_fmt_replays_after_it(tmp_path: Path, monkeypatch, capsys) -> None:
    spec = tmp_path / "spec"
    shutil.copytree(ROOT / "spec", spec)
    _reorder_routes(spec / "boards" / "hanseatic_3p.hansa")
    monkeypatch.chdir(tmp_path)
    code, _, err = run(capsys, "play", "bigbox-hanseatic-3p", "--seed", "3", "--log", "g.jsonl")
    assert code == 0, err
    before = load_game("bigbox-hanseatic-3p", 3, "spec")
    code, _, err = run(capsys, "fmt", "spec")
    assert code == 0, err
    after = load_game("bigbox-hanseatic-3p", 3, "spec")
    decisions = read_log("g.jsonl").decisions
    renumbered = [
        d for d in decisions if after.action_to_string(d.data["action"]) != d.data["name"]
    ]
    assert renumbered, "fmt did not renumber any action of the game: the test proves nothing"
    assert action_keys(before) != action_keys(after)
    assert sorted(action_keys(before)) == sorted(action_keys(after))
    code, out, err = run(capsys, "replay", "g.jsonl")
    assert code == 0, err
    assert "ok, " in out
    assert "another version" in err and "matched by their text" in err
    header = json.loads(Path("g.jsonl").read_text().split("\n")[0])
    assert header["module_hash"].startswith("spec-sha256=")


def _write(path: Path, lines: list[dict]) -> Path:
    path.write_text("".join(json_line(line) + "\n" for line in lines), encoding="utf-8")
    return path


@pytest.fixture
def log(tmp_path: Path, monkeypatch, capsys) -> list[dict]:
    monkeypatch.chdir(tmp_path)
    assert main(["play", "bigbox-hanseatic-3p", "--log", "g.jsonl"]) == 0
    capsys.readouterr()
    return [json.loads(line) for line in Path("g.jsonl").read_text().splitlines()]


@pytest.mark.parametrize(
    "change, fragment",
    [
        (lambda lines: lines[0].update(rules="original_2009"), "with rules 'original_2009'"),
        (lambda lines: lines[0].update(board="hanseatic_45p"), "with board 'hanseatic_45p'"),
        (lambda lines: lines[0].update(agents=["greedy"]), "names 1 agents for 3 players"),
        (lambda lines: lines[0].update(agents="greedy"), "must list agent names"),
        (lambda lines: lines[5].update(n=7), "n=7, expected 5"),
        (lambda lines: lines.pop(3), "n=4, expected 3"),
        (lambda lines: lines[2].update(n=True), "field 'n' must be a whole number"),
        (lambda lines: lines[2].update(key="fly to the moon"), "no action 'fly to the moon'"),
    ],
)
def test_replay_checks_the_header_and_decision_numbers(
    log: list[dict], change, fragment: str, capsys
) -> None:
    change(log)
    _write(Path("bad.jsonl"), log)
    code, _, err = run(capsys, "replay", "bad.jsonl")
    assert code == 1
    assert fragment in err
    assert "Traceback" not in err


def _strings(data) -> set[str]:
    if isinstance(data, str):
        return {data}
    items = data.values() if isinstance(data, dict) else data if isinstance(data, list) else ()
    return set().union(*(_strings(item) for item in items))


LINE_BREAKS = ["\u2028", "\u2029", "\x85", "\x0b", "\x1c"]


@pytest.mark.parametrize("char", LINE_BREAKS)
def test_a_city_named_with_a_line_separator_is_refused_before_any_log(
    char: str, tmp_path: Path, monkeypatch, capsys
) -> None:
    """Such a name would split a log record for readers that split lines at it: the language
    refuses it, at the name (json_line still escapes them in any string a log holds)."""
    spec = tmp_path / "spec"
    shutil.copytree(ROOT / "tests" / "fixtures" / "own_spec", spec)
    shutil.copy(ROOT / "spec" / "bigbox_2021.hansa", spec)
    board = spec / "boards" / "ring.hansa"
    board.write_text(board.read_text().replace("Itzehoe", f'"Itze{char}hoe"'), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    code, _, err = run(capsys, "play", "quick-ring", "--log", "g.jsonl")
    assert code == 1 and not Path("g.jsonl").exists()
    assert "ring.hansa:" in err and f"city name holds U+{ord(char):04X}" in err
    assert char not in err


def test_json_line_escapes_only_inside_strings() -> None:
    data = {"name": "a\u2028b\x85c\u2029d", "n": 1}
    line = json_line(data)
    assert "\u2028" not in line and "\x85" not in line and "\u2029" not in line
    assert json.loads(line) == data
    assert len(line.splitlines()) == 1
