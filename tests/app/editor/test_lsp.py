"""`hansa lsp` end to end: a client speaks the protocol to `python -m hansa lsp` over stdio, on a
copy of the real spec folder, for every capability (diagnostics of unsaved buffers and of the
files using them, stale results, quick fix, hover, completion, definition, references,
formatting, outline, rename) and the inputs that must not crash it."""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest

pytest.importorskip("pygls")

from lsp_support import Client, position_of  # noqa: E402

SPEC = Path(__file__).resolve().parents[3] / "spec"


# One server answers the whole module, in the order its tests are written: the tests edit buffers
# and open files one after another (with xdist each worker would otherwise start its own server
# for a different subset of the tests, a history they were not written for).
pytestmark = pytest.mark.xdist_group("lsp-server")


@pytest.fixture(scope="module")
def workspace(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("lsp") / "spec"
    shutil.copytree(SPEC, root)
    return root


@pytest.fixture(scope="module")
def client(workspace):
    client = Client(workspace)
    yield client
    client.close()


def _labels(result) -> list[str]:
    items = result["items"] if isinstance(result, dict) else result
    return [item["label"] for item in items]


def test_a_mistake_in_an_unsaved_buffer_is_a_located_diagnostic_with_its_quick_fix(
    client, workspace
):
    path = workspace / "house" / "short_game.hansa"
    text = path.read_text(encoding="utf-8").replace("end when", "end whn")
    uri = client.open(path, text)
    found = client.diagnostics(uri, lambda p: p["diagnostics"])
    assert found[0]["severity"] == 1 and found[0]["source"] == "hansa"
    assert "did you mean 'when'" in found[0]["message"]
    line, character = position_of(text, "whn")
    assert found[0]["range"]["start"] == {"line": line, "character": character}
    actions = client.request(
        "textDocument/codeAction",
        {
            "textDocument": {"uri": uri},
            "range": found[0]["range"],
            "context": {"diagnostics": found},
        },
    )
    edit = actions[0]["edit"]["changes"][uri][0]
    assert actions[0]["kind"] == "quickfix" and edit["newText"] == "when"
    assert edit["range"] == found[0]["range"]
    client.change(uri, path.read_text(encoding="utf-8"))
    assert client.diagnostics(uri, lambda p: not p["diagnostics"]) == []


def test_did_you_mean_points_at_the_declaration_it_suggests(client, workspace):
    path = workspace / "house" / "short_game.hansa"
    text = path.read_text(encoding="utf-8").replace("on hanseatic_45p", "on hanseatic_45")
    uri = client.open(path, text)
    board = (workspace / "boards" / "hanseatic_45p.hansa").as_uri()

    def pointing_at_the_board(params) -> bool:  # the whole workspace's check (the first, of
        # the file with what it names, may point at the built-in board of that name)
        found = params["diagnostics"]
        return bool(found) and found[0]["relatedInformation"][0]["location"]["uri"] == board

    found = client.diagnostics(uri, pointing_at_the_board)
    assert "did you mean 'hanseatic_45p'" in found[0]["message"]
    assert "hanseatic_45p" in found[0]["relatedInformation"][0]["message"]
    client.change(uri, path.read_text(encoding="utf-8"))
    client.diagnostics(uri, lambda p: not p["diagnostics"])


def test_an_edit_to_a_board_reaches_the_files_that_extend_it_and_the_last_edit_wins(workspace):
    client = Client(workspace, debounce=0.05)
    try:
        board = workspace / "boards" / "hanseatic_45p.hansa"
        original = board.read_text(encoding="utf-8")
        uri = client.open(board)
        client.diagnostics(uri)
        child = (workspace / "house" / "large_hamburg.hansa").as_uri()
        broken = original.replace("city Hamburg at", "city Hamborg at")
        for _ in range(5):  # rapid typing: several versions, one of them last
            client.change(uri, original)
            version = client.change(uri, broken)
        found = client.diagnostics(child, lambda p: p["diagnostics"])
        assert any("Hamburg" in d["message"] for d in found)
        own = client.diagnostics(uri, lambda p: p["diagnostics"])
        assert any("Hamburg" in d["message"] for d in own)
        client.change(uri, original)
        assert client.diagnostics(child, lambda p: not p["diagnostics"]) == []
        published = [
            n["params"]
            for n in client.notifications
            if n["method"] == "textDocument/publishDiagnostics" and n["params"]["uri"] == uri
        ]
        versions = [p["version"] for p in published]
        assert versions == sorted(versions)  # never an older version after a newer one
        assert versions[-1] == version + 1
    finally:
        client.close()


def test_hover_shows_the_catalogue_a_city_and_a_rule_sets_chain(client, workspace):
    rules = workspace / "bigbox_2021.hansa"
    text = rules.read_text(encoding="utf-8")
    uri = client.open(rules)
    shown = client.request("textDocument/hover", client.at(uri, *position_of(text, "create_route")))
    assert "E: create a completed route" in shown["contents"]["value"]
    assert "control_pp" in shown["contents"]["value"]
    at = position_of(text, "control_pp")
    assert (
        "parameter"
        in client.request("textDocument/hover", client.at(uri, *at))["contents"]["value"]
    )
    board = workspace / "boards" / "hanseatic_45p.hansa"
    board_text = board.read_text(encoding="utf-8")
    board_uri = client.open(board)
    at = position_of(board_text, "city Bremen", 6)
    city = client.request("textDocument/hover", client.at(board_uri, *at))["contents"]["value"]
    assert "city Bremen" in city and "round white; square pink" in city and "Hamburg (4)" in city
    at = position_of(board_text, "route Bremen -- Hamburg")
    route = client.request("textDocument/hover", client.at(board_uri, *at))["contents"]["value"]
    assert "4 points" in route
    house = workspace / "house" / "short_game.hansa"
    house_text = house.read_text(encoding="utf-8")
    house_uri = client.open(house)
    at = position_of(house_text, "short_game")
    chain = client.request("textDocument/hover", client.at(house_uri, *at))["contents"]["value"]
    assert "`short_game` → `bigbox_2021`" in chain and "threshold 20 → 15" in chain
    words = workspace / "house" / "guild_charter.hansa"
    words_text = words.read_text(encoding="utf-8")
    words_uri = client.open(words)
    at = position_of(words_text, "city you control", 5)
    shown = client.request("textDocument/hover", client.at(words_uri, *at))
    assert shown is not None


def test_completion_offers_what_fits_at_the_cursor(client, workspace):
    path = workspace / "house" / "no_compensation.hansa"
    text = path.read_text(encoding="utf-8").replace(
        "action displace compensation { trader: 0, merchant: 0 }",
        "action displace compensation { trader: 0, merchant: 0 } \n    ",
    )
    uri = client.open(path, text)
    line, character = position_of(text, "merchant: 0 } ", len("merchant: 0 } "))
    params = _labels(client.request("textDocument/completion", client.at(uri, line, character)))
    assert {"cost", "fallback", "extras_declinable"} <= set(params)
    assert "compensation" not in params
    statements = _labels(client.request("textDocument/completion", client.at(uri, line + 1, 4)))
    assert {"action", "bonus", "score", "forbid"} <= set(statements)
    game = workspace / "games.hansa"
    game_text = game.read_text(encoding="utf-8") + "game mine = bigbox_2021 on \n"
    game_uri = client.open(game, game_text)
    end = game_text.rstrip("\n").rsplit("\n", 1)[-1]
    boards = client.request(
        "textDocument/completion",
        client.at(game_uri, game_text.count("\n") - 1, len(end)),
    )
    assert {"hanseatic_45p", "eastern"} <= set(_labels(boards))
    client.change(game_uri, game.read_text(encoding="utf-8"))
    client.change(uri, path.read_text(encoding="utf-8"))


def test_definition_and_references_reach_declarations_cities_and_the_prelude(client, workspace):
    house = workspace / "house" / "large_hamburg.hansa"
    text = house.read_text(encoding="utf-8")
    uri = client.open(house)
    target = client.request(
        "textDocument/definition", client.at(uri, *position_of(text, "extends hanseatic_45p", 9))
    )
    board = workspace / "boards" / "hanseatic_45p.hansa"
    assert target["uri"] == board.as_uri()
    assert target["range"]["start"]["line"] == position_of(board.read_text(), "board hanseatic")[0]
    city = client.request(
        "textDocument/definition", client.at(uri, *position_of(text, "Hamburg {"))
    )
    assert city["uri"] == uri  # the city as this board changes it
    rules = workspace / "bigbox_2021.hansa"
    rules_text = rules.read_text(encoding="utf-8")
    rules_uri = client.open(rules)
    prelude = client.request(
        "textDocument/definition",
        client.at(rules_uri, *position_of(rules_text, "controlled_cities pp")),
    )
    assert prelude["uri"].endswith("compiler/rules/prelude.hansa")
    marker = client.request(
        "textDocument/definition",
        client.at(rules_uri, *position_of(rules_text, "most score network", 11)),
    )
    assert marker["range"]["start"]["line"] == position_of(rules_text, "score F network")[0]
    found = client.request(
        "textDocument/references",
        {
            **client.at(rules_uri, *position_of(rules_text, "bigbox_2021")),
            "context": {"includeDeclaration": True},
        },
    )
    files = {Path(f["uri"]).name for f in found}
    assert {"bigbox_2021.hansa", "games.hansa", "short_game.hansa"} <= files
    declaration = position_of(rules_text, "rules bigbox_2021", 6)
    without = client.request(
        "textDocument/references",
        {**client.at(rules_uri, *declaration), "context": {"includeDeclaration": False}},
    )
    assert len(without) == len(found) - 1
    assert {"line": declaration[0], "character": declaration[1]} not in [
        w["range"]["start"] for w in without if w["uri"] == rules_uri
    ]


def test_formatting_outline_and_rename_of_a_city(client, workspace):
    path = workspace / "house" / "short_game.hansa"
    text = path.read_text(encoding="utf-8").replace("    end when", "  end when")
    uri = client.open(path, text)
    edits = client.request(
        "textDocument/formatting",
        {"textDocument": {"uri": uri}, "options": {"tabSize": 4, "insertSpaces": True}},
    )
    assert edits[0]["newText"] == path.read_text(encoding="utf-8")
    client.change(uri, path.read_text(encoding="utf-8"))
    board = workspace / "boards" / "hanseatic_45p.hansa"
    board_text = board.read_text(encoding="utf-8")
    board_uri = client.open(board)
    outline = client.request("textDocument/documentSymbol", {"textDocument": {"uri": board_uri}})
    assert outline[0]["name"] == "hanseatic_45p"
    names = [c["name"] for c in outline[0]["children"]]
    assert "city Bremen" in " ".join(names) and "Bremen -- Hamburg" in names
    at = client.at(board_uri, *position_of(board_text, "city Bremen", 6))
    assert client.request("textDocument/prepareRename", at)["start"]["character"] == 9
    # a mission card names Bremen, and the cards are also played on the 3-player side, whose own
    # Bremen would keep its name: refused, saying where and why
    shared = client.request_error("textDocument/rename", {**at, "newName": "Brema"})
    assert "played on board 'hanseatic_3p'" in shared and "missions.hansa" in shared
    emden = client.at(board_uri, *position_of(board_text, "city Emden", 6))
    edit = client.request("textDocument/rename", {**emden, "newName": "Embden"})
    changes = edit["changes"]
    assert list(changes) == [board_uri]
    assert len(changes[board_uri]) == board_text.count("Emden")
    error = client.request_error("textDocument/rename", {**at, "newName": "Bre\x1bmen"})
    assert "control" in error or "character" in error
    taken = client.request_error("textDocument/rename", {**at, "newName": "Hamburg"})
    assert "already has a city 'Hamburg'" in taken  # a rename never merges two cities
    games = workspace / "games.hansa"
    games_uri = client.open(games)
    assert "only a city, bonus marker" in client.request_error(
        "textDocument/prepareRename", client.at(games_uri, 1, 2)
    )


def test_files_outside_the_workspace_and_unreadable_files_are_diagnostics(
    client, workspace, tmp_path
):
    outside = tmp_path / "mine.hansa"
    outside.write_text("rules mine extends bigbox_2021 {\n    end when track_pp >= 12\n}\n")
    uri = client.open(outside)
    found = client.diagnostics(uri, lambda p: p["diagnostics"])
    assert [d["severity"] for d in found] == [2] and "outside the workspace" in found[0]["message"]
    bad = workspace / "house" / "latin1.hansa"
    bad.write_bytes(b"# caf\xe9\nrules x extends bigbox_2021 { }\n")
    try:
        short = workspace / "house" / "short_game.hansa"
        client.change(client.open(short), short.read_text(encoding="utf-8") + "\n")
        found = client.diagnostics(bad.as_uri(), lambda p: p["diagnostics"])
        assert "not UTF-8" in found[0]["message"]
        # the workspace's checks leave the outside file's own diagnostics alone
        assert client.diagnostics(uri)[0]["message"].startswith("this file is outside")
    finally:
        bad.unlink()


def test_random_edits_never_stop_the_server_answering(tmp_path):
    root = tmp_path / "spec"
    root.mkdir()
    path = root / "original_2009.hansa"
    shutil.copy(SPEC / "original_2009.hansa", path)
    text = path.read_text(encoding="utf-8")
    client = Client(root)
    try:
        uri = client.open(path)
        client.diagnostics(uri)
        chooser = random.Random(34)
        pieces = ["{", "}", '"', "\n", "score", " ", "extends", "é", "\U0001f600", "#", "--", "0"]
        current = text
        for _ in range(1000):
            at = chooser.randrange(len(current) + 1)
            cut = chooser.randrange(4)
            current = current[:at] + chooser.choice(pieces) + current[at + cut :]
            client.change(uri, current)
            line = chooser.randrange(current.count("\n") + 1)
            where = client.at(uri, line, chooser.randrange(40))
            client.request(chooser.choice(["textDocument/hover", "textDocument/completion"]), where)
        client.request("textDocument/documentSymbol", {"textDocument": {"uri": uri}})
        client.change(uri, text)
        assert client.diagnostics(uri, lambda p: not p["diagnostics"]) == []
        assert client.process.poll() is None
    finally:
        client.close()
