"""`hansa lsp` never crashes on what an author may type: random edit sequences on real spec
files, each buffer checked and asked for diagnostics, a hover, completions, a definition, the
outline and formatting at random places (in process, through the functions the server's
handlers call; tests/app/editor/test_lsp.py drives the server itself)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pygls")

from hansa.compiler.board.format import format_source  # noqa: E402
from hansa.compiler.errors import HansaError  # noqa: E402
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from lsprotocol import types  # noqa: E402

from hansa.lsp import complete, hover, symbols  # noqa: E402
from hansa.lsp.text import lines_of  # noqa: E402
from hansa.lsp.workspace import check, diagnostics_by_file  # noqa: E402

SPEC = Path(__file__).resolve().parents[3] / "spec"
FILES = ["house/short_game.hansa", "house/large_hamburg.hansa", "house/guild_charter.hansa"]
PIECES = [
    "{", "}", '"', "\n", "    ", "score", "city", "route", "extends", "--", ":", "|", "0",
    "é", "\u0308", "\U0001f600", "\x00", "\r", "#", "when", "gain 1 PP", "(", ")", ",", "\ufeff",
]  # fmt: skip

edits = st.lists(
    st.tuples(
        st.floats(0, 1), st.integers(0, 6), st.one_of(st.sampled_from(PIECES), st.text(max_size=4))
    ),
    min_size=1,
    max_size=6,
)


@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(FILES), edits, st.integers(0, 60), st.integers(0, 90))
def test_random_edit_sequences_never_raise(tmp_path_factory, name, sequence, line, column):
    path = SPEC / name
    text = path.read_text(encoding="utf-8")
    focus = str(tmp_path_factory.getbasetemp() / "fuzz" / path.name)
    for where, cut, piece in sequence:
        at = int(where * len(text))
        text = text[:at] + piece + text[at + cut :]
        snapshot = check(None, {focus: text}, focus)
        published = diagnostics_by_file(snapshot, None)
        assert focus in published  # at least "outside the workspace"
    lines = lines_of(text)
    position = types.Position(line, column)
    hover.hover(snapshot, focus, lines, position)
    complete.completions(snapshot, lines, position)
    found = symbols.symbol_at(snapshot, focus, lines, position)
    if found is not None:
        symbols.location(snapshot, found)
        symbols.references(snapshot, found, None)
    symbols.document_symbols(lines)
    try:
        format_source(text, focus)
    except HansaError:
        pass
