"""check ⇒ build: every game `hansa check` accepts must compile.

The code generator refuses some inputs the language checks cannot see alone (a board feature the
templates do not implement yet, a bonus-marker name that makes no module constant, …). Rather than
keep a second copy of each such rule, `check` runs the model stage of the build on every game
whose rule set, board and declaration passed the other checks, and reports what it refuses at the
place it names (the offending statement, city or route, else the game's declaration).

A game whose rule set ends the game in words (`end when CONDITION`) is also compiled in memory and
set up for each of its player counts: a condition that already holds in the setup position would
end every game before its first decision, which no author means (`end when players > 0`).
"""

from __future__ import annotations

from ..errors import Diagnostic, HansaError, Span


def _files_with_errors(diagnostics: list[Diagnostic]) -> set[str]:
    return {d.span.file for d in diagnostics if d.severity == "error" and d.span is not None}


def check_buildable(project) -> list[Diagnostic]:
    """Diagnostics of the build's model stage for every game that is otherwise clean."""
    from ..model.build import build_model
    from ..rules.checks import check_game

    resolved = getattr(project, "resolved_rulesets", {}) or {}
    failed_files = _files_with_errors(project.diagnostics)
    out: list[Diagnostic] = []
    at_setup: set = set()  # spans of end conditions found true at setup (one error each)
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
            problems = [
                d
                for d in _ends_at_setup(game, rules, board, project.sources)
                if d.span not in at_setup  # a rule set shared by games: one error
            ]
            at_setup.update(d.span for d in problems)
        except HansaError as exc:
            problems = exc.diagnostics
        for d in problems:
            located = d if d.span is not None and d.span.line > 0 else _at_game(d, game.span)
            if located not in out:
                out.append(located)
    return out


# Setup positions tried per player count: the seed fixes only the bonus-marker draw.
_SETUP_SEEDS = (0, 1, 2)


def _ends_at_setup(game, rules, board, sources: dict[str, str]) -> list[Diagnostic]:
    """An error at each `end when` condition in words that holds in a setup position of the game:
    found by compiling the game in memory and evaluating its own end test on the real setup
    (after every `at setup:` rule), the way a played game would, for every allowed player count."""
    ends = {r.key.removeprefix("end:"): r for r in rules.hook_rules if r.hook == "end"}
    if not ends:
        return []
    from ..nodes.rules import mangle_module_name
    from ..targets.python.codegen import build_game_module, module_from_text

    text = build_game_module(game, rules, board, sources)
    name = f"hansa.generated._check_{mangle_module_name(game.name)}"
    module = module_from_text(text, name, f"{game.name} (check)")
    found: dict[str, int] = {}  # condition -> the first player count where it holds at setup
    for players in game.players:
        for seed in _SETUP_SEEDS:
            state = module.new_initial_state(players, seed)
            for name in state.end_conditions_met():
                if name in ends:
                    found.setdefault(name, players)
    return [
        Diagnostic(
            f"end condition '{name}' already holds at setup (game {game.name!r}, {players} "
            "players): every game would end before its first decision",
            ends[name].span,
        )
        for name, players in found.items()
    ]


def _at_game(diagnostic: Diagnostic, span: Span) -> Diagnostic:
    from dataclasses import replace

    return replace(diagnostic, span=span)
