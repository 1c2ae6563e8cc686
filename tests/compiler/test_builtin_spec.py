"""The built-in spec as a library: a spec folder of one's own uses the shipped boards and rule sets
(`extends bigbox_2021`, `on hanseatic_45p`) without copying them, and a declaration of the same name
in one's own folder takes precedence (compiler/project.py, `LIBRARY_DIR`)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import hansa.compiler
from hansa.compiler.project import load_project

from hansa.cli import main
from hansa.resolve import load_game, spec_digest

ROOT = Path(__file__).resolve().parents[2]

CATCH_UP = """\
# A catch-up house rule, written against the built-in Big Box and Hanseatic board.
rules catch_up "Catch-up" extends bigbox_2021 {
    at turn start: gain 1 PP if rank = players
}
game catch-up-45p = catch_up on hanseatic_45p players 4..5
"""


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def test_a_house_rule_alone_in_a_folder_checks_builds_and_plays(
    tmp_path: Path, monkeypatch, capsys
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HANSA_CACHE", str(tmp_path / "cache"))
    write(tmp_path / "mine", "catch_up.hansa", CATCH_UP)
    code, out, err = run(capsys, "check", "mine")
    assert code == 0, out + err
    # counts are of the folder's own declarations, not of the built-in ones it uses
    assert "checked 1 file (0 boards, 1 rule set, 1 game): 0 errors" in out
    code, out, err = run(capsys, "play", "catch-up-45p", "--spec", "mine", "--players", "4")
    assert code == 0, err
    assert out.startswith("catch-up-45p: 4 players")
    code, out, err = run(capsys, "build", "--spec", "mine", "--out", "built")
    assert code == 0, err
    assert sorted(p.name for p in (tmp_path / "built").glob("*.py")) == [
        "_index.py",
        "catch_up_45p.py",
    ]


def test_a_misspelt_built_in_name_is_one_error_with_the_right_guess(tmp_path: Path, capsys) -> None:
    write(
        tmp_path / "mine", "r.hansa", CATCH_UP.replace("extends bigbox_2021", "extends bigbox_2012")
    )
    code, out, err = run(capsys, "check", str(tmp_path / "mine"))
    assert code == 1
    assert err.count("error:") == 1, err
    assert (
        "r.hansa:2:35: error: unknown rule set 'bigbox_2012' (did you mean 'bigbox_2021'?)" in err
    )
    write(tmp_path / "b", "r.hansa", CATCH_UP.replace("on hanseatic_45p", "on hanseatic_54p"))
    code, out, err = run(capsys, "check", str(tmp_path / "b"))
    assert code == 1 and err.count("error:") == 1, err
    assert "unknown board 'hanseatic_54p' (did you mean 'hanseatic_45p'?)" in err


def test_ones_own_declaration_of_a_built_in_name_takes_precedence(tmp_path: Path) -> None:
    edition = (ROOT / "spec" / "bigbox_2021.hansa").read_text(encoding="utf-8")
    assert "end when track_pp >= 20" in edition
    folder = tmp_path / "mine"
    write(folder, "bigbox_2021.hansa", edition.replace("track_pp >= 20", "track_pp >= 12"))
    write(folder, "catch_up.hansa", CATCH_UP)
    project = load_project([folder])
    assert not project.errors
    assert project.rulesets["bigbox_2021"].span.file == str(folder / "bigbox_2021.hansa")
    assert ("boards", "hanseatic_45p") in project.from_library
    assert ("rulesets", "bigbox_2021") not in project.from_library
    game = load_game("catch-up-45p", 4, spec=folder)
    assert vars(game.module)["END_TRACK_PP"] == 12


def test_a_single_file_of_the_bundled_spec_checks_on_its_own(capsys) -> None:
    code, out, _ = run(capsys, "check", str(ROOT / "spec" / "house" / "short_game.hansa"))
    assert code == 0, out
    assert "0 errors" in out


def test_diff_names_built_in_rule_sets_without_a_spec_folder(
    tmp_path: Path, monkeypatch, capsys
) -> None:
    monkeypatch.chdir(tmp_path)  # no ./spec here
    code, out, err = run(capsys, "diff", "original_2009", "bigbox_2021")
    assert code == 1, err  # as diff(1): 1 means "different"
    assert "A: rules 'original_2009'" in out and "B: rules 'bigbox_2021'" in out
    write(tmp_path / "spec", "catch_up.hansa", CATCH_UP)
    code, out, err = run(capsys, "diff", "bigbox_2021", "catch_up", "-f", "json")
    assert code == 1, err
    assert "at turn start" in json.dumps(json.loads(out))


def test_the_cache_key_covers_the_built_in_spec(tmp_path: Path, monkeypatch) -> None:
    folder = tmp_path / "mine"
    write(folder, "catch_up.hansa", CATCH_UP)
    library = tmp_path / "library"
    shutil.copytree(ROOT / "spec", library)
    monkeypatch.setattr(hansa.compiler, "LIBRARY_DIR", library)
    before = spec_digest(folder)
    path = library / "bigbox_2021.hansa"
    path.write_text(path.read_text(encoding="utf-8") + "\n# changed\n", encoding="utf-8")
    assert spec_digest(folder) != before
