"""Reference JSON <-> Board IR: exact round trips of the reference files, and validation errors that
name the file and the field."""

from __future__ import annotations

import copy
import json
import unicodedata
from pathlib import Path

import pytest
from hansa.compiler.board.format import format_board
from hansa.compiler.board.json_io import (
    board_from_json,
    board_to_json,
    dumps_board_json,
    load_board_json,
    name_sort_key,
    sorted_cities,
    sorted_routes,
)
from hansa.compiler.board.lower import lower_board
from hansa.compiler.errors import HansaError
from hansa.compiler.nodes.board import (
    ABILITIES,
    PERMANENT_BONUSES,
    PRIVILEGES,
    SHAPES,
    Board,
    City,
    PostSpace,
    Route,
    SpecialPrestige,
    SpecialSpace,
)
from hansa.compiler.syntax.parser import parse_text
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "boards"
BOARD_IDS = ["hanseatic_3p", "hanseatic_45p", "eastern", "britannia_3p", "britannia_45p"]


def reference(board_id: str) -> dict:
    return json.loads((FIXTURES / f"{board_id}.json").read_text(encoding="utf-8"))


# --------------------------------------------------------------------------- reference files


@pytest.mark.parametrize("board_id", BOARD_IDS)
def test_reference_round_trips_exactly(board_id: str) -> None:
    data = reference(board_id)
    board = board_from_json(data, f"{board_id}.json")
    out = board_to_json(board)
    assert out == data
    # Same keys in the same order everywhere (dict equality ignores order).
    assert json.dumps(out, ensure_ascii=False) == json.dumps(data, ensure_ascii=False)


@pytest.mark.parametrize("board_id", BOARD_IDS)
def test_dump_matches_reference_file_byte_for_byte(board_id: str) -> None:
    path = FIXTURES / f"{board_id}.json"
    board = load_board_json(path)
    assert dumps_board_json(board_to_json(board)) == path.read_text(encoding="utf-8")


def test_reference_facts_reach_the_ir() -> None:
    east = board_from_json(reference("eastern"), "eastern.json")
    waren = east.city("Waren")
    assert waren.abilities == ("actions", "bank")
    assert not waren.hanseatic and waren.spaces == ()
    malmo_visby = next(r for r in east.routes if set(r.cities) == {"Malmö", "Visby"})
    assert malmo_visby.points == ("any", "merchant", "any")
    assert malmo_visby.permanent_bonus == "post_in_green_city"
    assert east.special_prestige.city == "Königsberg"
    brit = board_from_json(reference("britannia_45p"), "britannia_45p.json")
    assert brit.city("Isle of Man").countries == ("scotland", "wales")
    assert brit.city("London").permissions == ("scotland", "wales")
    assert brit.city("Plymouth").spaces[1] == PostSpace("round", "orange", 2)
    assert brit.frame == (4941, 6910)
    h3 = board_from_json(reference("hanseatic_3p"), "hanseatic_3p.json")
    assert h3.original_edition_players == (2, 3)
    assert dict(h3.verification)["status"] == "verified"


def test_sort_key_ignores_accents_and_case() -> None:
    names = ["Groningen", "Göttingen", "Goslar", "lübeck", "Lunen"]
    assert sorted(names, key=name_sort_key) == [
        "Goslar",
        "Göttingen",
        "Groningen",
        "lübeck",
        "Lunen",
    ]


# --------------------------------------------------------------------------- export details


def small_board(**changes) -> Board:
    base = Board(
        id="tiny",
        title="Tiny",
        side="only side",
        players=(3, 4),
        east_west=("Alpha", "Beta"),
        completed_cities=2,
        special_prestige=SpecialPrestige(
            "Beta", ("Beta", "Alpha"), (SpecialSpace(7, "white"), SpecialSpace(8, "orange"))
        ),
        cities=(
            City("Beta", (PostSpace("round", "pink", 1),), position=(0.5, 0.25)),
            City(
                "Alpha", (PostSpace("square", "white"),), abilities=("keys",), position=(0.0, 1.0)
            ),
        ),
        routes=(Route(("Beta", "Alpha"), ("any", "any")),),
    )
    return Board(**{**base.__dict__, **changes})


def test_export_sorts_and_orders_land_route_endpoints() -> None:
    out = board_to_json(small_board())
    assert [c["name"] for c in out["cities"]] == ["Alpha", "Beta"]
    assert out["routes"] == [
        {
            "cities": ["Alpha", "Beta"],
            "points": 2,
            "kind": "land",
            "merchant_points": 0,
            "tavern": False,
            "permanent_bonus": None,
        }
    ]
    assert list(out) == [
        "schema_version",
        "id",
        "board",
        "side",
        "players",
        "east_west",
        "completed_cities_to_end",
        "special_prestige",
        "cities",
        "routes",
    ]
    assert out["cities"][0] == {
        "name": "Alpha",
        "offices": [{"shape": "square", "privilege": "white", "prestige": 0}],
        "ability": "keys",
        "position": [0.0, 1.0],
    }


def test_export_keeps_sea_route_direction_and_derives_kind() -> None:
    sea = Route(("Beta", "Alpha"), ("merchant", "any", "any"), country="england")
    out = board_to_json(small_board(routes=(sea,), countries=("england",)))
    route = out["routes"][0]
    assert route["cities"] == ["Beta", "Alpha"]
    assert route["kind"] == "sea" and route["merchant_points"] == 1
    assert route["point_types"] == ["merchant", "any", "any"]
    assert list(route) == [
        "cities",
        "points",
        "kind",
        "merchant_points",
        "point_types",
        "tavern",
        "permanent_bonus",
        "country",
    ]
    assert out["countries"] == ["england"]


def test_export_optional_city_keys() -> None:
    cities = (
        City("Alpha", (), hanseatic=False, abilities=("actions", "bank"), countries=("a", "b")),
        City("Beta", (PostSpace("square", "white"),), countries=("a",), permissions=("b",)),
    )
    out = board_to_json(small_board(cities=cities))
    alpha, beta = out["cities"]
    assert alpha["hanseatic"] is False and beta["hanseatic"] is True  # on every city: a green one
    assert alpha["ability"] == ["actions", "bank"]
    assert alpha["country"] == ["a", "b"] and beta["country"] == "a"
    assert beta["permission"] == ["b"] and "permission" not in alpha
    assert "position" not in alpha and "aliases" not in alpha
    # No green city: no `hanseatic` key anywhere.
    assert all("hanseatic" not in c for c in board_to_json(small_board())["cities"])


# --------------------------------------------------------------------------- validation


def _set(path: list, value):
    def change(data: dict) -> None:
        target = data
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return change


def _delete(path: list):
    def change(data: dict) -> None:
        target = data
        for key in path[:-1]:
            target = target[key]
        del target[path[-1]]

    return change


BAD_DATA = [
    (_delete(["players"]), "players: missing field"),
    (_set(["schema_version"], 2), "schema_version: expected 1, got the number 2"),
    (_set(["colour"], "red"), "colour: unknown field"),
    (_set(["players"], [3, 5]), "players: player counts must be consecutive"),
    (_set(["players"], []), "players: expected at least one player count"),
    (_set(["players", 1], 9), "players[1]: expected 1..8, got 9"),
    (_set(["players", 0], "4"), "players[0]: expected a whole number, got the string '4'"),
    (_set(["east_west"], ["Stendal"]), "east_west: expected 2 entries, got 1"),
    (_set(["completed_cities_to_end"], True), "completed_cities_to_end: expected a whole number"),
    (_set(["id"], ""), "id: must not be empty"),
    (_set(["cities"], {}), "cities: expected a list, got an object"),
    (_delete(["cities", 1, "offices"]), "cities[1] (Bremen).offices: missing field"),
    (
        _set(["cities", 0, "offices", 1, "shape"], "rond"),
        "cities[0] (Arnheim).offices[1].shape: unknown shape 'rond' (did you mean 'round'?)",
    ),
    (
        _set(["cities", 0, "offices", 0, "privilege"], "purple"),
        "cities[0] (Arnheim).offices[0].privilege: unknown privilege colour 'purple'",
    ),
    (_set(["cities", 0, "offices", 0, "prestige"], 3), "offices[0].prestige: expected 0, 1 or 2"),
    (_set(["cities", 0, "offices", 0, "coin"], 1), "offices[0].coin: unknown field"),
    (_set(["cities", 0, "ability"], "bok"), "cities[0] (Arnheim).ability: unknown ability 'bok'"),
    (_set(["cities", 0, "ability"], []), "cities[0] (Arnheim).ability: an empty list"),
    (
        _set(["cities", 0, "ability"], ["book", 3]),
        "ability[1]: expected a string, got the number 3",
    ),
    (_set(["cities", 0, "position"], [0.5]), "cities[0] (Arnheim).position: expected 2 entries"),
    (_set(["cities", 0, "position", 1], "0.5"), "position[1]: expected a number"),
    (
        _set(["cities", 0, "hanseatic"], "no"),
        "cities[0] (Arnheim).hanseatic: expected true or false",
    ),
    (_set(["cities", 0, "aliases"], "Arnhem"), "cities[0] (Arnheim).aliases: expected a list"),
    (_set(["cities", 0], "Arnheim"), "cities[0]: expected an object, got the string 'Arnheim'"),
    (_delete(["routes", 0, "tavern"]), "routes[0] (Arnheim -- Duisburg).tavern: missing field"),
    (
        _set(["routes", 0, "points"], "3"),
        "routes[0] (Arnheim -- Duisburg).points: expected a whole",
    ),
    (
        _set(["routes", 0, "kind"], "river"),
        "routes[0] (Arnheim -- Duisburg).kind: unknown route kind",
    ),
    (
        _set(["routes", 0, "kind"], "sea"),
        "routes[0] (Arnheim -- Duisburg).point_types: missing field",
    ),
    (_set(["routes", 0, "merchant_points"], 1), "merchant_points: says 1, but the point types"),
    (
        _set(["routes", 0, "point_types"], ["any"] * 3),
        "point_types: only sea routes list point types",
    ),
    (_set(["routes", 0, "permanent_bonus"], "gold"), "permanent_bonus: unknown permanent bonus"),
    (_set(["routes", 0, "cities"], ["Arnheim"]), "routes[0] (Arnheim).cities: expected 2 entries"),
    (_delete(["special_prestige", "via_route"]), "special_prestige.via_route: missing field"),
    (
        _set(["special_prestige", "spaces", 0, "privilege"], "whit"),
        "special_prestige.spaces[0].privilege: unknown privilege colour 'whit'",
    ),
    (_set(["verification", "status"], 5), "verification.status: expected a string"),
    (_set(["verification", "status"], []), "verification.status: an empty list"),
    (_set(["side"], "a\ud800b"), "side: holds a lone surrogate"),
    (
        _set(["cities", 0, "aliases"], ["A", "A"]),
        "cities[0] (Arnheim).aliases[1]: 'A' is listed twice",
    ),
    (_set(["cities", 0, "ability"], ["book", "book"]), "ability[1]: 'book' is listed twice"),
    (_set(["position_frame", "image_size"], [1, 2, 3]), "position_frame.image_size: expected 2"),
    (_set(["position_frame", "dpi"], 300), "position_frame.dpi: unknown field"),
]


@pytest.mark.parametrize(("change", "message"), BAD_DATA)
def test_bad_field_is_named(change, message: str) -> None:
    data = reference("hanseatic_45p")
    change(data)
    with pytest.raises(HansaError) as info:
        board_from_json(data, "boards/mine.json")
    assert message in info.value.message
    assert info.value.span.file == "boards/mine.json"
    assert info.value.format().startswith("boards/mine.json: error: ")


def test_sea_route_checks_point_types_against_counts() -> None:
    data = reference("eastern")
    sea = next(r for r in data["routes"] if r["kind"] == "sea")
    sea["point_types"] = ["any"] * sea["points"]
    with pytest.raises(HansaError, match="merchant_points: says"):
        board_from_json(data, "e.json")
    data = reference("eastern")
    sea = next(r for r in data["routes"] if r["kind"] == "sea")
    sea["point_types"] = sea["point_types"][:-1]
    with pytest.raises(HansaError, match=r"point_types: expected \d entries"):
        board_from_json(data, "e.json")


def test_strings_are_nfc_normalised_like_the_board_language() -> None:
    data = reference("eastern")
    decomposed = unicodedata.normalize("NFD", "Lübeck")
    assert decomposed != "Lübeck"
    data["cities"][16]["name"] = decomposed
    data["east_west"][0] = decomposed
    board = board_from_json(data, "e.json")
    assert board.city("Lübeck").name == "Lübeck" and board.east_west[0] == "Lübeck"


def test_verification_takes_the_shape_the_board_language_reads() -> None:
    data = reference("eastern")
    data["verification"] = {"status": ["verified"], "sources_agreeing": "one source"}
    board = board_from_json(data, "e.json")
    assert board.verification == (("status", "verified"), ("sources_agreeing", ("one source",)))
    assert board_to_json(board)["verification"] == {
        "status": "verified",
        "sources_agreeing": ["one source"],
    }


def test_not_an_object_at_top() -> None:
    with pytest.raises(HansaError, match="expected an object, got a list"):
        board_from_json([], "x.json")


def test_load_errors_are_one_clear_line(tmp_path: Path) -> None:
    cases = {
        "missing.json": None,
        "empty.json": b"  \n",
        "latin1.json": '{"id": "Lüneburg"}'.encode("latin-1"),
        "broken.json": b'{\n  "id": "x",\n  "board" "y"\n}\n',
    }
    messages = {}
    for file, content in cases.items():
        path = tmp_path / file
        if content is not None:
            path.write_bytes(content)
        with pytest.raises(HansaError) as info:
            load_board_json(path)
        messages[file] = (info.value.message, info.value.span)
    assert messages["missing.json"][0] == "no such file"
    assert messages["empty.json"][0] == "empty file"
    assert "not UTF-8" in messages["latin1.json"][0]
    message, span = messages["broken.json"]
    assert message.startswith("not valid JSON: Expecting ':' delimiter")
    assert (span.line, span.column) == (3, 11)
    with pytest.raises(HansaError, match="is a directory"):
        load_board_json(tmp_path)


# ------------------------------------------------------------------ property: IR -> JSON -> IR

NAME_CHARS = st.characters(
    codec="utf-8", categories=("L", "N", "P", "S", "Zs"), exclude_characters="\x00"
)


def nfc_text(min_size: int = 0, max_size: int = 20) -> st.SearchStrategy[str]:
    """Text as the board language reads it back: NFC-normalised."""
    return st.text(NAME_CHARS, min_size=min_size, max_size=max_size).map(
        lambda s: unicodedata.normalize("NFC", s)
    )


names = nfc_text(1, 12).filter(lambda s: s.strip() != "")
positions = st.tuples(
    st.floats(0, 1, allow_nan=False, allow_subnormal=False),
    st.floats(0, 1, allow_nan=False, allow_subnormal=False),
)
spaces = st.builds(
    PostSpace, st.sampled_from(SHAPES), st.sampled_from(PRIVILEGES), st.sampled_from((0, 1, 2))
)


@st.composite
def boards(draw, countries_pool=("england", "wales", "scotland")) -> Board:
    """Random boards in canonical order (as board_from_json of a reference-style file has them)."""
    city_names = draw(st.lists(names, min_size=2, max_size=6, unique_by=name_sort_key))
    use_countries = draw(st.booleans())
    countries = tuple(countries_pool) if use_countries else ()
    cities = []
    for city_name in city_names:
        green = draw(st.booleans()) and draw(st.booleans())
        cities.append(
            City(
                name=city_name,
                spaces=() if green else tuple(draw(st.lists(spaces, max_size=5))),
                abilities=tuple(
                    draw(st.lists(st.sampled_from(ABILITIES), max_size=2, unique=True))
                ),
                hanseatic=not green,
                countries=tuple(draw(st.lists(st.sampled_from(countries), max_size=2, unique=True)))
                if countries
                else (),
                permissions=tuple(
                    draw(st.lists(st.sampled_from(countries), max_size=2, unique=True))
                )
                if countries
                else (),
                position=draw(st.none() | positions),
                aliases=tuple(draw(st.lists(names, max_size=2, unique=True))),
            )
        )
    pairs = [(a, b) for i, a in enumerate(city_names) for b in city_names[i + 1 :]]
    chosen = draw(st.lists(st.sampled_from(pairs), min_size=1, max_size=8, unique=True))
    routes = []
    for a, b in chosen:
        points = tuple(draw(st.lists(st.sampled_from(("any", "merchant")), min_size=1, max_size=4)))
        sea = "merchant" in points
        if not sea and name_sort_key(b) < name_sort_key(a):
            a, b = b, a
        routes.append(
            Route(
                cities=(a, b),
                points=points,
                tavern=draw(st.booleans()),
                permanent_bonus=draw(st.none() | st.sampled_from(PERMANENT_BONUSES))
                if sea
                else None,
                country=draw(st.sampled_from(countries)) if countries else None,
            )
        )
    first, second = chosen[0]
    low = draw(st.integers(1, 5))
    board = Board(
        id=draw(names),
        title=draw(nfc_text()),
        side=draw(nfc_text()),
        players=tuple(range(low, low + draw(st.integers(1, 3)))),
        original_edition_players=draw(st.sampled_from(((), (2, 3)))),
        east_west=draw(st.none() | st.just((first, second))),
        completed_cities=draw(st.integers(1, 12)),
        special_prestige=draw(
            st.none()
            | st.just(
                SpecialPrestige(
                    first,
                    (first, second),
                    tuple(
                        SpecialSpace(p, c) for p, c in zip((7, 8, 9, 11), PRIVILEGES, strict=True)
                    ),
                )
            )
        ),
        countries=countries,
        cities=tuple(cities),
        routes=tuple(routes),
        verification=draw(
            st.sampled_from(
                (
                    (),
                    (("status", "verified"), ("sources_agreeing", ('a "quoted" one', "b"))),
                    (("sources_agreeing", ("only one",)), ("against", ("x", ""))),
                )
            )
        ),
        frame=draw(st.none() | st.tuples(st.integers(1, 9999), st.integers(1, 9999))),
    )
    board = Board(
        **{
            **board.__dict__,
            "frame_note": draw(nfc_text(max_size=10)) if board.frame else "",
            "cities": tuple(sorted_cities(board)),
            "routes": tuple(sorted_routes(board)),
        }
    )
    return board


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(boards())
def test_random_boards_round_trip_through_json(board: Board) -> None:
    data = board_to_json(board)
    text = dumps_board_json(data)
    again = board_from_json(json.loads(text), "random.json")
    assert again == board
    assert board_to_json(again) == data


def test_from_json_does_not_mutate_input() -> None:
    data = reference("britannia_3p")
    before = copy.deepcopy(data)
    board_from_json(data, "b.json")
    assert data == before


# ------------------------------------------------------------------ property: any JSON, no crash

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 12)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.sampled_from(["", "white", "square", "sea", "any", "merchant", "Bremen", "x\ud800"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=6,
)


def _paths(value, prefix=()):
    yield prefix
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _paths(item, (*prefix, index))


@settings(max_examples=80, deadline=None)
@given(st.sampled_from(["hanseatic_3p", "eastern", "britannia_45p"]), st.data())
def test_mutated_json_gives_a_board_or_a_named_error(board_id: str, data) -> None:
    document = reference(board_id)
    paths = list(_paths(document))
    for _ in range(data.draw(st.integers(1, 3), label="mutations")):
        path = data.draw(st.sampled_from(paths[1:]), label="path")
        target = document
        try:
            for key in path[:-1]:
                target = target[key]
            if data.draw(st.booleans(), label="delete") and isinstance(target, dict):
                target.pop(path[-1], None)
            else:
                target[path[-1]] = data.draw(json_values, label="value")
        except (KeyError, IndexError, TypeError):
            continue  # an earlier mutation removed this path
    try:
        board = board_from_json(document, "fuzz.json")
    except HansaError as exc:
        assert exc.span is not None and exc.span.file == "fuzz.json"
        assert exc.message
        return
    # Whatever is accepted exports and reads back as the same board (in the reference order),
    # through JSON and through the board language.
    exported = board_to_json(board)
    again = board_from_json(json.loads(dumps_board_json(exported)), "again.json")
    assert board_to_json(again) == exported
    assert set(again.cities) == set(board.cities)
    (decl,) = parse_text(format_board(board), "fuzz.hansa").children
    assert board_to_json(lower_board(decl, "fuzz.hansa")) == exported
