"""check ⇒ build: whatever `hansa check` accepts, `hansa build` compiles; what the build would
refuse, check reports first, at the place that causes it."""

from __future__ import annotations

import shutil
from pathlib import Path

from hansa.compiler.build import checks as model  # the build stage of check, as check calls it
from hansa.compiler.errors import HansaError, Span
from hansa.compiler.project import load_project

from hansa.cli import main

ROOT = Path(__file__).resolve().parents[2]


def spec_with(tmp_path: Path, text: str) -> Path:
    spec = tmp_path / "spec"
    (spec / "boards").mkdir(parents=True)
    shutil.copy(ROOT / "spec/bigbox_2021.hansa", spec)
    shutil.copy(ROOT / "spec/boards/hanseatic_45p.hansa", spec / "boards")
    (spec / "house.hansa").write_text(text, encoding="utf-8")
    return spec


HOUSE = "rules h extends bigbox_2021 {\n    BODY\n}\ngame h-game = h on hanseatic_45p players 4\n"


def test_a_score_key_that_is_not_one_capital_letter_fails_check_not_only_build(tmp_path, capsys):
    """`score a network` used to pass check and fail build ('must be one capital letter')."""
    spec = spec_with(tmp_path, HOUSE.replace("BODY", "score a network"))
    assert main(["check", str(spec)]) == 1
    err = capsys.readouterr().err
    assert f"{spec / 'house.hansa'}:2:5: error: score category key 'a' must be one capital" in err
    assert err.count("error:") == 1
    out = tmp_path / "out"
    assert main(["build", "--spec", str(spec), "--out", str(out)]) == 1
    assert not out.exists()


def test_a_capital_letter_key_of_its_own_passes_check_and_builds(tmp_path, capsys):
    spec = spec_with(tmp_path, HOUSE.replace("BODY", "score H network"))
    assert main(["check", str(spec)]) == 0
    assert main(["build", "--spec", str(spec), "--out", str(tmp_path / "out")]) == 0
    assert (tmp_path / "out" / "h_game.py").exists()


def test_check_reports_what_the_model_stage_of_the_build_refuses(tmp_path, monkeypatch):
    """Whatever the code generator refuses reaches check as a diagnostic: at the span it names,
    or at the game's declaration when it names none."""
    spec = spec_with(tmp_path, HOUSE.replace("BODY", "score H network"))
    where = Span(str(spec / "house.hansa"), 2, 5)
    refusals = iter(
        [HansaError("the templates cannot do this", where), HansaError("nor this, anywhere")]
    )

    def refusing(game, rules, board):
        raise next(refusals)

    monkeypatch.setattr(model, "build_model", refusing)
    project = load_project([spec])
    errors = [d for d in project.diagnostics if d.severity == "error"]
    assert [(d.message, d.span) for d in errors] == [("the templates cannot do this", where)]
    project = load_project([spec])
    errors = [d for d in project.diagnostics if d.severity == "error"]
    assert [d.message for d in errors] == ["nor this, anywhere"]
    assert (errors[0].span.file, errors[0].span.line) == (str(spec / "house.hansa"), 4)


def test_a_game_with_errors_of_its_own_gets_no_second_error_from_the_build_stage(
    tmp_path, monkeypatch
):
    """One mistake, one error: a game whose declaration is already wrong is not modelled."""
    spec = spec_with(tmp_path, HOUSE.replace("BODY", "score H network").replace("4\n", "7\n"))
    called = []
    monkeypatch.setattr(model, "build_model", lambda *args: called.append(args))
    project = load_project([spec])
    errors = [d for d in project.diagnostics if d.severity == "error"]
    assert len(errors) == 1 and "7 players" in errors[0].message
    assert called == []


def test_the_bundled_games_pass_the_build_stage_in_check():
    project = load_project([ROOT / "spec"])
    assert [d for d in project.diagnostics if d.severity == "error"] == []
