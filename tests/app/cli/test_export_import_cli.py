"""`hansa import`, `hansa export` and `hansa fmt` through the CLI: outputs, exit codes, clear
errors, and atomic writes (a failure leaves files as they were and no temporary files behind)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hansa.compiler.board.format import format_board
from hansa.compiler.board.json_io import load_board_json

from hansa.cli import main

ROOT = Path(__file__).resolve().parents[3]
FIXTURES = ROOT / "tests" / "fixtures" / "boards"
BOARD_IDS = ["hanseatic_3p", "hanseatic_45p", "eastern", "britannia_3p", "britannia_45p"]

MESSY = """# my board
board mine "Mine" { players 3
  city Beta {round pink}   city Alpha { square white coin 1 }
  route Beta -- Alpha: 2 tavern
}
"""
CANONICAL = """# my board
board mine "Mine" {
    players 3
    completed_cities 10

    city Alpha { square white coin 1 }
    city Beta { round pink }

    route Alpha -- Beta: 2 tavern
}
"""


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


# --------------------------------------------------------------------------- import


@pytest.mark.parametrize("board_id", BOARD_IDS)
def test_import_prints_the_spec_board(capsys, board_id: str) -> None:
    code, out, err = run_cli(capsys, "import", str(FIXTURES / f"{board_id}.json"))
    assert code == 0 and err == ""
    spec = (ROOT / "spec" / "boards" / f"{board_id}.hansa").read_text(encoding="utf-8")
    assert out.startswith(f'board {board_id} "')
    assert spec.endswith(out)  # the spec file is the import output under a header comment


@pytest.mark.parametrize("board_id", BOARD_IDS)
def test_import_to_file_then_fmt_check_and_export_round_trip(
    capsys, tmp_path: Path, board_id: str
) -> None:
    target = tmp_path / f"{board_id}.hansa"
    source = FIXTURES / f"{board_id}.json"
    code, out, _ = run_cli(capsys, "import", str(source), "-o", str(target))
    assert code == 0 and out == ""
    assert run_cli(capsys, "fmt", "--check", str(target))[0] == 0
    code, out, _ = run_cli(capsys, "export", str(target), "--json")
    assert code == 0
    assert out == source.read_text(encoding="utf-8")
    assert leftovers(tmp_path) == []


def test_import_bad_field_names_it_and_writes_nothing(capsys, tmp_path: Path) -> None:
    data = json.loads((FIXTURES / "hanseatic_3p.json").read_text(encoding="utf-8"))
    data["cities"][2]["offices"][0]["privilege"] = "gold"
    source = tmp_path / "bad.json"
    source.write_text(json.dumps(data), encoding="utf-8")
    target = tmp_path / "out.hansa"
    code, out, err = run_cli(capsys, "import", str(source), "-o", str(target))
    assert code == 1 and out == ""
    assert err.startswith(f"{source}: error: cities[2] (")
    assert ".offices[0].privilege: unknown privilege colour 'gold'" in err
    assert "Traceback" not in err
    assert not target.exists() and leftovers(tmp_path) == []


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "no such file"),
        (b"", "empty file"),
        (b"[1, 2", "not valid JSON"),
        (b"\xff\xfe", "not UTF-8"),
        (b'{"schema_version": 1}', "id: missing field"),
    ],
)
def test_import_unreadable_input_is_one_clear_line(
    capsys, tmp_path: Path, content: bytes | None, message: str
) -> None:
    source = tmp_path / "in.json"
    if content is not None:
        source.write_bytes(content)
    code, out, err = run_cli(capsys, "import", str(source))
    assert code == 1 and out == ""
    assert err.startswith(str(source)) and message in err
    assert len(err.strip().splitlines()) <= 3  # one line (plus source line and caret for JSON)


# --------------------------------------------------------------------------- export


@pytest.mark.parametrize("board_id", BOARD_IDS)
def test_export_by_name_is_the_reference_file(capsys, monkeypatch, board_id: str) -> None:
    monkeypatch.chdir(ROOT)
    code, out, err = run_cli(capsys, "export", board_id, "--json")
    assert code == 0, err
    assert out == (FIXTURES / f"{board_id}.json").read_text(encoding="utf-8")


def test_export_to_file(capsys, tmp_path: Path) -> None:
    target = tmp_path / "h.json"
    spec = ROOT / "spec" / "boards" / "hanseatic_3p.hansa"
    code, out, _ = run_cli(capsys, "export", str(spec), "-o", str(target))
    assert code == 0 and out == ""
    assert json.loads(target.read_text(encoding="utf-8")) == json.loads(
        (FIXTURES / "hanseatic_3p.json").read_text(encoding="utf-8")
    )


def test_export_of_a_broken_board_fails_with_locations(capsys, tmp_path: Path) -> None:
    spec = tmp_path / "broken.hansa"
    spec.write_text(CANONICAL.replace("Alpha -- Beta", "Alpha -- Gamma"), encoding="utf-8")
    target = tmp_path / "out.json"
    code, out, err = run_cli(capsys, "export", str(spec), "-o", str(target))
    assert code == 1 and out == ""
    assert f"{spec}:9:" in err and "Gamma" in err
    assert not target.exists() and leftovers(tmp_path) == []


def test_export_prints_warnings_and_still_exports(capsys, tmp_path: Path) -> None:
    spec = tmp_path / "quiet.hansa"
    spec.write_text(
        CANONICAL.replace(" tavern", "").replace("completed_cities 10", "completed_cities 2"),
        encoding="utf-8",
    )
    code, out, err = run_cli(capsys, "export", str(spec))
    assert code == 0
    assert json.loads(out)["routes"][0]["tavern"] is False
    assert f"{spec}:2:1: warning: no route has a tavern" in err


def test_export_refuses_a_json_file(capsys) -> None:
    code, out, err = run_cli(capsys, "export", str(FIXTURES / "eastern.json"))
    assert code == 1 and out == ""
    assert "is a JSON file" in err and "hansa import" in err


# --------------------------------------------------------------------------- fmt


def test_fmt_rewrites_then_leaves_alone(capsys, tmp_path: Path) -> None:
    spec = tmp_path / "mine.hansa"
    spec.write_text(MESSY, encoding="utf-8")
    code, out, _ = run_cli(capsys, "fmt", "--check", str(tmp_path))
    assert code == 1 and out == f"would reformat {spec}\n"
    assert spec.read_text(encoding="utf-8") == MESSY  # --check writes nothing
    code, out, err = run_cli(capsys, "fmt", str(spec))
    assert code == 0 and out == f"reformatted {spec}\n" and "1 file reformatted" in err
    assert spec.read_text(encoding="utf-8") == CANONICAL
    before = spec.stat().st_mtime_ns, spec.stat().st_ino
    code, out, err = run_cli(capsys, "fmt", str(spec))
    assert code == 0 and out == "" and "0 files reformatted, 1 unchanged" in err
    assert (spec.stat().st_mtime_ns, spec.stat().st_ino) == before  # not rewritten
    assert run_cli(capsys, "fmt", "--check", str(spec))[0] == 0
    assert leftovers(tmp_path) == []


def test_fmt_check_on_the_bundled_spec_is_clean(capsys) -> None:
    code, out, err = run_cli(capsys, "fmt", "--check", str(ROOT / "spec"))
    assert code == 0, out + err
    assert out == ""


def test_fmt_leaves_a_broken_file_untouched_and_formats_the_rest(capsys, tmp_path: Path) -> None:
    good = tmp_path / "a.hansa"
    good.write_text(MESSY, encoding="utf-8")
    broken_text = MESSY.replace("{round pink}", "{round pnk}")
    broken = tmp_path / "b.hansa"
    broken.write_text(broken_text, encoding="utf-8")
    code, out, err = run_cli(capsys, "fmt", str(tmp_path))
    assert code == 1
    assert good.read_text(encoding="utf-8") == CANONICAL
    assert broken.read_text(encoding="utf-8") == broken_text
    assert f"{broken}:3:" in err and "unknown privilege colour 'pnk'" in err
    assert f"{broken}: left unchanged" in err and "1 failed" in err


def test_fmt_write_failure_leaves_the_file_as_it_was(capsys, tmp_path: Path, monkeypatch) -> None:
    spec = tmp_path / "mine.hansa"
    spec.write_text(MESSY, encoding="utf-8")

    def refuse(*_args, **_kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", refuse)
    code, out, err = run_cli(capsys, "fmt", str(spec))
    assert code == 1
    assert "cannot write: No space left on device" in err and str(spec) in err
    assert spec.read_text(encoding="utf-8") == MESSY
    assert leftovers(tmp_path) == []


def test_fmt_keeps_file_mode(capsys, tmp_path: Path) -> None:
    spec = tmp_path / "mine.hansa"
    spec.write_text(MESSY, encoding="utf-8")
    spec.chmod(0o640)
    assert run_cli(capsys, "fmt", str(spec))[0] == 0
    assert spec.stat().st_mode & 0o777 == 0o640


def test_fmt_missing_path(capsys, tmp_path: Path) -> None:
    code, _, err = run_cli(capsys, "fmt", str(tmp_path / "nothing-here"))
    assert code == 1 and "nothing-here" in err and "Traceback" not in err


# --------------------------------------------------------------------------- console script


def hansa_script() -> str:
    beside = Path(sys.executable).parent / "hansa"
    found = str(beside) if beside.exists() else shutil.which("hansa")
    assert found, "the hansa console script is not installed"
    return found


def test_console_script_import_and_error(tmp_path: Path) -> None:
    script = hansa_script()
    target = tmp_path / "b.hansa"
    done = subprocess.run(
        [script, "import", str(FIXTURES / "britannia_45p.json"), "-o", str(target)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert target.read_text(encoding="utf-8") == format_board(
        load_board_json(FIXTURES / "britannia_45p.json")
    )
    done = subprocess.run(
        [script, "import", str(tmp_path / "missing.json")], capture_output=True, text=True
    )
    assert done.returncode == 1
    assert done.stderr.strip() == f"{tmp_path / 'missing.json'}: error: no such file"
