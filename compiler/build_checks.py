"""check ⇒ build: every game `hansa check` accepts must compile.

The code generator refuses some inputs the language checks cannot see alone (a board feature the
templates do not implement yet, a bonus-marker name that makes no module constant, …). Rather than
keep a second copy of each such rule, `check` runs the model stage of the build on every game
whose rule set, board and declaration passed the other checks, and reports what it refuses at the
place it names (the offending statement, city or route, else the game's declaration).
"""

from __future__ import annotations

from .errors import Diagnostic, HansaError, Span


def _files_with_errors(diagnostics: list[Diagnostic]) -> set[str]:
    return {d.span.file for d in diagnostics if d.severity == "error" and d.span is not None}


def check_buildable(project) -> list[Diagnostic]:
    """Diagnostics of the build's model stage for every game that is otherwise clean."""
    from .model import build_model
    from .rules_checks import check_game

    resolved = getattr(project, "resolved_rulesets", {}) or {}
    failed_files = _files_with_errors(project.diagnostics)
    out: list[Diagnostic] = []
    for game in project.games.values():
        rules = resolved.get(game.rules)
        board = project.boards.get(game.board)
        if rules is None or board is None:
            continue  # reported by the rules checks
        if board.span.file in failed_files or game.span.file in failed_files:
            continue  # one mistake, one error: the board's or the game's own errors stand
        if any(d.severity == "error" for d in check_game(game, resolved, project.boards)):
            continue
        try:
            build_model(game, rules, board)
        except HansaError as exc:
            for d in exc.diagnostics:
                located = d if d.span is not None and d.span.line > 0 else _at_game(d, game.span)
                if located not in out:
                    out.append(located)
    return out


def _at_game(diagnostic: Diagnostic, span: Span) -> Diagnostic:
    from dataclasses import replace

    return replace(diagnostic, span=span)
