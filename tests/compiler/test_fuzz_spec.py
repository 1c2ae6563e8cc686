"""Hypothesis: no input makes the compiler fail other than with located HansaError diagnostics.

Random text, and random character- and token-level mutations of the printed boards in spec/boards,
go through the whole front end (read, parse, lower, check) via `load_project`, and through the
`hansa check` command line. Every run either succeeds or ends in diagnostics that carry a location;
nothing raises, nothing prints a traceback.
"""

from __future__ import annotations

import contextlib
import io
import re
import tempfile
from pathlib import Path

from clock_support import cpu_bounded
from hansa.compiler.errors import HansaError
from hansa.compiler.project import load_project
from hansa.compiler.syntax.parser import get_parser, parse_text
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hansa.cli import main

SPEC_BOARDS = sorted((Path(__file__).resolve().parents[2] / "spec" / "boards").glob("*.hansa"))
BOARD_TEXTS = [p.read_text(encoding="utf-8") for p in SPEC_BOARDS]
# Diagnostics about a whole file (no line to point at) are allowed only for these problems.
FILE_LEVEL = ("empty file", "binary file", "not UTF-8 text")
TOKEN = re.compile(r'"(?:[^"\\\n]|\\.)*"|#[^\n]*|\w+(?:-\w+)*|\S')
KEYWORDS = sorted(
    t.pattern.value for t in get_parser().terminals if type(t.pattern).__name__ == "PatternStr"
)
AWKWARD = list('{}();:,|"\\#.-+x0123456789 \n\t') + ["é", "ü", "\u0308", "\x00", "\ufeff", "--"]

FUZZ = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def assert_located(path: Path, diagnostics) -> None:
    for d in diagnostics:
        assert d.span is not None, d
        if d.span.line == 0:
            assert d.span.file == str(path) and d.message.startswith(FILE_LEVEL), d
        else:
            assert d.span.line >= 1 and d.span.column >= 1, d
        d.format()  # rendering never fails either


def compile_text(text: str) -> None:
    """The property: load_project reports every problem as a located diagnostic, never raises."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "fuzz.hansa"
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
        project = load_project([path])
        assert_located(path, project.diagnostics)


def check_command(text: str) -> None:
    """The property for the command line: exit 0 or 1 with messages, never an exception."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "fuzz.hansa"
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(["check", str(path)])
        assert code in (0, 1)
        assert out.getvalue().startswith("checked 1 file")
        if code:
            assert f"{path}:" in err.getvalue() or f"{path}: error:" in err.getvalue()
        assert "Traceback" not in err.getvalue()


def parse_or_located_error(text: str) -> None:
    try:
        parse_text(text, "t.hansa")
    except HansaError as err:
        for d in err.diagnostics:
            assert d.span is not None and d.span.line >= 1 and d.span.column >= 1, d


@FUZZ
@given(st.text(max_size=300))
def test_random_text(text: str) -> None:
    compile_text(text)


@FUZZ
@given(st.lists(st.sampled_from(KEYWORDS + AWKWARD + ["Alpha", "7", '"q"']), max_size=60))
def test_random_token_soup(tokens: list[str]) -> None:
    parse_or_located_error(" ".join(tokens))


@st.composite
def mutated_board(draw) -> str:
    """A printed board with 1-4 random edits: characters or whole tokens deleted, duplicated,
    swapped or inserted."""
    text = draw(st.sampled_from(BOARD_TEXTS))
    for _ in range(draw(st.integers(1, 4))):
        spans = [m.span() for m in TOKEN.finditer(text)]
        kind = draw(st.sampled_from(["char", "token"]))
        action = draw(st.sampled_from(["delete", "duplicate", "swap", "insert"]))
        if kind == "char":
            i = draw(st.integers(0, max(0, len(text) - 1)))
            j = draw(st.integers(i, min(len(text), i + 8)))
            piece = text[i:j]
            if action == "delete":
                text = text[:i] + text[j:]
            elif action == "duplicate":
                text = text[:j] + piece + text[j:]
            elif action == "swap" and j - i >= 2:
                text = text[:i] + text[j - 1] + text[i + 1 : j - 1] + text[i] + text[j:]
            else:
                text = text[:i] + draw(st.sampled_from(AWKWARD)) + text[i:]
        else:
            a = draw(st.integers(0, len(spans) - 1))
            b = draw(st.integers(0, len(spans) - 1))
            (s1, e1), (s2, e2) = sorted([spans[a], spans[b]])
            if action == "delete":
                text = text[:s1] + text[e1:]
            elif action == "duplicate":
                text = text[:e1] + " " + text[s1:e1] + text[e1:]
            elif action == "swap" and e1 <= s2:
                text = text[:s1] + text[s2:e2] + text[e1:s2] + text[s1:e1] + text[e2:]
            else:
                word = draw(st.sampled_from(KEYWORDS + AWKWARD))
                text = text[:s1] + word + " " + text[s1:]
    return text


@FUZZ
@given(mutated_board())
def test_mutated_printed_boards(text: str) -> None:
    compile_text(text)


@settings(FUZZ, max_examples=15)
@given(st.one_of(mutated_board(), st.text(max_size=200)))
def test_check_command_on_mutated_boards_and_random_text(text: str) -> None:
    check_command(text)


def test_mutations_do_find_errors() -> None:
    """The mutation strategy is not vacuous: deleting one brace is an error with a location."""
    text = BOARD_TEXTS[0].replace("}", "", 1)
    try:
        parse_text(text, "t.hansa")
    except HansaError as err:
        assert err.diagnostics[0].span.line >= 1
    else:
        raise AssertionError("a deleted brace was not noticed")


# ---------------------------------------------------------------- rules in words
QUANTITY = st.sampled_from(
    ["track PP", "coins", "your posts here", "turn number", "players", "free points", "x" * 70]
)


def expressions(max_leaves: int = 12):
    """Conditions and numbers of the rules language, nested at random: operators, `not`,
    parentheses, and sets counted over (which multiply the work inside them)."""
    atom = st.one_of(st.integers(0, 30).map(str), QUANTITY)
    return st.recursive(
        atom,
        lambda inner: st.one_of(
            st.tuples(
                inner, st.sampled_from(["+", "-", "*", ">", ">=", "=", "and", "or"]), inner
            ).map(" ".join),
            inner.map(lambda e: f"not {e}"),
            inner.map(lambda e: f"({e})"),
            st.tuples(st.sampled_from(["cities", "routes", "players"]), inner).map(
                lambda p: f"count {p[0]} where {p[1]} > 0"
            ),
        ),
        max_leaves=max_leaves,
    )


@st.composite
def deep_rule(draw) -> str:
    """A rule set whose end condition or score rule is a random expression, or one construct
    repeated up to 300 deep (the limits: nesting, cost)."""
    if draw(st.booleans()):
        expr = draw(expressions())
    else:
        n = draw(st.integers(1, 300))
        expr = draw(
            st.sampled_from(
                [
                    "not " * n + "turn number > 1000",
                    " and ".join(["turn number > 1000"] * n),
                    "count cities where " * n + "turn number > 1" + " > 0" * n,
                    "(" * n + "turn number" + ")" * n + " > 1000",
                ]
            )
        )
    statement = draw(st.sampled_from([f"end when {expr}", f'score H "fuzz": 1 PP * ({expr})']))
    return (
        f"rules fuzz_rules extends bigbox_2021 {{\n    {statement}\n}}\n"
        "game fuzz-game = fuzz_rules on hanseatic_45p players 4\n"
    )


@settings(FUZZ, max_examples=12)
@given(deep_rule())
@cpu_bounded(30)
def test_random_and_deep_rules_in_words_check_quickly_or_are_located_errors(text: str) -> None:
    check_command(text)
