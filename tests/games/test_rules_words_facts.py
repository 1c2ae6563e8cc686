"""What the action did (issue 21, construct 1) and effects on other players (construct 2): the
facts of Create Route, Income, Displace and a bonus marker's use read in `after` hooks and `forbid`
conditions, and effects on each other player, one named player or every player tied for the most
or fewest of a number — checked with located errors, compiled to plain Python, played."""

from __future__ import annotations

import pytest
from scenario_support import Position, act, legal, load, track
from variant_support import play_checked, problems, variant

# --- Create Route: the post established, the city completed ---------------------------------------

POST_FACTS = (
    "after create_route: gain 2 PP if cities completed now > 0,"
    " gain 10 PP if established piece is a merchant,"
    " gain 100 PP per city where post established here and coins > 0,"
    " gain 1000 PP if additional posts established now > 0,"
    " gain 10000 PP if posts established now = 0"
)


def test_completing_a_city_scores_2_pp_with_the_shipped_house_rule():
    """spec/house/city_bonus.hansa: Duisburg has one (square) space, so a trader there completes
    it; a post elsewhere that completes nothing scores no bonus."""
    game = load("city-bonus-hanseatic-45p", 4)
    state = Position(game).route("Dortmund", "Duisburg", "t0", "t0").state()
    before = track(state)[0]
    act(
        state,
        "create route Dortmund–Duisburg",
        "establish a trading post in Duisburg with a trader",
    )
    assert track(state)[0] == before + 2
    other = Position(game).route("Arnheim", "Duisburg", "t0", "t0", "t0").state()
    act(other, "create route Arnheim–Duisburg", "establish a trading post in Arnheim with a trader")
    assert track(other)[0] == before  # Arnheim has four spaces: nothing completed


def test_the_post_facts_name_the_city_the_piece_and_the_additional_post():
    game = variant(POST_FACTS)
    position = (
        Position(game)
        .route("Dortmund", "Duisburg", "t0", "m0")
        .city("Dortmund", "t1")
        .player(0, unused=["additional_trading_post"])
    )
    coins = {c: game.module.CITY_COINS[i] for i, c in enumerate(game.module.CITY_NAMES)}
    state = position.state()
    before = track(state)[0]
    act(
        state,
        "create route Dortmund–Duisburg",
        "establish a trading post in Duisburg with a trader",
    )
    assert track(state)[0] == before + 2 + (100 if coins["Duisburg"] else 0)
    extra = position.state()
    act(
        extra,
        "create route Dortmund–Duisburg",
        "establish an additional trading post in Dortmund with a merchant",
    )
    assert track(extra)[0] == before + 10 + 1000 + (100 if coins["Dortmund"] else 0)
    none = position.state()
    act(
        none,
        "create route Dortmund–Duisburg",
        "neither post nor ability: all route pieces to the stock",
    )
    assert track(none)[0] == before + 10000


# --- Income: the pieces it takes ------------------------------------------------------------------


def test_income_must_take_the_full_bank_value_or_the_whole_stock():
    """spec/house/full_income.hansa: with Bank 3 only the 3-piece splits stay; with 2 pieces in
    the stock only the split taking both; with 1, that one."""
    game = load("full-income-hanseatic-45p", 4)
    incomes = [t for t in legal(Position(game).player(0, supply=(1, 0)).state()) if "income" in t]
    assert incomes == ["income: 2 traders, 1 merchants", "income: 3 traders, 0 merchants"]
    short = Position(game).player(0, supply=(10, 0)).state()  # stock: 1 trader, 1 merchant
    assert [t for t in legal(short) if "income" in t] == ["income: 1 traders, 1 merchants"]
    last = Position(game).player(0, supply=(11, 0)).state()  # stock: 1 merchant
    assert [t for t in legal(last) if "income" in t] == ["income: 0 traders, 1 merchants"]


def test_after_income_reads_the_pieces_taken():
    game = variant("after income: gain 1 PP * traders taken now + 10 PP * merchants taken now")
    state = Position(game).player(0, supply=(1, 0)).state()
    before = track(state)[0]
    act(state, "income: 2 traders, 1 merchants")
    assert track(state)[0] == before + 12


# --- Displace: the displaced piece and its owner --------------------------------------------------


def test_merchants_cannot_be_displaced_with_the_shipped_house_rule():
    game = load("protected-merchants-hanseatic-45p", 4)
    state = (
        Position(game).route("Dortmund", "Duisburg", "t1", "m1").player(0, supply=(3, 1)).state()
    )
    displaces = [t for t in legal(state) if t.startswith("displace")]
    assert displaces == [  # point #1 holds the trader; the merchant on #2 is not offered
        "displace trader on Dortmund–Duisburg #1",
        "displace merchant on Dortmund–Duisburg #1",
    ]
    plain = load("bigbox-hanseatic-45p", 4)
    state = (
        Position(plain).route("Dortmund", "Duisburg", "t1", "m1").player(0, supply=(3, 1)).state()
    )
    assert any("#2" in t for t in legal(state) if t.startswith("displace"))


def test_after_displace_acts_on_the_displaced_player_and_the_others():
    game = variant(
        "after displace: the displaced player gains 1 PP, each other player gains 10 PP,"
        " gain 100 PP if displaced piece is a merchant"
    )
    state = (
        Position(game).route("Dortmund", "Duisburg", "t1", "m1").player(0, supply=(3, 1)).state()
    )
    before = track(state)
    act(state, "displace trader on Dortmund–Duisburg #2")  # the merchant of player 1
    after = track(state)
    assert after[0] == before[0] + 100
    assert after[1] == before[1] + 1 + 10
    assert after[2:] == [b + 10 for b in before[2:]]


# --- a bonus marker's use ------------------------------------------------------------------------


def test_a_marker_use_is_read_after_it_and_forbidden_by_name():
    game = variant(
        "after use marker: gain 5 PP if marker used is plus_3_actions\n"
        "forbid use marker when marker used is develop_ability"
    )
    state = Position(game).player(0, unused=["plus_3_actions", "develop_ability"]).state()
    assert [t for t in legal(state) if t.startswith("use")] == ["use bonus marker plus_3_actions"]
    before = track(state)[0]
    act(state, "use bonus marker plus_3_actions")
    assert track(state)[0] == before + 5


# --- effects on every player tied for the most or fewest -----------------------------------------


def test_every_player_tied_for_the_fewest_gains_even_after_the_first_gains():
    game = variant("at turn start: the player with the fewest track PP gains 1 PP")
    state = (
        Position(game).player(0, track=5).player(1, track=2).player(2, track=2).player(3, track=4)
    )
    state = state.state()
    act(state, "end the turn")  # player 1's turn starts: players 1 and 2 tie for the fewest
    assert track(state) == [5, 3, 3, 4]
    act(state, "end the turn")  # now 1, 2 tie at 3 again; player 3 has 4
    assert track(state) == [5, 4, 4, 4]


def test_the_player_with_the_most_reads_the_number_of_each_player():
    game = variant("at turn end: every player with the most posts loses 1 PP if track PP > 0")
    state = Position(game).city("Dortmund", "t1").city("Bremen", "t2").player(1, track=3).state()
    act(state, "end the turn")
    assert track(state)[1:3] == [2, 0]  # both hold one post; player 2 has no PP to lose


# --- checks: one mistake, one error, at the author's line ----------------------------------------


@pytest.mark.parametrize(
    ("body", "where", "message"),
    [
        (
            "at turn start: gain 1 PP if pieces taken now > 0",
            "2:33",
            "'pieces taken now' is known only in `after income:` and `forbid income when …`",
        ),
        (
            "forbid place when displaced piece is a merchant",
            "2:23",
            "'displaced piece' is known only in `after displace:`",
        ),
        ("after movee: gain 1 PP", "2:11", "unknown action 'movee' after `after`"),
        ("after move: gain 1 PP", "2:11", "Move has no `after move:` hook"),
        ("after income: each city gains 1 PP", "2:24", "only players gain"),
        ("after income: each other player develops an ability", "2:37", "name the ability"),
        ("after income: each other player gains 1 action", "2:37", "only the player whose turn"),
        (
            "forbid use marker when marker used is plus_5_actions",
            "2:43",
            "unknown quantity 'plus_5_actions' (did you mean 'plus_4_actions'?)",
        ),
        ("forbid displace when displaced piece > 0", "2:26", "cannot compare a piece kind"),
        ("after displace: the rank gains 1 PP", "2:21", "'rank' is a number, not a player"),
        (
            "at turn start: the city with the most coins gains 1 PP",
            "2:20",
            "write `the player with the most …`",
        ),
        ("after displace: the victimm gains 1 PP", "2:21", "did you mean 'victim'"),
    ],
)
def test_each_mistake_is_one_located_error(body, where, message, tmp_path):
    found = problems(body, tmp_path)
    assert len(found) == 1, found
    assert found[0].startswith(where + ":"), found
    assert message in found[0], found


# --- random play: the games still end and keep their invariants ----------------------------------

ALL_FACTS = "\n".join(
    (
        POST_FACTS,
        "after income: each other player gains 1 PP if pieces taken now >= 3",
        "after place: the player with the fewest pieces in supply takes 1 trader from the stock",
        "after displace: the displaced player gains 1 PP, develop an ability",
        "after use marker: each player where track PP < your track PP receives marker"
        " plus_3_actions",
        "forbid income when pieces taken now < value of bank and"
        " pieces taken now < pieces in stock",
        "forbid displace when displaced piece is a merchant",
        "forbid use marker when marker used is plus_4_actions and turn number < 10",
        "at turn end: the last seat develops book, every player with the most track PP loses 1 PP",
    )
)


def test_random_play_of_every_fact_and_target_keeps_the_invariants():
    game = variant(ALL_FACTS)
    for seed in range(6):
        play_checked(game, seed, 1500)


def test_a_forbidden_action_leaves_the_state_unchanged():
    """The Displace of a merchant and the short Income splits are legal in the Big Box and
    forbidden here: applying one is refused and changes nothing."""
    from hansa.compiler.errors import HansaError

    def position(game):
        return Position(game).route("Dortmund", "Duisburg", "t1", "m1").player(0, supply=(3, 1))

    state = position(variant(ALL_FACTS)).state()
    plain = position(load("bigbox-hanseatic-45p", 4)).state()
    forbidden = sorted(set(plain.legal_actions()) - set(state.legal_actions()))
    assert len(forbidden) >= 3  # two merchant displacements, the short incomes
    text = state.to_json()
    for action in forbidden:
        with pytest.raises(HansaError):
            state.apply_action(action)
        assert state.to_json() == text


def test_greedy_games_of_the_shipped_house_rules_end():
    from hansa.play.simulate import make_agents, play_game

    for name in ("city-bonus-hanseatic-45p", "full-income-hanseatic-45p", "catch-up-hanseatic-45p"):
        game = load(name, 4)
        record, state = play_game(game, make_agents(["greedy"] * 4, 3), 3)
        assert state.is_terminal(), name
        assert record.end_trigger


# --- the native target: plays the facts it has, refuses the rest by name --------------------------


def _native_model(body: str, tmp_path):
    from variant_support import house_rule_text

    from hansa.native import model_of

    path = tmp_path / "house.hansa"
    path.write_text(house_rule_text(body, 4, "hanseatic_45p"), encoding="utf-8")
    return model_of("variant-game", "spec", extra=[str(path)])


def test_the_native_target_plays_the_forbid_facts_like_python(tmp_path):
    from hansa.play.differential import verify

    from hansa.native import native_game

    body = (
        "forbid displace when displaced piece is a merchant\n"
        "forbid income when pieces taken now < value of bank and pieces taken now < pieces in stock"
    )
    python = variant(body)
    native = native_game(_native_model(body, tmp_path), python.module)
    result = verify(python, native, 4, 0, {})
    assert result.divergence is None and result.games == 4


@pytest.mark.parametrize(
    "body",
    [
        "at setup: each other player gains 1 PP",
        "after displace: gain 1 PP",
        "forbid use marker when marker used is plus_4_actions",
        "control goes to every tied player",
    ],
)
def test_the_native_target_plays_what_it_once_refused_like_python(body, tmp_path):
    """Effects on other players, the after hooks, `forbid use marker` and shared control: each
    agrees with the Python backend decision for decision."""
    from hansa.play.differential import verify

    from hansa.native import native_game

    python = variant(body)
    native = native_game(_native_model(body, tmp_path), python.module)
    result = verify(python, native, 4, 0, {})
    assert result.divergence is None, result.divergence.report()
    assert result.games == 4


# --- ties shared: every tied player controls the city ---------------------------------------------


@pytest.mark.parametrize(
    "body", ["action create_route control_tie shared", "control goes to every tied player"]
)
def test_a_tie_for_control_is_shared_by_every_tied_player(body):
    """Hannover's 1-1 tie: both tied players score the control PP of step 1 and category E's
    2 PP (the Big Box gives both to player 0, whose post is rightmost)."""
    game = variant(body)
    pos = Position(game).route("Bremen", "Hannover", "t2", "t2", "t2")
    state = pos.city("Hannover", "t1", "t0").to_move(2).state()
    breakdown = state.score_breakdown()
    assert (breakdown[0]["E"], breakdown[1]["E"]) == (2, 2)
    hannover = game.module.CITY_NAMES.index("Hannover")
    assert state.city_controller(hannover) == -1  # no single controller
    act(state, "create route Bremen–Hannover")
    assert track(state) == [1, 1, 0, 0]
    for seed in range(3):
        play_checked(game, seed, 800)


def test_shared_control_reads_in_words_through_city_you_control():
    game = variant(
        "control goes to every tied player\n"
        'score H "Held": 1 PP per city you control\n'
        'score I "Sole": 1 PP per city where controller is you'
    )
    state = Position(game).city("Hannover", "t1", "t0").city("Bremen", "t0").state()
    breakdown = state.score_breakdown()
    assert (breakdown[0]["H"], breakdown[1]["H"]) == (2, 1)
    assert (breakdown[0]["I"], breakdown[1]["I"]) == (1, 0)  # `controller`: the only one


# --- the greedy agent weighs what the game says a hook does ---------------------------------------


@pytest.mark.parametrize(
    ("body", "chosen"),
    [
        ("after income: gain 3 PP if merchants taken now > 0", "income: 2 traders, 1 merchants"),
        ("after income: gain 0 PP", "income: 3 traders, 0 merchants"),  # the most pieces
    ],
)
def test_greedy_income_counts_what_an_after_income_rule_scores(body, chosen):
    """With a rule acting after Income (the module's RULE_SOURCES say so), the greedy agent
    tries each split on a copy and takes the one scoring most; otherwise the most pieces."""
    from hansa.play.greedy import GreedyAgent

    state = Position(variant(body)).player(0, book=2, supply=(0, 1)).state()
    assert state.action_to_string(GreedyAgent(0).step(state, state.legal_actions())) == chosen
