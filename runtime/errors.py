"""Source spans and the project's one error type, shared by the compiler and the runtime.

Every stage reports problems as `Diagnostic`s that carry a `Span` into a spec file, so the command
line can print `file:line:col: error: message`, the source line and a caret. `HansaError` is what
every stage raises; it holds one or more diagnostics (a file with several independent syntax errors
raises one `HansaError` listing all of them). It lives in the runtime (standard library only) so a
generated module and the runtime run without the compiler; `hansa.compiler.errors` re-exports it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True, order=True)
class Span:
    """A region of a source file; lines and columns are 1-based, `end_column` is exclusive."""

    file: str
    line: int
    column: int
    end_line: int = 0
    end_column: int = 0

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"

    def to_json(self) -> dict:
        return {"file": self.file, "line": self.line, "column": self.column}


NO_SPAN = Span("<unknown>", 0, 0)


@dataclass(frozen=True)
class Diagnostic:
    """One message about one place: severity is 'error' or 'warning'."""

    message: str
    span: Span | None = None
    severity: str = "error"
    source_line: str | None = field(default=None, compare=False)

    def format(self, sources: dict[str, str] | None = None) -> str:
        """Render as `file:line:col: severity: message`, then the source line and a caret.

        Control characters (an ANSI escape in a name, a line separator) are shown escaped, so a
        message can neither restyle the terminal nor break its own lines."""
        if self.span is None or self.span.line <= 0:
            where = f"{printable(self.span.file)}: " if self.span is not None else ""
            return f"{where}{self.severity}: {printable(self.message)}"
        head = f"{printable(str(self.span))}: {self.severity}: {printable(self.message)}"
        line = self.source_line
        if line is None:
            line = _source_line(self.span, sources)
        if line is None:
            return head
        line = line.rstrip("\r\n").expandtabs(1)
        width = 1
        if self.span.end_line == self.span.line and self.span.end_column > self.span.column:
            width = self.span.end_column - self.span.column
        width = max(1, min(width, len(line) - self.span.column + 1))
        start, end = self.span.column - 1, self.span.column - 1 + width
        before, marked = printable(line[:start]), printable(line[start:end])
        caret = " " * len(before) + "^" + "~" * (max(1, len(marked)) - 1)
        return f"{head}\n    {printable(line)}\n    {caret}"


def printable(text: str) -> str:
    """`text` with control and line-separator characters (C0, C1, U+2028/2029, bidi controls)
    written as escapes: safe to print to a terminal, and always one line per newline given."""
    if text.isprintable() and "\x1b" not in text:
        return text
    out = []
    for ch in text:
        if ch in "\n\t" or ch.isprintable():
            out.append(ch)
        else:
            code = ord(ch)
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")
    return "".join(out)


def _source_line(span: Span, sources: dict[str, str] | None) -> str | None:
    text = None
    if sources is not None and span.file in sources:
        text = sources[span.file]
    else:
        try:
            text = Path(span.file).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError, ValueError):
            return None
    lines = text.split("\n")  # as the parser counts lines: "\n" only
    if 1 <= span.line <= len(lines):
        return lines[span.line - 1]
    return None


class HansaError(Exception):
    """The project's error: one or more diagnostics. Never shown to a user as a traceback."""

    def __init__(self, message_or_diagnostics: str | list[Diagnostic], span: Span | None = None):
        if isinstance(message_or_diagnostics, str):
            diagnostics = [Diagnostic(message_or_diagnostics, span)]
        else:
            diagnostics = list(message_or_diagnostics)
            if not diagnostics:
                raise ValueError("HansaError needs at least one diagnostic")
        self.diagnostics: list[Diagnostic] = diagnostics
        super().__init__(diagnostics[0].message)

    @property
    def span(self) -> Span | None:
        return self.diagnostics[0].span

    @property
    def message(self) -> str:
        return self.diagnostics[0].message

    def format(self, sources: dict[str, str] | None = None) -> str:
        return "\n".join(d.format(sources) for d in self.diagnostics)

    def __str__(self) -> str:
        first = self.diagnostics[0]
        text = f"{first.span}: {first.message}" if first.span and first.span.line else first.message
        if len(self.diagnostics) > 1:
            text += f" (and {len(self.diagnostics) - 1} more)"
        return text
