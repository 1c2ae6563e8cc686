"""`hansa build` owns only what it wrote: module names that cannot collide with the package's own
files, removal limited to what its index recorded, no writing through links, and an output folder
whose index never names a missing module, whenever the build is interrupted."""

from __future__ import annotations

import ast
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from clock_support import HANG_GUARD
from hansa.compiler.build import output as build_output
from hansa.compiler.build.output import INDEX, recorded_modules, write_build

from hansa.cli import main

ROOT = Path(__file__).resolve().parents[2]
MARKER_LINE = "# hansa-generated: spec-sha256=0000\n"


def spec_folder(tmp_path: Path, games: str) -> Path:
    """The Big Box and the 4-5 player board, with `games` as the only game declarations."""
    spec = tmp_path / "spec"
    (spec / "boards").mkdir(parents=True)
    shutil.copy(ROOT / "spec/bigbox_2021.hansa", spec)
    shutil.copy(ROOT / "spec/boards/hanseatic_45p.hansa", spec / "boards")
    (spec / "games.hansa").write_text(games, encoding="utf-8")
    return spec


def index_games(out: Path) -> dict[str, str]:
    tree = ast.parse((out / INDEX).read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and node.targets[0].id == "GAMES":
            return ast.literal_eval(node.value)
    raise AssertionError("no GAMES in the index")


def assert_index_names_only_present_modules(out: Path) -> None:
    if not (out / INDEX).exists():
        return
    for module in index_games(out).values():
        path = out / f"{module}.py"
        assert path.is_file(), f"the index names {module}, which is missing"
        ast.parse(path.read_text(encoding="utf-8"))  # complete, not half written


# ---------------------------------------------------------------- module names
def test_games_named_like_package_files_get_modules_of_their_own(tmp_path, capsys):
    """`_index`, `__init__` and `__main__` used to overwrite generated/_index.py or __init__.py
    (or be lost); their modules now carry a prefix no package file has."""
    games = "".join(
        f"game {name} = bigbox_2021 on hanseatic_45p players 4\n"
        for name in ("_index", "__init__", "__main__")
    )
    spec = spec_folder(tmp_path, games)
    out = tmp_path / "out"
    out.mkdir()
    (out / "__init__.py").write_text('"""the package"""\n', encoding="utf-8")
    assert main(["check", str(spec)]) == 0
    assert main(["build", "--spec", str(spec), "--out", str(out)]) == 0
    assert (out / "__init__.py").read_text(encoding="utf-8") == '"""the package"""\n'
    assert index_games(out) == {
        "_index": "game__index",
        "__init__": "game___init__",
        "__main__": "game___main__",
    }
    for module in index_games(out).values():
        assert f"# game: {module.removeprefix('game_')!r}" in (out / f"{module}.py").read_text()


def test_check_refuses_two_games_that_would_share_a_module(tmp_path, capsys):
    """`Big-A` and `big_a` both give module big_a: check (not only build) refuses the second, at
    its declaration."""
    spec = spec_folder(
        tmp_path,
        "game Big-A = bigbox_2021 on hanseatic_45p players 4\n"
        "game big_a = bigbox_2021 on hanseatic_45p players 4\n",
    )
    capsys.readouterr()
    assert main(["check", str(spec)]) == 1
    err = capsys.readouterr().err
    assert f"{spec / 'games.hansa'}:2:1: error: game big_a: its module name big_a" in err
    assert "Big-A" in err


# ---------------------------------------------------------------- what a build may delete
def build(spec: Path, out: Path) -> int:
    return main(["build", "--spec", str(spec), "--out", str(out)])


TWO_GAMES = (
    "game one-game = bigbox_2021 on hanseatic_45p players 4\n"
    "game two-game = bigbox_2021 on hanseatic_45p players 5\n"
)


def test_build_removes_only_modules_its_own_index_recorded(tmp_path, capsys):
    """A user's file carrying the generated marker (a note, a copied module) is never removed; a
    module the previous build's index named, whose game is gone, is."""
    spec = spec_folder(tmp_path, TWO_GAMES)
    out = tmp_path / "out"
    assert build(spec, out) == 0
    copied = (out / "one_game.py").read_text(encoding="utf-8")
    (out / "my_copy.py").write_text(copied, encoding="utf-8")
    (out / "notes.py").write_text("# notes\n" + MARKER_LINE, encoding="utf-8")
    (spec / "games.hansa").write_text(TWO_GAMES.splitlines()[0] + "\n", encoding="utf-8")
    capsys.readouterr()
    assert build(spec, out) == 0
    assert "1 removed" in capsys.readouterr().out
    assert not (out / "two_game.py").exists()
    assert (out / "my_copy.py").read_text(encoding="utf-8") == copied
    assert (out / "notes.py").exists()
    assert main(["build", "--spec", str(spec), "--out", str(out), "--check"]) == 0


def test_a_hand_edited_index_cannot_make_the_build_delete_other_files(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / INDEX).write_text(
        "GAMES = {'a': '../victim', 'b': '__init__', 'c': '_index'}\nREMOVING = ('ok',)\n",
        encoding="utf-8",
    )
    assert recorded_modules(out) == {"ok.py"}
    (out / INDEX).write_text("GAMES = {'a': (1 if x else 2)}\n", encoding="utf-8")
    assert recorded_modules(out) == set()


def test_build_replaces_links_in_the_output_folder_and_never_writes_through_them(tmp_path):
    spec = spec_folder(tmp_path, TWO_GAMES)
    out = tmp_path / "out"
    out.mkdir()
    elsewhere = tmp_path / "elsewhere.py"
    elsewhere.write_text("# someone else's file\n", encoding="utf-8")
    (out / "one_game.py").symlink_to(elsewhere)
    (out / INDEX).symlink_to(elsewhere)
    assert build(spec, out) == 0
    assert elsewhere.read_text(encoding="utf-8") == "# someone else's file\n"
    for name in ("one_game.py", INDEX):
        assert not (out / name).is_symlink() and (out / name).is_file()
    assert_index_names_only_present_modules(out)
    # a link that points at the right text is replaced too (the build owns a regular file)
    (out / "two_game.py").rename(tmp_path / "same.py")
    (out / "two_game.py").symlink_to(tmp_path / "same.py")
    assert main(["build", "--spec", str(spec), "--out", str(out), "--check"]) == 1
    assert build(spec, out) == 0
    assert not (out / "two_game.py").is_symlink()


def test_leftover_temporary_files_of_an_interrupted_build_are_removed(tmp_path):
    spec = spec_folder(tmp_path, TWO_GAMES)
    out = tmp_path / "out"
    out.mkdir()
    leftovers = [out / ".one_game.py.k3j_x9.tmp", out / "._index.py.abc.tmp"]
    for path in leftovers:
        path.write_text("half a modu", encoding="utf-8")
    foreign = out / ".notes.py.abc.tmp"  # not a name the build owns
    foreign.write_text("mine", encoding="utf-8")
    assert build(spec, out) == 0
    assert not any(path.exists() for path in leftovers)
    assert foreign.exists()


# ---------------------------------------------------------------- interruption
def files_for(spec: Path) -> dict[str, str]:
    from hansa.commands.build import expected_files

    return expected_files(spec)


def test_the_index_is_written_last(tmp_path, monkeypatch):
    spec = spec_folder(tmp_path, TWO_GAMES)
    files = files_for(spec)
    order: list[str] = []
    real = build_output.write_atomically

    def recording(path, data, **kwargs):
        order.append(Path(path).name)
        real(path, data, **kwargs)

    monkeypatch.setattr(build_output, "write_atomically", recording)
    out = tmp_path / "out"
    out.mkdir()
    write_build(out, files)
    assert order[-1] == INDEX and sorted(order[:-1]) == sorted(set(files) - {INDEX})


class Killed(BaseException):
    """Stands for the process dying between two file-system steps."""


def test_a_build_interrupted_at_any_step_leaves_a_consistent_folder(tmp_path, monkeypatch):
    """Old build: games one, two; new build: one (changed), three; so the new build writes,
    replaces and removes. Stopped before each of its file-system steps in turn, the folder's index
    names only modules that exist (each whole), and the next build completes the job."""
    old_spec = spec_folder(tmp_path / "old", TWO_GAMES)
    new_spec = spec_folder(
        tmp_path / "new",
        "game one-game = bigbox_2021 on hanseatic_45p players 5\n"
        "game three-game = bigbox_2021 on hanseatic_45p players 4\n",
    )
    old_files, new_files = files_for(old_spec), files_for(new_spec)
    real_write, real_unlink = build_output.write_atomically, Path.unlink
    step = {"left": 0}

    def tick():
        if step["left"] == 0:
            raise Killed
        step["left"] -= 1

    def write(path, data, **kwargs):
        tick()
        real_write(path, data, **kwargs)

    def unlink(self, missing_ok=False):
        tick()
        real_unlink(self, missing_ok=missing_ok)

    stops = 0
    for budget in range(20):
        out = tmp_path / f"out{budget}"
        out.mkdir()
        write_build(out, old_files)
        monkeypatch.setattr(build_output, "write_atomically", write)
        monkeypatch.setattr(Path, "unlink", unlink)
        step["left"] = budget
        try:
            write_build(out, new_files)
            finished = True
        except Killed:
            finished = False
            stops += 1
        monkeypatch.undo()
        assert_index_names_only_present_modules(out)
        games = set(index_games(out))
        assert games in ({"one-game", "two-game"}, {"one-game", "three-game"})
        write_build(out, new_files)  # the next build completes it
        assert sorted(p.name for p in out.iterdir()) == sorted(new_files)
        if finished:
            break
    assert stops >= 4  # it was stopped between modules, before and after the removals


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_kill_9_during_a_real_build_never_leaves_an_index_naming_missing_modules(tmp_path):
    old_spec = spec_folder(tmp_path / "old", TWO_GAMES)
    new_spec = spec_folder(
        tmp_path / "new",
        "game one-game = bigbox_2021 on hanseatic_45p players 5\n"
        "game three-game = bigbox_2021 on hanseatic_45p players 4\n",
    )
    command = [sys.executable, "-m", "hansa", "build", "--spec", str(new_spec), "--out"]
    for delay in (0.3, 0.6, 0.9, 1.2, 1.6):
        out = tmp_path / f"out{delay}"
        assert build(old_spec, out) == 0
        process = subprocess.Popen([*command, str(out)], cwd=tmp_path, stdout=subprocess.DEVNULL)
        time.sleep(delay)
        try:
            os.kill(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        process.wait()
        assert_index_names_only_present_modules(out)
        assert build(new_spec, out) == 0
        assert sorted(p.name for p in out.iterdir()) == [
            "_index.py",
            "one_game.py",
            "three_game.py",
        ]


# ---------------------------------------------------------------- what is in the folder
def test_named_pipes_in_the_output_folder_never_block_the_build(tmp_path):
    """A pipe named `_index.py` or like a module used to make `hansa build` and `build --check`
    wait forever (for a writer to read from, or a reader to write to); the build replaces them
    with its files, and `--check` calls them out."""
    spec = spec_folder(tmp_path, TWO_GAMES)
    out = tmp_path / "out"
    out.mkdir()
    for name in (INDEX, "one_game.py", "stray.py"):
        os.mkfifo(out / name)
    command = [sys.executable, "-m", "hansa", "build", "--spec", str(spec), "--out", str(out)]
    check = subprocess.run(
        [*command, "--check"], timeout=HANG_GUARD, capture_output=True, text=True
    )
    assert check.returncode == 1
    assert f"{out / INDEX}: stale or edited by hand" in check.stderr
    done = subprocess.run(command, timeout=HANG_GUARD, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    for name in (INDEX, "one_game.py", "two_game.py"):
        assert (out / name).is_file() and not (out / name).is_fifo()
    assert (out / "stray.py").is_fifo()  # not the build's: left alone
    assert_index_names_only_present_modules(out)


def test_a_foreign_index_cannot_make_the_build_remove_a_file_without_the_marker(tmp_path, capsys):
    """Only files this build wrote are removed: recorded by the index *and* carrying the
    generated marker. A foreign `_index.py` naming `notes` used to make it remove notes.py."""
    spec = spec_folder(tmp_path, TWO_GAMES)
    out = tmp_path / "out"
    out.mkdir()
    (out / "notes.py").write_text("my notes\n", encoding="utf-8")
    (out / INDEX).write_text("GAMES = {'x': 'notes'}\nREMOVING = ('notes',)\n", encoding="utf-8")
    assert build(spec, out) == 0
    assert "0 removed" in capsys.readouterr().out
    assert (out / "notes.py").read_text(encoding="utf-8") == "my notes\n"
    assert main(["build", "--spec", str(spec), "--out", str(out), "--check"]) == 0
