"""Find references and rename go by the parse tree (hansa/lsp/names.py): a name in a comment, in
a title, or inside another, longer name is never taken for the thing; a rename that would merge
two things, or that cannot read every file that may name the thing, is refused with a message."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

pytest.importorskip("pygls")

from hansa.compiler.errors import HansaError  # noqa: E402
from lsprotocol import types  # noqa: E402

from hansa.lsp import names, symbols  # noqa: E402
from hansa.lsp.text import lines_of  # noqa: E402
from hansa.lsp.workspace import check  # noqa: E402

SPEC = Path(__file__).resolve().parents[3] / "spec"
HOUSE = """\
# Minden: named here in a comment, which no rename touches
board minden_more "Minden, retold" extends hanseatic_45p {
    city "Minden Nord" at (0.4, 0.3) { square white }
    route "Minden Nord" -- Minden: 3
}
game minden-game = bigbox_missions on minden_more players 4..5
rules minden_words "A title naming Minden" extends bigbox_2021 {
    forbid use marker when marker used is plus_3_actions
}
game words-game = minden_words on hanseatic_45p players 4..5
"""


@pytest.fixture
def workspace(tmp_path):
    spec = tmp_path / "spec"
    for name in ("bigbox_2021.hansa", "boards/hanseatic_45p.hansa", "modules/missions.hansa"):
        (spec / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(SPEC / name, spec / name)
    # the mission cards played on the 4-5 side only (the 3-player game would keep its own
    # Minden: test_a_city_a_shared_rule_set_names_on_another_board_is_not_renamed_alone)
    missions = spec / "modules/missions.hansa"
    text = missions.read_text(encoding="utf-8")
    missions.write_text(
        "".join(line for line in text.splitlines(True) if "on hanseatic_3p" not in line),
        encoding="utf-8",
    )
    (spec / "house.hansa").write_text(HOUSE, encoding="utf-8")
    return tmp_path


def _symbol_at(snapshot, file: Path, text: str, before: str, offset: int = 0):
    lines = lines_of(text)
    line = next(n for n, row in enumerate(lines) if before in row)
    position = types.Position(line, lines[line].index(before) + offset)
    return symbols.symbol_at(snapshot, str(file), lines, position)


def _edited(edit: types.WorkspaceEdit) -> dict[str, list[tuple[int, int, str]]]:
    return {
        Path(uri).name: sorted(
            (e.range.start.line, e.range.start.character, e.new_text) for e in es
        )
        for uri, es in edit.changes.items()
    }


def test_a_city_is_found_where_the_grammar_names_it_never_in_comments_titles_or_longer_names(
    workspace,
):
    spec = workspace / "spec"
    house = spec / "house.hansa"
    snapshot = check(workspace, {}, str(house))
    assert snapshot.project.errors == []
    minden = _symbol_at(snapshot, house, HOUSE, "-- Minden", 3)
    assert (minden.kind, minden.name, minden.owner) == ("city", "Minden", "minden_more")
    found = symbols.references(snapshot, minden, workspace)
    by_file: dict[str, list[int]] = {}
    for where in found:
        by_file.setdefault(Path(where.uri).name, []).append(where.range.start.line)
    board = (spec / "boards/hanseatic_45p.hansa").read_text(encoding="utf-8")
    board_lines = [n for n, row in enumerate(lines_of(board)) if "Minden" in row]
    assert sorted(by_file["hanseatic_45p.hansa"]) == board_lines
    assert by_file["house.hansa"] == [
        3
    ]  # the route's far end, not the comment, title or "Minden Nord"
    missions = (spec / "modules/missions.hansa").read_text(encoding="utf-8")
    assert len(by_file["missions.hansa"]) == missions.count(" Minden")  # the cards' cities

    edit = symbols.rename(snapshot, minden, "Minden Süd", workspace)
    changed = _edited(edit)
    assert changed["house.hansa"] == [(3, 27, '"Minden Süd"')]
    assert all(text == '"Minden Süd"' for _, _, text in changed["hanseatic_45p.hansa"])
    assert len(changed["missions.hansa"]) == len(by_file["missions.hansa"])


def test_a_rename_that_would_merge_two_names_is_refused(workspace):
    house = workspace / "spec" / "house.hansa"
    snapshot = check(workspace, {}, str(house))
    minden = _symbol_at(snapshot, house, HOUSE, "-- Minden", 3)
    with pytest.raises(HansaError, match="already has a city 'Minden Nord'"):
        symbols.rename(snapshot, minden, "Minden Nord", workspace)
    with pytest.raises(HansaError, match="already has a city 'Bremen'"):
        symbols.rename(snapshot, minden, "Bremen", workspace)
    rules = _symbol_at(snapshot, house, HOUSE, "minden_words", 1)
    assert rules.kind == "rules"
    with pytest.raises(HansaError, match="rule set named 'bigbox_2021' already exists"):
        symbols.rename(snapshot, rules, "bigbox_2021", workspace)
    with pytest.raises(HansaError, match="rule set named 'original_2009' already exists"):
        symbols.rename(snapshot, rules, "original_2009", workspace)  # a built-in one
    board = _symbol_at(snapshot, house, HOUSE, "minden_more", 1)
    with pytest.raises(HansaError, match="board named 'hanseatic_45p' already exists"):
        symbols.rename(snapshot, board, "hanseatic_45p", workspace)


def test_a_marker_board_and_rule_set_are_renamed_where_they_are_named(workspace):
    spec = workspace / "spec"
    house = spec / "house.hansa"
    bigbox = (spec / "bigbox_2021.hansa").read_text(encoding="utf-8")
    snapshot = check(workspace, {}, str(house))
    marker = _symbol_at(snapshot, spec / "bigbox_2021.hansa", bigbox, "plus_3_actions =", 1)
    assert marker.kind == "marker"
    changed = _edited(symbols.rename(snapshot, marker, "three_actions", workspace))
    assert [text for *_, text in changed["bigbox_2021.hansa"]] == ["three_actions"]
    assert changed["house.hansa"] == [(7, 42, "three_actions")]  # in the rule in words
    with pytest.raises(HansaError, match="already has a bonus marker 'plus_4_actions'"):
        symbols.rename(snapshot, marker, "plus_4_actions", workspace)
    with pytest.raises(HansaError, match="not a plain name"):
        symbols.rename(snapshot, marker, "three actions", workspace)
    unlabelled = _symbol_at(snapshot, spec / "bigbox_2021.hansa", bigbox, "move_tradesmen(", 1)
    with pytest.raises(HansaError, match="has no label"):
        symbols.rename(snapshot, unlabelled, "mover", workspace)

    board = _symbol_at(snapshot, house, HOUSE, "minden_more", 1)
    changed = _edited(symbols.rename(snapshot, board, "minden_plus", workspace))
    on = HOUSE.splitlines()[5].index("minden_more")
    assert changed == {"house.hansa": [(1, 6, "minden_plus"), (5, on, "minden_plus")]}
    rules = _symbol_at(snapshot, spec / "bigbox_2021.hansa", bigbox, "bigbox_2021", 1)
    changed = _edited(symbols.rename(snapshot, rules, "big box", workspace))
    assert changed["house.hansa"] == [(6, HOUSE.splitlines()[6].index("bigbox_2021"), '"big box"')]
    assert changed["bigbox_2021.hansa"] == [(3, 6, '"big box"')]
    assert [text for *_, text in changed["missions.hansa"]] == ['"big box"']


def test_a_rename_waits_for_a_file_that_does_not_parse(workspace):
    house = workspace / "spec" / "house.hansa"
    broken = HOUSE.replace('route "Minden Nord" -- Minden: 3', "route -- Minden: 3 {")
    snapshot = check(workspace, {str(house): broken}, str(house))
    minden = _symbol_at(
        snapshot,
        workspace / "spec/boards/hanseatic_45p.hansa",
        (workspace / "spec/boards/hanseatic_45p.hansa").read_text(),
        "city Minden",
        6,
    )
    assert minden is not None and minden.kind == "city"
    with pytest.raises(HansaError, match="house.hansa does not parse"):
        symbols.rename(snapshot, minden, "Minden Süd", workspace)
    assert names.occurrences(str(house), broken) is None


def test_an_abilitys_references_are_its_name_tokens_not_its_mentions_in_comments(workspace):
    spec = workspace / "spec"
    bigbox = spec / "bigbox_2021.hansa"
    text = "# privilege: a comment naming the ability\n" + bigbox.read_text(encoding="utf-8")
    snapshot = check(workspace, {str(bigbox): text}, str(bigbox))
    ability = _symbol_at(snapshot, bigbox, text, "ability privilege", 9)
    assert (ability.kind, ability.name) == ("ability", "privilege")
    found = symbols.references(snapshot, ability, workspace)
    lines = [w.range.start.line for w in found if Path(w.uri).name == bigbox.name]
    written = [n for n, row in enumerate(lines_of(text)) if "privilege" in row.split("#")[0]]
    assert 0 not in lines and sorted(set(lines)) == written
    board = (spec / "boards/hanseatic_45p.hansa").read_text(encoding="utf-8")
    cities = [n for n, row in enumerate(lines_of(board)) if "ability privilege" in row]
    assert sorted(w.range.start.line for w in found if "hanseatic_45p" in w.uri) == cities
    with pytest.raises(HansaError, match="only a city, bonus marker"):
        symbols.rename(snapshot, ability, "rights", workspace)


def test_a_city_a_shared_rule_set_names_on_another_board_is_not_renamed_alone(workspace):
    """The mission cards (bigbox_missions) name Minden and are played on both Hanseatic sides:
    renaming the 4-5 side's Minden would leave the 3-player side's cards naming a city that is
    not there, so the rename is refused with where and why."""
    spec = workspace / "spec"
    shutil.copy(SPEC / "boards" / "hanseatic_3p.hansa", spec / "boards" / "hanseatic_3p.hansa")
    games = spec / "games.hansa"
    games.write_text("game three = bigbox_missions on hanseatic_3p players 3\n", encoding="utf-8")
    house = spec / "house.hansa"
    snapshot = check(workspace, {}, str(house))
    assert snapshot.project.errors == []
    minden = _symbol_at(snapshot, house, HOUSE, "-- Minden", 3)
    with pytest.raises(HansaError, match="played on board 'hanseatic_3p' \\(game 'three'\\)"):
        symbols.rename(snapshot, minden, "Minden Süd", workspace)
