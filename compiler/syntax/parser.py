"""Source text → lark syntax tree, with errors reported in words at file:line:col.

The grammar is the concatenation of `grammar/common.lark` and every other `grammar/*.lark` file;
each of those names its top-level rules with a `//! top: RULE …` line, and may give a regex terminal
its words for error messages with `//! word: TERMINAL description`. The parser is LALR, built once
per process (its tables cached on disk between processes, so the command line starts fast).

Statements of a rules block end at a line break: the parser feeds the grammar's `_SEP` (which
the lexer never makes) before the first token of a line when the statement so far is complete,
the previous line does not end with an operator, a comma or an opening bracket, and the line is
not indented further than the statement's first word (a continuation line, as `hansa fmt` writes
it). So `end when track_pp >= 16` and a next line `action create_route control_pp 2` are two
statements, not the amount "16 action". Every state of the contextual lexer also accepts a name,
so a misspelt keyword (`forbidd`) is one word with a "did you mean", not `forbid` and `d`.

Error recovery drives lark's interactive LALR parser token by token. After a syntax error it skips
ahead in panic mode: a keyword or `}` that some enclosing construct accepts pops the parser back to
that construct (so `city`, `route`, `}` … start afresh), other tokens are dropped (with braces kept
balanced), and errors are not reported again until the parser has shifted a keyword, `;` or `}`. So
several independent errors in one file are all reported, and one mistake is reported once.
"""

from __future__ import annotations

import copy
import functools
import hashlib
import os
import re
import unicodedata
from dataclasses import replace
from pathlib import Path

import lark
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken
from lark.lexer import PatternStr, Token

from ..errors import Diagnostic, HansaError, Span, did_you_mean
from . import limits

GRAMMAR_DIR = Path(__file__).parent / "grammar"
MAX_SYNTAX_ERRORS = 20

# Words for named terminals in "expected …" messages; string terminals are shown quoted. Grammar
# files add their own with `//! word: TERMINAL description` lines.
TERMINAL_WORDS = {
    "NAME": "a name",
    "STRING": "a quoted string",
    "SIGNED_NUMBER": "a number",
    "NUMBER": "a number",
    "INT": "a whole number",
    "COMMENT": "a comment",
    "$END": "end of file",
}
_WORD_LINE = re.compile(r"^//!\s*word:\s*([A-Z_][A-Z0-9_]*)\s+(.+?)\s*$", re.M)
_TOP_LINE = re.compile(r"^//!\s*top:\s*(.+)$", re.M)


def _grammar_files() -> list[Path]:
    return [p for p in sorted(GRAMMAR_DIR.glob("*.lark")) if p.name != "common.lark"]


def grammar_text() -> str:
    """The whole grammar: common.lark, the other grammar files, and a `_decl` rule joining tops."""
    common = (GRAMMAR_DIR / "common.lark").read_text(encoding="utf-8")
    parts, tops = [common], []
    for path in _grammar_files():
        text = path.read_text(encoding="utf-8")
        for m in _TOP_LINE.finditer(text):
            tops.extend(m.group(1).split())
        parts.append(text)
    if not tops:
        tops = ["_never"]
        parts.append('_never: "\\x00never"')
    parts.append("_decl: " + " | ".join(tops))
    return "\n".join(parts)


@functools.cache
def terminal_words() -> dict[str, str]:
    """TERMINAL_WORDS plus every `//! word:` line of the grammar files."""
    words = dict(TERMINAL_WORDS)
    for path in [GRAMMAR_DIR / "common.lark", *_grammar_files()]:
        for m in _WORD_LINE.finditer(path.read_text(encoding="utf-8")):
            words[m.group(1)] = m.group(2)
    return words


def _table_cache(grammar: str) -> str | bool:
    """A per-user file for lark's parse-table cache (lark re-checks the grammar's hash on load).

    Kept out of the shared temporary folder, since the cache is a pickle; without a writable cache
    folder the tables are simply built each run (a few tenths of a second).
    """
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    folder = Path(base) / "hansa"
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return False
    digest = hashlib.sha256(grammar.encode("utf-8")).hexdigest()[:16]
    return str(folder / f"grammar-{digest}.lark-cache")


class _WholeWords:
    """A post-lexer that changes nothing but makes every lexer state accept NAME: a keyword is then
    only ever a whole word (lark turns a NAME spelt like a keyword into the keyword), never the
    prefix of a longer word."""

    always_accept = ("NAME",)

    def process(self, stream):
        return stream


# The terminal the parser feeds where a line break ends a statement (grammar/rules.lark).
SEPARATOR = "_SEP"
# Tokens after which a line continues: operators, commas and opening brackets.
_CONTINUING = frozenset(
    {
        "COMMA",
        "LPAR",
        "LBRACE",
        "LSQB",
        "COLON",
        "EQUAL",
        "PLUS",
        "MINUS",
        "STAR",
        "SLASH",
        "VBAR",
        "MORETHAN",
        "LESSTHAN",
    }
)
_CONTINUING_TEXT = frozenset(
    {
        ">=",
        "<=",
        "!=",
        "--",
        "..",
        "and",
        "or",
        "not",
        "if",
        "per",
        "where",
        "of",
        "over",
        "has",
        "is",
        "are",
        "by",
        "with",
        "when",
        "extends",
        "in",
    }
)


@functools.cache
def get_parser() -> lark.Lark:
    """The one LALR parser of this process (its tables cached on disk between runs)."""
    grammar = grammar_text()
    return lark.Lark(
        grammar,
        parser="lalr",
        lexer="contextual",
        postlex=_WholeWords(),
        propagate_positions=True,
        maybe_placeholders=False,
        start="start",
        cache=_table_cache(grammar),
    )


def span_of(item, file: str) -> Span:
    """The span of a lark Token or Tree (meta)."""
    if isinstance(item, lark.Token):
        return Span(
            file, item.line or 0, item.column or 0, item.end_line or 0, item.end_column or 0
        )
    meta = getattr(item, "meta", None)
    if meta is None or getattr(meta, "empty", True):
        return Span(file, 0, 0)
    return Span(file, meta.line, meta.column, meta.end_line, meta.end_column)


def describe_terminal(parser: lark.Lark, name: str) -> str:
    """A terminal in words: keywords and punctuation quoted, regex terminals by their word."""
    words = terminal_words()
    if name in words:
        return words[name]
    try:
        term = parser.get_terminal(name)
    except KeyError:
        return name.lower()
    pattern = term.pattern
    if isinstance(pattern, PatternStr):
        return f"'{pattern.value}'"
    return name.lower().replace("_", " ")


def describe_expected(parser: lark.Lark, names) -> str:
    # every word that fits, never a list cut short: what cannot be written here is as useful to
    # know as what can
    words = sorted({describe_terminal(parser, n) for n in names if n != SEPARATOR})
    if not words:
        return "nothing more"
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


def _keyword_hint(parser: lark.Lark, token: lark.Token, expected) -> str:
    """' (did you mean 'city'?)' when a name stands where a keyword like it was expected."""
    if token.type != "NAME":
        return ""
    keywords = []
    for name in expected:
        try:
            pattern = parser.get_terminal(name).pattern
        except KeyError:
            continue
        if isinstance(pattern, PatternStr) and pattern.value.isidentifier():
            keywords.append(pattern.value)
    return did_you_mean(str(token), keywords) if keywords else ""


def _end_span(file: str, lines: list[str]) -> Span:
    """Where "unexpected end of file" points: just after the last non-blank line."""
    number = len(lines)
    while number > 1 and not lines[number - 1].strip():
        number -= 1
    col = len(lines[number - 1].rstrip("\r")) + 1 if lines else 1
    return Span(file, max(1, number), col, max(1, number), col + 1)


def _error_diagnostic(
    parser: lark.Lark,
    err: UnexpectedInput,
    file: str,
    lines: list[str],
    expected: set[str] | None = None,
) -> Diagnostic:
    """The diagnostic for one syntax error; `expected` overrides the terminals lark suggests."""
    if expected is not None:
        err.expected = err.allowed = expected
    if isinstance(err, UnexpectedCharacters):
        line = lines[err.line - 1] if 0 < err.line <= len(lines) else ""
        ch = line[err.column - 1] if 0 < err.column <= len(line) else "?"
        message = f"unexpected character {ch!r}"
        if ch == '"':
            message = 'unterminated string (a string ends with " on the same line)'
        elif err.allowed:
            message += f"; expected {describe_expected(parser, err.allowed)}"
        span = Span(file, err.line, err.column, err.line, err.column + 1)
    elif isinstance(err, UnexpectedEOF):
        message = f"unexpected end of file; expected {describe_expected(parser, err.expected)}"
        span = _end_span(file, lines)
    elif isinstance(err, UnexpectedToken):
        tok = err.token
        if tok.type == "$END":
            span = _end_span(file, lines)
        else:
            span = Span(
                file,
                tok.line,
                tok.column,
                tok.end_line or tok.line,
                tok.end_column or tok.column + 1,
            )
        message = (
            f"unexpected {_describe_token(tok)}; expected {describe_expected(parser, err.expected)}"
        )
        message += _keyword_hint(parser, tok, err.expected)
    else:  # pragma: no cover - lark has no other UnexpectedInput kinds
        message = "syntax error"
        span = Span(file, getattr(err, "line", 0) or 1, getattr(err, "column", 0) or 1)
    src = lines[span.line - 1] if 0 < span.line <= len(lines) else None
    return Diagnostic(message, span, source_line=src)


class _Recovery:
    """Panic-mode error recovery around lark's interactive LALR parser (see module docstring)."""

    def __init__(self, parser: lark.Lark, text: str, file: str):
        self.parser = parser
        self.file = file
        self.lines = text.split("\n")  # lark counts lines by "\n" only
        interactive = parser.parse_interactive(text)
        self.state = interactive.parser_state
        self.lexer = interactive.lexer_thread
        self.errors: list[Diagnostic] = []
        self.recovering = False  # after an error, until a keyword, ';' or '}' is shifted
        self.dropped_braces = 0  # '{' dropped while recovering, whose '}' must be dropped too
        self.sync_types, self.resume_types = _sync_terminals(parser)
        self.keyword_types = {
            t.pattern.value: t.name
            for t in parser.terminals
            if t.name in self.sync_types and isinstance(t.pattern, PatternStr)
        }
        self.previous: Token | None = None  # the last token fed
        self.statement_column = 0  # where the current statement's first word stands
        self.at_statement_start = False  # after a block's '{' or a line break ending a statement
        self.retry: Token | None = None  # a token to feed again after an inserted '{'
        self.guess: Token | None = None  # a misspelt keyword read as the keyword, until confirmed

    def report(self, err: UnexpectedInput, message: str = "") -> None:
        """Say what is wrong (in `message`, else what the parser expected), unless recovering."""
        line = getattr(err, "line", 0)
        said_on_this_line = bool(self.errors) and self.errors[-1].span.line == line > 0
        if not self.recovering and not said_on_this_line:  # one error a line: the rest echo it
            expected = _acceptable(self.state)
            diagnostic = _error_diagnostic(self.parser, err, self.file, self.lines, expected)
            if message:
                diagnostic = replace(diagnostic, message=message)
            self.errors.append(diagnostic)
        self.recovering = True

    def you_control_message(self, token: Token) -> str:
        """For `… cities you control` where a number is wanted: what to write. Empty otherwise."""
        previous = self.previous
        if str(token) != "control" or previous is None or str(previous) != "you":
            return ""
        if previous.line != token.line:
            return ""
        return (
            "unexpected 'control' after 'you': `cities you control` is a set of cities; its number"
            " is `count cities you control` (or `… per city you control`)"
        )

    def starts_control_statement(self, token: Token) -> bool:
        """Whether `control` right after `you` on the same line would start a `control goes to`
        statement (the parser can take it there, the phrase before being complete): it never
        does, the author meant the cities they control."""
        if not self.you_control_message(token) or token.type == "NAME":
            return False
        trial = self.state.copy(deepcopy_values=False)
        trial.parse_conf = copy.copy(trial.parse_conf)
        trial.parse_conf.callbacks = {}
        try:
            trial.feed_token(token)
        except UnexpectedToken:
            return False
        return self.keyword_types.get("goes") in _acceptable(trial)

    def several_words_message(self, token: Token) -> str:
        """For a name right after a name on the same line (`receive marker royal charter`): how a
        name of several words is written. Empty otherwise."""
        previous = self.previous
        if token.type != "NAME" or previous is None or previous.type != "NAME":
            return ""
        if previous.line != token.line:
            return ""
        if not _acceptable(self.state) & {"RBRACE", "COMMA", "$END"}:
            return ""  # the phrase could not end there: something else is missing
        return (
            f"unexpected {_describe_token(token)} after {_describe_token(previous)}: a name of"
            f' several words is written in double quotes ("{previous} {token}")'
        )

    def shifted(self, token: Token) -> None:
        if token is not self.guess:
            self.guess = None  # a token after the guessed keyword fitted: the guess was right
        if token.type in self.resume_types:
            self.recovering = False
            self.dropped_braces = 0
        self.previous = token
        if self.at_statement_start:
            self.statement_column, self.at_statement_start = token.column or 0, False
        elif token.type == "LBRACE" and self.accepts(SEPARATOR):
            self.at_statement_start = True  # a rules block opened: its first statement follows

    def second_statement_on_line(self, token: Token) -> bool:
        """Whether a keyword in the middle of a line would begin a new statement of a rules block
        (`gain 2 bonus if …`: `bonus` read as the start of a `bonus` statement): the parser takes
        it directly only as it would after a line break. Statements of a rules block stand on
        lines of their own (but for a block written whole on one line), so the word is a mistake
        in this one."""
        if (
            token.type not in self.sync_types
            or token.type == "RBRACE"
            or self.starts_a_line(token)
            or self.previous is None
            or self.previous.line != token.line
            or "{" in self.lines[token.line - 1][: (token.column or 1) - 1]
        ):  # a block written on one line may hold several statements
            return False
        direct, after_break = self._trial(), self._trial()
        try:
            direct.feed_token(token)
            after_break.feed_token(Token.new_borrow_pos(SEPARATOR, "", token))
            after_break.feed_token(token)
        except UnexpectedToken:
            return False
        return direct.state_stack == after_break.state_stack

    def continuing(self, token: Token) -> str:
        """The error for a statement's word that would start a second statement on its line:
        what can continue the statement there instead."""
        after_break = self._trial()
        after_break.feed_token(Token.new_borrow_pos(SEPARATOR, "", token))
        here = _acceptable(self.state) - _acceptable(after_break) - {"RBRACE"}
        follow = f"; here {describe_expected(self.parser, here)} can follow" if here else ""
        return (
            f"unexpected {_describe_token(token)}: a statement starts on a line of its own{follow}"
        )

    def _trial(self):
        trial = self.state.copy(deepcopy_values=False)
        trial.parse_conf = copy.copy(trial.parse_conf)
        trial.parse_conf.callbacks = {}
        return trial

    def accepts(self, terminal: str) -> bool:
        """Whether the parser can take `terminal` now (tried on a copy, without building trees:
        lark's tree builders may change the values they are given)."""
        trial = self.state.copy(deepcopy_values=False)
        trial.parse_conf = copy.copy(trial.parse_conf)
        trial.parse_conf.callbacks = {}
        try:
            trial.feed_token(Token(terminal, ""))
        except UnexpectedToken:
            return False
        return True

    def ends_statement(self, token: Token) -> bool:
        """Whether the line break before `token` ends the statement (see the module docstring)."""
        previous = self.previous
        if previous is None or token.type == "RBRACE" or not token.line or not previous.line:
            return False
        if token.line <= (previous.end_line or previous.line) or not self.starts_a_line(token):
            return False
        if previous.type in _CONTINUING or str(previous) in _CONTINUING_TEXT:
            return False
        if (token.column or 0) > self.statement_column:
            return False  # a continuation line, indented under the statement
        return self.accepts(SEPARATOR)

    def end_statement(self, before: Token) -> None:
        self.state.feed_token(Token.new_borrow_pos(SEPARATOR, "", before))
        self.at_statement_start = True

    def starts_a_line(self, token: Token) -> bool:
        """Whether `token` is the first thing on its line (where statements usually begin)."""
        if not token.line or token.line > len(self.lines):
            return False
        line = self.lines[token.line - 1]
        return len(line) - len(line.lstrip()) + 1 == token.column

    def unexpected(self, err: UnexpectedToken) -> None:
        """Report (unless still recovering from an earlier error), then resynchronise on the token
        if an enclosing construct takes it, else drop it."""
        token = err.token
        if token.type == "NAME" and str(token) in self.keyword_types and self.starts_a_line(token):
            # lexed as a name in a state that had no place for the keyword (inside a broken
            # statement): starting a line, it is the keyword, which may start the next statement
            token = Token.new_borrow_pos(self.keyword_types[str(token)], str(token), token)
            err.token = token
        if token.type == "RBRACE" and self.dropped_braces:
            self.dropped_braces -= 1  # closes a '{' dropped while recovering
            return
        if not self.recovering and self.starts_a_line(token):
            self.statement_column = token.column or 0  # a broken statement's first word
        if self.guess is not None:
            # the token after a guessed keyword does not fit it either: the guess was wrong, and
            # its error said where the mistake is
            self.guess, self.recovering = None, True
        own_words = self.you_control_message(token) or self.several_words_message(token)
        if own_words and not self.recovering:
            self.report(err, own_words)
            return
        misspelt = self.misspelt_keyword(token) if not self.recovering else None
        if misspelt is not None:
            # A misspelt keyword (`forbidd`, `when use:`): say so once, then read on as if the
            # keyword were written, so the rest of the statement and the next line raise nothing.
            self.report(err)
            self.recovering = False
            self.retry = self.guess = misspelt
            return
        if self.recovering and self.starts_a_line(token) and not self.dropped_braces:
            if "LBRACE" in _acceptable(self.state):
                # a broken head (`board ring "The Ring" "x"`) on the line before a block's
                # statements: read on as if its '{' were there, so they raise nothing more
                self.state.feed_token(Token.new_borrow_pos("LBRACE", "{", token))
                self.shifted(Token.new_borrow_pos("LBRACE", "{", token))
                self.retry = token
                return
        if not self.recovering and self.missing_brace(token):
            # Only a '{' can follow (`rules r extends p` and a line break): say so once, then read
            # on as if it were there, so the block's statements and its '}' raise nothing more.
            self.report(err)
            self.recovering = False
            self.state.feed_token(Token.new_borrow_pos("LBRACE", "{", token))
            self.shifted(Token.new_borrow_pos("LBRACE", "{", token))
            # a word on the head's own line stood where the '{' should (`extends p after`): it
            # goes with it; one on a later line starts the block
            new_line = self.previous is not None and token.line != self.previous.line
            self.retry = token if new_line or token.type == "RBRACE" else None
            return
        inside_dropped = self.recovering and self.dropped_braces > 0
        # a keyword inside a block that was dropped belongs to that block, not to a construct
        # outside it (`… | completed_cities >= board` must not start a `board` declaration)
        resumed = (
            self.resynchronised(token)
            if token.type in self.sync_types
            and not inside_dropped
            # mid-line, a keyword belongs to the broken statement (`… per city you control`)
            and (self.starts_a_line(token) or self.closes_on_its_line(token))
            # a declaration starts at the left margin; indented, the word is a broken statement's
            and not (str(token) in _DECLARATION_KEYWORDS and token.column != 1)
            else None
        )
        if resumed is None or not self.recovering:
            continuation = 0 < self.statement_column < (token.column or 0)
            if (
                self.recovering
                and not self.dropped_braces
                and self.starts_a_line(token)
                and not continuation  # a line indented under the broken statement continues it
            ):
                # A fresh line outside skipped braces: a new mistake, probably where a statement
                # of the enclosing block should start.
                self.recovering = False
                self.state = self.enclosing_block()
            self.report(err)
        if resumed is not None:
            was_recovering = self.recovering
            self.state = resumed
            if self.starts_a_line(token):
                self.statement_column, self.at_statement_start = token.column or 0, False
            self.shifted(token)
            if was_recovering and str(token) in _DECLARATION_KEYWORDS:
                # a declaration begun from inside a broken block (`}` mistyped as `rules`): its
                # head is read on quietly, the block's error having said what is wrong
                self.recovering = True
        elif token.type == "LBRACE":
            self.dropped_braces += 1

    def starts_statement_mid_line(self, token: Token) -> bool:
        """While recovering: whether `token` is a keyword that would start a statement in the
        middle of a line at a block's level (`… per city you control` after a broken head), or a
        '}' there that closes no block opened on its line; either belongs to the broken
        statement."""
        if not self.recovering or token.type not in self.sync_types or self.starts_a_line(token):
            return False
        if token.type == "RBRACE":
            return not self.closes_on_its_line(token)  # a stray '}' of the broken statement
        return bool(_acceptable(self.state) & {"RBRACE", "$END"})

    def closes_on_its_line(self, token: Token) -> bool:
        """Whether a '}' in the middle of a line may close a block: one opened on its line (`city
        A { square white }`). One that breaks a statement there (`players }`) is a stray '}':
        dropped with the statement, the enclosing block read on."""
        if token.type != "RBRACE" or not token.line:
            return False
        line = self.lines[token.line - 1]
        before, after = line[: (token.column or 1) - 1], line[token.column or 1 :]
        # an unclosed '{' before it that no later '}' of the line closes instead
        return before.count("{") - before.count("}") > after.count("}") - after.count("{")

    def missing_brace(self, token: Token) -> bool:
        """Whether a '{' is missing before `token`: it is the only thing that can follow, or it can
        follow and `token` starts a new line (a block's first statement after its head)."""
        acceptable = _acceptable(self.state)
        if "LBRACE" not in acceptable or token.type == "RBRACE":
            return False
        previous = self.previous
        new_line = previous is not None and (token.line or 0) > (previous.end_line or 0)
        if acceptable == {"LBRACE"} or (new_line and self.starts_a_line(token)):
            return True
        # `city Jena  square white }`: the rest of the line closes a block it never opened
        rest = self.lines[token.line - 1][(token.column or 1) - 1 :] if token.line else ""
        return rest.count("}") > rest.count("{")

    def misspelt_keyword(self, token: Token) -> Token | None:
        """The keyword a name misspells, as a token in its place, if exactly one keyword the
        parser can take now is that close to it."""
        if token.type != "NAME":
            return None
        keywords = {}
        for name in _acceptable(self.state):
            try:
                pattern = self.parser.get_terminal(name).pattern
            except KeyError:
                continue
            if isinstance(pattern, PatternStr) and pattern.value.isidentifier():
                keywords[pattern.value] = name
        hint = _keyword_hint(self.parser, token, list(keywords.values()))
        guess = hint.split("'")[1] if hint else None
        if guess not in keywords:
            return None
        return Token.new_borrow_pos(keywords[guess], guess, token)

    def enclosing_block(self):
        """The parser state popped back to the innermost block (a state that can take '}' or
        end the file), or the current state if there is none."""
        stack, values = self.state.state_stack, self.state.value_stack
        for depth in range(len(stack), 0, -1):
            trial = self.state.copy(deepcopy_values=False)
            trial.state_stack, trial.value_stack = stack[:depth], values[: depth - 1]
            if _acceptable(trial) & {"RBRACE", "$END"}:
                return trial
        return self.state

    def resynchronised(self, token: Token):
        """The parser state after popping back to the innermost construct that takes `token`."""
        stack, values = self.state.state_stack, self.state.value_stack
        for depth in range(len(stack) - 1, 0, -1):
            trial = self.state.copy(deepcopy_values=False)
            trial.state_stack, trial.value_stack = stack[:depth], values[: depth - 1]
            try:
                trial.feed_token(token)
            except UnexpectedToken:
                continue
            return trial
        return None

    def skip_character(self) -> None:
        lexer_state = self.lexer.state
        position = lexer_state.line_ctr.char_pos
        lexer_state.line_ctr.feed(lexer_state.text.text[position : position + 1])

    def _tokens(self):
        """The lexer's tokens, after a token to feed again (one that followed a missing '{')."""
        while self.retry is not None:
            token, self.retry = self.retry, None
            yield token
        yield from self.lexer.lex(self.state)

    def run(self, finish: bool = True) -> lark.Tree | None:
        """The tree of the whole text (None after errors); with `finish` False, read the tokens
        only, leaving the parser in the state after the last one (for `expected_after`)."""
        last: Token | None = None
        while len(self.errors) < MAX_SYNTAX_ERRORS:
            try:
                for token in self._tokens():
                    last = token
                    if token.type == "RBRACE" and self.recovering and self.dropped_braces:
                        self.dropped_braces -= 1  # closes a '{' that was dropped
                        continue
                    if self.recovering and self.dropped_braces:
                        # inside a block that was dropped: its tokens belong to it, even those
                        # the parser could take here (`… >= board` is not a `board` declaration)
                        self.dropped_braces += token.type == "LBRACE"
                        last = token
                        continue
                    if (
                        token.type == "NAME"
                        and str(token) in self.keyword_types
                        and self.starts_a_line(token)
                        and (
                            self.recovering
                            or (token.column == 1 and token in _DECLARATION_KEYWORDS)
                        )
                    ):  # a keyword starting a line, read as a name by a broken statement
                        token = Token.new_borrow_pos(self.keyword_types[str(token)], token, token)
                    if self.starts_statement_mid_line(token):
                        continue  # a keyword inside a broken statement: dropped with it
                    try:
                        if self.ends_statement(token):
                            self.end_statement(token)
                        if self.starts_control_statement(token):
                            raise UnexpectedToken(token, {token.type})
                        if self.second_statement_on_line(token):
                            self.report(UnexpectedToken(token, set()), self.continuing(token))
                            continue
                        self.state.feed_token(token)
                    except UnexpectedToken as err:
                        self.unexpected(err)
                        break  # the parser state may be a new one: lex again from it
                    self.shifted(token)
                else:
                    break  # all input read
            except UnexpectedCharacters as err:
                self.report(err)
                self.skip_character()
            except UnexpectedToken as err:  # the contextual lexer found a token of another context
                last = err.token
                self.unexpected(err)
        else:
            return None
        if not finish:
            return None
        end = (
            Token.new_borrow_pos("$END", "", last)
            if last is not None
            else Token("$END", "", 0, 1, 1)
        )
        try:
            return self.state.feed_token(end, True)
        except UnexpectedToken as err:
            # a missing '}' at the end is worth saying even after an error; the rest of a broken
            # statement is not
            if not self.errors or "RBRACE" in _acceptable(self.state):
                self.recovering = False
            self.report(err)
            return None


def _acceptable(state) -> set[str]:
    """The terminals the parser can shift next from `state` (trial-fed, so LALR's merged
    look-aheads of reduce states do not leak into "expected …" messages)."""
    conf = copy.copy(state.parse_conf)
    conf.callbacks = {}
    out = set()
    for terminal in state.parse_conf.states[state.position]:
        if not terminal.isupper():
            continue
        trial = state.copy(deepcopy_values=False)
        trial.parse_conf = conf
        try:
            trial.feed_token(Token(terminal, ""), terminal == "$END")
        except UnexpectedToken:
            continue
        out.add(terminal)
    return out


_DECLARATION_KEYWORDS = frozenset({"board", "rules", "game", "define"})


@functools.cache
def _sync_terminals(parser: lark.Lark) -> tuple[frozenset[str], frozenset[str]]:
    """(tokens that resynchronise: keywords and '}'; tokens that end recovery once shifted)."""
    keywords = {
        t.name
        for t in parser.terminals
        if isinstance(t.pattern, PatternStr) and re.fullmatch(r"[^\W\d]\w*", t.pattern.value)
    }
    sync = frozenset(keywords | {"RBRACE"})
    return sync, frozenset(sync | {"SEMICOLON"})


def expected_after(text: str) -> tuple[list[str], bool, bool]:
    """What the grammar lets follow `text` (an editor's completion at the end of it): the keywords
    and punctuation it could take next, whether a name could, and whether the statement may end
    there (so what follows on the same line continues it, and a statement's first word belongs
    on the next line). A line break before the end ends the statement where the grammar allows
    (as when parsing), so a new line offers new statements. Syntax errors before the end are
    recovered from as when parsing."""
    parser = get_parser()
    text = unicodedata.normalize("NFC", text)
    recovery = _Recovery(parser, text, "<completion>")
    try:
        recovery.run(finish=False)
    except (lark.exceptions.LarkError, RecursionError):
        return [], True, False
    previous = recovery.previous
    at_new_line = previous is not None and "\n" in text[previous.end_pos or 0 :]
    may_end = recovery.accepts(SEPARATOR)
    if at_new_line and previous.type not in _CONTINUING and str(previous) not in _CONTINUING_TEXT:
        if may_end:
            recovery.end_statement(previous)
            may_end = False
    terminals = _acceptable(recovery.state)
    words = []
    for name in sorted(terminals - {SEPARATOR, "$END"}):
        try:
            pattern = parser.get_terminal(name).pattern
        except KeyError:
            continue
        if isinstance(pattern, PatternStr):
            words.append(pattern.value)
    return sorted(words), "NAME" in terminals or "STRING" in terminals, may_end


def parse_text(text: str, file: str = "<text>") -> lark.Tree:
    """Parse spec text; raise one HansaError listing every syntax error found.

    The text is NFC-normalised first (as `read_source` does), so a name typed with a decomposed
    accent ('u' + U+0308) lexes and is the same name as the composed 'ü'."""
    text = unicodedata.normalize("NFC", text)
    recovery = _Recovery(get_parser(), text, file)
    try:
        tree = recovery.run()
    except (lark.exceptions.LarkError, RecursionError) as err:  # pragma: no cover - defensive
        if not recovery.errors:
            recovery.errors.append(
                Diagnostic(f"syntax error ({err.__class__.__name__})", Span(file, 1, 1))
            )
        tree = None
    if recovery.errors:
        raise HansaError(_with_open_blocks(_dedupe(recovery.errors), text))
    if tree is None:  # pragma: no cover - run() only fails after reporting
        raise HansaError("syntax error", Span(file, 1, 1))
    problems = limit_errors(tree, file)
    if problems:
        raise HansaError(problems)
    return tree


def limit_errors(tree: lark.Tree, file: str) -> list[Diagnostic]:
    """A located error for each name or text longer than the language allows, and one for each
    expression nested deeper than `limits.MAX_EXPR_DEPTH` (at its first too-deep level). The walk
    is iterative, so a tree of any depth is checked before a recursive stage sees it."""
    problems: list[Diagnostic] = []
    # (node, its parent's rule, depth inside the expression, id of the expression's root)
    stack: list[tuple[lark.Tree | Token, str, int, int]] = [(tree, "", 0, 0)]
    reported: set[int] = set()
    while stack:
        node, parent, depth, root = stack.pop()
        if isinstance(node, Token):
            message = limits.token_problem(node, parent)
            if message:
                problems.append(Diagnostic(message, span_of(node, file)))
            continue
        if node.data.startswith("x_"):  # the expression rules (grammar/expr.lark)
            root, depth = root or id(node), depth + 1
            if depth > limits.MAX_EXPR_DEPTH:
                if root not in reported:
                    reported.add(root)
                    problems.append(Diagnostic(limits.DEPTH_MESSAGE, span_of(node, file)))
                continue
        else:
            root, depth = 0, 0
        stack.extend((child, node.data, depth, root) for child in reversed(node.children))
    return sorted(problems, key=lambda d: (d.span.line, d.span.column))


def brace_pairs(text: str) -> list[tuple[tuple[int, int], tuple[int, int] | None]]:
    """Every '{' as (line, column) with the '}' that closes it (None if none does), in order;
    strings and comments are skipped."""
    pairs: list[list] = []
    stack: list[int] = []
    for number, row in enumerate(text.split("\n"), start=1):
        col, quoted = 0, False
        while col < len(row):
            ch = row[col]
            if quoted:
                if ch == "\\":
                    col += 1
                elif ch == '"':
                    quoted = False
            elif ch == '"':
                quoted = True
            elif ch == "#":
                break
            elif ch == "{":
                stack.append(len(pairs))
                pairs.append([(number, col + 1), None])
            elif ch == "}" and stack:
                pairs[stack.pop()][1] = (number, col + 1)
            col += 1
    return [(opened, closed) for opened, closed in pairs]


def _indent(lines: list[str], line: int) -> int:
    row = lines[line - 1] if 0 < line <= len(lines) else ""
    return len(row) - len(row.lstrip())


def unclosed_block(text: str, line: int, column: int) -> tuple[int, int] | None:
    """The '{' open at `line`:`column` that looks unclosed: innermost first, one that no '}'
    closes, or whose '}' is indented unlike the line it opened on (it closes an outer block)."""
    lines = text.split("\n")
    here = (line, column)
    for opened, closed in reversed(brace_pairs(text)):
        if opened >= here or (closed is not None and closed < here):
            continue  # not open at the error
        if closed is None or _indent(lines, closed[0]) != _indent(lines, opened[0]):
            return opened
    return None


def _with_open_blocks(errors: list[Diagnostic], text: str) -> list[Diagnostic]:
    """A syntax error where '}' would do names the '{' that seems never closed (an unclosed
    block is otherwise reported far from where it opened, often at the end of the file); the
    end-of-file error that follows from the same open block is not repeated."""
    out: list[Diagnostic] = []
    named: set[tuple[int, int]] = set()
    for d in errors:
        if d.span is None or not ("'}'" in d.message or "end of file" in d.message):
            out.append(d)
            continue
        opened = unclosed_block(text, d.span.line, d.span.column)
        if opened is None:
            out.append(d)
            continue
        if opened in named and d.message.startswith("unexpected end of file"):
            continue  # the same mistake, seen again at the end of the file
        named.add(opened)
        note = f" (the block opened with '{{' at {opened[0]}:{opened[1]} is not closed)"
        out.append(Diagnostic(d.message + note, d.span, d.severity, d.source_line))
    return out


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
        raise HansaError(
            f"not UTF-8 text (bad byte at offset {exc.start})", Span(name, 0, 0)
        ) from None
    return source_text(text, name)


def source_text(text: str, name: str) -> str:
    """Text a spec file holds (read from disk, or an editor's unsaved buffer) as the parser takes
    it, or one clear HansaError: the same refusals whichever way the text arrived."""
    if "\x00" in text:
        raise HansaError("binary file, not a spec file", Span(name, 0, 0))
    if text.startswith("\ufeff"):
        text = text[1:]
    if not text.strip():
        raise HansaError("empty file", Span(name, 0, 0))
    # One spelling of every name: the parser, the error display and `fmt` all see the NFC text.
    return unicodedata.normalize("NFC", text)


def unquote(token: lark.Token, file: str, what: str = "name", text: bool = False) -> str:
    r"""The text of a "string" token: \" \\ \n \t are the escapes; anything else is an error,
    and so is a control character (in a name, which is not a `text`, a line break or tab too)."""
    body = str(token)[1:-1]
    out: list[str] = []
    i = 0
    while i < len(body):
        ch = body[i]
        if ch == "\\":
            nxt = body[i + 1] if i + 1 < len(body) else ""
            if nxt not in _ESCAPES:
                span = span_of(token, file)
                raise HansaError(
                    f"unknown escape '\\{nxt}' in a string (known: \\\" \\\\ \\n \\t)",
                    Span(file, span.line, span.column + 1 + i, span.line, span.column + 3 + i),
                )
            out.append(_ESCAPES[nxt])
            i += 2
        else:
            out.append(ch)
            i += 1
    value = unicodedata.normalize("NFC", "".join(out))
    problem = limits.text_problem(value, what, text_ok=text)
    if problem:
        raise HansaError(problem, span_of(token, file))
    return value


_ESCAPES = {'"': '"', "\\": "\\", "n": "\n", "t": "\t"}
