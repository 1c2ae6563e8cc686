"""Test helpers for the engine: hand-built rule sets (RULES.md) and boards from the JSON fixtures.

The spec files in spec/ are the real source; these Python rule sets mirror RULES.md §1–7 and §11 so
the engine can be tested on its own, and so a test can tweak one parameter without a spec file.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from hansa.compiler.board.json_io import board_from_json
from hansa.compiler.nodes.board import Board
from hansa.compiler.nodes.rules import (
    Ability,
    BonusMarker,
    CreateRoute,
    Displace,
    EndTrigger,
    Game,
    Income,
    MarkerRules,
    Move,
    Option,
    Pieces,
    Place,
    RuleSet,
    ScoreCategory,
    Setup,
    TieBreakStep,
)
from hansa.compiler.targets.python.codegen import build_game_module
from hansa.runtime.game import Game as RuntimeGame

FIXTURES = Path(__file__).parent / "fixtures"


def fixture_board(board_id: str) -> Board:
    path = FIXTURES / "boards" / f"{board_id}.json"
    return board_from_json(json.loads(path.read_text(encoding="utf-8")), str(path))


def bigbox_rules() -> RuleSet:
    return RuleSet(
        name="bigbox_2021",
        title="Hansa Teutonica Big Box (2021)",
        pieces=Pieces(27, 4, "trader"),
        setup=Setup(4, 1, 1),
        abilities=(
            Ability("keys", (1, 2, 2, 3, 4), "trader", 0, "network_factor"),
            Ability("actions", (2, 3, 3, 4, 4, 5), "trader", 4, "actions_per_turn"),
            Ability(
                "privilege", ("white", "orange", "pink", "black"), "trader", 4, "post_privilege"
            ),
            Ability("book", (2, 3, 4, 5), "merchant", 4, "move_count"),
            Ability("bank", (3, 5, 7, "all"), "trader", 4, "income"),
        ),
        actions=(Income(), Place(), Displace(), Move(), CreateRoute()),
        bonus_markers=(
            BonusMarker("additional_trading_post", (), 4, 1),
            BonusMarker("exchange_trading_posts", (("must_own_one", True),), 3, 1),
            BonusMarker("develop_ability", (("ability", "any"),), 2, 0),
            BonusMarker("extra_actions", (("count", 3),), 2, 0),
            BonusMarker("extra_actions", (("count", 4),), 2, 0),
            BonusMarker("move_tradesmen", (("count", 3), ("whose", "opponents")), 2, 1),
        ),
        marker_rules=MarkerRules(),
        end_triggers=(
            EndTrigger("track_pp", 20),
            EndTrigger("marker_supply_empty"),
            EndTrigger("completed_cities", None),
        ),
        scoring=(
            ScoreCategory("A", "track"),
            ScoreCategory("B", "full_abilities"),
            ScoreCategory(
                "C",
                "bonus_markers",
                (("table", ((1, 1), (2, 3), (4, 6), (6, 10), (8, 15), (10, 21))),),
            ),
            ScoreCategory("D", "special_prestige"),
            ScoreCategory("E", "controlled_cities", (("pp", 2),)),
            ScoreCategory("F", "network"),
        ),
        tiebreak=(
            TieBreakStep("fewest", "ability", "actions"),
            TieBreakStep("most", "score", "network"),
            TieBreakStep("shared"),
        ),
        options=(
            Option("displaced_extra_kind", "owner_chooses"),
            Option("displaced_piece_without_point", "personal_supply"),
            Option("unplaceable_marker", "out_of_game"),
            Option("no_op_actions", "illegal"),
            Option("move_must_place_all", "yes"),
        ),
        sources=("spec/bigbox_2021.hansa",),
    )


def original_rules() -> RuleSet:
    base = bigbox_rules()
    return replace(
        base,
        name="original_2009",
        bonus_markers=(
            BonusMarker("additional_trading_post", (), 5, 1),
            BonusMarker("exchange_trading_posts", (("must_own_one", False),), 2, 1),
            BonusMarker("develop_ability", (("ability", "any"),), 3, 0),
            BonusMarker("extra_actions", (("count", 3),), 2, 0),
            BonusMarker("extra_actions", (("count", 4),), 2, 0),
            BonusMarker(
                "remove_tradesmen", (("count", 3), ("whose", "opponents"), ("to", "personal")), 2, 1
            ),
        ),
        tiebreak=(TieBreakStep("shared"),),
        sources=("spec/bigbox_2021.hansa", "spec/original_2009.hansa"),
    )


GAMES = {
    "bigbox-hanseatic-3p": (bigbox_rules, "hanseatic_3p", (3,)),
    "bigbox-hanseatic-45p": (bigbox_rules, "hanseatic_45p", (4, 5)),
    "original-hanseatic-23p": (original_rules, "hanseatic_3p", (3,)),
    "original-hanseatic-45p": (original_rules, "hanseatic_45p", (4, 5)),
}


def module_source(name: str, rules: RuleSet | None = None) -> str:
    make_rules, board_id, players = GAMES[name]
    rules = rules or make_rules()
    game = Game(name, rules.name, board_id, players)
    return build_game_module(game, rules, fixture_board(board_id))


def compile_source(source: str, module_name: str = "hansa_test_game"):
    import types

    module = types.ModuleType(module_name)
    exec(compile(source, f"<{module_name}>", "exec"), module.__dict__)
    return module


_cache: dict[str, object] = {}


def load_test_game(name: str, players: int | None = None) -> RuntimeGame:
    """A runtime Game compiled in memory from the hand-built rule sets (cached per name)."""
    if name not in _cache:
        _cache[name] = compile_source(module_source(name), name.replace("-", "_"))
    return RuntimeGame(_cache[name], players)


def check_consistency(state) -> None:
    """Conservation of pieces over all zones, and every incremental table equal to a recount."""
    module = _module_of(state)
    n = state.num_players
    pt = state.pt
    on_routes = [0] * (2 * n)
    at = [[] for _ in range(n)]
    for x, code in enumerate(pt):
        if code >= 0:
            on_routes[code] += 1
            at[code >> 1].append(x)
    assert state.onboard == on_routes
    assert state.at == at
    assert state.free == [x for x, code in enumerate(pt) if code < 0]
    assert state.free_house == [
        x for x, code in enumerate(pt) if code < 0 and not module.POINT_MERCHANT_ONLY[x]
    ]
    for r, points in enumerate(module.ROUTE_POINTS):
        free_bits = sum(1 << j for j, x in enumerate(points) if pt[x] < 0)
        assert state.mask[r] == free_bits
        owners = {pt[x] >> 1 for x in points}
        full = owners.pop() if free_bits == 0 and len(owners) == 1 else -1
        assert state.full_owner[r] == full
    posts = [0] * (2 * n)
    for c, spaces in enumerate(module.CITY_SPACES):
        filled = state.filled[c]
        assert all(state.post[x] >= 0 for x in spaces[:filled])
        assert all(state.post[x] < 0 for x in spaces[filled:])
        for x in spaces[:filled]:
            posts[state.post[x]] += 1
        for code in state.extra[c]:
            posts[code] += 1
    for code in state.special:
        if code >= 0:
            posts[code] += 1
    held = [0] * (2 * n)
    for frame in state.stack:
        if frame[0] == module.F_DISPLACED and frame[3] >= 0:
            held[2 * frame[1] + frame[3]] += 1
        if frame[0] == module.F_MOVE:
            for code in frame[4]:
                held[code] += 1
        if frame[0] == getattr(module, "F_PERMANENT", -1) and frame[4] >= 0:
            held[2 * frame[1] + frame[4]] += 1  # a piece lifted by a permanent marker
    for p in range(n):
        for kind, owned in ((0, module.TRADERS), (1, module.MERCHANTS)):
            code = 2 * p + kind
            tracks = sum(
                module.ABILITY_MAX[a] - state.level[p * module.NA + a]
                for a in range(module.NA)
                if module.ABILITY_KIND[a] == kind
            )
            marker = 1 if module.SCORE_MARKER == kind else 0
            zones = (
                state.supply[code]
                + state.stock[code]
                + on_routes[code]
                + posts[code]
                + held[code]
                + tracks
                + marker
            )
            assert zones == owned, (p, kind, zones)
            assert min(state.supply[code], state.stock[code]) >= 0


def _module_of(state):
    import sys
    import types

    module = sys.modules.get(type(state).__module__)
    if module is None:  # compiled in memory (hansa.compile_game): its globals
        return types.SimpleNamespace(**type(state)._legal.__globals__)
    return module
