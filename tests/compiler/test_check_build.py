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


# ------------------------------------------------------------- what a caller keeps between checks

STALL_GAMES = ("no-bullying-hanseatic-45p", "three-full-abilities-hanseatic-45p")


def _module_text(project, name: str) -> str:
    from hansa.compiler.targets.python.codegen import build_game_module

    game = project.games[name]
    rules = project.resolved_rulesets[game.rules]
    return build_game_module(game, rules, project.boards[game.board], project.sources)


def _functions(module) -> dict[str, tuple[int, str]]:
    return {
        name: (value.__code__.co_firstlineno, value.__code__.co_filename)
        for name, value in vars(module).items()
        if callable(value) and hasattr(value, "__code__")
    }


def test_a_module_run_statement_by_statement_is_the_module_run_whole():
    """check ⇒ build runs a game's module compiled one top-level statement at a time (so games
    share the statements of their template and an edit recompiles only what it changes): the
    namespace, each function's line and file, and a seeded playout are the whole module's."""
    import random

    from hansa.compiler.targets.python.codegen import module_from_text

    project = load_project([ROOT / "spec"])
    memo = model.BuildMemo()
    for name in STALL_GAMES:
        text = _module_text(project, name)
        whole = module_from_text(text, "hansa.generated._whole", "g (check)")
        pieces = model._run_module(text, "hansa.generated._pieces", "g (check)", memo)
        assert sorted(vars(whole)) == sorted(vars(pieces))
        assert _functions(whole) == _functions(pieces)
        assert pieces.__doc__ == whole.__doc__ and pieces.__generated_text__ == text
        states = [m.new_initial_state(4, 7) for m in (whole, pieces)]
        rng = random.Random(3)
        for _ in range(300):
            if states[0].is_terminal():
                break
            assert states[0].to_json() == states[1].to_json()
            action = rng.choice(states[0].legal_actions())
            for state in states:
                state.apply_action(action)
    assert len(model._statements(text)) > 100  # really cut, not run whole


def test_the_cut_keeps_strings_clauses_and_decorators_whole_and_else_compiles_whole():
    text = "".join(
        [
            'x = """\n\ny = 2\n"""\n',
            "if x:\n    z = 1\nelse:\n    z = 2\n",
            "@staticmethod\ndef f(): pass\n",
        ]
    )
    memo = model.BuildMemo()
    module = model._run_module(text, "hansa.generated._odd", "odd", memo)
    assert module.x == "\n\ny = 2\n" and module.z == 1 and not hasattr(module, "y")
    assert [first for first, _ in model._statements(text)] == [1, 5, 9]
    # a line at the margin inside brackets: the pieces do not compile alone, the whole does
    module = model._run_module("t = (1,\n2)\n", "hansa.generated._odd", "odd", memo)
    assert module.t == (1, 2)


def test_the_build_memo_gives_a_fresh_checks_findings_and_stays_bounded(tmp_path):
    """Kept findings are keyed by the pickled inputs, spans included: a line inserted above a
    rule moves its diagnostic even though the rule's value is unchanged; the tables are bounded."""
    body = "end when players > 0"  # holds at setup: an error at this line
    spec = spec_with(tmp_path, HOUSE.replace("BODY", body))
    memo = model.BuildMemo(games=2, statements=50)
    house = spec / "house.hansa"
    for shift in range(4):
        text = "# a note\n" * shift + HOUSE.replace("BODY", body)
        kept = load_project([spec], overlay={str(house): text}, builds=memo)
        fresh = load_project([spec], overlay={str(house): text})
        assert kept.diagnostics == fresh.diagnostics
        [error] = [d for d in kept.errors if "already holds at setup" in d.message]
        assert error.span.line == 2 + shift
        assert len(memo.games) <= 2 and len(memo.statements) <= 50
    # the module check ⇒ build plays is rendered from the model alone: a moved line changes it
    # (its rule sources), the same model gives the same text, so its setups are played once
    assert len(memo.plays) == 4


def test_what_a_module_did_is_kept_by_its_text_and_the_question():
    memo = model.BuildMemo(plays=2)
    calls = []

    def play(answer):
        calls.append(answer)
        return answer

    assert memo.played(("stall", "text", 4), lambda: play(1)) == 1
    assert memo.played(("stall", "text", 4), lambda: play(2)) == 1  # kept
    assert memo.played(("stall", "text", 5), lambda: play(3)) == 3  # another question
    assert memo.played(("stall", "other", 4), lambda: play(4)) == 4
    assert memo.played(("stall", "text", 4), lambda: play(5)) == 5  # pushed out: bounded
    assert calls == [1, 3, 4, 5] and len(memo.plays) == 2
