"""`hansa play`: the final table, --json, --log, agents, and clear errors for bad input."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from clock_support import HANG_GUARD
from play_support import GAME, assert_clean_error, run_cli


def test_play_prints_the_final_table(capsys, games) -> None:
    code, out, err = run_cli(capsys, "play", GAME, "--players", "4", "--seed", "3")
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0] == f"{GAME}: 4 players, seed 3, agents greedy, greedy, greedy, greedy"
    assert lines[1].split() == ["player", "agent", "A", "B", "C", "D", "E", "F", "total"]
    rows = [line.split() for line in lines[2:6]]
    assert [row[0] for row in rows] == ["0", "1", "2", "3"]
    for row in rows:
        assert sum(int(v) for v in row[2:8]) == int(row[8])
    assert sum("<- winner" in line for line in lines[2:6]) >= 1
    assert lines[6].startswith("categories: A track, B full_abilities")
    assert lines[7].startswith(("winner: player", "shared winners: players"))
    assert lines[8].startswith("end: ")
    assert lines[9].startswith("length: ") and "decisions" in lines[9]


def test_play_json_agrees_with_the_table(capsys, games) -> None:
    code, out, _ = run_cli(
        capsys, "play", GAME, "--players", "5", "--seed", "8", "--agents", "greedy", "--json"
    )
    assert code == 0
    data = json.loads(out)
    assert data["players"] == 5 and data["seed"] == 8 and data["agents"] == ["greedy"] * 5
    assert data["finished"] is True
    assert data["returns"] == [sum(b.values()) for b in data["breakdown"]]
    best = max(data["returns"])
    assert all(data["returns"][p] == best for p in data["winners"])
    triggers = {"track_pp", "completed_cities", "marker_supply_empty"}
    assert set(data["end_trigger"].split("+")) <= triggers
    assert 100 < data["decisions"] < 1000 and data["turns"] > 0
    # The same seed plays the same game.
    code, again, _ = run_cli(
        capsys, "play", GAME, "--players", "5", "--seed", "8", "--agents", "greedy", "--json"
    )
    assert json.loads(again) == data


def test_play_mixes_agents_per_seat(capsys, games) -> None:
    code, out, _ = run_cli(
        capsys,
        "play",
        GAME,
        "--players",
        "4",
        "--agents",
        "random,greedy,greedy,greedy",
        "--max-decisions",
        "400",
        "--json",
    )
    assert code == 0
    data = json.loads(out)
    assert data["agents"] == ["random", "greedy", "greedy", "greedy"]
    assert data["decisions"] <= 400
    if not data["finished"]:
        assert data["end_trigger"] == "unfinished"


def test_play_writes_a_log(capsys, games, tmp_path) -> None:
    log = tmp_path / "game.jsonl"
    code, out, _ = run_cli(capsys, "play", GAME, "--players", "4", "--seed", "2", "--log", str(log))
    assert code == 0 and f"log: {log}" in out
    lines = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    header, decisions, footer = lines[0], lines[1:-1], lines[-1]
    assert header["type"] == "header" and header["format"] == "hansa-log"
    assert (header["game"], header["players"], header["seed"]) == (GAME, 4, 2)
    assert header["agents"] == ["greedy"] * 4
    assert header["rules"] == "bigbox_2021" and header["board"] == "hanseatic_45p"
    assert [d["n"] for d in decisions] == list(range(1, len(decisions) + 1))
    assert all(d["type"] == "decision" and isinstance(d["name"], str) for d in decisions)
    assert footer["type"] == "footer" and footer["decisions"] == len(decisions)
    assert footer["returns"] == [sum(b.values()) for b in footer["breakdown"]]
    assert footer["final_state"]["format"] == "hansa-state"
    assert list(tmp_path.iterdir()) == [log]  # no temporary file left behind


def test_play_log_into_a_missing_folder_fails_cleanly(capsys, games, tmp_path) -> None:
    target = tmp_path / "no" / "such" / "game.jsonl"
    code, out, err = run_cli(capsys, "play", GAME, "--players", "4", "--log", str(target))
    assert_clean_error(code, out, err, "cannot write")
    assert not target.parent.exists()


@pytest.mark.parametrize(
    ("args", "fragments"),
    [
        (["play", "bigbox-hanseatic-4p"], ["unknown game", "did you mean 'bigbox-hanseatic-45p'"]),
        (["play", GAME, "--players", "3"], ["4, 5 players, not 3"]),
        (["play", GAME, "--players", "9"], ["not 9"]),
        (["play", GAME, "--players", "4", "--agents", "gredy"], ["unknown agent 'gredy'"]),
        (["play", GAME, "--players", "4", "--agents", "greedy,random"], ["names 2 agents"]),
        (["play", GAME, "--players", "4", "--agents", "nomodule_zz:A"], ["cannot import module"]),
        (["play", GAME, "--players", "4", "--max-decisions", "0"], ["--max-decisions"]),
    ],
)
def test_play_errors(capsys, games, args, fragments) -> None:
    code, out, err = run_cli(capsys, *args)
    assert_clean_error(code, out, err, *fragments)


def test_play_help(capsys) -> None:
    with pytest.raises(SystemExit) as exc:
        run_cli(capsys, "play", "--help")
    assert exc.value.code == 0
    out = capsys.readouterr().out
    for option in ("--players", "--seed", "--agents", "--json", "--log", "module:Class"):
        assert option in out


def _console_script() -> str | None:
    near = Path(sys.executable).with_name("hansa")
    return str(near) if near.exists() else shutil.which("hansa")


def test_console_script_plays_and_replays(tmp_path) -> None:
    script = _console_script()
    assert script, "the hansa console script is installed with the project"
    log = tmp_path / "g.jsonl"
    env = dict(os.environ, PYTHONIOENCODING="utf-8")
    done = subprocess.run(
        [script, "play", GAME, "--players", "4", "--seed", "5", "--json", "--log", str(log)],
        capture_output=True,
        text=True,
        env=env,
        timeout=HANG_GUARD,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["finished"] is True
    replayed = subprocess.run(
        [script, "replay", str(log)], capture_output=True, text=True, env=env, timeout=HANG_GUARD
    )
    assert replayed.returncode == 0, replayed.stderr
    assert "ok," in replayed.stdout
    bad = subprocess.run(
        [script, "play", "no-such-game"],
        capture_output=True,
        text=True,
        env=env,
        timeout=HANG_GUARD,
    )
    assert bad.returncode == 1 and "Traceback" not in bad.stderr and "error" in bad.stderr
