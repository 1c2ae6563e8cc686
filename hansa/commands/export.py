"""Print a board in the reference JSON schema (schema_version 1).

BOARD is a board's name declared in the spec folder (--spec, default ./spec) or built in (found
from any folder, as `hansa list` lists them), or the path of a .hansa file. The board is checked
first: errors stop the export (the JSON would not be valid reference data), warnings are printed to
standard error. The output uses the reference files' layout: one city or route per line.
"""

from __future__ import annotations

import argparse
import sys

from hansa.commands.fmt import write_text_atomically
from hansa.compiler.errors import HansaError, Span

NAME = "export"
HELP = "print a board in the reference JSON schema (schema_version 1)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "board", metavar="BOARD", help="board name (declared under --spec) or .hansa file"
    )
    parser.add_argument(
        "--spec",
        metavar="DIR",
        default="spec",
        help="spec folder that board names are looked up in (default: ./spec)",
    )
    parser.add_argument(
        "--json",
        action="store_true",
        default=True,
        help="reference JSON schema, schema_version 1 (the only format, and the default)",
    )
    parser.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help="write to FILE (atomically) instead of standard output",
    )


def run(args: argparse.Namespace) -> int:
    from hansa.compiler.board.checks import check_board
    from hansa.compiler.board.json_io import board_to_json, dumps_board_json
    from hansa.compiler.project import load_board

    if args.board.endswith(".json"):
        raise HansaError(
            "is a JSON file; export reads a board from the DSL (`hansa import` reads JSON)",
            Span(args.board, 0, 0),
        )
    # a checked board: its errors raise, with their locations
    board = load_board(args.board, args.spec)
    for warning in check_board(board):
        if warning.severity != "error":
            print(warning.format(), file=sys.stderr)
    text = dumps_board_json(board_to_json(board))
    if args.output:
        write_text_atomically(args.output, text)
    else:
        sys.stdout.write(text)
    return 0
