""" "Applied" means one thing on every backend (compiler/expr/codegen.py decides it for both
targets): a rule in words counts when one of its effects runs (its condition held, for at least
one of the players it names), a forbid when it refuses an otherwise legal action. The usage
tables of `hansa simulate` are therefore the same on the Python and the native backend."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hansa.play.simulate import make_agents, play_game
from play_support import needs_c_compiler, run_cli

import hansa

ROOT = Path(__file__).resolve().parents[2]
HOUSE_GAMES = sorted(
    match
    for path in (ROOT / "spec" / "house").glob("*.hansa")
    for match in re.findall(r"^game\s+([\w-]+)\s*=", path.read_text(encoding="utf-8"), re.M)
)

# Every hook kind with effects, each with a condition that never holds (on the rule's player and
# on other players: one, each of a set, the displaced player) and one that always holds, whose
# effect changes nothing (0 PP): the never rules must never count, the always rules must.
NEVER = "turn number < 0"
ALWAYS = "turn number >= 0"
RULES = [
    ("never", f"at setup: gain 1 PP if {NEVER}"),
    ("never", f"at setup: each other player gains 1 PP if {NEVER}"),
    ("always", f"at setup: gain 0 PP if {ALWAYS}"),
    ("never", f"at turn start: gain 1 PP if {NEVER}"),
    ("never", f"at turn start: each opponent gains 1 PP if {NEVER}"),
    ("always", f"at turn start: each opponent gains 0 PP if {ALWAYS}"),
    ("never", f"at turn end: gain 1 PP if {NEVER}"),
    ("never", f"at turn end: the first seat gains 1 PP if {NEVER}"),
    ("always", f"at turn end: the first seat gains 0 PP if {ALWAYS}"),
    ("never", f"at marker draw: gain 1 PP if {NEVER}"),
    ("always", f"at marker draw: gain 0 PP if {ALWAYS}"),
    ("never", f"after create_route: gain 1 PP if {NEVER}"),
    ("never", f"after create_route: each player gains 1 PP if {NEVER}"),
    ("always", f"after create_route: each player gains 0 PP if {ALWAYS}"),
    ("never", f"after income: gain 1 PP if {NEVER}"),
    ("always", f"after income: gain 0 PP if {ALWAYS}"),
    ("never", f"after place: each other player gains 1 PP if {NEVER}"),
    ("always", f"after place: each other player gains 0 PP if {ALWAYS}"),
    ("never", f"after displace: the displaced player gains 1 PP if {NEVER}"),
    ("never", f"after displace: gain 1 PP if {NEVER}"),
    ("always", f"after displace: the displaced player gains 0 PP if {ALWAYS}"),
    ("never", f"after use marker: gain 1 PP if {NEVER}"),
    ("always", f"after use marker: gain 0 PP if {ALWAYS}"),
    ("never", f'bonus "Never" count 6 when used: gain 1 PP if {NEVER}'),
    ("always", f'bonus "Always" count 4 when used: gain 1 PP if {ALWAYS}'),
    ("never", f"forbid income when {NEVER}"),
    ("never", f"forbid move when {NEVER} and {ALWAYS}"),
    ("always", f"forbid displace when {ALWAYS} and displaced piece is a merchant"),
]


def _rules_text() -> str:
    body = "\n".join("    " + text for _kind, text in RULES)
    return (
        f'rules every_hook "every hook, never and always" extends bigbox_2021 {{\n{body}\n}}\n'
        "game every-hook = every_hook on hanseatic_45p players 4\n"
    )


@pytest.fixture(scope="module")
def every_hook(tmp_path_factory):
    path = tmp_path_factory.mktemp("applied") / "every_hook.hansa"
    path.write_text(_rules_text(), encoding="utf-8")
    return path


class UsesMarkersAtOnce:
    """A greedy player that uses every bonus marker as soon as it may, even one worth nothing
    (a greedy player never uses those)."""

    def __init__(self, greedy, module) -> None:
        self.greedy = greedy
        self.markers = range(module.A_USE_MARKER, module.A_USE_MARKER + module.N_MARKER_TYPES)

    def step(self, state, legal):
        uses = [a for a in legal if a in self.markers]
        return uses[0] if uses else self.greedy.step(state, legal)


def _usage(game, games: int) -> dict[str, int]:
    total: dict[str, int] = {}
    for seed in range(games):
        greedy = make_agents(["greedy"] * 4, seed)
        agents = [UsesMarkersAtOnce(agent, game.module) for agent in greedy]
        record, _state = play_game(game, agents, seed)
        for key, n in record.usage.items():
            total[key] = total.get(key, 0) + n
    return total


def _check_never_and_always(usage: dict[str, int], path: Path) -> None:
    for line, (kind, text) in enumerate(RULES, start=2):
        count = usage.get(f"rule:{path}:{line}", 0)
        if kind == "never":
            assert count == 0, (text, count)
        else:
            assert count > 0, (text, count)


def test_a_condition_that_never_holds_is_never_counted_on_any_hook(every_hook):
    game = hansa.compile_game(str(every_hook), 4, spec_dir=str(ROOT / "spec"))
    usage = _usage(game, 8)
    assert usage["marker:Never"] > 0  # the marker was used; its rule never applied
    _check_never_and_always(usage, every_hook)


@needs_c_compiler
def test_the_native_backend_counts_the_same_rules(every_hook):
    python = hansa.compile_game(str(every_hook), 4, spec_dir=str(ROOT / "spec"))
    native = hansa.compile_game(str(every_hook), 4, spec_dir=str(ROOT / "spec"), backend="native")
    usage = _usage(native, 8)
    _check_never_and_always(usage, every_hook)
    assert usage == _usage(python, 8)


@needs_c_compiler
@pytest.mark.parametrize("name", HOUSE_GAMES)
def test_simulate_reports_the_same_usage_on_both_backends(name, capsys):
    tables = {}
    for backend in ("python", "native"):
        code, out, err = run_cli(
            capsys, "simulate", name, "-n", "8", "--agents", "greedy", "--json",
            "--backend", backend,
        )  # fmt: skip
        assert code == 0, err
        tables[backend] = json.loads(out)["usage"]
    assert tables["python"] == tables["native"]
    assert tables["python"]["action:CREATE"]["total"] > 0  # games were played
