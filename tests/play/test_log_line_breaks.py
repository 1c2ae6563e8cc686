"""A game log stays one JSON entry per line whatever its strings hold: U+2028, U+2029 and U+0085
(line ends for str.splitlines and many tools) are written as JSON escapes, and the reader splits
on '\\n' only. Spec names cannot hold them (the language refuses line separators in names), but a
log's strings also come from agents' names and hand-edited logs."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from hansa.play.logs import header_for, json_line, read_log, write_log
from hansa.play.simulate import make_agents, play_game

import hansa
from hansa.cli import main

ROOT = Path(__file__).resolve().parents[2]
NAME = "Bre\u2028m\u0085en\u2029"


def test_json_lines_escape_unicode_line_separators():
    line = json_line({"type": "decision", "name": NAME})
    assert not any(ch in line for ch in "\u2028\u2029\x85")
    assert "\\u2028" in line and json.loads(line)["name"] == NAME


def test_a_log_whose_strings_hold_line_separators_reads_one_entry_per_line(tmp_path):
    game = hansa.load_game("bigbox-hanseatic-3p", players=3)
    agents = [NAME, "random", "random"]
    record, state = play_game(game, make_agents(["random"] * 3, 3), 3, record_moves=True)
    path = tmp_path / "odd.jsonl"
    write_log(str(path), game, header_for(game, 3, agents), record, state)
    raw = path.read_text(encoding="utf-8")
    assert not any(ch in raw for ch in "\u2028\u2029\x85")
    assert len(raw.splitlines()) == len(raw.split("\n")) - 1 == len(record.moves) + 2
    log = read_log(str(path))
    assert len(log.decisions) == len(record.moves) and log.header.data["agents"][0] == NAME


def test_a_city_named_with_line_separators_is_refused_at_the_name(tmp_path, capsys):
    spec = tmp_path / "spec"
    (spec / "boards").mkdir(parents=True)
    shutil.copy(ROOT / "spec/bigbox_2021.hansa", spec)
    board = (ROOT / "spec/boards/hanseatic_45p.hansa").read_text(encoding="utf-8")
    quoted = json.dumps(NAME)  # "Bre\u2028m\u0085en\u2029" with escapes, as the DSL reads them
    board = re.sub(r"\bBremen\b", lambda _m: quoted, board, count=1)
    (spec / "boards/hanseatic_45p.hansa").write_text(board, encoding="utf-8")
    assert main(["check", str(spec)]) == 1
    err = capsys.readouterr().err
    assert "hanseatic_45p.hansa:" in err and "city name holds U+2028 (LINE SEPARATOR)" in err
    assert err.count("error:") == 1 and "\u2028" not in err
