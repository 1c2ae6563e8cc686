"""Diagnostics stay readable and bounded whatever the input: at most PER_FILE_LIMIT per file then
a count, long source lines shown as a window around the column, control characters (ANSI escapes,
bidi overrides, line separators) escaped in excerpts and messages."""

from __future__ import annotations

import shutil
from pathlib import Path

from clock_support import cpu_seconds
from hansa.compiler.errors import Diagnostic, HansaError, Span, format_diagnostics
from hansa.runtime.errors import EXCERPT_WIDTH, PER_FILE_LIMIT

from hansa.cli import main

ROOT = Path(__file__).resolve().parents[2]


def spec_with(tmp_path: Path, text: str) -> Path:
    spec = tmp_path / "spec"
    (spec / "boards").mkdir(parents=True)
    shutil.copy(ROOT / "spec/bigbox_2021.hansa", spec)
    shutil.copy(ROOT / "spec/boards/hanseatic_45p.hansa", spec / "boards")
    (spec / "house.hansa").write_text(text, encoding="utf-8")
    return spec


def caret_points_at(output: str, header: str, expected: str) -> None:
    """The excerpt under `header` has its caret under text starting with `expected`."""
    lines = output.splitlines()
    i = next(n for n, line in enumerate(lines) if line.startswith(header))
    shown, caret = lines[i + 1], lines[i + 2]
    assert shown[caret.index("^") :].startswith(expected), (shown, caret)


def test_one_long_line_with_an_error_per_item_prints_a_bounded_report(tmp_path, capsys):
    """40 KB of `tiebreak shared, shared, …`: one error per item, each used to reprint the whole
    line (300 MB of output). Now 20 are shown, each with a short window, then a count."""
    items = ", ".join(["shared"] * 5000)
    spec = spec_with(tmp_path, f"rules h extends bigbox_2021 {{\n    tiebreak {items}\n}}\n")
    started = cpu_seconds()
    assert main(["check", str(spec)]) == 1
    assert cpu_seconds() - started < 30  # about 1 s; collecting them was quadratic (minutes)
    err = capsys.readouterr().err
    assert len(err) < 10_000
    assert err.count("error: 'shared' ends the tie-break chain") == PER_FILE_LIMIT
    assert f"… and {4999 - PER_FILE_LIMIT} more" in err
    assert max(len(line) for line in err.splitlines()) < EXCERPT_WIDTH + 120
    file = spec / "house.hansa"
    caret_points_at(err, f"{file}:2:22:", "shared")


def test_the_window_follows_a_column_far_to_the_right(tmp_path):
    line = "x" * 30_000 + " BAD " + "y" * 30_000
    span = Span("f.hansa", 1, 30_002, 1, 30_005)
    text = Diagnostic("bad word", span, source_line=line).format()
    head, shown, caret = text.splitlines()
    assert len(shown) < EXCERPT_WIDTH + 10 and shown.startswith("    …") and shown.endswith("…")
    assert shown[caret.index("^") :].startswith("BAD")
    assert caret.strip() == "^~~"


def test_control_characters_are_escaped_in_excerpts_and_messages(tmp_path, capsys):
    """An ANSI escape in a spec (here inside a quoted board name) is shown as \\x1b, never sent to
    the terminal; the caret still points at the right place."""
    spec = spec_with(
        tmp_path,
        'game g = bigbox_2021 on "\x1b[2J\x1b[31mred\u202e" players 9\n',
    )
    assert main(["check", str(spec)]) == 1
    err = capsys.readouterr().err
    assert "\x1b" not in err and "\u202e" not in err
    assert "\\x1b[2J\\x1b[31mred\\u202e" in err
    caret_points_at(err, f"{spec / 'house.hansa'}:1:", '"\\x1b[2J')


def test_a_huge_message_is_shortened_in_the_middle():
    error = HansaError("unknown game '" + "x" * 10_000_000 + "'")
    text = error.format()
    assert len(text) < 2_000 and "characters left out" in text and text.endswith("x'")


def test_diagnostics_of_other_files_are_counted_separately():
    many = [Diagnostic(f"problem {i}", Span("a.hansa", i + 1, 1)) for i in range(30)]
    many += [Diagnostic("elsewhere", Span("b.hansa", 1, 1))]
    text = format_diagnostics(many)
    assert "a.hansa: … and 10 more" in text and "b.hansa:1:1: error: elsewhere" in text


def test_huge_numbers_in_a_rules_file_are_located_errors(tmp_path, capsys):
    """More than 4,300 digits used to raise Python's ValueError (a traceback); any number above
    the language's bound is one error at the number (parameter, table key or player count)."""
    big = "9" * 5000
    spec = spec_with(
        tmp_path,
        "rules h extends bigbox_2021 {\n"
        f"    action create_route control_pp {big}\n"
        f"    score C bonus_markers table {{ 1: 1, {big}+: 3 }}\n"
        "    pieces traders 1000001\n"
        "}\n"
        f"game g = h on hanseatic_45p players 4..{big}\n",
    )
    assert main(["check", str(spec)]) == 1
    err = capsys.readouterr().err
    file = spec / "house.hansa"
    assert f"{file}:2:36: error: a number of 5000 digits is too large" in err
    assert f"{file}:3:41: error: a number of 5000 digits is too large" in err
    assert f"{file}:4:20: error: 1000001 is too large (numbers go up to 1000000)" in err
    assert f"{file}:6:40: error: a number of 5000 digits is too large" in err
    assert "Traceback" not in err and len(err) < 5000
