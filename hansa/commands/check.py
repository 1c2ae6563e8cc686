"""Check spec files: parse, lower and check every board, rule set and game under the given paths.

Each PATH is a spec file or a folder searched recursively for *.hansa files (default: spec), or
the name of a board, rule set or game: one declared in the spec folder (--spec, default ./spec)
checks the file declaring it; a built-in one (found from any folder, as `hansa list` lists them)
checks the built-in file declaring it.
Every problem is printed as `file:line:col: error: …` (or `warning: …`) with the source line and a
caret, followed by a summary line. Exit status 0 when there is no error (warnings are allowed,
unless --strict), 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from hansa.compiler.errors import HansaError
from hansa.resolve import diagnostic_json

if TYPE_CHECKING:  # imported when run: `hansa` starts without loading the compiler
    from hansa.compiler.project import Project

NAME = "check"
HELP = "check spec files (boards, rule sets, games) and report errors and warnings"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "paths",
        metavar="PATH",
        nargs="*",
        default=["spec"],
        help="spec files or folders (searched recursively for *.hansa); default: spec",
    )
    parser.add_argument(
        "--spec",
        metavar="DIR",
        default="spec",
        help="spec folder that names (not paths) are looked up in (default: ./spec)",
    )
    parser.add_argument(
        "--strict", action="store_true", help="treat warnings as errors (exit 1 on any warning)"
    )
    parser.add_argument(
        "--no-playouts",
        action="store_true",
        help="skip the seeded playouts that look for a game that cannot end"
        " (docs/rules-language.md)",
    )
    parser.add_argument("-q", "--quiet", action="store_true", help="print only errors and warnings")
    parser.add_argument(
        "--json",
        action="store_true",
        help="print the diagnostics as JSON (file, line, column, severity, message) on standard "
        "output, for editors and CI",
    )


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" + ("" if count == 1 else "s")


def summary(project: Project) -> str:
    """One line: what was checked and how many errors and warnings were found."""
    found = [
        _plural(len(project.own("boards")), "board"),
        _plural(len(project.own("rulesets")), "rule set"),
        _plural(len(project.own("games")), "game"),
    ]
    return (
        f"checked {_plural(len(project.files), 'file')} ({', '.join(found)}): "
        f"{_plural(len(project.errors), 'error')}, {_plural(len(project.warnings), 'warning')}"
    )


def as_json(project: Project) -> dict:
    """The check's result as data: counts and every diagnostic with its place."""

    return {
        "files": [str(f) for f in project.files],
        "boards": sorted(project.own("boards")),
        "rulesets": sorted(project.own("rulesets")),
        "games": sorted(project.own("games")),
        "errors": len(project.errors),
        "warnings": len(project.warnings),
        "diagnostics": [diagnostic_json(d) for d in project.diagnostics],
    }


def named_paths(paths: list[str], spec: str) -> list[str]:
    """Each PATH as given, or for a name that is no file or folder the file declaring it: in the
    spec folder, else built in. An unknown name stays, so the loader reports it as missing."""
    from hansa.compiler.project import builtin_file, load_project

    out, project = [], None
    for path in paths:
        if Path(path).exists() or path.endswith(".hansa") or os.sep in path:
            out.append(path)
            continue
        if project is None:
            project = load_project([spec], library=False) if Path(spec).is_dir() else None
        span = project.declared_at.get(_declared_key(project, path)) if project else None
        found = span.file if span is not None else builtin_file(path)
        out.append(str(found) if found else path)
    return out


def _declared_key(project: Project, name: str) -> tuple[str, str] | None:
    for attribute in ("games", "boards", "rulesets"):
        if (attribute, name) in project.declared_at:
            return attribute, name
    return None


def run(args: argparse.Namespace) -> int:
    from hansa.compiler.project import Project, load_project, sorted_unique

    try:
        project = load_project(named_paths(args.paths, args.spec))
    except HansaError as exc:  # no such path, no spec files: still data for --json readers
        if not args.json:
            raise
        project = Project(diagnostics=list(exc.diagnostics))
    if not args.no_playouts:
        from hansa.play.endless import endless_games

        project.diagnostics = sorted_unique([*project.diagnostics, *endless_games(project)])
    failed = bool(project.errors) or (args.strict and bool(project.warnings))
    if args.json:
        print(json.dumps(as_json(project), indent=1, ensure_ascii=False))
        return 1 if failed else 0
    if project.diagnostics:
        print(project.format_diagnostics(), file=sys.stderr)
    if not args.quiet:
        print(summary(project))
    failed = bool(project.errors) or (args.strict and bool(project.warnings))
    return 1 if failed else 0
