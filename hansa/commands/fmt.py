"""Rewrite spec files in canonical form (docs/board-language.md, "Canonical form").

Only `board` declarations are rewritten, and `rules` declarations re-indented
(compiler/syntax/rules_format.py); every other declaration and every comment outside a board is kept
byte for byte, and comments inside a board move with the statement they belong
to. A file that does not parse, or whose boards do not lower, is reported and left untouched;
the other files are still formatted. Each changed file is written to a temporary file next to it
and renamed over it, so a failure never leaves a half-written file. With `--check` nothing is
written: the files that would change are listed and the exit code is 1 if there are any.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from hansa.atomic import write_atomically
from hansa.compiler.errors import HansaError

NAME = "fmt"
HELP = "rewrite spec files in canonical form (boards; rule sets' indentation); --check only reports"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="+", metavar="PATH", help="spec files or folders")
    parser.add_argument(
        "--check",
        action="store_true",
        help="write nothing; list files that would change and exit 1 if any would",
    )


def write_text_atomically(path: str | Path, text: str) -> None:
    """Write `text` to `path` through a temporary file in the same folder and a rename."""
    write_atomically(path, text)


def run(args: argparse.Namespace) -> int:
    from hansa.compiler.board.format import format_source
    from hansa.compiler.project import find_spec_files
    from hansa.compiler.syntax.parser import read_source

    files = find_spec_files(args.paths)
    changed = unchanged = failed = 0
    for path in files:
        try:
            original = read_source(path)
            canonical = format_source(original.replace("\r\n", "\n"), str(path)).text
        except HansaError as exc:
            print(exc.format(), file=sys.stderr)
            print(
                f"{path}: left unchanged",
                file=sys.stderr,
            )
            failed += 1
            continue
        if canonical == original:
            unchanged += 1
            continue
        changed += 1
        if args.check:
            print(f"would reformat {path}")
        else:
            try:
                write_text_atomically(path, canonical)
            except HansaError as exc:
                print(exc.format(), file=sys.stderr)
                changed -= 1
                failed += 1
                continue
            print(f"reformatted {path}")
    verb = "would be reformatted" if args.check else "reformatted"
    summary = f"{changed} file{'s' if changed != 1 else ''} {verb}, {unchanged} unchanged"
    if failed:
        summary += f", {failed} failed"
    print(summary, file=sys.stderr)
    if failed or (args.check and changed):
        return 1
    return 0
