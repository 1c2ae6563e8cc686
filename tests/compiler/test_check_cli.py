"""`hansa check` and the project loader: output format, exit codes, bad paths, registry hooks."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from clock_support import HANG_GUARD
from hansa.compiler import project as project_module
from hansa.compiler.errors import Diagnostic, HansaError
from hansa.compiler.project import (
    find_spec_files,
    load_board,
    load_project,
    register_checker,
    register_lowerer,
)

from hansa.cli import main

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "spec"

GOOD_BOARD = """\
board mini "Mini" {
    east_west A -- B
    completed_cities 2
    city A { square white }
    city B { round pink }
    route A -- B: 2 tavern
}
"""


def run_check(capsys, *args: str) -> tuple[int, str, str]:
    code = main(["check", *args])
    out, err = capsys.readouterr()
    return code, out, err


def write(folder: Path, name: str, text: str | bytes) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def test_the_printed_boards_are_clean(capsys) -> None:
    code, out, err = run_check(capsys, str(SPEC / "boards"))
    assert (code, err) == (0, "")
    assert out == "checked 5 files (5 boards, 0 rule sets, 0 games): 0 errors, 0 warnings\n"


def test_the_whole_spec_folder_is_clean(capsys) -> None:
    code, out, err = run_check(capsys, str(SPEC))
    assert err == ""
    assert code == 0
    assert out.startswith("checked ") and out.endswith(": 0 errors, 0 warnings\n")


def test_spec_is_the_default_path(capsys, monkeypatch) -> None:
    monkeypatch.chdir(ROOT)
    code, out, err = run_check(capsys)
    assert code == 0
    assert out.startswith(f"checked {len(find_spec_files([SPEC]))} files (6 boards, ")


def test_errors_are_printed_with_location_source_line_and_caret(tmp_path: Path, capsys) -> None:
    path = write(tmp_path, "bad.hansa", GOOD_BOARD.replace("round pink", "round pnik"))
    code, out, err = run_check(capsys, str(path))
    assert code == 1
    assert err == (
        f"{path}:5:20: error: unknown privilege colour 'pnik' (did you mean 'pink'?); "
        "expected one of: white, orange, pink, black\n"
        "        city B { round pnik }\n"
        "                       ^~~~\n"
    )
    assert out == "checked 1 file (0 boards, 0 rule sets, 0 games): 1 error, 0 warnings\n"


def test_all_files_are_reported_in_order(tmp_path: Path, capsys) -> None:
    write(
        tmp_path, "a_syntax.hansa", GOOD_BOARD.replace("city A", "cty A").replace("-- B:", "-- B")
    )
    write(tmp_path, "b_lower.hansa", GOOD_BOARD.replace("mini", "m2").replace("e white", "e whit"))
    write(
        tmp_path, "sub/c_check.hansa", GOOD_BOARD.replace("mini", "mini3").replace("B: 2", "B: 7")
    )
    code, out, err = run_check(capsys, str(tmp_path))
    assert code == 1
    heads = [line for line in err.splitlines() if ": error: " in line]
    assert [h.split(": error: ")[0] for h in heads] == [
        f"{tmp_path}/a_syntax.hansa:4:5",
        f"{tmp_path}/a_syntax.hansa:6:18",
        f"{tmp_path}/b_lower.hansa:4:21",
        f"{tmp_path}/sub/c_check.hansa:6:5",
    ]
    assert "Traceback" not in err
    assert out == "checked 3 files (1 board, 0 rule sets, 0 games): 4 errors, 0 warnings\n"


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("empty.hansa", "", "empty file"),
        ("binary.hansa", b"\x89PNG\r\n\x1a\n\x00\x00", "binary file, not a spec file"),
        (
            "latin.hansa",
            'board b "Lübeck" { }'.encode("latin-1"),
            "not UTF-8 text (bad byte at offset 10)",
        ),
    ],
)
def test_unreadable_files_get_one_clear_line(
    tmp_path: Path, capsys, name, content, message
) -> None:
    path = write(tmp_path, name, content)
    code, out, err = run_check(capsys, str(path))
    assert code == 1
    assert err == f"{path}: error: {message}\n"


def test_missing_path_and_folder_without_spec_files(tmp_path: Path, capsys) -> None:
    assert main(["check", str(tmp_path / "nope.hansa")]) == 1
    assert (
        capsys.readouterr().err == f"{tmp_path / 'nope.hansa'}: error: no such file or directory\n"
    )
    (tmp_path / "notes.txt").write_text("not a spec")
    assert main(["check", str(tmp_path)]) == 1
    assert capsys.readouterr().err == f"{tmp_path}: error: no spec files (*.hansa) in {tmp_path}\n"


def test_warnings_pass_unless_strict(tmp_path: Path, capsys) -> None:
    path = write(tmp_path, "w.hansa", GOOD_BOARD.replace(" tavern", ""))
    code, out, err = run_check(capsys, str(path))
    assert code == 0
    assert ": warning: no route has a tavern" in err
    assert out.endswith("0 errors, 1 warning\n")
    code, out, err = run_check(capsys, "--strict", str(path))
    assert code == 1
    code, out, err = run_check(capsys, "--quiet", str(path))
    assert out == ""


def test_duplicate_names_across_files_give_both_locations(tmp_path: Path, capsys) -> None:
    first = write(tmp_path, "one.hansa", GOOD_BOARD)
    second = write(tmp_path, "two.hansa", "# again\n" + GOOD_BOARD)
    code, out, err = run_check(capsys, str(tmp_path))
    assert code == 1
    assert err.splitlines()[0] == (
        f"{second}:2:1: error: board 'mini' is declared twice; it was first declared at {first}:1:1"
    )


def test_the_command_line_never_shows_a_traceback(tmp_path: Path) -> None:
    path = write(
        tmp_path, "bad.hansa", 'board b "B" {\n  city A { square white }\n  route A -- :\n'
    )
    result = subprocess.run(
        [sys.executable, "-m", "hansa", "check", str(path)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": ""},
        timeout=HANG_GUARD,
    )
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert result.stderr.startswith(f"{path}:3:14: error: unexpected ':'; expected a name")


# ------------------------------------------------------------------------------ project loader


def test_find_spec_files_searches_folders_and_skips_hidden_ones(tmp_path: Path) -> None:
    a = write(tmp_path, "a.hansa", GOOD_BOARD)
    b = write(tmp_path, "deep/er/b.hansa", GOOD_BOARD)
    write(tmp_path, ".hidden/c.hansa", GOOD_BOARD)
    write(tmp_path, "deep/readme.md", "x")
    assert find_spec_files([tmp_path]) == [a, b]
    assert find_spec_files([a, tmp_path, a]) == [a, b]  # each file once
    with pytest.raises(HansaError, match="no spec files or folders given"):
        find_spec_files([])


def test_project_holds_sources_and_declarations(tmp_path: Path) -> None:
    path = write(tmp_path, "a.hansa", GOOD_BOARD)
    project = load_project([path])
    assert list(project.boards) == ["mini"]
    assert project.sources == {str(path): GOOD_BOARD}
    assert project.files == [path]
    assert project.diagnostics == [] and project.errors == [] and project.warnings == []
    project.raise_for_errors()


def test_registered_lowerers_and_checkers_are_used(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(project_module, "LOWERERS", dict(project_module.LOWERERS))
    monkeypatch.setattr(project_module, "CHECKERS", list(project_module.CHECKERS))

    def lower_as_name(tree, file):
        class Named:
            name = "renamed"

        return Named()

    def count_boards(project):
        return [Diagnostic(f"{len(project.extras)} extras", None, "warning")]

    register_lowerer("board", "extras", lower_as_name)
    register_checker(count_boards)
    register_checker(count_boards)  # registering twice runs it once
    project = load_project([write(tmp_path, "a.hansa", GOOD_BOARD)])
    assert list(project.extras) == ["renamed"]
    assert [d.message for d in project.diagnostics] == ["1 extras"]


def test_load_board_by_name_and_by_file(tmp_path: Path, monkeypatch) -> None:
    path = write(tmp_path, "spec/boards/mini.hansa", GOOD_BOARD)
    write(tmp_path, "spec/other.hansa", GOOD_BOARD.replace("mini", "maxi"))
    monkeypatch.chdir(tmp_path)
    assert load_board("mini").id == "mini"
    assert load_board(str(path)).id == "mini"
    assert load_board("spec/boards/mini.hansa").span.file == "spec/boards/mini.hansa"
    with pytest.raises(HansaError) as info:
        load_board("mnii")
    assert (
        info.value.message
        == "no board named 'mnii' in spec/ nor built in (did you mean 'mini'?) (boards in spec/:"
        " maxi, mini; `hansa list` shows the built-in ones)"
    )
    with pytest.raises(HansaError, match="no such file"):
        load_board("spec/missing.hansa")


def test_load_board_refuses_a_board_with_errors(tmp_path: Path, monkeypatch) -> None:
    write(tmp_path, "spec/bad.hansa", GOOD_BOARD.replace("B: 2", "B: 9"))
    write(
        tmp_path,
        "spec/two.hansa",
        GOOD_BOARD.replace("mini", "one") + GOOD_BOARD.replace("mini", "two"),
    )
    monkeypatch.chdir(tmp_path)
    with pytest.raises(HansaError) as info:
        load_board("mini")
    assert info.value.message == "route A -- B has 9 points; a route has 2 to 4"
    with pytest.raises(HansaError, match="expected one board in the file, found 2"):
        load_board("spec/two.hansa")
    monkeypatch.chdir(tmp_path / "spec")
    with pytest.raises(HansaError, match="no spec/ folder"):
        load_board("mini")
