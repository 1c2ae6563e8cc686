"""`hansa score`: the final scoring of saved and hand-written states, and clear errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hansa.play.simulate import make_agents, play_game
from play_support import GAME, assert_clean_error, run_cli, write_json


# A position written by hand in the state format. Player 0 holds posts in Hamburg, Lübeck and
# Bremen (linked by routes), Keys developed twice (value 2), 5 PP on the track and two bonus markers
# (a +3 actions and a develop marker); player 3 holds the rightmost post in Hamburg, so wins the
# 1–1 tie there; player 1 holds Coellen. The other markers are in the supply. Marker names are the
# spec's, read from the module so the position follows the edition's naming.
def hand_written(game) -> dict:
    ns = vars(game.module)
    keys = ns["MARKER_KEYS"]
    plus_3 = keys[next(m for m, count in ns["EXTRA_ACTION_MARKERS"] if count == 3)]
    develop = keys[ns["DEVELOP_MARKERS"][0][0]]
    supply = [
        key for key, count in zip(keys, ns["MARKER_COUNT"], strict=True) for _ in range(count)
    ]
    supply.remove(plus_3)
    supply.remove(develop)
    levels = {"keys": 0, "actions": 0, "privilege": 0, "book": 0, "bank": 0}
    return {
        "format": "hansa-state",
        "version": 1,
        "game": GAME,
        "players": 4,
        "turn": {"player": 0, "actions_left": 2},
        "player_state": [
            {
                "supply": {"traders": 6, "merchants": 1},
                "stock": {"traders": 4, "merchants": 0},
                "abilities": dict(levels, keys=2),
                "track": 5,
                "markers": {"unused": [plus_3], "used": [develop]},
            },
            {
                "supply": {"traders": 5, "merchants": 1},
                "stock": {"traders": 5, "merchants": 0},
                "abilities": dict(levels),
                "track": 0,
            },
            {
                "supply": {"traders": 6, "merchants": 1},
                "stock": {"traders": 5, "merchants": 0},
                "abilities": dict(levels),
                "track": 0,
            },
            {
                "supply": {"traders": 7, "merchants": 1},
                "stock": {"traders": 3, "merchants": 0},
                "abilities": dict(levels),
                "track": 2,
            },
        ],
        "marker_supply": supply,
        "cities": [
            {"name": "Hamburg", "posts": ["t0", "t3", None]},
            {"name": "Lübeck", "posts": ["t0", None]},
            {"name": "Bremen", "posts": ["t0", None]},
            {"name": "Coellen", "posts": ["t1", None]},
        ],
    }


# By the rules digest (§7): A track; C 2 markers → 3; E 2 per controlled city; F posts in the
# largest connected group × Keys value.
EXPECTED = [
    {"A": 5, "B": 0, "C": 3, "D": 0, "E": 4, "F": 6},
    {"A": 0, "B": 0, "C": 0, "D": 0, "E": 2, "F": 1},
    {"A": 0, "B": 0, "C": 0, "D": 0, "E": 0, "F": 0},
    {"A": 2, "B": 0, "C": 0, "D": 0, "E": 2, "F": 1},
]


def score_json(capsys, path: Path, *extra: str) -> dict:
    code, out, err = run_cli(capsys, "score", str(path), "--json", *extra)
    assert (code, err) == (0, ""), err
    return json.loads(out)


def test_hand_written_position(capsys, games, tmp_path) -> None:
    position = hand_written(games(GAME, 4))
    path = write_json(tmp_path / "position.json", position)
    data = score_json(capsys, path)
    assert data["breakdown"] == EXPECTED
    assert data["totals"] == [18, 3, 0, 5]
    assert data["winners"] == [0] and data["game_over"] is False
    state = games(GAME, 4).state_from_json(json.dumps(position))
    assert data["breakdown"] == state.score_breakdown()
    code, out, _ = run_cli(capsys, "score", str(path))
    assert code == 0
    assert "scoring as if the game ended now" in out.splitlines()[0]
    assert out.splitlines()[2].split() == ["0", "5", "0", "3", "0", "4", "6", "18", "<-", "leader"]
    assert "leader: player 0 (18 PP)" in out


def test_game_and_players_from_the_options(capsys, games, tmp_path) -> None:
    position = hand_written(games(GAME, 4))
    bare = {k: v for k, v in position.items() if k not in ("game", "players")}
    path = write_json(tmp_path / "bare.json", bare)
    data = score_json(capsys, path, "--game", GAME, "--players", "4")
    assert data["breakdown"] == EXPECTED
    code, out, err = run_cli(capsys, "score", str(path))
    assert_clean_error(code, out, err, "names no game", "--game")


def test_saved_states_agree_with_score_breakdown(capsys, games, tmp_path) -> None:
    game = games(GAME, 5)
    record, final = play_game(game, make_agents(["greedy"] * 5, 6), 6, record_moves=True)
    middle = game.new_initial_state(6)
    for _player, action in record.moves[: len(record.moves) // 2]:
        middle.apply_action(action)
    for name, state in (("final.json", final), ("middle.json", middle)):
        path = tmp_path / name
        path.write_text(state.to_json(), encoding="utf-8")
        data = score_json(capsys, path)
        assert data["breakdown"] == state.score_breakdown()
        assert data["totals"] == [sum(b.values()) for b in state.score_breakdown()]
        assert data["winners"] == state.winners()
        assert data["game_over"] is state.is_terminal()
        assert data["players"] == 5
    code, out, _ = run_cli(capsys, "score", str(tmp_path / "final.json"))
    assert code == 0 and "final scoring" in out and "<- winner" in out


def _set(path: tuple, value):
    """A change of the hand-written position: set the value at a path of keys and indexes."""

    def change(data: dict) -> None:
        target = data
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return change


def _drop(key: str):
    return lambda data: data.pop(key)


@pytest.mark.parametrize(
    ("content", "extra", "fragments"),
    [
        ("{not json", [], ["not valid JSON"]),
        ("[1, 2]", [], ["expected a JSON object"]),
        (
            _set(("player_state", 1, "track"), "x"),
            [],
            ["player_state[1].track", "whole number"],
        ),
        (
            _set(("player_state", 0, "supply", "traders"), 7),
            [],
            ["player_state[0]", "owns exactly 27"],
        ),
        (
            _set(("cities", 0, "posts"), ["t0", None, "t3"]),
            [],
            ["cities[0].posts[2]", "from the left"],
        ),
        (_drop("turn"), [], ["turn", "missing"]),
        (_set(("game",), "bigbox-hanseatic-4p"), [], ["did you mean"]),
        (_set(("players",), 3), [], ["not 3"]),
        (_set(("players",), "four"), [], ["players", "whole number"]),
        (None, ["--players", "5"], ["4 players", "loaded for 5"]),
        (None, ["--game", "original-hanseatic-45p"], ["game", "bigbox-hanseatic-45p"]),
    ],
)
def test_bad_states(capsys, games, tmp_path, content, extra, fragments) -> None:
    path = tmp_path / "state.json"
    if isinstance(content, str):
        path.write_text(content, encoding="utf-8")
    else:
        position = hand_written(games(GAME, 4))
        if content is not None:
            content(position)
        write_json(path, position)
    code, out, err = run_cli(capsys, "score", str(path), *extra)
    assert_clean_error(code, out, err, *fragments)
    assert "state JSON" not in err  # errors name the file instead


def test_unreadable_state_files(capsys, games, tmp_path) -> None:
    code, out, err = run_cli(capsys, "score", str(tmp_path / "missing.json"))
    assert_clean_error(code, out, err, "missing.json: no such file")
    binary = tmp_path / "binary.json"
    binary.write_bytes(b"\xff\xfe\x00")
    code, out, err = run_cli(capsys, "score", str(binary))
    assert_clean_error(code, out, err, "not a text file")


def test_score_help(capsys) -> None:
    with pytest.raises(SystemExit) as exc:
        run_cli(capsys, "score", "--help")
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert "--game" in out and "--players" in out and "--json" in out
