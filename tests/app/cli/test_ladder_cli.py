"""`hansa ladder` end to end: the table as text, JSON and CSV, the report and picture files
written whole, and bad input as one clear error (exit 1, no traceback, no file)."""

from __future__ import annotations

import csv
import io
import json
import sys

import pytest
from play_support import assert_clean_error, run_cli, without_cost

pytest.importorskip("choix")

BASE = ("ladder", "bigbox-hanseatic-45p", "--players", "4", "-j", "1", "--bootstrap", "40")
AGENTS = ("--agents", "random,greedy,greedy:seed=9")


def test_the_table_as_text_json_and_csv(capsys):
    code, text, err = run_cli(capsys, *BASE, *AGENTS, "-n", "8", "--seed", "4")
    assert code == 0, err
    assert "ladder of 3 agents, 8 games, 4 players, seed 4" in text
    assert "95% interval" in text and "a cycle of 8 games" in text
    code, out, err = run_cli(capsys, *BASE, *AGENTS, "-n", "8", "--seed", "4", "--json")
    assert code == 0, err
    report = json.loads(out)
    assert report["format"] == "hansa-ladder" and report["seed"] == 4 and report["games"] == 8
    assert [row["agent"] for row in report["ratings"]][-1] == "random"
    code, again, err = run_cli(capsys, *BASE, *AGENTS, "-n", "8", "--seed", "4", "--json")
    assert without_cost(again) == without_cost(out)  # deterministic for a seed
    code, out, err = run_cli(capsys, *BASE, *AGENTS, "-n", "8", "--seed", "4", "--csv")
    assert code == 0, err
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [r["agent"] for r in rows] == [r["agent"] for r in report["ratings"]]
    assert float(rows[0]["rating"]) == report["ratings"][0]["rating"]
    code, out, err = run_cli(
        capsys, *BASE, *AGENTS, "-n", "8", "--seed", "4", "--anchor", "greedy", "--json"
    )
    rows = {row["agent"]: row for row in json.loads(out)["ratings"]}
    assert rows["greedy"]["rating"] == 0 and rows["greedy"]["low"] == rows["greedy"]["high"] == 0


def test_report_and_picture_files(capsys, tmp_path):
    report, picture = tmp_path / "ladder.json", tmp_path / "ladder.svg"
    code, out, err = run_cli(
        capsys, *BASE, *AGENTS, "-n", "4", "--json", "-o", str(report), "--plot", str(picture)
    )
    assert code == 0, err
    assert out == ""
    assert json.loads(report.read_text())["games"] == 4
    assert picture.read_text().startswith("<?xml")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ladder.json", "ladder.svg"]


@pytest.mark.parametrize(
    ("args", "fragments"),
    [
        (("--agents", "random", "-n", "4"), ("at least two agents",)),
        (("--agents", "random,nobody", "-n", "4"), ("unknown agent 'nobody'",)),
        (("--agents", "random,random", "-n", "4"), ("'random' twice",)),
        (("--agents", "random,greedy", "-n", "0"), ("-n must be at least 1",)),
        (("--agents", "random,mcts:bogus=3", "-n", "4"), ("unknown parameter 'bogus'",)),
        (("--agents", "random,greedy", "-n", "4", "--anchor", "mcts"), ("--anchor",)),
        (("--agents", "random,greedy", "-n", "4", "--plot", "x.jpg"), (".png or .svg",)),
        (("--agents", "random,greedy", "-n", "4", "--bootstrap", "-2"), ("--bootstrap",)),
    ],
)
def test_bad_input_is_one_clear_error(capsys, args, fragments):
    assert_clean_error(*run_cli(capsys, *BASE, *args), *fragments)


def test_a_bad_game_or_folder_is_one_clear_error(capsys, tmp_path):
    code, out, err = run_cli(
        capsys, "ladder", "no-such-game", "--agents", "random,greedy", "-n", "2"
    )
    assert_clean_error(code, out, err, "unknown game 'no-such-game'")
    missing = tmp_path / "missing" / "ladder.json"
    code, out, err = run_cli(capsys, *BASE, *AGENTS, "-n", "2", "-o", str(missing))
    assert_clean_error(code, out, err, "cannot write")
    assert not (tmp_path / "missing").exists() and list(tmp_path.iterdir()) == []


def test_without_choix_the_extra_is_named(capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "choix", None)  # `import choix` raises ImportError
    code, out, err = run_cli(capsys, *BASE, *AGENTS, "-n", "2")
    assert_clean_error(code, out, err, "pip install 'hansa[rl]'")
