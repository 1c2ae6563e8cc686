"""The native build cache is verified before anything in it is loaded (docs/native.md, "Building
and the cache"): a truncated, foreign or planted extension, a missing or forged record and a link
are rebuilt, never loaded; a cache folder others can write or another user owns is refused with
one message. A warm load in a fresh process renders no C.

Every case runs in a temporary HANSA_CACHE, copied from one cache built once for the module; the
loads that could crash a process (a truncated extension) run in a subprocess."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from clock_support import HANG_GUARD
from hansa.compiler.errors import HansaError
from hansa.compiler.targets.native import build
from play_support import needs_c_compiler

import hansa

pytestmark = needs_c_compiler

GAME = "bigbox-hanseatic-3p"  # among the cheapest games to build
NOBODY = 65534

# A fresh process loads the game natively, plays a few decisions and says what it imported.
LOAD = """
import json, sys, time
started = time.perf_counter()
import hansa
game = hansa.load_game(sys.argv[1], backend="native")
seconds = time.perf_counter() - started
state = game.new_initial_state(3)
for _ in range(20):
    state.apply_action(state.legal_actions()[0])
print(json.dumps({
    "seconds": seconds,
    "native": type(state).__module__ != "hansa.generated",
    "codegen": "hansa.compiler.targets.native.codegen" in sys.modules,
    "jinja2": "jinja2" in sys.modules,
    "player": state.current_player(),
}))
"""


def load_in_fresh_process(cache: Path) -> tuple[subprocess.CompletedProcess, dict | None]:
    env = {**os.environ, "HANSA_CACHE": str(cache)}
    done = subprocess.run(
        [sys.executable, "-c", LOAD, GAME],
        capture_output=True,
        text=True,
        env=env,
        timeout=HANG_GUARD,
    )
    facts = json.loads(done.stdout.splitlines()[-1]) if done.returncode == 0 else None
    return done, facts


@pytest.fixture(scope="module")
def pristine(tmp_path_factory) -> Path:
    """A cache holding the game's extension, its record and the game record, built once."""
    cache = tmp_path_factory.mktemp("pristine-cache")
    done, facts = load_in_fresh_process(cache)
    assert done.returncode == 0, done.stderr
    assert facts["codegen"]  # a cold load renders the C
    return cache


@pytest.fixture
def cache(pristine, tmp_path, monkeypatch) -> Path:
    """A copy of the pristine cache, this test's HANSA_CACHE (nothing of it loaded yet)."""
    copy = tmp_path / "cache"
    shutil.copytree(pristine, copy, symlinks=True)
    monkeypatch.setenv("HANSA_CACHE", str(copy))
    monkeypatch.setattr(build, "_LOADED", {})
    return copy


def extension(cache: Path) -> Path:
    (found,) = (cache / "native").glob(f"hansa_native_*{build.SUFFIX}")
    return found


def record_of(cache: Path) -> Path:
    return extension(cache).with_name(extension(cache).name[: -len(build.SUFFIX)] + ".json")


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def assert_rebuilt(cache: Path) -> None:
    """A fresh process loads the game (no crash), after which the extension is a regular file
    whose hash its record holds."""
    so, record = extension(cache), record_of(cache)
    assert build.verified_extension(so.name[: -len(build.SUFFIX)]) is None  # not loadable as is
    done, facts = load_in_fresh_process(cache)
    assert done.returncode == 0, done.stderr  # not a bus error, not an ImportError
    assert facts["native"] and facts["codegen"]  # rebuilt from its C source
    assert not so.is_symlink() and stat.S_ISREG(so.lstat().st_mode)
    assert not record.is_symlink()
    assert json.loads(record.read_text())["sha256"] == sha256(so)
    assert build.verified_extension(so.name[: -len(build.SUFFIX)]) == so


def test_a_fresh_cache_is_private_and_records_the_extension_hash(pristine):
    for folder in (pristine, pristine / "native"):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    record = json.loads(record_of(pristine).read_text())
    assert record["sha256"] == sha256(extension(pristine))
    assert record["uid"] == os.geteuid()
    c_source = extension(pristine).name[: -len(build.SUFFIX)] + ".c"
    assert record["source_sha256"] == sha256(pristine / "native" / c_source)


@pytest.mark.parametrize("damage", ["truncated", "random bytes", "another extension"])
def test_a_damaged_or_foreign_extension_is_rebuilt_not_loaded(cache, damage):
    so = extension(cache)
    data = so.read_bytes()
    if damage == "truncated":
        so.write_bytes(data[: len(data) // 2])  # loading it would be a bus error
    elif damage == "random bytes":
        so.write_bytes(os.urandom(len(data)))
    else:  # a valid extension, of another module: an ImportError before
        import _decimal

        so.write_bytes(Path(_decimal.__file__).read_bytes())
    assert_rebuilt(cache)


def test_a_planted_extension_without_a_record_is_rebuilt(cache):
    import _decimal

    shutil.copyfile(_decimal.__file__, extension(cache))
    record_of(cache).unlink()
    assert_rebuilt(cache)


def test_a_genuine_extension_whose_record_is_missing_is_not_trusted(cache):
    record_of(cache).unlink()
    assert_rebuilt(cache)


def test_a_planted_extension_with_a_forged_record_is_rebuilt(cache):
    """A record that names the planted file's hash but is not this user's (or says another uid,
    or is of another format) vouches for nothing."""
    import _decimal

    so, record = extension(cache), record_of(cache)
    shutil.copyfile(_decimal.__file__, so)
    forged = json.loads(record.read_text())
    forged["sha256"] = sha256(so)
    for change in ({"uid": os.geteuid() + 1}, {"format": 99}):
        record.write_text(json.dumps({**forged, **change}))
        assert build.verified_extension(so.name[: -len(build.SUFFIX)]) is None
    record.write_text(json.dumps(forged))
    if os.geteuid() == 0:  # a record owned by another user
        os.chown(record, NOBODY, NOBODY)
        assert build.verified_extension(so.name[: -len(build.SUFFIX)]) is None
    else:
        record.write_text("{not json")
    assert_rebuilt(cache)


@pytest.mark.parametrize("linked", ["extension", "record"])
def test_a_link_in_place_of_the_extension_or_its_record_is_replaced_not_followed(
    cache, tmp_path, linked
):
    """The link points at a genuine copy (following it would verify): it is refused anyway."""
    path = extension(cache) if linked == "extension" else record_of(cache)
    elsewhere = tmp_path / "elsewhere"
    shutil.copyfile(path, elsewhere)
    kept = elsewhere.read_bytes()
    path.unlink()
    path.symlink_to(elsewhere)
    assert_rebuilt(cache)
    assert elsewhere.read_bytes() == kept  # nothing written through the link


def test_a_warm_load_in_a_fresh_process_renders_no_c(pristine, capsys):
    """The game record names the verified extension and the Python module's hash: no spec is
    compiled and no C rendered (codegen and jinja2 are never imported). The time is printed as a
    benchmark, not asserted."""
    done, facts = load_in_fresh_process(pristine)
    assert done.returncode == 0, done.stderr
    assert facts["native"] and not facts["codegen"] and not facts["jinja2"]
    with capsys.disabled():
        print(f"\nwarm native load of {GAME} in a fresh process: {facts['seconds']:.3f} s")


def test_a_game_record_that_does_not_verify_falls_back_to_compiling(cache):
    (record,) = (cache / "native").glob("game-*.json")
    data = json.loads(record.read_text())
    record.write_text(json.dumps({**data, "python_text": data["python_text"] + "\nBOOM = 1\n"}))
    done, facts = load_in_fresh_process(cache)
    assert done.returncode == 0, done.stderr
    assert facts["codegen"]  # compiled again (the extension itself was still good)
    assert "BOOM" not in json.loads(record.read_text())["python_text"]


def test_the_key_changes_with_any_spec_file(tmp_path):
    from hansa.native import game_key, installed_spec

    spec = tmp_path / "spec"
    shutil.copytree(installed_spec(), spec)
    before = game_key(GAME, str(spec))
    assert game_key(GAME, str(spec)) == before
    board = next(spec.rglob("*.hansa"))
    board.write_text(board.read_text() + "\n")
    assert game_key(GAME, str(spec)) != before
    assert game_key("bigbox-hanseatic-45p", str(spec)) != game_key(GAME, str(spec))


def _unsafe(cache: Path, how: str) -> Path:
    folder = cache if how == "world-writable" else cache / "native"
    if how == "world-writable":
        folder.chmod(0o777)
    else:
        os.chown(folder, NOBODY, NOBODY)
    return folder


@pytest.mark.parametrize("how", ["world-writable", "owned by another user"])
def test_an_unsafe_cache_folder_is_refused_with_one_message(cache, how, capsys):
    if how != "world-writable" and os.geteuid() != 0:
        pytest.skip("chown to another user needs root")
    folder = _unsafe(cache, how)
    why = "writable by group or others" if how == "world-writable" else "owned by uid 65534"
    with pytest.raises(HansaError) as error:
        hansa.load_game(GAME, backend="native")
    assert str(folder) in error.value.message and why in error.value.message
    assert "HANSA_CACHE" in error.value.message
    with pytest.raises(HansaError, match="not safe to use"):
        build.build_extension(_any_c_source(cache))

    from hansa.cli import main

    command = ["simulate", GAME, "-n", "1", "--jobs", "1", "--backend", "native"]
    assert main(command) == 1
    err = capsys.readouterr().err
    assert "not safe to use" in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def _any_c_source(cache: Path) -> str:
    (source,) = (cache / "native").glob("hansa_native_*.c")
    return source.read_text()


def test_backend_auto_searches_the_python_position_when_the_cache_is_refused(cache):
    from hansa.play.mcts import native_copy_game

    _unsafe(cache, "world-writable")
    game = hansa.load_game(GAME)
    assert native_copy_game(vars(game.module), 3, False) is None  # backend auto: Python
    with pytest.raises(HansaError, match="not safe to use"):
        native_copy_game(vars(game.module), 3, True)  # backend native: the message


def test_a_study_without_a_c_compiler_plays_and_says_so_in_one_line(tmp_path, monkeypatch, capsys):
    """No C compiler: `strong` searches Python positions, the study is played all the same, and
    one line on stderr says so, naming the reason."""
    from hansa.cli import main

    monkeypatch.setenv("HANSA_CACHE", str(tmp_path / "empty-cache"))
    monkeypatch.setenv("CC", str(tmp_path / "no-such-cc"))
    monkeypatch.setattr(build, "_LOADED", {})
    command = ["simulate", GAME, "-n", "1", "--jobs", "1", "--agents", "strong:iterations=2"]
    assert main([*command, "--json"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["games"] == 1
    (note,) = err.strip().splitlines()
    assert note.startswith("note: strong:iterations=2 will search Python positions")
    assert "C compiler" in note and "Traceback" not in err


def test_a_link_in_place_of_the_game_record_is_not_followed(cache, tmp_path):
    (record,) = (cache / "native").glob("game-*.json")
    elsewhere = tmp_path / "elsewhere.json"
    shutil.copyfile(record, elsewhere)
    kept = elsewhere.read_bytes()
    record.unlink()
    record.symlink_to(elsewhere)
    done, facts = load_in_fresh_process(cache)
    assert done.returncode == 0, done.stderr
    assert facts["codegen"]  # compiled again: the link vouches for nothing
    assert not record.is_symlink() and elsewhere.read_bytes() == kept
