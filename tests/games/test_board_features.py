"""Board features (green cities, sea routes, permanent markers, countries, permissions) over random
play and on a made-up board; `hansa check` and `hansa build` agree on what the rules can play.

The invariants are checked after every decision of random games of the three new games: each
piece in exactly one zone (test_properties.check_consistency), the JSON round trip exact, ship
points holding merchants only, every Place/Displace in a country that needs a permission spending
one the player holds, displaced and moved pieces ending where their country allows.
"""

from __future__ import annotations

import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from clock_support import cpu_seconds
from engine_support import check_consistency
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import hansa

ROOT = Path(__file__).resolve().parents[2]
NEW_GAMES = [
    ("bigbox-eastern", 3),
    ("bigbox-eastern", 5),
    ("bigbox-britannia-3p", 3),
    ("bigbox-britannia-45p", 4),
    ("bigbox-britannia-45p", 5),
]


def _ns(state) -> dict:
    return type(state)._legal.__globals__


def _holder(state, ns, c: int) -> int:
    filled = state.filled[c]
    if filled:
        return state.post[ns["CITY_SPACES"][c][filled - 1]] >> 1
    return state.extra[c][-1] >> 1 if state.extra[c] else -1


def _allowed(ns, origin_route: int, route: int, rule: str) -> bool:
    country, permit = ns["ROUTE_COUNTRY"], ns["ROUTE_PERMIT_BIT"]
    if rule == "same_country":
        return country[route] == country[origin_route]
    return country[route] == country[origin_route] or not permit[route]


def check_board_rules(state, before, action: int) -> None:
    """The board features' limits, for the decision `action` just taken from `before`."""
    ns = _ns(state)
    for x, code in enumerate(state.pt):
        if code >= 0 and ns["POINT_MERCHANT_ONLY"][x]:
            assert code & 1, "a ship point holds merchants only"
    if "ROUTE_PERMIT_BIT" not in ns:
        return
    point_route, permit = ns["POINT_ROUTE"], ns["ROUTE_PERMIT_BIT"]
    a_place, a_displace, a_move = ns["A_PLACE"], ns["A_DISPLACE"], ns["A_MOVE"]
    if not before.stack and a_place <= action < a_move:  # a Place or a Displace
        x = (action - (a_place if action < a_displace else a_displace)) // 2
        bit = permit[point_route[x]]
        if bit:
            usable = [
                c
                for c, bits in ns["PERMISSION_CITIES"]
                if bits & bit
                and c not in before.perm_used
                and _holder(before, ns, c) == before.player
            ]
            assert usable, "a Place or Displace there needs an unused permission"
            if state.player == before.player:  # (the turn may have ended with this action)
                new = [c for c in state.perm_used if c not in before.perm_used]
                assert len(new) == 1 and new[0] in usable, "a permission is spent"
    if before.stack:
        top = before.stack[-1]
        if top[0] == ns["F_DISPLACED"] and top[3] >= 0:
            base = ns["A_PLACE_DISPLACED"]
            if base <= action < base + ns["N_POINTS"]:
                assert _allowed(ns, top[2], point_route[action - base], "own_or_free")
        if top[0] == ns["F_MOVE"] and top[5] == 1:
            base = ns["A_DROP"]
            if base <= action < base + ns["N_POINTS"] and len(top[6]) >= len(top[4]):
                origin = point_route[top[6][len(top[6]) - len(top[4])][0]]
                rule = "own_or_free" if top[2] == 0 else "same_country"
                assert _allowed(ns, origin, point_route[action - base], rule)


def play_checked(game, seed: int, max_decisions: int, json_every: int = 1) -> int:
    state = game.new_initial_state(seed)
    rng = random.Random(seed)
    steps = 0
    while not state.is_terminal() and steps < max_decisions:
        legal = state.legal_actions()
        assert legal
        if steps % json_every == 0:
            check_consistency(state)
            text = state.to_json()
            assert game.state_from_json(text).to_json() == text
        before = state.clone()
        action = rng.choice(legal)
        state.apply_action(action)
        check_board_rules(state, before, action)
        steps += 1
    check_consistency(state)
    return steps


@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=st.sampled_from(NEW_GAMES), seed=st.integers(0, 2**31))
def test_random_play_keeps_the_board_rules_and_round_trips(case, seed):
    name, players = case
    play_checked(hansa.load_game(name, players), seed, max_decisions=400)


@pytest.mark.parametrize("name,players", NEW_GAMES)
def test_whole_random_games_keep_the_board_rules(name, players):
    game = hansa.load_game(name, players)
    steps = play_checked(game, seed=players, max_decisions=200_000, json_every=501)
    assert steps < 200_000
    state = game.new_initial_state(players)
    rng = random.Random(players)
    while not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))
    assert state.is_terminal()


# ----------------------------------------------------------------------------- a made-up board

MADE_UP = """
board isles "Made-up isles" {
    players 3..4
    countries mainland, north
    east_west Alpha -- Delta
    completed_cities 3
    city Alpha country mainland permission north { square white; square orange }
    city Beta country mainland { square white; round pink }
    city Gamma green country north { }
    city Delta country north { square white; square white }
    city Eps country mainland { square white }
    route Alpha -- Beta: 2 tavern country mainland
    route Beta -- Gamma: house ship permanent post_in_green_city country mainland
    route Gamma -- Delta: 3 country north
    route Alpha -- Eps: 2 tavern country mainland
    route Eps -- Delta: ship ship permanent move_2_any_tradesmen country mainland
    route Beta -- Delta: 3 tavern country north
}
game isles-game = bigbox_2021 on isles players 3..4
"""


@pytest.fixture(scope="module")
def made_up(tmp_path_factory):
    path = tmp_path_factory.mktemp("isles") / "isles.hansa"
    path.write_text(MADE_UP, encoding="utf-8")
    return path


def test_a_made_up_board_with_every_feature_compiles_and_plays(made_up):
    game = hansa.compile_game(str(made_up), 3, spec_dir=str(ROOT / "spec"))
    ns = _ns(game.new_initial_state(0))
    assert ns["GREEN_CITIES"] == (2,)
    assert ns["PERMANENT_NAMES"] == ("post_in_green_city", "move_2_any_tradesmen")
    assert ns["COUNTRY_NAMES"] == ("mainland", "north")
    for seed in range(4):
        play_checked(game, seed, max_decisions=200_000, json_every=97)
    assert "G" in game.new_initial_state(0).score_breakdown()[0]


def test_check_accepts_the_made_up_board_and_build_agrees(made_up, tmp_path):
    run = subprocess.run(
        [sys.executable, "-m", "hansa", "check", str(ROOT / "spec"), str(made_up)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert run.returncode == 0, run.stdout + run.stderr


@pytest.mark.parametrize(
    "rules,needle,line",
    [
        ("remove board_rules green_cities", "is green, but rule set", 9),
        ("remove board_rules permissions", "grants permissions, but rule set", 7),
        ("remove permanent_marker post_in_green_city", "does not declare", 13),
        ("remove board_rules countries", "has countries, but rule set", 4),
    ],
)
def test_check_reports_a_board_feature_the_rules_cannot_use_at_its_line(
    made_up, tmp_path, rules, needle, line
):
    house = tmp_path / "house.hansa"
    house.write_text(
        "rules lacking extends bigbox_2021 {\n    " + rules + "\n}\n"
        "game lacking-isles = lacking on isles players 3\n",
        encoding="utf-8",
    )
    run = subprocess.run(
        [sys.executable, "-m", "hansa", "check", str(ROOT / "spec"), str(made_up), str(house)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert run.returncode == 1
    out = run.stdout + run.stderr
    assert needle in out
    assert f"isles.hansa:{line}:" in out
    assert "Traceback" not in out


def test_check_accepts_only_what_build_compiles(tmp_path):
    """Whatever check accepts, build compiles: a rule set without the Move action passes check and
    builds (its turn never offers a move)."""
    house = tmp_path / "nomove.hansa"
    house.write_text(
        "rules nomove extends bigbox_2021 {\n    remove action move\n}\n"
        "game nomove-game = nomove on britannia_45p players 4\n",
        encoding="utf-8",
    )
    spec = tmp_path / "spec"
    shutil.copytree(ROOT / "spec", spec)
    shutil.copy(house, spec / "house" / "nomove.hansa")
    run = subprocess.run(
        [sys.executable, "-m", "hansa", "check", str(spec)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    out = tmp_path / "out"
    run = subprocess.run(
        [sys.executable, "-m", "hansa", "build", "--spec", str(spec), "--out", str(out)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert (out / "nomove_game.py").exists()


def test_house_rule_changes_a_board_rule_in_a_line(tmp_path):
    """A house rule changes a rule of play of a board feature in one line: permissions that are
    not used up let a Cardiff holder Place in Wales twice in a turn."""
    house = tmp_path / "free_permissions.hansa"
    house.write_text(
        "rules free_permissions extends bigbox_2021 {\n"
        "    board_rules permissions once_per_turn no\n}\n"
        "game free-britannia = free_permissions on britannia_45p players 4\n",
        encoding="utf-8",
    )
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from scenario_support import Position, act, legal

    game = hansa.compile_game(str(house), 4, spec_dir=str(ROOT / "spec"))
    state = Position(game).city("Cardiff", "t0").player(0, supply=(6, 1)).state()
    act(state, "place trader on Cardiff–Montgomery #1")
    assert "place trader on Cardiff–Montgomery #2" in legal(state)


# ------------------------------------------------------------------------ size (issue 13)


def _grid_board(side: int) -> str:
    """A side x side grid of cities (4 routes per city on average)."""
    last = side - 1
    lines = ['board grid "Grid" {', "    players 3..5", f"    east_west C0_0 -- C{last}_{last}"]
    for i in range(side):
        for j in range(side):
            lines.append(f"    city C{i}_{j} {{ square white; square orange }}")
    taverns = 0
    for i in range(side):
        for j in range(side):
            for di, dj in ((0, 1), (1, 0)):
                if i + di < side and j + dj < side:
                    tavern = " tavern" if taverns < 3 else ""
                    taverns += 1
                    lines.append(f"    route C{i}_{j} -- C{i + di}_{j + dj}: 3{tavern}")
    lines.append("}")
    lines.append("game grid-game = bigbox_2021 on grid players 3..5")
    return "\n".join(lines) + "\n"


def test_a_large_board_builds_in_seconds_and_its_module_grows_linearly(tmp_path):
    """Displacement finds its rings breadth-first at run time, so the module no longer holds a
    routes x routes table: a 1,024-city, ~2,000-route board builds in seconds."""
    from hansa.compiler.project import load_project
    from hansa.compiler.rules.resolve import resolve
    from hansa.compiler.targets.python.codegen import build_game_module

    sizes = {}
    for side in (16, 32):
        path = tmp_path / f"grid{side}.hansa"
        path.write_text(_grid_board(side), encoding="utf-8")
        project = load_project([ROOT / "spec", path])
        start = cpu_seconds()
        game = project.games["grid-game"]
        text = build_game_module(
            game, resolve(game.rules, project.rulesets), project.boards["grid"]
        )
        elapsed = cpu_seconds() - start
        assert elapsed < 20, elapsed
        sizes[side] = len(text)
    # 4x the routes: well under 16x the text (quadratic growth would give about 16x)
    assert sizes[32] < 6 * sizes[16]


def test_check_warns_past_the_board_size_build_is_measured_on():
    from hansa.compiler.board.checks import BUILD_TESTED_CITIES, check_board
    from hansa.compiler.nodes.board import Board, City, PostSpace, Route

    space = (PostSpace("square", "white"),)
    n = BUILD_TESTED_CITIES + 1
    cities = tuple(City(f"C{i}", space) for i in range(n))
    routes = tuple(Route((f"C{i}", f"C{i + 1}"), ("any", "any")) for i in range(n - 1))
    board = Board("huge", "Huge", east_west=("C0", f"C{n - 1}"), cities=cities, routes=routes)
    warnings = [d for d in check_board(board) if d.severity == "warning"]
    assert any("hansa build is measured up to" in d.message for d in warnings)
    small = Board("small", "Small", east_west=("C0", "C9"), cities=cities[:10], routes=routes[:9])
    assert not any("measured" in d.message for d in check_board(small))


def test_make_position_writes_green_city_posts_and_permanent_marker_frames():
    """make_position balances pieces for the new JSON fields: a green city's posts, a pending
    permanent-marker frame holding a piece lifted off the board, the permissions used."""
    from hansa.play.positions import make_position

    eastern = hansa.load_game("bigbox-eastern", 3)
    state = make_position(
        eastern,
        {
            "cities": [{"name": "Belgard", "green": True, "posts": ["t1", "m0"]}],
            "completed_cities": 1,  # a green city with a post is complete
            "routes": [{"cities": ["Danzig", "Malmö"], "points": ["t0", "t0", None, None]}],
            "stack": [
                {
                    "frame": "permanent_marker",
                    "player": 0,
                    "route": ["Danzig", "Malmö"],
                    "left": 2,
                    "holding": None,
                }
            ],
        },
    )
    assert state.to_dict()["cities"][2] == {"name": "Belgard", "green": True, "posts": ["t1", "m0"]}
    assert state.score_breakdown()[0]["E"] == 2  # the rightmost post wins the tie
    names = [state.action_to_string(a) for a in state.legal_actions()]
    assert "put a trader of the created route on Lübeck–Wismar #1" in names
    britannia = hansa.load_game("bigbox-britannia-45p", 4)
    state = make_position(
        britannia,
        {
            "cities": [{"name": "Cardiff", "posts": ["t0", None, None, None, None]}],
            "turn": {"permissions_used": ["Cardiff"]},
            "stack": [
                {
                    "frame": "permanent_marker",
                    "player": 0,
                    "route": ["Calais", "Southampton"],
                    "left": 1,
                    "holding": "trader",
                }
            ],
        },
    )
    names = [state.action_to_string(a) for a in state.legal_actions()]
    assert names and all(n.startswith("put an own trader on") for n in names)
    assert state.to_dict()["turn"]["permissions_used"] == ["Cardiff"]


def test_diff_lists_the_board_features_that_differ(tmp_path):
    """hansa diff between the Hanseatic and Britannia games names the board's features (countries,
    permissions, permanent markers); a house rule's changed board rule is one edit at its line."""
    run = subprocess.run(
        [sys.executable, "-m", "hansa", "diff", "bigbox-hanseatic-45p", "bigbox-britannia-45p"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert run.returncode == 1, run.stderr
    out = run.stdout
    assert "countries none → england, wales, scotland" in out
    assert "completed_cities 10 → 8" in out
    assert "city 'Cardiff' added (country wales permission wales {" in out
    assert "permanent place_2_tradesmen_in_wales_or_scotland, country england" in out
    house = tmp_path / "house.hansa"
    house.write_text(
        "rules majority_5 extends bigbox_2021 {\n    score G country_majority pp 5, 3, 1\n"
        "    board_rules permissions once_per_turn no\n}\n",
        encoding="utf-8",
    )
    run = subprocess.run(
        [sys.executable, "-m", "hansa", "diff", "bigbox_2021", str(house)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert run.returncode == 1, run.stderr
    assert "2 differences" in run.stdout
    assert "board rule 'permissions': once_per_turn yes → no" in run.stdout
    assert "house.hansa:2" in run.stdout and "house.hansa:3" in run.stdout


def test_greedy_uses_permanent_markers():
    """The greedy beginner takes a permanent marker's effect rather than declining it."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from hansa.play.greedy import GreedyAgent
    from scenario_support import Position, act

    game = hansa.load_game("bigbox-eastern", 4)
    no_post = "neither post nor ability: all route pieces to the stock"
    for route, expected in (
        (("Stralsund", "Malmö", "t0", "m0", "m0"), "develop privilege"),
        (("Malmö", "Visby", "t0", "m0", "t0"), "establish a post in green city"),
        (("Danzig", "Malmö", "t0", "t0", "t0", "m0"), "put a "),
        (("Wismar", "Stralsund", "t0", "m0", "m0"), "use the permanent marker"),
    ):
        pos = Position(game).route(*route).player(0, book=1).route("Lübeck", "Wismar", "t1")
        state = pos.state()
        act(state, f"create route {route[0]}–{route[1]}", no_post)
        choice = GreedyAgent(seed=0).step(state, state.legal_actions())
        assert state.action_to_string(choice).startswith(expected)
