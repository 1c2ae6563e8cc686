"""Source spans and the project's one error type, shared by the compiler and the runtime.

Every stage reports problems as `Diagnostic`s that carry a `Span` into a spec file, so the command
line can print `file:line:col: error: message`, the source line and a caret. `HansaError` is what
every stage raises; it holds one or more diagnostics (a file with several independent syntax errors
raises one `HansaError` listing all of them). It lives in the runtime (standard library only) so a
generated module and the runtime run without the compiler; `hansa.compiler.errors` re-exports it.
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

# A terminal shows at most this many diagnostics per file (then "… and N more"), source lines of at
# most EXCERPT_WIDTH characters (a window around the column), and messages of MESSAGE_LIMIT: one
# long generated line with an error per item must not print megabytes.
PER_FILE_LIMIT = 20
EXCERPT_WIDTH = 100
MESSAGE_LIMIT = 1000


# Characters a terminal acts on or shows as nothing: controls, format characters (bidi overrides),
# line and paragraph separators, surrogates, private and unassigned code points. Printing escapes
# them; the spec languages refuse them in names and texts (hansa.compiler.syntax.limits).
HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn"})


def escape_controls(text: str, keep_newlines: bool = False) -> str:
    """`text` with control, format and separator characters (ANSI escapes, bidi overrides, U+2028)
    written as `\\x1b`-style escapes, so printing a diagnostic cannot drive the terminal."""
    if text.isprintable():
        return text
    out = []
    for ch in text:
        if ch.isprintable() or ch == " " or (keep_newlines and ch == "\n"):
            out.append(ch)
        elif unicodedata.category(ch) in HIDDEN_CATEGORIES:
            code = ord(ch)
            out.append(
                f"\\x{code:02x}"
                if code < 0x100
                else f"\\u{code:04x}"
                if code < 0x10000
                else f"\\U{code:08x}"
            )
        else:
            out.append(ch)
    return "".join(out)


def _shorten_message(message: str) -> str:
    if len(message) <= MESSAGE_LIMIT:
        return message
    half = MESSAGE_LIMIT // 2
    left_out = len(message) - 2 * half
    return f"{message[:half]}… ({left_out} characters left out) …{message[-half:]}"


def _excerpt(line: str, column: int, width: int) -> tuple[str, int, int]:
    """(shown line, caret column (1-based), caret width): the line's control characters escaped
    and, when it is long, only a window around `column` with '…' at the cut ends."""
    start = 0
    end = len(line)
    if len(line) > EXCERPT_WIDTH and column > EXCERPT_WIDTH * 2 // 3:
        start = max(0, min(column - 1 - EXCERPT_WIDTH // 3, len(line) - EXCERPT_WIDTH))
    if len(line) > EXCERPT_WIDTH:
        end = start + EXCERPT_WIDTH
    shown_before = escape_controls(line[start : column - 1])
    marked = escape_controls(line[column - 1 : column - 1 + width])
    after_end = max(end, column - 1 + width)
    shown_after = escape_controls(line[column - 1 + width : after_end])
    prefix = "…" if start > 0 else ""
    suffix = "…" if after_end < len(line) else ""
    if len(marked) > EXCERPT_WIDTH:  # a very long span: mark its start only
        marked, shown_after, suffix = marked[:EXCERPT_WIDTH], "", "…"
    text = prefix + shown_before + marked + shown_after + suffix
    return text, len(prefix) + len(shown_before) + 1, max(1, len(marked))


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

    def format(self, sources: dict[str, str] | None = None, _lines: dict | None = None) -> str:
        """Render as `file:line:col: severity: message`, then the source line and a caret (long
        lines as a window around the column; control characters escaped)."""
        message = escape_controls(_shorten_message(self.message), keep_newlines=True)
        if self.span is None or self.span.line <= 0:
            where = f"{escape_controls(self.span.file)}: " if self.span is not None else ""
            return f"{where}{self.severity}: {message}"
        head = f"{escape_controls(str(self.span))}: {self.severity}: {message}"
        line = self.source_line
        if line is None:
            line = _source_line(self.span, sources, _lines)
        if line is None:
            return head
        line = line.rstrip("\r\n").expandtabs(1)
        width = 1
        if self.span.end_line == self.span.line and self.span.end_column > self.span.column:
            width = self.span.end_column - self.span.column
        column = max(1, min(self.span.column, len(line) + 1))
        width = max(1, min(width, len(line) - column + 1))
        shown, caret_column, caret_width = _excerpt(line, column, width)
        caret = " " * (caret_column - 1) + "^" + "~" * (caret_width - 1)
        return f"{head}\n    {shown}\n    {caret}"


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


def terminal_safe(text: str) -> str:
    """`text` with every character a terminal acts on or hides (controls other than line feed
    and tab, format characters such as bidi overrides, line separators) written as a `\\u001b`
    escape: safe to print, and still valid inside a JSON string (what `hansa` prints on standard
    output passes through this, see `hansa.cli`)."""
    if text.isprintable() or text.translate(_LAYOUT).isprintable():
        return text
    out = []
    for ch in text:
        if ch in "\n\t" or unicodedata.category(ch) not in HIDDEN_CATEGORIES:
            out.append(ch)
        elif ord(ch) < 0x10000:
            out.append(f"\\u{ord(ch):04x}")
        else:  # as JSON writes it: a surrogate pair
            code = ord(ch) - 0x10000
            out.append(f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}")
    return "".join(out)


_LAYOUT = {ord("\n"): None, ord("\t"): None}  # printed as they are


def format_diagnostics(
    diagnostics, sources: dict[str, str] | None = None, per_file: int = PER_FILE_LIMIT
) -> str:
    """Every diagnostic formatted, at most `per_file` of each file (errors first kept in the given
    order), then one line per file saying how many more there are."""
    shown: Counter[str] = Counter()
    hidden: Counter[str] = Counter()
    lines_cache: dict = {}
    out = []
    for d in diagnostics:
        file = d.span.file if d.span is not None else ""
        if shown[file] >= per_file:
            hidden[file] += 1
            continue
        shown[file] += 1
        out.append(d.format(sources, lines_cache))
    for file, count in hidden.items():
        where = f"{escape_controls(file)}: " if file else ""
        out.append(f"{where}… and {count} more (not shown; fix the ones above first)")
    return "\n".join(out)


def _source_line(
    span: Span, sources: dict[str, str] | None, cache: dict | None = None
) -> str | None:
    lines = cache.get(span.file) if cache is not None else None
    if lines is None:
        if sources is not None and span.file in sources:
            text = sources[span.file]
        else:
            try:
                text = Path(span.file).read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError, ValueError):
                return None
            text = unicodedata.normalize("NFC", text)  # as the spec reader gives it to the parser
        lines = text.split("\n")  # as the parser counts lines: "\n" only
        if cache is not None:
            cache[span.file] = lines
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
        return format_diagnostics(self.diagnostics, sources)

    def __str__(self) -> str:
        first = self.diagnostics[0]
        text = f"{first.span}: {first.message}" if first.span and first.span.line else first.message
        if len(self.diagnostics) > 1:
            text += f" (and {len(self.diagnostics) - 1} more)"
        return text
