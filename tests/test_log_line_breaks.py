"""A game log stays one JSON entry per line whatever the names hold: U+2028, U+2029 and U+0085
(line ends for str.splitlines and many tools) are written as JSON escapes, and the reader splits
on '\\n' only, so a city named with them replays (it used to fail: 'Unterminated string')."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from hansa.play.logs import header_for, read_log, replay, write_log
from hansa.play.simulate import make_agents, play_game

import hansa

ROOT = Path(__file__).resolve().parent.parent
NAME = "Bre\u2028m\u0085en\u2029"


def test_a_city_named_with_line_separators_logs_and_replays(tmp_path, monkeypatch):
    spec = tmp_path / "spec"
    (spec / "boards").mkdir(parents=True)
    shutil.copy(ROOT / "spec/bigbox_2021.hansa", spec)
    board = (ROOT / "spec/boards/hanseatic_45p.hansa").read_text(encoding="utf-8")
    quoted = json.dumps(NAME)  # "Bre\u2028m\u0085en\u2029" with escapes, as the DSL reads them
    board = re.sub(r"\bBremen\b", lambda _m: quoted, board)
    (spec / "boards/hanseatic_45p.hansa").write_text(board, encoding="utf-8")
    (spec / "odd.hansa").write_text(
        "game odd-game = bigbox_2021 on hanseatic_45p players 4\n", encoding="utf-8"
    )
    monkeypatch.chdir(tmp_path)
    game = hansa.compile_game("spec/odd.hansa", players=4)
    assert NAME in game.module.CITY_NAMES
    agents = ["random"] * 4
    record, state = play_game(game, make_agents(agents, 3), 3, record_moves=True)
    path = tmp_path / "odd.jsonl"
    write_log(str(path), game, header_for(game, 3, agents), record, state)
    raw = path.read_text(encoding="utf-8")
    assert not any(ch in raw for ch in "\u2028\u2029\x85")
    assert "\\u2028" in raw
    assert len(raw.splitlines()) == len(raw.split("\n")) - 1 == len(record.moves) + 2
    assert len(read_log(str(path)).decisions) == len(record.moves)
    result = replay(str(path), lambda name, players: game)
    assert result.state.to_json() == state.to_json()
