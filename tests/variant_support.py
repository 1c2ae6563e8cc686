"""House rules compiled in memory for the tests of every layer: a rule body → its game (compiled
once per text per process), its generated source, the problems the checks find in it, and random
play that keeps the invariants."""

from __future__ import annotations

import json
import random
import tempfile
import types
from pathlib import Path

from hansa.compiler.errors import HansaError
from hansa.compiler.project import load_project
from hansa.compiler.rules.resolve import resolve
from hansa.compiler.targets.python.codegen import build_game_module
from hansa.runtime.game import Game

SPEC = Path(__file__).resolve().parent.parent / "spec"


_COMPILED: dict[tuple[str, int], Game] = {}


_SOURCES: dict[str, str] = {}


def house_rule_text(body: str, players: int = 4, board: str = "hanseatic_45p") -> str:
    return (
        'rules variant "a house rule" extends bigbox_2021 {\n'
        f"{body}\n"
        "}\n"
        f"game variant-game = variant on {board} players {players}\n"
    )


def variant(body: str, players: int = 4, board: str = "hanseatic_45p"):
    """The game of a house rule whose body is `body`, compiled in memory (cached per text)."""
    key = (house_rule_text(body, players, board), players)
    if key not in _COMPILED:
        source = source_of(body, players, board)
        module = types.ModuleType("hansa.generated.variant_game")
        exec(compile(source, "<variant>", "exec"), module.__dict__)
        _COMPILED[key] = Game(module, players)
    return _COMPILED[key]


def source_of(body: str, players: int = 3, board: str = "hanseatic_3p") -> str:
    """The generated module text of a house rule (cached per text)."""
    text = house_rule_text(body, players, board)
    if text not in _SOURCES:
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "variant.hansa"
            path.write_text(text, encoding="utf-8")
            board_file = SPEC / "boards" / f"{board}.hansa"
            project = load_project([path, SPEC / "bigbox_2021.hansa", board_file])
            project.raise_for_errors()
            decl = project.games["variant-game"]
            rules = resolve(decl.rules, project.rulesets)
            _SOURCES[text] = build_game_module(
                decl, rules, project.boards[decl.board], project.sources, SPEC.parent
            )
    return _SOURCES[text]


# ---------------------------------------------------------------- every combination plays
# (statement head, parameters): parts with one head are joined into one statement.
VARIANT_PARTS = (
    ("action move", "swaps no"),
    ("action create_route", "control_tie nobody"),
    ("markers", "usable_in_taking_action yes"),
    ("option displaced_extra_kind =", "traders_only"),
    ("option displaced_piece_without_point =", "general_stock"),
    ("option unplaceable_marker =", "back_to_supply"),
    ("option no_op_actions =", "legal"),
    ("option move_must_place_all =", "no"),
    ("action displace", "extras_declinable no fallback supply, board"),
    ("action create_route", "control_pp 0 coin_pp no east_west_awards 5"),
    ("action create_route", "establish_trading_post no"),
    ("action create_route", "develop_ability no special_prestige no"),
    ("action create_route", "space_shapes merchant_anywhere"),
    ("end when", "track_pp >= 12"),
    ("remove end", "completed_cities"),
    ("score E", "controlled_cities pp 3"),
    ("tiebreak", "most ability keys, shared"),
)


def variant_body(parts) -> str:
    """One statement per head, in a fixed order, so equal choices give equal text."""
    joined: dict[str, list[str]] = {}
    for head, params in sorted(parts):
        joined.setdefault(head, []).append(params)
    return "\n".join(f"{head} {' '.join(params)}" for head, params in joined.items())


def play_checked(game, seed: int, decisions: int) -> None:
    """Random play keeping the invariants: pieces conserved, a legal action unless terminal,
    exact JSON round trip."""
    module = game.module
    owned = (module.TRADERS, module.MERCHANTS)
    rng = random.Random(seed)
    state = game.new_initial_state(seed)
    for step in range(decisions):
        if state.is_terminal():
            break
        actions = state.legal_actions()
        assert actions, "a non-terminal state has a legal action"
        state.apply_action(rng.choice(actions))
        if step % 7 == 0:
            text = state.to_json()
            assert game.state_from_json(text).to_json() == text
            data = json.loads(text)
            for p in range(game.num_players()):
                for kind, name in enumerate(("traders", "merchants")):
                    assert count_pieces(module, data, p, kind) == owned[kind], (p, name)


def count_pieces(module, data: dict, p: int, kind: int) -> int:
    ps = data["player_state"][p]
    name = ("traders", "merchants")[kind]
    total = ps["supply"][name] + ps["stock"][name]
    letter = "tm"[kind] + str(p)
    for route in data["routes"]:
        total += route["points"].count(letter)
    for city in data["cities"]:
        total += city["posts"].count(letter) + city["additional_posts"].count(letter)
    total += data["special_prestige"].count(letter)
    for frame in data["stack"]:
        holding = frame.get("holding")
        if isinstance(holding, list):
            total += holding.count(letter)
        elif frame.get("frame") == "displaced" and frame.get("player") == p:
            total += holding == name[:-1]
    for a, ability in enumerate(module.ABILITY_NAMES):
        if module.ABILITY_KIND[a] == kind:
            total += module.ABILITY_MAX[a] - ps["abilities"][ability]
    total += module.SCORE_MARKER == kind
    return total


FILE = "house.hansa"


def problems(body: str, tmp_path) -> list[str]:
    """`file:line:col: message` of every error in a house rule whose body is `body` (line 2 on)."""
    path = tmp_path / FILE
    path.write_text(house_rule_text("    " + body), encoding="utf-8")
    try:
        board = SPEC / "boards" / "hanseatic_45p.hansa"
        project = load_project([path, SPEC / "bigbox_2021.hansa", board])
        project.raise_for_errors()
        resolve("variant", project.rulesets)
    except HansaError as exc:
        return [f"{d.span.line}:{d.span.column}: {d.message}" for d in exc.diagnostics if d.span]
    return []


def decision_positions(game, frame: str, seeds=range(6), limit: int = 3) -> list:
    """States of random games whose top decision is the frame named `frame` (FRAME_NAMES), up
    to `limit` per game; at least one, or the test fails here."""
    kind = game.module.FRAME_NAMES.index(frame)
    found = []
    for seed in seeds:
        state = game.new_initial_state(seed)
        rng = random.Random(seed)
        here = 0
        while not state.is_terminal() and here < limit:
            if state.stack and state.stack[-1][0] == kind:
                found.append(state.clone())
                here += 1
            state.apply_action(rng.choice(state.legal_actions()))
    assert found, f"random play reaches a {frame} decision"
    return found
