"""The five printed board sides in spec/boards/ match the reference data fact for fact.

`differences` compares every top-level field, every city (each key, each space's shape, colour and
coin, position within 1e-6) and every route (each key). The mutation tests below change one fact in
a spec file and show the comparison notices it, so the match test cannot pass by accident.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from hansa.compiler.board.checks import check_board
from hansa.compiler.board.json_io import board_to_json
from hansa.compiler.board.lower import lower_board
from hansa.compiler.nodes.board import Board
from hansa.compiler.syntax.parser import parse_text

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "boards"
SPEC_BOARDS = ROOT / "spec" / "boards"
BOARD_IDS = ["hanseatic_3p", "hanseatic_45p", "eastern", "britannia_3p", "britannia_45p"]
POSITION_TOLERANCE = 1e-6


def reference(board_id: str) -> dict:
    return json.loads((FIXTURES / f"{board_id}.json").read_text(encoding="utf-8"))


def spec_text(board_id: str) -> str:
    return (SPEC_BOARDS / f"{board_id}.hansa").read_text(encoding="utf-8")


def lower_text(text: str, file: str) -> Board:
    (decl,) = parse_text(text, file).children
    return lower_board(decl, file)


def differences(ours: dict, theirs: dict) -> list[str]:
    """Every fact on which two reference-schema boards differ, in words."""
    found: list[str] = []
    if list(ours) != list(theirs):
        found.append(f"top-level keys {list(ours)} != {list(theirs)}")
    for key in theirs:
        if key in ("cities", "routes") or ours.get(key) == theirs[key]:
            continue
        found.append(f"{key}: {ours.get(key)!r} != {theirs[key]!r}")

    our_cities = {c["name"]: c for c in ours.get("cities", [])}
    their_cities = {c["name"]: c for c in theirs["cities"]}
    for missing in their_cities.keys() - our_cities.keys():
        found.append(f"city {missing} missing")
    for extra in our_cities.keys() - their_cities.keys():
        found.append(f"city {extra} not in the reference")
    for city_name in their_cities.keys() & our_cities.keys():
        a, b = our_cities[city_name], their_cities[city_name]
        if list(a) != list(b):
            found.append(f"city {city_name}: keys {list(a)} != {list(b)}")
        for key in b:
            if key == "offices":
                if len(a.get(key, [])) != len(b[key]):
                    found.append(f"city {city_name}: {len(a.get(key, []))} spaces != {len(b[key])}")
                for i, (sa, sb) in enumerate(zip(a.get(key, []), b[key], strict=False)):
                    for fact in ("shape", "privilege", "prestige"):
                        if sa.get(fact) != sb[fact]:
                            found.append(f"city {city_name} space {i}: {fact} {sa.get(fact)!r}")
            elif key == "position":
                pa, pb = a.get(key), b[key]
                if pa is None or any(
                    not math.isclose(x, y, abs_tol=POSITION_TOLERANCE)
                    for x, y in zip(pa, pb, strict=True)
                ):
                    found.append(f"city {city_name}: position {pa} != {pb}")
            elif a.get(key) != b[key]:
                found.append(f"city {city_name}: {key} {a.get(key)!r} != {b[key]!r}")
    if [c["name"] for c in ours.get("cities", [])] != [c["name"] for c in theirs["cities"]]:
        found.append("cities are not in the reference order")

    our_routes = {frozenset(r["cities"]): r for r in ours.get("routes", [])}
    their_routes = {frozenset(r["cities"]): r for r in theirs["routes"]}
    for missing in their_routes.keys() - our_routes.keys():
        found.append(f"route {' -- '.join(sorted(missing))} missing")
    for extra in our_routes.keys() - their_routes.keys():
        found.append(f"route {' -- '.join(sorted(extra))} not in the reference")
    for pair in their_routes.keys() & our_routes.keys():
        a, b = our_routes[pair], their_routes[pair]
        label = " -- ".join(b["cities"])
        if list(a) != list(b):
            found.append(f"route {label}: keys {list(a)} != {list(b)}")
        for key in b:
            if a.get(key) != b[key]:
                found.append(f"route {label}: {key} {a.get(key)!r} != {b[key]!r}")
    if [r["cities"] for r in ours.get("routes", [])] != [r["cities"] for r in theirs["routes"]]:
        found.append("routes are not in the reference order")
    return found


@pytest.mark.parametrize("board_id", BOARD_IDS)
def test_spec_board_matches_reference_fact_for_fact(board_id: str) -> None:
    board = lower_text(spec_text(board_id), f"spec/boards/{board_id}.hansa")
    assert board.id == board_id
    exported = board_to_json(board)
    assert differences(exported, reference(board_id)) == []
    # Every space and route point is accounted for (the reference README's totals).
    data = reference(board_id)
    assert sum(len(c.spaces) for c in board.cities) == sum(
        len(c["offices"]) for c in data["cities"]
    )
    assert sum(len(r.points) for r in board.routes) == sum(r["points"] for r in data["routes"])


@pytest.mark.parametrize("board_id", BOARD_IDS)
def test_spec_board_checks_clean(board_id: str) -> None:
    board = lower_text(spec_text(board_id), f"spec/boards/{board_id}.hansa")
    assert [d.format() for d in check_board(board) if d.severity == "error"] == []


MUTATIONS = [
    ("hanseatic_45p", "0.8525) { square white coin 1;", "0.8525) { square white;",
     "city Coellen space 0: prestige 0"),
    ("hanseatic_45p", "route Bremen -- Osnabrück: 3 tavern", "route Bremen -- Osnabrück: 3",
     "route Bremen -- Osnabrück: tavern False != True"),
    ("hanseatic_45p", "city Göttingen ability actions", "city Göttingen ability keys",
     "city Göttingen: ability 'keys' != 'actions'"),
    ("hanseatic_45p", "0.5315) { square white; round white;",
     "0.5315) { square white; square white;",
     "city Arnheim space 1: shape 'square'"),
    ("hanseatic_45p", "at (0.0924, 0.5315)", "at (0.0925, 0.5315)", "city Arnheim: position"),
    ("hanseatic_45p", "completed_cities 10", "completed_cities 9", "completed_cities_to_end: 9"),
    ("hanseatic_45p", "9 pink; 11 black }", "9 pink; 12 black }", "special_prestige"),
    ("hanseatic_45p", "    route Bremen -- Hamburg: 4\n", "", "route Bremen -- Hamburg missing"),
    ("hanseatic_45p", "route Bremen -- Hannover: 3", "route Bremen -- Hannover: 2",
     "route Bremen -- Hannover: points 2 != 3"),
    ("hanseatic_45p", "aka Gottingen", "aka Gottingen, Goettingen", "city Göttingen: aliases"),
    ("eastern", "house ship ship permanent develop_privilege",
     "ship house ship permanent develop_privilege", "route Stralsund -- Malmö: point_types"),
    ("eastern", "permanent develop_privilege", "permanent move_2_any_tradesmen",
     "route Stralsund -- Malmö: permanent_bonus"),
    ("eastern", "city Dresden ability keys green", "city Dresden ability keys",
     "city Dresden: hanseatic True != False"),
    ("britannia_3p", "route Cardiff -- Montgomery: 3 country wales",
     "route Cardiff -- Montgomery: 3 country england",
     "route Cardiff -- Montgomery: country 'england' != 'wales'"),
    ("britannia_3p", "city Cardiff country wales permission wales", "city Cardiff country wales",
     "city Cardiff: keys"),
    ("britannia_3p", 'city "Isle of Man" country wales', 'city "Isle of Man" country england',
     "city Isle of Man: country 'england' != 'wales'"),
    ("britannia_3p", 'sources_agreeing "', 'sources_agreeing "x", "', "verification"),
]  # fmt: skip


@pytest.mark.parametrize(("board_id", "old", "new", "expected"), MUTATIONS)
def test_comparison_catches_a_single_changed_fact(
    board_id: str, old: str, new: str, expected: str
) -> None:
    text = spec_text(board_id)
    assert text.count(old) == 1, old
    board = lower_text(text.replace(old, new), "mutated.hansa")
    found = differences(board_to_json(board), reference(board_id))
    assert found, "the comparison missed a changed fact"
    assert any(expected in line for line in found), found
