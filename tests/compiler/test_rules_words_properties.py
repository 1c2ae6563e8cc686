"""Whatever `hansa check` accepts, `hansa build` compiles and the game plays: random rule sets made
of catalogue variants and rules in words (hooks, effects, quantities, conditions), checked, then
built and played by random agents keeping the invariants (pieces conserved, a legal action unless
the game is over, exact JSON round trip). Rule sets the checks refuse must be refused with located
errors only, never a crash."""

from __future__ import annotations

import random

from hansa.compiler.errors import HansaError
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from variant_support import VARIANT_PARTS, play_checked, source_of, variant, variant_body

NUMBERS = (
    "track PP",
    "posts",
    "controlled cities",
    "pieces in stock",
    "pieces in supply",
    "pieces on routes",
    "level of book",
    "value of bank",
    "value of privilege",
    "fully developed abilities",
    "collected bonuses",
    "used bonuses",
    "largest network",
    "second largest network",
    "rank",
    "seat",
    "completed cities",
    "turn number",
    "players",
    "score of A",
    "track PP of the last seat",
    "special prestige",  # the prelude's vocabulary
    "full PP of keys",
    "city PP",
    "count abilities where fully developed",
    "sum level over abilities where value > 2",
    "posts in wales",  # no countries on this board: refused with a location
)
CITY_CONDITIONS = (
    "coins > 0",
    "your posts here > 0",
    "controller is you",
    "controller is not nobody",
    "green",
    "free spaces = 0",
    "completed",
    "abilities offered > 0",
    "all posts here >= 2",
    "orange spaces > 0",
)
ROUTE_CONDITIONS = ("tavern", "pieces here > 0", "free points > 1", "ship points = 0")
HOOKS_WITH_EFFECTS = (
    "at setup:",
    "at turn start:",
    "after create_route:",
    "after income:",
    "after place:",
    "after displace:",
    "after use marker:",
)
# Who an effect on other players acts on (issue 21), and what an action did (read where known).
TARGETS = (
    "each other player",
    "each player where track PP < your track PP",
    "the last seat",
    "the displaced player",
    "the player with the fewest track PP",
    "every player with the most posts",
)
FACTS = (
    "cities completed now > 0",
    "established piece is a merchant",
    "pieces taken now >= 3",
    "displaced piece is a trader",
    "marker used is plus_3_actions",
    "count cities where post established here and coins > 0",
)
ACTIONS = ("income", "place", "displace", "move", "create_route")


@st.composite
def numbers(draw, depth: int = 0) -> str:
    choice = draw(st.integers(0, 9 if depth < 2 else 2))
    if choice == 0:
        return str(draw(st.integers(0, 5)))
    if choice in (1, 2):
        return draw(st.sampled_from(NUMBERS))
    if choice == 3:
        return f"count cities where {draw(st.sampled_from(CITY_CONDITIONS))}"
    if choice == 4:
        return f"count routes where {draw(st.sampled_from(ROUTE_CONDITIONS))}"
    if choice == 5:
        fn = draw(st.sampled_from(("sum", "max", "min")))
        over = draw(st.sampled_from(("players", "opponents")))
        return f"{fn} {draw(st.sampled_from(NUMBERS[:8]))} over {over}"
    if choice == 6:
        return f"sum coins over cities where {draw(st.sampled_from(CITY_CONDITIONS))}"
    op = draw(st.sampled_from(("+", "-", "*")))
    if choice == 9:
        return f"({draw(numbers(depth + 1))}) / {draw(st.integers(1, 4))}"
    return f"({draw(numbers(depth + 1))} {op} {draw(numbers(depth + 1))})"


@st.composite
def conditions(draw, depth: int = 0) -> str:
    choice = draw(st.integers(0, 6 if depth < 2 else 1))
    if choice <= 1:
        op = draw(st.sampled_from((">=", "<=", ">", "<", "=", "!=")))
        return f"{draw(numbers(depth + 1))} {op} {draw(numbers(depth + 1))}"
    if choice == 2:
        return f"not {draw(conditions(depth + 1))}"
    if choice == 3:
        word = draw(st.sampled_from(("and", "or")))
        return f"({draw(conditions(depth + 1))} {word} {draw(conditions(depth + 1))})"
    if choice == 4:
        return f"you are the {draw(st.sampled_from(('last seat', 'first seat')))}"
    if choice == 5:
        return f"some player has {draw(conditions(depth + 1))}"
    return f"every opponent has {draw(conditions(depth + 1))}"


@st.composite
def effects(draw) -> str:
    choice = draw(st.integers(0, 7))
    if choice == 0:
        text = f"gain {draw(st.integers(0, 3))} PP"
    elif choice == 1:
        text = f"gain 1 PP per city where {draw(st.sampled_from(CITY_CONDITIONS))}"
    elif choice == 2:
        text = f"lose {draw(st.integers(0, 3))} PP"
    elif choice == 3:
        text = f"gain {draw(st.integers(1, 2))} actions"
    elif choice == 4:
        text = f"develop {draw(st.sampled_from(('book', 'keys', 'an ability', 'bank')))}"
    elif choice == 5:
        kind = draw(st.sampled_from(("traders", "merchants")))
        text = f"take {draw(st.integers(0, 3))} {kind} from the stock"
    elif choice == 6:
        text = "receive marker plus_3_actions"
    else:
        text = f"gain 1 PP * ({draw(numbers(1))})"
    if draw(st.integers(0, 3)) == 0:  # on other players: the verb in the third person
        verb, _, rest = text.partition(" ")
        text = f"{draw(st.sampled_from(TARGETS))} {verb}s {rest}"
    if draw(st.booleans()):
        text += f" if {draw(conditions(1))}"
    elif draw(st.integers(0, 3)) == 0:
        text += f" if {draw(st.sampled_from(FACTS))}"
    return text


@st.composite
def word_rules(draw) -> str:
    choice = draw(st.integers(0, 7))
    if choice <= 1:
        hook = draw(st.sampled_from(HOOKS_WITH_EFFECTS))
        return f"{hook} " + ", ".join(draw(st.lists(effects(), min_size=1, max_size=3)))
    if choice == 2:
        label = draw(st.sampled_from(("Charter", "Seal", "Writ")))
        count = draw(st.integers(1, 3))
        body = ", ".join(draw(st.lists(effects(), min_size=1, max_size=2)))
        return f'bonus "{label}" count {count} when used: {body}'
    if choice == 3:
        # a new category, or one in the place of the edition's E (of another kind: `replace`)
        key = draw(st.sampled_from(("H", "I", "E")))
        head = "replace score" if key == "E" else "score"
        return f"{head} {key}: {draw(st.integers(1, 3))} PP * ({draw(numbers(1))})"
    if choice == 4:
        return f"end when some player has {draw(conditions(1))}"
    if choice == 5:
        action = draw(st.sampled_from((*ACTIONS, "use marker")))
        if draw(st.booleans()):
            return f"forbid {action} when {draw(st.sampled_from(FACTS))}"
        return f"forbid {action} when {draw(conditions(1))}"
    if choice == 6:
        order = draw(st.sampled_from(("most", "fewest")))
        return f"tiebreak {order} {draw(numbers(1))}, shared"
    return f"control goes to most {draw(numbers(1))}"


def build_or_refuse(body: str):
    """The game of a house rule the checks accept, or None when they refuse it with located
    errors (a refusal without a location, or any other exception, fails the test)."""
    try:
        source = source_of(body, players=4, board="hanseatic_45p")
    except HansaError as exc:
        assert all(d.span is not None and d.span.line > 0 for d in exc.diagnostics), exc
        return None
    compile(source, "<variant>", "exec")
    return variant(body)


@settings(
    max_examples=20,
    deadline=None,
    phases=(Phase.explicit, Phase.reuse, Phase.generate),  # shrinking a compile-and-play is slow
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(
    rules=st.lists(word_rules(), min_size=1, max_size=4, unique=True),
    parts=st.lists(st.sampled_from(VARIANT_PARTS), unique=True, max_size=3),
    seed=st.integers(0, 10_000),
)
def test_check_clean_rule_sets_build_and_play(rules, parts, seed):
    body = "\n".join([variant_body(parts), *rules]) if parts else "\n".join(rules)
    game = build_or_refuse(body)
    if game is None:
        return
    for game_seed in range(seed, seed + 10):
        play_checked(game, game_seed, 250)


ALL_HOOKS = "\n".join(
    (
        'bonus "Guild charter" count 2 when used: gain 1 PP per city you control',
        'score H "Harbour master": 2 PP per city where coins > 0 and your posts here > 0',
        "end when some player has at least 3 fully developed abilities",
        "at setup: develop book if you are the last seat, develop an ability",
        "forbid displace when track PP of the victim < your track PP",
        "tiebreak fewest ability actions, most score network, fewest pieces in stock, shared",
        "at turn start: gain 1 PP if rank = players, gain 1 action if seat = 1",
        "after create_route: take 1 trader from the stock, develop an ability if rank = 1,"
        " receive marker plus_3_actions if completed cities >= 2",
        "control goes to most posts here",
    )
)


def test_fifty_games_with_every_hook():
    """One rule set using every hook and effect: 50 random games, each to its end, keep the
    invariants; then their results are well formed."""
    game = variant(ALL_HOOKS)
    rng = random.Random(0)
    for seed in range(50):
        play_checked(game, seed, 150)
        state = game.new_initial_state(seed)
        steps = 0
        while not state.is_terminal() and steps < 30_000:
            state.apply_action(rng.choice(state.legal_actions()))
            steps += 1
        assert state.is_terminal(), seed
        winners = state.winners()
        assert winners and all(0 <= p < 4 for p in winners)
        assert all(set(b) == set("ABCDEFH") for b in state.score_breakdown())
