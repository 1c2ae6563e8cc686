"""The project loader's rules stage: resolve every rule set, then check every game against its
resolved rule set and board (registered in compiler/project.py as `rules.stage:check_project`)."""

from __future__ import annotations

from collections.abc import Mapping

from ..errors import Diagnostic, HansaError
from ..nodes.board import Board
from ..nodes.rules import Game, RuleSet
from .checks import check_game, check_module_names
from .resolve import resolve


def check_rules_project(
    rulesets: Mapping[str, RuleSet],
    games: Mapping[str, Game],
    boards: Mapping[str, Board],
    broken_boards: frozenset[str] = frozenset(),
) -> tuple[dict[str, RuleSet], list[Diagnostic]]:
    """Resolve every rule set and check every game: (resolved rule sets by name, diagnostics)."""
    resolved: dict[str, RuleSet] = {}
    out: list[Diagnostic] = []
    folded: dict = {}  # shared by every resolve: each link of a chain is folded once
    reported: set[Diagnostic] = set()  # a parent's errors reach every child: report them once
    for name in rulesets:
        try:
            resolved[name] = resolve(name, rulesets, cache=folded)
        except HansaError as exc:
            for d in exc.diagnostics:
                if d not in reported:
                    reported.add(d)
                    out.append(d)
    for game in games.values():
        if game.rules in rulesets and game.rules not in resolved:
            continue  # its rule set's errors are reported already
        out += check_game(game, {**rulesets, **resolved}, boards, game.board in broken_boards)
    return resolved, out


def check_project(project) -> list[Diagnostic]:
    """The project loader's rules stage: resolve every rule set, check every game.

    The resolved rule sets are kept in `project.resolved_rulesets` (by name) for later stages.
    """
    failed = {d.span.file for d in project.diagnostics if d.severity == "error" and d.span}
    broken = frozenset(n for n, b in project.boards.items() if b.span.file in failed)
    resolved, diagnostics = check_rules_project(
        project.rulesets, project.games, project.boards, broken
    )
    project.declarations("resolved_rulesets").update(resolved)
    return diagnostics + check_module_names(project.games)
