"""Draw a board as a picture (SVG or PNG, by the output file's extension).

BOARD is a board's name declared in the spec folder (--spec, default ./spec) or built in (found
from any folder, as `hansa list` lists them), or the path of a .hansa file, or a game's name: its
board is drawn, and for a game with the 2-player variant's neutral pawn also the regions the pawn
moves between (tinted and numbered as in the game's action names) and the soldiers (dashed red
borders). The board is loaded and checked first (errors stop the drawing; warnings go to standard
error). The picture shows every city at its position with its trading-post spaces left to right
(shape, privilege colour, coins), abilities, East-West terminals, the special-prestige city with
its 7/8/9/11 spaces, green cities; every route with its connection points (house points white
squares, ship points dark-blue discs), taverns, permanent bonus markers and country colours; a
title and a legend. Without -o the picture is written to BOARD_ID.svg in the current folder. The
file is written atomically: a failure leaves no file behind.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from hansa.compiler.errors import HansaError

NAME = "render"
HELP = "draw a board as an SVG or PNG picture"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
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
        "-o",
        "--output",
        metavar="FILE",
        help="picture to write: FILE.svg or FILE.png (default: BOARD_ID.svg in the current folder)",
    )
    parser.add_argument(
        "--dpi",
        type=int,
        default=None,
        help="PNG resolution in dots per inch, 10-600 (default 120; the map's long side is 17 in)",
    )
    parser.add_argument(
        "--no-legend", action="store_true", help="leave out the legend (a smaller picture)"
    )
    parser.add_argument(
        "--draw-anyway",
        action="store_true",
        help="draw a board that fails its checks (errors are printed, exit code 1; what cannot be"
        " drawn, e.g. a route to an unknown city, is left out and listed on the picture)",
    )


def run(args: argparse.Namespace) -> int:

    from hansa.compiler.board.checks import check_board
    from hansa.compiler.board.render import DEFAULT_DPI, check_dpi, output_format, render_board
    from hansa.compiler.project import load_board

    # bad options fail before any loading or drawing
    if args.output is not None:
        output_format(Path(args.output))
    dpi = check_dpi(args.dpi if args.dpi is not None else DEFAULT_DPI)
    regions = _game_regions(args.board, args.spec)
    try:
        board = load_board(regions[0] if regions else args.board, args.spec)
        failed: HansaError | None = None
    except HansaError as error:
        if not args.draw_anyway:
            raise
        board, failed = _board_despite_errors(args.board, error, args.spec), error
        print(failed.format(), file=sys.stderr)
    for warning in (d for d in check_board(board) if d.severity != "error"):
        print(warning.format(), file=sys.stderr)
    target = Path(args.output) if args.output is not None else Path(f"{board.id}.svg")
    crowded: list = []
    written = render_board(
        board,
        target,
        dpi=dpi,
        legend=not args.no_legend,
        lenient=failed is not None,
        regions=regions[1] if regions and regions[1] else None,
        warnings=crowded,
    )
    for warning in crowded:
        print(warning.format(), file=sys.stderr)
    print(
        f"wrote {written}: {board.title}"
        + (f" ({board.side})" if board.side and "side" not in board.inherited else "")
        + (f", extends {board.derived_from}" if board.derived_from else "")
        + f", {len(board.cities)} cities, {len(board.routes)} routes"
        + (" (drawn despite errors)" if failed is not None else "")
        + (f", {regions[1].count} regions of game {args.board}" if regions and regions[1] else "")
    )
    return 1 if failed is not None else 0


def _game_regions(name: str, spec: str = "spec"):
    """(board name, regions) when `name` is a game of the spec folder using the neutral pawn."""

    from hansa.compiler.board.regions import board_regions
    from hansa.compiler.project import Project, load_project, take_from_library
    from hansa.compiler.rules.resolve import resolve

    folder = Path(spec)
    if name.endswith(".hansa"):
        return None
    project = load_project([folder]) if folder.is_dir() else Project()
    if name not in project.games and not take_from_library(project, name):
        return None  # not a game here nor built in: a board's name (or an unknown one)
    game = project.games.get(name)
    if game is None or game.board not in project.boards:
        return None
    project.raise_for_errors()
    rules = resolve(game.rules, project.rulesets)
    if rules.pawn is None:
        return game.board, None
    board = project.boards[game.board]
    return game.board, board_regions(board, rules.pawn.soldiers, rules.pawn.span)


def _board_despite_errors(name_or_path: str, error: HansaError, spec: str = "spec"):
    """The board as lowered though it fails its checks; re-raise `error` if it never got so far."""

    from hansa.compiler.project import SPEC_SUFFIX, Project, load_project, take_from_library

    path = Path(name_or_path)
    if path.is_file() or name_or_path.endswith(SPEC_SUFFIX):
        boards = list(load_project([path]).boards.values()) if path.is_file() else []
        if len(boards) == 1:
            return boards[0]
        raise error
    project = load_project([spec]) if Path(spec).is_dir() else Project()
    if name_or_path in project.boards or take_from_library(project, name_or_path):
        board = project.boards.get(name_or_path)
        if board is not None:
            return board
    raise error
