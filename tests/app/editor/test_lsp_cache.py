"""What `hansa lsp` keeps between checks (each file's parse by its text, each game's check ⇒
build by exactly what its model is built from) never changes a diagnostic: after random edit
sequences, the server's check with everything kept gives what a fresh `hansa check` of the same
folder gives, message, place and severity alike, and the kept tables stay bounded."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pygls")

from hansa.compiler.build.checks import BuildMemo  # noqa: E402
from hansa.compiler.project import load_project  # noqa: E402
from hypothesis import HealthCheck, example, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from hansa.lsp.workspace import check  # noqa: E402

SPEC = Path(__file__).resolve().parents[3] / "spec"
FILES = (
    "bigbox_2021.hansa",
    "boards/hanseatic_45p.hansa",
    "boards/hanseatic_3p.hansa",
    "house/no_bullying.hansa",  # a forbid: its game is played out for a stall
    "house/three_full_abilities.hansa",  # an end in words: its game is set up and tested
    "house/short_game.hansa",
)
GAMES = (
    "game bigbox-hanseatic-3p = bigbox_2021 on hanseatic_3p players 3\n"
    "game bigbox-hanseatic-45p = bigbox_2021 on hanseatic_45p players 4..5\n"
)
# (old, new) in whichever file holds `old`: values that change a game's model, a rule that holds
# at setup, an unknown board, a broken statement; and each one's way back
CHANGES = (
    ("track_pp >= 20", "track_pp >= 12"),
    ("track_pp >= 12", "track_pp >= 20"),
    ("route Bremen -- Hamburg: 4", "route Bremen -- Hamburg: 3"),
    ("route Bremen -- Hamburg: 3", "route Bremen -- Hamburg: 4"),
    ("< your track PP", "> your track PP"),
    ("> your track PP", "< your track PP"),
    ("at least 3 fully", "at least 0 fully"),
    ("at least 0 fully", "at least 3 fully"),
    ("on hanseatic_3p players 3", "on hanseatic_3 players 3"),
    ("on hanseatic_3 players 3", "on hanseatic_3p players 3"),
    ("city Bremen at (0.4817,", "city Bremen at (0.4800,"),  # the models stay as they were
    ("city Bremen at (0.4800,", "city Bremen at (0.4817,"),
    ("end when track_pp >= 15", "end when track_pp >="),
    ("end when track_pp >=\n", "end when track_pp >= 15\n"),
)
EDITS = st.one_of(
    st.tuples(st.just("change"), st.sampled_from(CHANGES)),
    st.tuples(st.just("shift"), st.sampled_from([*FILES, "games.hansa"])),  # spans move
    st.tuples(st.just("revert"), st.sampled_from([*FILES, "games.hansa"])),
)


def _workspace(base: Path) -> Path:
    spec = base / "spec"
    for name in [*FILES, "games.hansa"]:
        (spec / name).parent.mkdir(parents=True, exist_ok=True)
        (spec / name).write_text(_original(name), encoding="utf-8")
    return spec


def _original(name: str) -> str:
    """A file as the workspace starts: the bundled text, but the house rule's end condition
    holds at setup, so the build stage has an error whose place a shift must move."""
    if name == "games.hansa":
        return GAMES
    text = (SPEC / name).read_text(encoding="utf-8")
    return text.replace("at least 3 fully", "at least 0 fully")


def _apply(spec: Path, texts: dict[str, str], edit) -> str:
    """Edit a text of the workspace and its file (a buffer saved); the file's name."""
    kind, what = edit
    if kind == "change":
        old, new = what
        name = next((n for n, t in texts.items() if old in t), "games.hansa")
        texts[name] = texts[name].replace(old, new, 1)
    elif kind == "shift":
        name = what
        texts[name] = "# a line above moves every span below\n" + texts[name]
    else:
        name = what
        texts[name] = _original(name)
    (spec / name).write_text(texts[name], encoding="utf-8")
    return name


def _seen(diagnostics) -> list[tuple]:
    return [(d.message, d.span, d.severity) for d in diagnostics]


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(EDITS, min_size=1, max_size=5))
@example([("shift", "house/three_full_abilities.hansa")])
@example([("change", CHANGES[0]), ("shift", "bigbox_2021.hansa"), ("change", CHANGES[1])])
@example(
    [
        ("change", CHANGES[10]),
        ("change", CHANGES[7]),
        ("change", CHANGES[11]),
        ("change", CHANGES[6]),
    ]
)
def test_kept_checks_give_a_fresh_checks_diagnostics_after_random_edits(tmp_path_factory, edits):
    root = tmp_path_factory.mktemp("lsp-cache")
    spec = _workspace(root)
    texts = {name: _original(name) for name in [*FILES, "games.hansa"]}
    parsed: dict = {}
    builds = BuildMemo(games=6, statements=400, plays=3)
    first = check(root, {}, str(spec / "games.hansa"), cache=parsed, builds=builds)
    assert [d.span.line for d in first.project.errors if "holds at setup" in d.message] == [3]
    for edit in edits:
        name = _apply(spec, texts, edit)
        focus = str(spec / name)
        kept = check(root, {focus: texts[name]}, focus, cache=parsed, builds=builds)
        fresh = load_project([spec])  # what `hansa check` of the folder reads and reports
        assert _seen(kept.project.diagnostics) == _seen(fresh.diagnostics)
        assert len(builds.games) <= 6 and len(builds.statements) <= 400
        assert len(builds.plays) <= 3
