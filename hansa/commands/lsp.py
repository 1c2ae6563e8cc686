"""Run the language server for spec files on standard input and output (for an editor).

Diagnostics as you type (those of `hansa check`, for the unsaved buffers and the files that use
them), hover, completion, go to definition and references, formatting (`hansa fmt`), the
outline, the quick fix of a "did you mean" and rename of a city. The editor starts it; it needs
the `editor` extra (`pip install 'hansa[editor]'`). docs/editor.md has the editors' settings.
"""

from __future__ import annotations

import argparse

NAME = "lsp"
HELP = "run the language server for spec files over stdio (an editor starts it; docs/editor.md)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--stdio",
        action="store_true",
        help="speak over standard input and output (the default and only transport)",
    )
    parser.add_argument(
        "--debounce",
        type=float,
        default=0.15,
        metavar="SECONDS",
        help="quiet time after an edit before the buffers are checked (default 0.15)",
    )


def run(args: argparse.Namespace) -> int:
    from hansa.compiler.errors import HansaError

    if not 0 <= args.debounce <= 10:
        raise HansaError("--debounce must lie between 0 and 10 seconds")
    try:
        from hansa.lsp.server import serve
    except ModuleNotFoundError as exc:
        if exc.name not in ("pygls", "lsprotocol") and not str(exc.name).startswith("pygls."):
            raise
        raise HansaError(
            "hansa lsp needs the editor extra: pip install 'hansa[editor]' (pygls, lsprotocol)"
        ) from None
    serve(args.debounce)
    return 0
