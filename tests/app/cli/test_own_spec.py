"""A user's own spec folder, end to end: every command that names a game or board takes
`--spec DIR`, names resolve the same way everywhere (hansa.resolve), and `hansa list`,
`--version` and `hansa check --json` describe what there is.

The folder used is what a new user writes: a made-up ten-city board, a house rule extending the
built-in Big Box edition (not copied: the built-in spec provides it), and a game binding them
(tests/fixtures/own_spec).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from hansa.cli import main
from hansa.resolve import closest, load_game, shown

ROOT = Path(__file__).resolve().parents[3]
FIXTURE = ROOT / "tests" / "fixtures" / "own_spec"


@pytest.fixture
def own(tmp_path: Path, monkeypatch) -> Path:
    """A user's folder (not the project's) with their spec folder `myspec/`; cwd is the folder."""
    spec = tmp_path / "myspec"
    shutil.copytree(FIXTURE, spec)
    monkeypatch.chdir(tmp_path)
    return spec


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_play_replay_simulate_and_score_a_game_of_ones_own_folder(own: Path, capsys) -> None:
    code, out, err = run(capsys, "play", "quick-ring", "--spec", "myspec", "--log", "g.jsonl")
    assert code == 0, err
    assert out.startswith("quick-ring: 3 players")
    assert "end: track_pp" in out  # the house rule's 12 PP end
    code, out, err = run(capsys, "replay", "g.jsonl", "--spec", "myspec")
    assert code == 0, err
    assert "ok, " in out and "(quick-ring, 3 players, seed 0)" in out
    code, out, err = run(capsys, "simulate", "quick-ring", "--spec", "myspec", "-n", "4", "-j", "2")
    assert code == 0, err
    assert out.startswith("quick-ring: 4 games, 3 players")
    final = json.loads(Path("g.jsonl").read_text().splitlines()[-1])["final_state"]
    Path("final.json").write_text(json.dumps(final))
    code, out, err = run(capsys, "score", "final.json", "--spec", "myspec", "--json")
    assert code == 0, err
    assert json.loads(out)["game_over"] is True


def test_bench_measures_a_game_of_ones_own_folder(own: Path, capsys) -> None:
    code, out, err = run(
        capsys, "bench", "quick-ring", "--spec", "myspec", "--seconds", "0.2", "--json"
    )
    assert code == 0, err
    (figures,) = json.loads(out)
    assert figures["game"] == "quick-ring" and figures["compile_s"] is not None


def test_the_cache_keeps_only_the_latest_spec_folders(own: Path, monkeypatch) -> None:
    import hansa.resolve as resolve

    root = Path(os.environ["HANSA_CACHE"]) / "prune-test"
    monkeypatch.setenv("HANSA_CACHE", str(root))
    monkeypatch.setattr(resolve, "KEEP_CACHED", 2)
    house = own / "house.hansa"
    original = house.read_text()
    for limit in (12, 13, 14):  # three versions of the folder, each compiled once
        house.write_text(original.replace(">= 12", f">= {limit}"))
        assert load_game("quick-ring", 3, "myspec").num_players() == 3
    cached = [p for p in root.iterdir() if (p / "index.json").is_file()]
    assert len(cached) == 2
    (root / "notes").mkdir()
    resolve._prune(root, keep=cached[0])
    assert (root / "notes").is_dir()


def test_a_damaged_cache_file_is_compiled_again(own: Path, monkeypatch) -> None:
    import hansa.resolve as resolve

    monkeypatch.setenv("HANSA_CACHE", str(Path(os.environ["HANSA_CACHE"]) / "damage-test"))
    index = resolve.spec_index(own)
    cached = resolve._module_path(index, index.games["quick-ring"])
    cached.write_text("this is not Python (\n", encoding="utf-8")
    resolve._MODULES.clear()
    resolve._INDEXES.clear()
    assert load_game("quick-ring", 3, own).info.board == "ring"


def test_spec_is_the_default_folder_and_wins_over_a_built_in_game(own: Path, capsys) -> None:
    own.rename(own.parent / "spec")
    code, out, err = run(capsys, "play", "quick-ring", "--players", "4", "--json")
    assert code == 0, err
    assert json.loads(out)["players"] == 4
    # a spec folder's game of a built-in game's name is the one every command plays
    with open("spec/house.hansa", "a", encoding="utf-8") as handle:
        handle.write("game bigbox-hanseatic-45p = quick on ring players 4\n")
    code, out, err = run(capsys, "play", "bigbox-hanseatic-45p", "--json")
    assert code == 0, err
    assert json.loads(out)["players"] == 4
    assert load_game("bigbox-hanseatic-45p").info.board == "ring"
    code, out, _ = run(capsys, "list", "--json")
    names = [g["name"] for g in json.loads(out)["games"]]
    assert names.count("bigbox-hanseatic-45p") == 1


def test_render_and_export_find_boards_in_the_spec_folder(own: Path, capsys) -> None:
    code, out, err = run(capsys, "export", "ring", "--spec", "myspec")
    assert code == 0, err
    assert json.loads(out)["id"] == "ring"
    code, out, err = run(capsys, "render", "ring", "--spec", "myspec", "-o", "ring.svg")
    assert code == 0, err
    assert Path("ring.svg").read_text().startswith("<?xml")


def test_an_unknown_name_lists_what_exists_and_where_it_looked(own: Path, capsys) -> None:
    code, _, err = run(capsys, "play", "quick-rign", "--spec", "myspec")
    assert code == 1
    assert "unknown game 'quick-rign' (did you mean 'quick-ring'?)" in err
    assert f"looked in myspec ({own.resolve()}): games quick-ring" in err
    assert "built-in games: bigbox-" in err and "bigbox-hanseatic-3p" in err
    code, _, err = run(capsys, "simulate", "ring", "-n", "1", "--spec", "myspec")
    assert code == 1 and "'ring' is a board there" in err
    Path("x.json").write_text("{}")
    code, _, err = run(capsys, "score", "x.json", "--game", "quick-ring", "--spec", "nowhere")
    assert code == 1 and "no spec folder 'nowhere'" in err
    code, _, err = run(capsys, "play", "quick-ring")  # no ./spec here: built-in games only
    assert code == 1 and "no spec/ folder here (--spec DIR names one)" in err


def test_a_huge_name_is_shortened_in_messages(own: Path, capsys) -> None:
    name = "x" * 100_000
    code, _, err = run(capsys, "play", name, "--spec", "myspec")
    assert code == 1
    assert len(err) < 1000
    assert "… (100,000 characters)" in err
    assert shown("a" * 61).endswith("… (61 characters)") and shown("a" * 60) == repr("a" * 60)
    for argv in (["render", name[:5000]], ["export", name[:5000]], ["diff", name[:300], "ring"]):
        code, _, err = run(capsys, *argv, "--spec", "myspec")
        assert code in (1, 2) and 0 < len(err) < 1000, argv[0]


def test_did_you_mean_ignores_accents_and_case() -> None:
    assert closest("Lodz", ["Łódź", "Lübeck"]) == "Łódź"
    assert closest("lubeck", ["Łódź", "Lübeck"]) == "Lübeck"
    assert closest("Gottingen", ["Göttingen", "Goslar"]) == "Göttingen"
    assert closest("Zzz", ["Göttingen"]) is None


def test_a_game_with_errors_reports_them_with_locations(own: Path, capsys) -> None:
    board = own / "boards" / "ring.hansa"
    board.write_text(board.read_text().replace("route Bonn -- Celle: 3", "route Bonn -- Cele: 3"))
    code, _, err = run(capsys, "play", "quick-ring", "--spec", "myspec")
    assert code == 1
    assert "myspec/boards/ring.hansa:" in err and "Cele" in err
    assert "unknown game" not in err
    code, out, _ = run(capsys, "list", "--spec", "myspec")
    assert "has errors: hansa check" in out


def test_the_cache_is_used_by_the_next_command_without_the_compiler(own: Path) -> None:
    """A game compiled once loads in the next process from the cache: the compiler, lark, jinja2
    and networkx are not even imported (`hansa score` starts in a fraction of the time)."""
    env = dict(os.environ)
    first = subprocess.run(
        [sys.executable, "-m", "hansa", "play", "quick-ring", "--spec", "myspec", "--json"],
        capture_output=True,
        text=True,
        env=env,
    )
    assert first.returncode == 0, first.stderr
    Path("final.json").write_text(json.dumps({"game": "quick-ring", "players": 3}))
    probe = (
        "import sys, json\n"
        "from hansa.cli import main\n"
        "code = main(['play', 'quick-ring', '--spec', 'myspec', '--json'])\n"
        "heavy = [m for m in ('hansa.compiler.project', "
        "'hansa.compiler.targets.python.codegen', 'lark', "
        "'jinja2', 'networkx', 'matplotlib', 'scipy') if m in sys.modules]\n"
        "print(json.dumps([code, heavy]), file=sys.stderr)\n"
    )
    second = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env)
    code, heavy = json.loads(second.stderr.strip().splitlines()[-1])
    assert code == 0
    assert heavy == []


COMMANDS_WITHOUT_COMPILING = {
    "score": ["score", "state.json"],
    "replay": ["replay", "game.jsonl"],
    "play": ["play", "bigbox-hanseatic-3p"],
    "simulate": ["simulate", "bigbox-hanseatic-3p", "-n", "2", "-j", "1"],
    "list": ["list"],
}


@pytest.mark.parametrize("command", sorted(COMMANDS_WITHOUT_COMPILING))
def test_commands_that_do_not_compile_import_only_the_runtime(
    command: str, tmp_path: Path, monkeypatch, capsys
) -> None:
    """Run in a fresh process on a built-in game, the command imports no compiler module (nor
    lark, jinja2, networkx): `hansa score` starts in a fraction of a second."""
    monkeypatch.chdir(tmp_path)
    assert main(["play", "bigbox-hanseatic-3p", "--log", "game.jsonl"]) == 0
    final = json.loads(Path("game.jsonl").read_text().splitlines()[-1])["final_state"]
    Path("state.json").write_text(json.dumps(final))
    capsys.readouterr()
    probe = (
        "import sys, json\n"
        "from hansa.cli import main\n"
        f"code = main({COMMANDS_WITHOUT_COMPILING[command]!r})\n"
        "heavy = [m for m in ('hansa.compiler.project', 'hansa.compiler.targets.python.codegen', "
        "'hansa.compiler.diff.edits', 'lark', 'jinja2', 'networkx', 'matplotlib', 'scipy') "
        "if m in sys.modules]\n"
        "print(json.dumps([code, heavy]), file=sys.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    code, heavy = json.loads(done.stderr.strip().splitlines()[-1])
    assert code == 0, done.stderr
    assert heavy == []


def test_list_shows_games_rule_sets_and_boards(own: Path, capsys) -> None:
    code, out, err = run(capsys, "list", "--spec", "myspec")
    assert code == 0, err
    assert "quick-ring" in out and "3-4 players" in out and "quick on ring" in out
    assert re.search(r"\n  quick +A quick game +extends bigbox_2021\n", out)
    assert re.search(r"\n  ring +3-4 players +The Ring\n", out)
    assert re.search(r"\n  bigbox_2021 +Hansa Teutonica Big Box \(2021\) +built-in\n", out)
    code, out, _ = run(capsys, "list", "--spec", "myspec", "--json")
    data = json.loads(out)
    game = next(g for g in data["games"] if g["name"] == "quick-ring")
    assert game == {
        "name": "quick-ring",
        "players": [3, 4],
        "rules": "quick",
        "board": "ring",
        "source": "myspec/house.hansa",
        "ok": True,
    }
    sources = {r["name"]: r["file"] for r in data["rulesets"]}
    assert sources["quick"] == "myspec/house.hansa"
    assert sources["bigbox_2021"] == sources["original_2009"] == "built-in"
    boards = [b["name"] for b in data["boards"]]
    assert boards[0] == "ring" and "hanseatic_45p" in boards  # own first, then the built-in ones
    assert any(g["source"] == "built-in" for g in data["games"])


def test_version(capsys) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out.startswith("hansa ")


def test_check_json_gives_diagnostics_as_data(own: Path, capsys) -> None:
    code, out, _ = run(capsys, "check", "myspec", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["errors"] == 0 and data["games"] == ["quick-ring"]
    house = own / "house.hansa"
    house.write_text(house.read_text() + "game broken = quick on nowhere players 3\n")
    code, out, err = run(capsys, "check", "myspec", "--json")
    assert code == 1 and err == ""
    data = json.loads(out)
    assert data["errors"] == 1
    (diagnostic,) = data["diagnostics"]
    assert diagnostic["file"] == "myspec/house.hansa"
    assert diagnostic["line"] == 5 and diagnostic["column"] > 1
    assert diagnostic["severity"] == "error" and "nowhere" in diagnostic["message"]
    code, out, err = run(capsys, "check", "nowhere", "--json")
    assert code == 1 and err == ""
    (missing,) = json.loads(out)["diagnostics"]
    assert missing["file"] == "nowhere" and missing["message"] == "no such file or directory"
