"""Convert a board in the reference JSON schema (schema_version 1) into board-language text.

The JSON is validated field by field (a wrong, missing or unknown field is an error naming it);
the text printed is the canonical form `hansa fmt` writes, so `hansa import X.json -o X.hansa`
followed by `hansa fmt --check X.hansa` is clean and `hansa export` of the result gives the JSON
back. Graph checks (routes naming cities, connectivity, …) are `hansa check`'s job and are not
run here.
"""

from __future__ import annotations

import argparse
import sys

from hansa.commands.fmt import write_text_atomically

NAME = "import"
HELP = "print a reference-schema board JSON file as board-language text"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("json_file", metavar="FILE.json", help="board in the reference JSON schema")
    parser.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help="write the text to FILE (atomically) instead of standard output",
    )


def run(args: argparse.Namespace) -> int:
    from hansa.compiler.board.format import format_board
    from hansa.compiler.board.json_io import load_board_json

    text = format_board(load_board_json(args.json_file))
    if args.output:
        write_text_atomically(args.output, text)
    else:
        sys.stdout.write(text)
    return 0
