"""`hansa replay`: a log replays and verifies; every kind of tampering is caught at its line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hansa.play.logs import action_keys, read_log, replay
from play_support import GAME, assert_clean_error, run_cli

_PLAYED: list[str] = []


@pytest.fixture
def log_lines(capsys, games, tmp_path) -> list[dict]:
    """A finished greedy-vs-random game's log, as parsed lines (header, decisions, footer).

    The game is played through `hansa play --log` once per test session; each test gets a copy.
    """
    if _PLAYED:
        return [json.loads(line) for line in _PLAYED]
    path = tmp_path / "orig.jsonl"
    code, _, err = run_cli(
        capsys,
        "play",
        GAME,
        "--players",
        "4",
        "--seed",
        "4",
        "--agents",
        "greedy,random,greedy,greedy",
        "--log",
        str(path),
    )
    assert code == 0, err
    _PLAYED.extend(path.read_text(encoding="utf-8").splitlines())
    return [json.loads(line) for line in _PLAYED]


def write_log(folder: Path, lines: list[dict], name: str = "t.jsonl") -> Path:
    path = folder / name
    text = "\n".join(json.dumps(line, ensure_ascii=False) for line in lines) + "\n"
    path.write_text(text, encoding="utf-8")
    return path


def test_replay_verifies_a_log(capsys, games, log_lines, tmp_path) -> None:
    path = write_log(tmp_path, log_lines)
    code, out, err = run_cli(capsys, "replay", str(path))
    assert (code, err) == (0, "")
    decisions = len(log_lines) - 2
    assert out.startswith(f"{path}: ok, {decisions} decisions replayed and verified")
    code, out, _ = run_cli(capsys, "replay", str(path), "--json")
    data = json.loads(out)
    footer = log_lines[-1]
    assert data["verified"] is True
    assert data["returns"] == footer["returns"] and data["winners"] == footer["winners"]
    assert data["end_trigger"] == footer["end_trigger"]


def test_replay_api_reproduces_the_final_state(games, log_lines, tmp_path) -> None:
    path = write_log(tmp_path, log_lines)
    result = replay(str(path), games)
    assert result.state.to_dict() == log_lines[-1]["final_state"]
    assert result.record.moves == [(d["player"], d["action"]) for d in log_lines[1:-1]]
    assert result.warnings == []


def test_changed_action_is_caught(capsys, games, log_lines, tmp_path) -> None:
    i = len(log_lines) // 2  # a decision in the middle of the game
    tampered = [dict(line) for line in log_lines]
    tampered[i]["action"] = tampered[i]["action"] + 1
    path = write_log(tmp_path, tampered)
    code, out, err = run_cli(capsys, "replay", str(path))
    assert_clean_error(code, out, err, f"{path}:{i + 1}:")
    assert "log names it" in err or "illegal action" in err


def test_changed_action_with_a_matching_name_is_caught(capsys, games, log_lines, tmp_path) -> None:
    """Swap in another legal action and its true name: the game diverges from the footer."""
    game = games(GAME, 4)
    state = game.new_initial_state(log_lines[0]["seed"])
    index = None
    for i, line in enumerate(log_lines[1:-1], start=1):
        legal = state.legal_actions()
        others = [a for a in legal if a != line["action"]]
        if len(legal) > 3 and i > 20:
            index, replacement = i, others[0]
            break
        state.apply_action(line["action"])
    assert index is not None
    tampered = [dict(line) for line in log_lines]
    tampered[index]["action"] = replacement
    tampered[index]["name"] = game.action_to_string(replacement)
    tampered[index]["key"] = action_keys(game)[replacement]
    path = write_log(tmp_path, tampered)
    code, out, err = run_cli(capsys, "replay", str(path))
    assert_clean_error(code, out, err, f"{path}:")
    assert any(
        words in err for words in ("illegal action", "decides, but it is", "footer", "already over")
    ), err


def test_illegal_action_is_caught(capsys, games, log_lines, tmp_path) -> None:
    tampered = [dict(line) for line in log_lines]
    tampered[1]["action"] = 99999
    tampered[1].pop("name")
    tampered[1].pop("key")
    path = write_log(tmp_path, tampered)
    code, out, err = run_cli(capsys, "replay", str(path))
    assert_clean_error(code, out, err, f"{path}:2:", "illegal action 99999")


def test_wrong_player_is_caught(capsys, games, log_lines, tmp_path) -> None:
    tampered = [dict(line) for line in log_lines]
    tampered[3]["player"] = (tampered[3]["player"] + 1) % 4
    path = write_log(tmp_path, tampered)
    code, out, err = run_cli(capsys, "replay", str(path))
    assert_clean_error(code, out, err, f"{path}:4:", "decides, but it is player")


@pytest.mark.parametrize(
    ("field", "change", "named"),
    [
        ("returns", lambda f: f["returns"].__setitem__(0, f["returns"][0] + 1), "returns[0]"),
        ("breakdown", lambda f: f["breakdown"][1].__setitem__("F", 99), "breakdown[1].F"),
        ("winners", lambda f: f.__setitem__("winners", [3, 2]), "winners"),
        ("end_trigger", lambda f: f.__setitem__("end_trigger", "track_pp+x"), "end_trigger"),
        ("turns", lambda f: f.__setitem__("turns", f["turns"] + 1), "turns"),
        (
            "final_state",
            lambda f: f["final_state"]["player_state"][2].__setitem__("track", 77),
            "final_state.player_state[2].track",
        ),
        ("unknown", lambda f: f.__setitem__("bonus", 1), "unknown footer field 'bonus'"),
    ],
)
def test_wrong_footer_is_caught(capsys, games, log_lines, tmp_path, field, change, named) -> None:
    tampered = [dict(line) for line in log_lines]
    footer = json.loads(json.dumps(tampered[-1]))
    change(footer)
    tampered[-1] = footer
    path = write_log(tmp_path, tampered)
    code, out, err = run_cli(capsys, "replay", str(path))
    assert_clean_error(code, out, err, f"{path}:{len(tampered)}:", named)


def test_dropped_decision_is_caught(capsys, games, log_lines, tmp_path) -> None:
    tampered = log_lines[:-2] + log_lines[-1:]  # the last decision is gone
    path = write_log(tmp_path, tampered)
    code, out, err = run_cli(capsys, "replay", str(path))
    assert_clean_error(code, out, err, f"{path}:{len(tampered)}:", "footer")


def test_decision_after_the_end_is_caught(capsys, games, log_lines, tmp_path) -> None:
    extra = dict(log_lines[-2], n=len(log_lines) - 1)
    tampered = log_lines[:-1] + [extra] + log_lines[-1:]
    path = write_log(tmp_path, tampered)
    code, out, err = run_cli(capsys, "replay", str(path))
    assert_clean_error(code, out, err, f"{path}:{len(tampered) - 1}:", "already over")


@pytest.mark.parametrize(
    ("make", "fragments"),
    [
        (lambda lines: "", ["empty log"]),
        (lambda lines: "not json\n", [":1:", "not valid JSON"]),
        (lambda lines: "[1, 2]\n", [":1:", "JSON object"]),
        (lambda lines: json.dumps({"type": "decision"}) + "\n", [":1:", "header"]),
        (
            lambda lines: "\n".join(json.dumps(x) for x in lines[:5]) + "\n",
            [":5:", "without its footer"],
        ),
        (
            lambda lines: "\n".join(json.dumps(x) for x in lines + [{"type": "decision"}]),
            ["nothing may follow the footer"],
        ),
        (
            lambda lines: "\n".join(json.dumps(x) for x in [lines[0], {"type": "comment"}]),
            [":2:", "unknown line type 'comment'"],
        ),
        (
            lambda lines: "\n".join(
                json.dumps(x) for x in [lines[0], {"type": "decision", "player": 0}]
            ),
            [":2:", "missing field 'action'"],
        ),
        (
            lambda lines: "\n".join(
                json.dumps(x) for x in [lines[0], {"type": "decision", "player": 0, "action": "x"}]
            ),
            [":2:", "field 'action' must be a whole number"],
        ),
        (
            lambda lines: json.dumps(dict(lines[0], version=7)) + "\n",
            [":1:", "log version 7 is not supported"],
        ),
        (
            lambda lines: json.dumps(dict(lines[0], seed="x")) + "\n",
            [":1:", "field 'seed' must be a whole number"],
        ),
        (
            lambda lines: json.dumps(dict(lines[0], game="bigbox-hanseatic-44p")) + "\n",
            ["unknown game", "did you mean"],
        ),
        (
            lambda lines: json.dumps(dict(lines[0], players=2)) + "\n",
            ["not 2"],
        ),
    ],
)
def test_malformed_logs(capsys, games, log_lines, tmp_path, make, fragments) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(make(log_lines), encoding="utf-8")
    code, out, err = run_cli(capsys, "replay", str(path))
    assert_clean_error(code, out, err, *fragments)


def test_unreadable_logs(capsys, games, tmp_path) -> None:
    code, out, err = run_cli(capsys, "replay", str(tmp_path / "missing.jsonl"))
    assert_clean_error(code, out, err, "no such file")
    binary = tmp_path / "binary.jsonl"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    code, out, err = run_cli(capsys, "replay", str(binary))
    assert_clean_error(code, out, err, "not a text file")


def test_read_log_structure(log_lines, tmp_path) -> None:
    path = write_log(tmp_path, log_lines)
    log = read_log(str(path))
    assert log.header.number == 1 and log.footer.number == len(log_lines)
    assert [d.number for d in log.decisions] == list(range(2, len(log_lines)))


def test_other_module_version_is_a_warning(capsys, games, log_lines, tmp_path) -> None:
    assert log_lines[0]["module_hash"].startswith("spec-sha256=")
    changed = [dict(log_lines[0], module_hash="spec-sha256=0000")] + log_lines[1:]
    path = write_log(tmp_path, changed)
    code, out, err = run_cli(capsys, "replay", str(path))
    assert code == 0 and "ok," in out
    assert err.startswith(f"warning: {path}:1: the log was written by another version")


def test_a_game_compiled_in_memory_names_its_spec_hash_in_the_log() -> None:
    """A log's module_hash is the spec hash whether the module is the committed file or was
    compiled in memory (a spec folder's game, a native game's recorded text)."""
    from hansa.compiler.targets.python.codegen import compile_module
    from hansa.play.simulate import module_hash

    import hansa

    committed = hansa.load_game(GAME, players=4).module
    in_memory = compile_module(GAME)
    assert module_hash(vars(in_memory)) == module_hash(vars(committed))
    assert module_hash(vars(committed)).startswith("spec-sha256=")


def test_a_logged_module_hash_survives_its_cache_file_being_removed(tmp_path) -> None:
    """A spec folder's game is imported from a cache file; another command may empty the cache
    while this one runs (CI saw `module_hash: null`). The hash is the module's own `SPEC_HASH`,
    not read back from its file."""
    from hansa.play.simulate import module_hash

    import hansa

    namespace = dict(vars(hansa.load_game(GAME, 4).module))
    namespace.pop("__generated_text__", None)
    namespace["__file__"] = str(tmp_path / "emptied-cache" / "module.py")
    assert module_hash(namespace) == namespace["SPEC_HASH"]
    assert namespace["SPEC_HASH"].startswith("spec-sha256=")
