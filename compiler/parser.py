"""Source text → lark syntax tree, with errors reported in words at file:line:col.

The grammar is the concatenation of `grammar/common.lark` and every other `grammar/*.lark` file; each
of those names its top-level rules with a `//! top: RULE …` line. The parser is LALR (fast, and its
interactive mode lets us recover after an error and report several independent ones).
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

import lark
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from .errors import Diagnostic, HansaError, Span

GRAMMAR_DIR = Path(__file__).parent / "grammar"

# Words for named terminals in "expected …" messages; string terminals are shown quoted.
TERMINAL_WORDS = {
    "NAME": "a name",
    "STRING": "a quoted string",
    "SIGNED_NUMBER": "a number",
    "NUMBER": "a number",
    "INT": "a whole number",
    "$END": "end of file",
}


def grammar_text() -> str:
    common = (GRAMMAR_DIR / "common.lark").read_text(encoding="utf-8")
    parts, tops = [common], []
    for path in sorted(GRAMMAR_DIR.glob("*.lark")):
        if path.name == "common.lark":
            continue
        text = path.read_text(encoding="utf-8")
        for m in re.finditer(r"^//!\s*top:\s*(.+)$", text, re.M):
            tops.extend(m.group(1).split())
        parts.append(text)
    if not tops:
        tops = ["_never"]
        parts.append('_never: "\\x00never"')
    parts.append("_decl: " + " | ".join(tops))
    return "\n".join(parts)


@functools.cache
def get_parser() -> lark.Lark:
    return lark.Lark(
        grammar_text(),
        parser="lalr",
        lexer="contextual",
        propagate_positions=True,
        maybe_placeholders=False,
        start="start",
    )


def span_of(item, file: str) -> Span:
    """The span of a lark Token or Tree (meta)."""
    if isinstance(item, lark.Token):
        return Span(file, item.line or 0, item.column or 0, item.end_line or 0, item.end_column or 0)
    meta = getattr(item, "meta", None)
    if meta is None or getattr(meta, "empty", True):
        return Span(file, 0, 0)
    return Span(file, meta.line, meta.column, meta.end_line, meta.end_column)


def describe_terminal(parser: lark.Lark, name: str) -> str:
    if name in TERMINAL_WORDS:
        return TERMINAL_WORDS[name]
    try:
        term = parser.get_terminal(name)
    except KeyError:
        return name.lower()
    pattern = term.pattern
    if isinstance(pattern, lark.lexer.PatternStr):
        return f"'{pattern.value}'"
    return name.lower().replace("_", " ")


def describe_expected(parser: lark.Lark, names) -> str:
    words = sorted({describe_terminal(parser, n) for n in names})
    if not words:
        return "nothing more"
    if len(words) > 8:
        words = words[:8] + ["…"]
    if len(words) == 1:
        return words[0]
    return ", ".join(words[:-1]) + " or " + words[-1]


def _describe_token(token: lark.Token) -> str:
    if token.type == "$END":
        return "end of file"
    text = str(token)
    if len(text) > 30:
        text = text[:27] + "..."
    return repr(text)


def _error_diagnostic(parser: lark.Lark, err: UnexpectedInput, file: str, lines: list[str]) -> Diagnostic:
    if isinstance(err, UnexpectedCharacters):
        ch = lines[err.line - 1][err.column - 1] if 0 < err.line <= len(lines) else "?"
        message = f"unexpected character {ch!r}"
        if err.allowed:
            message += f"; expected {describe_expected(parser, err.allowed)}"
        span = Span(file, err.line, err.column, err.line, err.column + 1)
    elif isinstance(err, UnexpectedEOF):
        line = max(1, len(lines))
        col = len(lines[-1]) + 1 if lines else 1
        message = f"unexpected end of file; expected {describe_expected(parser, err.expected)}"
        span = Span(file, line, col, line, col + 1)
    elif isinstance(err, UnexpectedToken):
        tok = err.token
        if tok.type == "$END":
            line = max(1, len(lines))
            col = len(lines[-1]) + 1 if lines else 1
            span = Span(file, line, col, line, col + 1)
        else:
            span = Span(file, tok.line, tok.column, tok.end_line or tok.line, tok.end_column or tok.column + 1)
        message = f"unexpected {_describe_token(tok)}; expected {describe_expected(parser, err.expected)}"
    else:  # pragma: no cover - lark has no other UnexpectedInput kinds
        message = "syntax error"
        span = Span(file, getattr(err, "line", 0) or 0, getattr(err, "column", 0) or 0)
    src = lines[span.line - 1] if 0 < span.line <= len(lines) else None
    return Diagnostic(message, span, source_line=src)


def parse_text(text: str, file: str = "<text>") -> lark.Tree:
    """Parse spec text; raise one HansaError listing every syntax error found."""
    parser = get_parser()
    lines = text.splitlines()
    errors: list[Diagnostic] = []

    def on_error(err: UnexpectedInput) -> bool:
        errors.append(_error_diagnostic(parser, err, file, lines))
        return len(errors) < 20 and not isinstance(err, UnexpectedEOF)

    try:
        tree = parser.parse(text, on_error=on_error)
    except UnexpectedInput as err:
        diag = _error_diagnostic(parser, err, file, lines)
        if not errors or errors[-1] != diag:
            errors.append(diag)
        tree = None
    except (lark.exceptions.LarkError, RecursionError) as err:  # recovery can give up
        if not errors:
            errors.append(Diagnostic(f"syntax error ({err.__class__.__name__})", Span(file, 1, 1)))
        tree = None
    if errors:
        raise HansaError(_dedupe(errors))
    return tree


def _dedupe(errors: list[Diagnostic]) -> list[Diagnostic]:
    seen, out = set(), []
    for d in errors:
        key = (d.span.line, d.span.column) if d.span else None
        if key in seen:
            continue
        seen.add(key)
        out.append(d)
    return out


def read_source(path: str | Path) -> str:
    """Read a spec file, turning every way it can be unreadable into one clear HansaError."""
    p = Path(path)
    name = str(path)
    if not p.exists():
        raise HansaError("no such file", Span(name, 0, 0))
    if p.is_dir():
        raise HansaError("is a directory, not a spec file", Span(name, 0, 0))
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise HansaError(f"cannot read: {exc.strerror or exc}", Span(name, 0, 0)) from None
    if b"\x00" in data:
        raise HansaError("binary file, not a spec file", Span(name, 0, 0))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise HansaError(f"not UTF-8 text (bad byte at offset {exc.start})", Span(name, 0, 0)) from None
    if text.startswith("\ufeff"):
        text = text[1:]
    if not text.strip():
        raise HansaError("empty file", Span(name, 0, 0))
    return text
