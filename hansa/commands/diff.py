"""Compare two boards, rule sets or games by meaning, not by text.

A and B are spec files (`.hansa`; `FILE:NAME` picks one declaration from a file holding several),
reference board files (`.json`), or names declared under the spec folder (board, rule set, game).
Rule sets are compared after `extends` is resolved. Formatting, comments, order of declarations and
file names are never differences. Exit status: 0 equal, 1 different, 2 on error (like diff(1)).
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hansa.compiler.diff import (
    Edit,
    Side,
    diff_boards,
    diff_games,
    diff_rulesets,
    format_json,
    format_markdown,
    format_text,
)
from hansa.compiler.errors import HansaError, Span, did_you_mean
from hansa.compiler.ir import Board
from hansa.compiler.rules_ir import Game, RuleSet

NAME = "diff"
HELP = "semantic diff of two boards, rule sets or games (exit 0 equal, 1 different, 2 error)"

KIND_WORDS = {Board: "board", RuleSet: "rules", Game: "game"}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "a", metavar="A", help="spec file, FILE:NAME, board .json, or a declared name"
    )
    parser.add_argument("b", metavar="B", help="the other side, of the same kind as A")
    parser.add_argument(
        "--format",
        choices=("text", "json", "markdown"),
        default="text",
        help="text report grouped by area (default), stable JSON list of edits, or markdown table",
    )
    parser.add_argument(
        "--color",
        choices=("auto", "always", "never"),
        default="auto",
        help="colour the text report (auto: only on a terminal, and not when NO_COLOR is set)",
    )
    parser.add_argument(
        "--spec",
        metavar="DIR",
        default="spec",
        help="folder of spec files that names are looked up in (default: ./spec)",
    )


@dataclass
class Loaded:
    """One side of the diff: the declaration and, for a game, its resolved rule set and board."""

    side: Side
    node: Board | RuleSet | Game
    rules: RuleSet | None = None
    board: Board | None = None


class _Catalogue:
    """Declarations by name: the given file's first, then the spec folder's (loaded lazily)."""

    def __init__(self, spec_dir: str, own: Any = None) -> None:
        self.spec_dir = spec_dir
        self.own = own
        self._spec: Any = None

    def spec(self) -> Any:
        if self._spec is None:
            if not Path(self.spec_dir).is_dir():
                raise HansaError(f"no spec folder '{self.spec_dir}' to look names up in")
            self._spec = _load([self.spec_dir])
        return self._spec

    def table(self, attr: str) -> dict:
        merged: dict = {}
        if self.own is None or _needs_spec(self.own):
            merged.update(getattr(self.spec(), attr))
        if self.own is not None:
            merged.update(getattr(self.own, attr))
        return merged


def _needs_spec(project: Any) -> bool:
    """A file's declarations can stand alone unless they name something declared elsewhere."""
    for ruleset in project.rulesets.values():
        if ruleset.extends and ruleset.extends not in project.rulesets:
            return True
    for game in project.games.values():
        if game.rules not in project.rulesets or game.board not in project.boards:
            return True
    return False


def _load(paths: list[str]) -> Any:
    """Load spec files into a project; any error diagnostic is raised as one HansaError."""
    from hansa.compiler.project import load_project

    project = load_project(paths)
    errors = [d for d in getattr(project, "diagnostics", ()) if d.severity == "error"]
    if errors:
        raise HansaError(errors)
    return project


def _resolve(name: str, catalogue: _Catalogue, where: Span | None = None) -> RuleSet:
    from hansa.compiler.rules_lower import resolve

    rulesets = catalogue.table("rulesets")
    if name not in rulesets:
        raise HansaError(f"no rule set named '{name}'{did_you_mean(name, rulesets)}", where)
    return resolve(name, rulesets)


def _pick(project: Any, file: str, wanted: str | None) -> tuple[type, str, Any]:
    """The one declaration of a file (or the one named `wanted`)."""
    found = [
        (cls, name, node)
        for cls, attr in ((Board, "boards"), (RuleSet, "rulesets"), (Game, "games"))
        for name, node in getattr(project, attr).items()
    ]
    if wanted is not None:
        hits = [f for f in found if f[1] == wanted]
        if not hits:
            known = [f[1] for f in found]
            raise HansaError(
                f"'{wanted}' is not declared in this file{did_you_mean(wanted, known)}",
                Span(file, 0, 0),
            )
        if len(hits) > 1:
            raise HansaError(f"'{wanted}' names several declarations here", Span(file, 0, 0))
        return hits[0]
    if not found:
        raise HansaError("declares no board, rule set or game", Span(file, 0, 0))
    if len(found) > 1:
        names = ", ".join(sorted(f[1] for f in found))
        raise HansaError(
            f"declares several things ({names}); write {file}:NAME to pick one", Span(file, 0, 0)
        )
    return found[0]


def _split_file_arg(arg: str) -> tuple[str, str | None] | None:
    """'FILE' or 'FILE:NAME' when FILE exists; None for a plain name."""
    if Path(arg).is_file():
        return arg, None
    head, sep, tail = arg.rpartition(":")
    if sep and head and tail and Path(head).is_file():
        return head, tail
    if arg.endswith((".hansa", ".json")) or os.sep in arg:
        raise HansaError("no such file", Span(arg, 0, 0))
    return None


def load_side(arg: str, spec_dir: str = "spec") -> Loaded:
    """Turn one command-line argument into the IR to compare (rule sets resolved)."""
    split = _split_file_arg(arg)
    if split is not None and split[0].endswith(".json"):
        from hansa.compiler.board_json import load_board_json

        if split[1] is not None:
            raise HansaError(
                "a board .json file holds one board; drop ':NAME'", Span(split[0], 0, 0)
            )
        board = load_board_json(split[0])
        return Loaded(Side("board", board.id, split[0]), board)
    if split is not None:
        file, wanted = split
        project = _load([file])
        cls, name, node = _pick(project, file, wanted)
        catalogue = _Catalogue(spec_dir, project)
    else:
        catalogue = _Catalogue(spec_dir)
        project = catalogue.spec()
        hits = [
            (cls, node)
            for cls, attr in ((Board, "boards"), (RuleSet, "rulesets"), (Game, "games"))
            for n, node in getattr(project, attr).items()
            if n == arg
        ]
        if not hits:
            known = [*project.boards, *project.rulesets, *project.games]
            raise HansaError(
                f"no board, rule set or game named '{arg}' in {spec_dir}/{did_you_mean(arg, known)}"
            )
        if len(hits) > 1:
            kinds = " and ".join(KIND_WORDS[c] for c, _ in hits)
            raise HansaError(f"'{arg}' names both a {kinds}; give the spec file as FILE:NAME")
        (cls, node), name = hits[0], arg
        file = node.span.file if node.span.line > 0 else ""
    side = Side(KIND_WORDS[cls], name, file)
    if cls is Board:
        return Loaded(side, node)
    if cls is RuleSet:
        return Loaded(side, _resolve(name, catalogue, node.span))
    boards = catalogue.table("boards")
    if node.board not in boards:
        raise HansaError(
            f"game '{name}' is on board '{node.board}', which is not declared"
            f"{did_you_mean(node.board, boards)}",
            node.span,
        )
    return Loaded(side, node, _resolve(node.rules, catalogue, node.span), boards[node.board])


def compare(a: Loaded, b: Loaded) -> list[Edit]:
    """The edits from A to B; both sides must be the same kind of declaration."""
    if a.side.kind != b.side.kind:
        raise HansaError(
            f"cannot compare a {a.side.kind} ('{a.side.name}') with a {b.side.kind} "
            f"('{b.side.name}'): give two boards, two rule sets or two games"
        )
    if isinstance(a.node, Board):
        return diff_boards(a.node, b.node)
    if isinstance(a.node, RuleSet):
        return diff_rulesets(a.node, b.node)
    return diff_games(a.node, b.node, a.rules, b.rules, a.board, b.board)


def _use_color(choice: str) -> bool:
    if choice == "always":
        return True
    if choice == "never":
        return False
    return sys.stdout.isatty() and not os.environ.get("NO_COLOR")


def run(args: argparse.Namespace) -> int:
    args._error_exit = 2
    a = load_side(args.a, args.spec)
    b = load_side(args.b, args.spec)
    edits = compare(a, b)
    if args.format == "json":
        out = format_json(edits, a.side, b.side)
    elif args.format == "markdown":
        out = format_markdown(edits, a.side, b.side)
    else:
        out = format_text(edits, a.side, b.side, color=_use_color(args.color))
    sys.stdout.write(out)
    sys.stdout.flush()
    return 1 if edits else 0
