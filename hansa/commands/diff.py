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
        "-f",
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


class _Loader:
    """Loads projects for both arguments, reading the spec folder at most once."""

    def __init__(self, spec_dir: str) -> None:
        self.spec_dir = spec_dir
        self._spec: Any = None

    def spec(self) -> Any:
        """Every declaration under the spec folder (errors are checked per declaration used)."""
        if self._spec is None:
            if not Path(self.spec_dir).is_dir():
                raise HansaError(f"no spec folder '{self.spec_dir}' to look names up in")
            self._spec = _load([self.spec_dir])
        return self._spec

    def file(self, file: str) -> Any:
        """A spec file's project; with the spec folder's files when it names things declared there.

        The file's own declarations win: spec files redeclaring one of its names are left out, so
        a modified copy of an edition can be compared with the original.
        """
        own = _load([file])
        if not _needs_spec(own):
            _require_clean(own, file)
            return own
        spec = self.spec()
        mine = set(own.declared_at)
        here = Path(file).resolve()
        clashing = {str(span.file) for key, span in spec.declared_at.items() if key in mine}
        others = [p for p in spec.files if str(p) not in clashing and p.resolve() != here]
        combined = _load([file, *others])
        _require_clean(combined, file)
        return combined


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
    """Load spec files into a project (its diagnostics are checked per file by `_require_clean`)."""
    from hansa.compiler.project import load_project

    return load_project(paths)


def _require_clean(project: Any, file: str) -> None:
    """A side must come from a file without errors; problems elsewhere in spec/ do not matter."""
    errors = [
        d
        for d in project.diagnostics
        if d.severity == "error" and (d.span is None or _same_file(d.span.file, file))
    ]
    if errors:
        raise HansaError(errors)


def _resolve(name: str, catalogue: Any, where: Span | None = None) -> RuleSet:
    from hansa.compiler.rules_lower import resolve

    rulesets = catalogue.rulesets
    if name not in rulesets:
        raise HansaError(f"no rule set named '{name}'{did_you_mean(name, rulesets)}", where)
    return resolve(name, rulesets)


@dataclass
class Candidate:
    """A declaration an argument may mean, before the other side settles which kind is wanted."""

    cls: type
    name: str
    node: Any
    file: str
    catalogue: Any  # the project its names are resolved in; None for a reference JSON board


def _declarations(project: Any) -> list[tuple[type, str, Any]]:
    return [
        (cls, name, node)
        for cls, attr in ((Board, "boards"), (RuleSet, "rulesets"), (Game, "games"))
        for name, node in getattr(project, attr).items()
    ]


def _split_file_arg(arg: str) -> tuple[str, str | None] | None:
    """'FILE' or 'FILE:NAME' when FILE exists; None for a plain name."""
    if Path(arg).is_file():
        return arg, None
    if Path(arg).is_dir():
        raise HansaError("is a directory; give a spec file or a declared name", Span(arg, 0, 0))
    head, sep, tail = arg.rpartition(":")
    if sep and head and tail and Path(head).is_file():
        return head, tail
    if arg.endswith((".hansa", ".json")) or os.sep in arg:
        raise HansaError("no such file", Span(arg, 0, 0))
    return None


def candidates(arg: str, loader: _Loader) -> list[Candidate]:
    """Everything one command-line argument can mean (usually exactly one declaration)."""
    split = _split_file_arg(arg)
    if split is not None and split[0].endswith(".json"):
        from hansa.compiler.board_json import load_board_json

        if split[1] is not None:
            raise HansaError("a board .json holds one board; drop ':NAME'", Span(split[0], 0, 0))
        board = load_board_json(split[0])
        return [Candidate(Board, board.id, board, split[0], None)]
    if split is not None:
        file, wanted = split
        project = loader.file(file)
        found = [f for f in _declarations(project) if _same_file(_file_of(f[2]), file)]
        if not found:
            raise HansaError("declares no board, rule set or game", Span(file, 0, 0))
        if wanted is not None:
            hits = [f for f in found if f[1] == wanted]
            if not hits:
                known = [f[1] for f in found]
                raise HansaError(
                    f"'{wanted}' is not declared in this file{did_you_mean(wanted, known)}",
                    Span(file, 0, 0),
                )
            found = hits
        return [Candidate(cls, name, node, file, project) for cls, name, node in found]
    spec_dir = loader.spec_dir
    project = loader.spec()
    found = [f for f in _declarations(project) if f[1] == arg]
    if not found:
        known = [f[1] for f in _declarations(project)]
        hint = did_you_mean(arg, known)
        if not hint and project.errors:
            hint = f" ({len(project.errors)} errors there; see `hansa check {spec_dir}`)"
        raise HansaError(f"no board, rule set or game named '{arg}' in {spec_dir}/{hint}")
    out = []
    for cls, name, node in found:
        file = _file_of(node)
        _require_clean(project, file)
        out.append(Candidate(cls, name, node, file, project))
    return out


def _same_file(a: str, b: str) -> bool:
    return a == b or (bool(a) and bool(b) and Path(a).resolve() == Path(b).resolve())


def _file_of(node: Any) -> str:
    return node.span.file if node.span.line > 0 else ""


def choose(arg: str, options: list[Candidate], other: list[Candidate]) -> Candidate:
    """One declaration for `arg`: if it can mean several, the other side's kind decides."""
    if len(options) > 1:
        kinds = {c.cls for c in other}
        fitting = [c for c in options if c.cls in kinds]
        if len(fitting) == 1:
            return fitting[0]
        names = ", ".join(f"{KIND_WORDS[c.cls]} {c.name}" for c in options)
        raise HansaError(
            f"'{arg}' can mean several declarations ({names}); write FILE:NAME to pick one"
        )
    return options[0]


def load(candidate: Candidate) -> Loaded:
    """The IR to compare for one declaration: a board, a resolved rule set, or a game with both."""
    cls, name, node, catalogue = candidate.cls, candidate.name, candidate.node, candidate.catalogue
    side = Side(KIND_WORDS[cls], name, candidate.file)
    if cls is Board:
        return Loaded(side, node)
    if cls is RuleSet:
        return Loaded(side, _resolve(name, catalogue, node.span))
    boards = catalogue.boards
    if node.board not in boards:
        raise HansaError(
            f"game '{name}' is on board '{node.board}', which is not declared"
            f"{did_you_mean(node.board, boards)}",
            node.span,
        )
    return Loaded(side, node, _resolve(node.rules, catalogue, node.span), boards[node.board])


def load_pair(arg_a: str, arg_b: str, spec_dir: str = "spec") -> tuple[Loaded, Loaded]:
    """Both sides of a diff, each argument read in the light of the other."""
    loader = _Loader(spec_dir)
    options_a = candidates(arg_a, loader)
    options_b = candidates(arg_b, loader)
    a = choose(arg_a, options_a, options_b)
    b = choose(arg_b, options_b, [a])
    return load(a), load(b)


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
    a, b = load_pair(args.a, args.b, args.spec)
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
