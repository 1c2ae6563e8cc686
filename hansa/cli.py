"""The `hansa` command line: one subcommand per module in `hansa.commands`.

Each command module defines `NAME`, `HELP`, `add_arguments(parser)` and `run(args) -> int`. Errors
are `HansaError`s, printed as `file:line:col: error: …` with the source line and a caret; exit
code 1 (2 for `diff`, like diff(1)).
"""

from __future__ import annotations

import argparse
import importlib
import re
import sys

from hansa.compiler.errors import HansaError
from hansa.runtime.errors import printable, terminal_safe

COMMANDS = [
    "check",
    "export",
    "import_",
    "fmt",
    "render",
    "build",
    "bench",
    "verify",
    "play",
    "simulate",
    "ladder",
    "replay",
    "score",
    "diff",
    "list_",
    "serve",
    "lsp",
]


def _load_commands():
    modules = []
    for name in COMMANDS:
        try:
            modules.append(importlib.import_module(f"hansa.commands.{name}"))
        except ModuleNotFoundError as exc:  # a command not written yet is simply absent
            if exc.name != f"hansa.commands.{name}":
                raise
    return modules


def version() -> str:
    """The installed package's version (a source checkout that is not installed says so)."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed_version

    try:
        return installed_version("hansa")
    except PackageNotFoundError:
        return "(not installed)"


class _VersionAction(argparse.Action):
    """`--version`, looked up only when asked for (importlib.metadata is slow to import)."""

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        print(f"hansa {version()}")
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="hansa",
        description="Compile, check, draw, play and compare Hansa Teutonica boards and rule sets.",
    )
    parser.add_argument(
        "--version", action=_VersionAction, nargs=0, help="print hansa's version and exit"
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in _load_commands():
        p = sub.add_parser(module.NAME, help=module.HELP, description=module.__doc__)
        module.add_arguments(p)
        p.set_defaults(_run=module.run)
    return parser


# The one kind of escape sequence `hansa` writes itself (`diff --color`): colours, bold, reset.
_COLOUR = re.compile(r"\x1b\[(?:(?:0|1|22|3[0-79]|9[0-7])(?:;|(?=m)))*m")


class _TerminalSafe:
    """Standard output while a command runs: every text written passes `terminal_safe`, so no
    name from a spec, a state or a log can drive the terminal (an ANSI escape, a bidi override),
    whichever command prints it; the escapes it writes are valid inside JSON strings too. Colour
    sequences pass (never one that conceals text, moves the cursor or clears the screen)."""

    def __init__(self, stream):
        self._stream = stream

    def write(self, text: str) -> int:
        parts, last = [], 0
        for match in _COLOUR.finditer(text):
            parts += [terminal_safe(text[last : match.start()]), match.group()]
            last = match.end()
        parts.append(terminal_safe(text[last:]))
        self._stream.write("".join(parts))
        return len(text)

    def __getattr__(self, name: str):
        return getattr(self._stream, name)


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "_run", None):
        parser.print_help()
        return 1
    stdout = sys.stdout
    sys.stdout = _TerminalSafe(stdout)
    try:
        return int(args._run(args) or 0)
    except HansaError as exc:
        print(exc.format(), file=sys.stderr)
        return getattr(args, "_error_exit", 1)
    except KeyboardInterrupt:
        print("hansa: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 1
    except OSError as exc:  # an I/O failure no command foresaw: one line, not a traceback
        name = str(exc.filename) if exc.filename else ""
        where = f"{name if len(name) <= 200 else name[:199] + '…'}: " if name else ""
        print(printable(f"{where}error: {exc.strerror or exc}"), file=sys.stderr)
        return getattr(args, "_error_exit", 1)
    finally:
        sys.stdout = stdout


if __name__ == "__main__":
    sys.exit(main())
