"""The vocabulary of rules in words: every quantity, hook and effect, with its type and an example.

One table that lowering, checks, code generation and docs/rules-language.md read. A quantity is a
phrase (`track PP`, `posts here`); `needs` says which focus it reads (a player is always there: the
rule's player or the one being counted over; a city or a route only inside `… where`/`per city`),
`arg` whether it takes an ability or a scoring category after `of` (or a country after its name:
`posts in wales`), and `code` is the Python
expression it compiles to, `c` the C expression (the native target), side by side: fixed text
whose only holes are variable names and table indices that the code generator fills in ({P}
player, {C} city, {R} route, {V} victim, {A} ability index, {K} category index, {N} country
index) — a name the author writes never becomes code. The effects' statements in both targets
are `EFFECT_CODE`, the facts a `forbid` rule reads `FORBID_FACT_CODE`.
"""

from __future__ import annotations

from dataclasses import dataclass

NUMBER, BOOL, PLAYER = "number", "bool", "player"
# The largest value of a counter a rule set declares (`counter harbours`): a slot of the
# per-player parameters, whose bound it is (compiler/model/sizes.py MAX_PARAM).
MAX_COUNTER = 1_000
# A kind of piece (trader 0, merchant 1; -1: no piece) and a bonus marker type (its index): values
# that only `is` / `is not` compare (`displaced piece is a merchant`, `marker used is
# plus_3_actions`).
KIND, MARKER = "piece kind", "bonus marker"


@dataclass(frozen=True)
class Quantity:
    name: str
    type: str  # number | bool | player
    code: str
    doc: str
    example: str
    # "" | city | route | victim | ability | created | a fact of the action (income, displaced,
    # post, marker); several, separated by spaces ("city post": a city, in a hook with the post)
    needs: str = ""
    arg: str = ""  # "" | ability | category (an ability: also the focus of `… over abilities`)
    per_player: bool = True  # takes `of PLAYER` / `your` / `their`
    # The code of every player's value at once (a list), for max/min/sum over all players.
    whole: str = ""
    # The code in a game whose rules set per-player parameters (expr_catalogue.SETTABLE).
    code_params: str = ""
    # The code in a game whose city-control ties are shared (`control_tie shared`).
    code_shared: str = ""
    # The same three forms in C (the native target): int64_t expressions with the same holes.
    # A quantity without a C form is refused, at its rule, by `hansa build --native`.
    c: str = ""
    c_params: str = ""
    c_shared: str = ""


def _q(
    name,
    type_,
    code,
    doc,
    example,
    needs="",
    arg="",
    per_player=True,
    whole="",
    code_params="",
    code_shared="",
    c="",
    c_params="",
    c_shared="",
) -> Quantity:
    example = name if example == "x" else example
    return Quantity(
        name,
        type_,
        code,
        doc,
        example,
        needs,
        arg,
        per_player,
        whole,
        code_params,
        code_shared,
        c,
        c_params,
        c_shared,
    )


QUANTITIES: dict[str, Quantity] = {
    q.name: q
    for q in (
        # ---- a player's position
        _q(
            "track pp",
            NUMBER,
            "s.track[{P}]",
            "PP on the track.",
            "track PP of the victim",
            whole="s.track",
            c="s->track[{P}]",
        ),
        _q(
            "score",
            NUMBER,
            "SCORERS[{K}](s, {P})",
            "PP a scoring category gives now (by key or kind).",
            "score of network",
            arg="category",
            c="score_of(s, {K}, {P})",
        ),
        _q(
            "posts",
            NUMBER,
            "_x_posts(s, {P})",
            "Trading posts on the board.",
            "posts >= 10",
            c="x_posts(s, {P})",
        ),
        _q(
            "posts here",
            NUMBER,
            "_x_posts_in(s, {P}, {C})",
            "Trading posts in the city counted over.",
            "your posts here > 0",
            needs="city",
            c="x_posts_in(s, {P}, {C})",
        ),
        _q(
            "posts in",
            NUMBER,
            "sum(_x_posts_in(s, {P}, c) for c in X_COUNTRY_CITIES[{N}])",
            "Trading posts in the cities of a country of the board (`posts in COUNTRY`).",
            "your posts in wales >= 3",
            arg="country",
            c="x_posts_in_country(s, {P}, {N})",
        ),
        # per kind of piece: the post's or the point's piece is a trader (kind 0) or a merchant (1)
        _q(
            "trader posts",
            NUMBER,
            "sum(_x_kind_posts_in(s, {P}, c, 0) for c in range(N_CITIES))",
            "Trading posts held with a trader (additional posts included).",
            "trader posts >= 6",
            c="x_kind_posts(s, {P}, 0)",
        ),
        _q(
            "merchant posts",
            NUMBER,
            "sum(_x_kind_posts_in(s, {P}, c, 1) for c in range(N_CITIES))",
            "Trading posts held with a merchant (additional posts included).",
            "merchant posts of the victim",
            c="x_kind_posts(s, {P}, 1)",
        ),
        _q(
            "trader posts here",
            NUMBER,
            "_x_kind_posts_in(s, {P}, {C}, 0)",
            "The player's trader posts in the city counted over.",
            "count cities where your trader posts here > 1",
            needs="city",
            c="x_kind_posts_in(s, {P}, {C}, 0)",
        ),
        _q(
            "merchant posts here",
            NUMBER,
            "_x_kind_posts_in(s, {P}, {C}, 1)",
            "The player's merchant posts in the city counted over.",
            "1 PP per city where your merchant posts here > 0",
            needs="city",
            c="x_kind_posts_in(s, {P}, {C}, 1)",
        ),
        _q(
            "traders here",
            NUMBER,
            "_x_kind_on(s, {P}, {R}, 0)",
            "The player's traders on the route counted over.",
            "count routes where traders here > 1",
            needs="route",
            c="x_kind_on(s, {P}, {R}, 0)",
        ),
        _q(
            "merchants here",
            NUMBER,
            "_x_kind_on(s, {P}, {R}, 1)",
            "The player's merchants on the route counted over.",
            "count routes where merchants here > 0",
            needs="route",
            c="x_kind_on(s, {P}, {R}, 1)",
        ),
        # what the action did (after create_route: the route just created is the route focus)
        _q(
            "cities completed now",
            NUMBER,
            "{D}",
            "Cities the Create Route action just done completed (its step-3 post; 0 or 1).",
            "after create_route: gain 2 PP if cities completed now > 0",
            needs="created",
            per_player=False,
            c="{D}",
        ),
        # what the action did (docs/rules-language.md, "What the action did"): each fact is a
        # local of the hook or forbid function that reads it (codegen.py: ACTION_FACTS)
        _q(
            "posts established now",
            NUMBER,
            "(1 if post_city >= 0 else 0)",
            "Trading posts the Create Route action just done established (step 3a or the"
            " Additional Trading Post marker; 0 or 1).",
            "after create_route: gain 1 PP if posts established now > 0",
            needs="post",
            per_player=False,
            c="(post_city >= 0)",
        ),
        _q(
            "additional posts established now",
            NUMBER,
            "post_extra",
            "1 if that post was an additional one (the Additional Trading Post marker), else 0.",
            "after create_route: gain 1 PP if additional posts established now > 0",
            needs="post",
            per_player=False,
            c="post_extra",
        ),
        _q(
            "established piece",
            KIND,
            "post_kind",
            "The kind of piece the post just established holds (no post: neither kind).",
            "after create_route: gain 1 PP if established piece is a merchant",
            needs="post",
            per_player=False,
            c="post_kind",
        ),
        _q(
            "post established here",
            BOOL,
            "({C} == post_city)",
            "The city counted over is where the action just done established a post.",
            "gain 1 PP per city where post established here and coins > 0",
            needs="city post",
            per_player=False,
            c="(({C}) == post_city)",
        ),
        _q(
            "special prestige taken now",
            NUMBER,
            "special_taken",
            "1 if the action just done put a merchant on a special-prestige space (step 3c).",
            "after create_route: gain 1 PP if special prestige taken now > 0",
            needs="post",
            per_player=False,
            c="special_taken",
        ),
        _q(
            "traders taken now",
            NUMBER,
            "traders_taken",
            "Traders the Income action takes (in `forbid income`: would take).",
            "after income: gain 1 PP if traders taken now = 0",
            needs="income",
            per_player=False,
            c="traders_taken",
        ),
        _q(
            "merchants taken now",
            NUMBER,
            "merchants_taken",
            "Merchants the Income action takes (in `forbid income`: would take).",
            "forbid income when merchants taken now > 1",
            needs="income",
            per_player=False,
            c="merchants_taken",
        ),
        _q(
            "pieces taken now",
            NUMBER,
            "(traders_taken + merchants_taken)",
            "Pieces the Income action takes (in `forbid income`: would take).",
            "forbid income when pieces taken now < value of bank and pieces taken now <"
            " pieces in stock",
            needs="income",
            per_player=False,
            c="(traders_taken + merchants_taken)",
        ),
        _q(
            "displaced piece",
            KIND,
            "displaced_kind",
            "The kind of the piece being displaced (its owner: `the displaced player`).",
            "forbid displace when displaced piece is a merchant",
            needs="displaced",
            per_player=False,
            c="displaced_kind",
        ),
        _q(
            "marker used",
            MARKER,
            "marker_used",
            "The bonus marker being used (compared with a marker's name: its label or kind).",
            "forbid use marker when marker used is plus_4_actions",
            needs="marker",
            per_player=False,
            c="marker_used",
        ),
        _q(
            "trader",
            KIND,
            "0",
            "The trader, as a kind of piece.",
            "displaced piece is a trader",
            per_player=False,
            c="0",
        ),
        _q(
            "merchant",
            KIND,
            "1",
            "The merchant, as a kind of piece.",
            "established piece is a merchant",
            per_player=False,
            c="1",
        ),
        _q(
            "controlled cities",
            NUMBER,
            "_x_controlled(s, {P})",
            "Cities the player controls.",
            "controlled cities of the victim",
            c="x_controlled(s, {P})",
        ),
        _q(
            "pieces here",
            NUMBER,
            "_x_pieces_on(s, {P}, {R})",
            "Own pieces on the route counted over.",
            "count routes where pieces here > 0",
            needs="route",
            c="x_pieces_on(s, {P}, {R})",
        ),
        _q(
            "pieces on routes",
            NUMBER,
            "(s.onboard[2 * {P}] + s.onboard[2 * {P} + 1])",
            "Own pieces on routes.",
            "pieces on routes",
            c="(s->onboard[2 * ({P})] + s->onboard[2 * ({P}) + 1])",
        ),
        _q(
            "traders on routes",
            NUMBER,
            "s.onboard[2 * {P}]",
            "Own traders on routes.",
            "x",
            c="s->onboard[2 * ({P})]",
        ),
        _q(
            "merchants on routes",
            NUMBER,
            "s.onboard[2 * {P} + 1]",
            "Own merchants on routes.",
            "x",
            c="s->onboard[2 * ({P}) + 1]",
        ),
        _q(
            "pieces in supply",
            NUMBER,
            "(s.supply[2 * {P}] + s.supply[2 * {P} + 1])",
            "Pieces in the personal supply.",
            "pieces in supply",
            c="(s->supply[2 * ({P})] + s->supply[2 * ({P}) + 1])",
        ),
        _q(
            "traders in supply",
            NUMBER,
            "s.supply[2 * {P}]",
            "Traders in the supply.",
            "x",
            c="s->supply[2 * ({P})]",
        ),
        _q(
            "merchants in supply",
            NUMBER,
            "s.supply[2 * {P} + 1]",
            "Merchants in the supply.",
            "x",
            c="s->supply[2 * ({P}) + 1]",
        ),
        _q(
            "pieces in stock",
            NUMBER,
            "(s.stock[2 * {P}] + s.stock[2 * {P} + 1])",
            "Pieces left in the general stock.",
            "fewest pieces in stock",
            c="(s->stock[2 * ({P})] + s->stock[2 * ({P}) + 1])",
        ),
        _q(
            "traders in stock",
            NUMBER,
            "s.stock[2 * {P}]",
            "Traders in the general stock.",
            "x",
            c="s->stock[2 * ({P})]",
        ),
        _q(
            "merchants in stock",
            NUMBER,
            "s.stock[2 * {P} + 1]",
            "Merchants in the stock.",
            "x",
            c="s->stock[2 * ({P}) + 1]",
        ),
        _q(
            "level",
            NUMBER,
            "s.level[{P} * NA + {A}]",
            "How often an ability has been developed.",
            "level of book",
            arg="ability",
            c="s->level[({P}) * NA + ({A})]",
        ),
        _q(
            "value",
            NUMBER,
            "_ability_value(s, {P}, {A})",
            "An ability's current value (privilege: 0 white … 3 black; bank 'all': 999).",
            "value of keys",
            arg="ability",
            c="ability_value(s, {P}, {A})",
        ),
        _q(
            "fully developed abilities",
            NUMBER,
            "_x_full(s, {P})",
            "Abilities developed to their last space.",
            "at least 3 fully developed abilities",
            c="x_full(s, {P})",
        ),
        _q(
            "full pp",
            NUMBER,
            "ABILITY_FULL_PP[{A}]",
            "PP a fully developed ability scores (its `full_pp`, or the player's `full track PP`"
            " where a rule sets it; an ability whose `full_pp` is 0, as Keys, still scores"
            " nothing: Emperor's Favour, Big Box rule book p. 11).",
            "sum full PP over abilities where fully developed",
            arg="ability",
            code_params="(s.xparam[{P} * N_X_PARAMS + X_FULL_ABILITY_PP] if"
            " s.xparam[{P} * N_X_PARAMS + X_FULL_ABILITY_PP] >= 0 and ABILITY_FULL_PP[{A}]"
            " else ABILITY_FULL_PP[{A}])",
            c="ABILITY_FULL_PP[{A}]",
            c_params="(s->xparam[({P}) * N_X_PARAMS + X_FULL_ABILITY_PP] >= 0"
            " && ABILITY_FULL_PP[{A}] ? s->xparam[({P}) * N_X_PARAMS + X_FULL_ABILITY_PP]"
            " : ABILITY_FULL_PP[{A}])",
        ),
        _q(
            "fully developed",
            BOOL,
            "(s.level[{P} * NA + {A}] >= ABILITY_MAX[{A}])",
            "The ability counted over is developed to its last space.",
            "count abilities where fully developed",
            needs="ability",
            c="(s->level[({P}) * NA + ({A})] >= ABILITY_MAX[{A}])",
        ),
        _q(
            "city pp",
            NUMBER,
            "CITY_CONTROL_PP",
            "PP per controlled city at the end (the controlled_cities category's `pp`, or what a"
            " rule set for the player).",
            "your city PP per city you control",
            code_params="s.xparam[{P} * N_X_PARAMS + X_CITY_PP]",
            c="CITY_CONTROL_PP",
            c_params="s->xparam[({P}) * N_X_PARAMS + X_CITY_PP]",
        ),
        _q(
            "special prestige",
            NUMBER,
            "sum(SPECIAL_POINTS[j] for j, h in enumerate(s.special) if h >= 0 and h >> 1 == {P})",
            "Points of the special-prestige spaces the player holds.",
            "special prestige > 0",
            c="x_special(s, {P})",
        ),
        _q(
            "collected bonuses",
            NUMBER,
            "_x_markers(s, {P})",
            "Bonus markers collected (used or not).",
            "collected bonuses >= 4",
            c="x_markers(s, {P})",
        ),
        _q(
            "unused bonuses",
            NUMBER,
            "len(s.unused[{P}])",
            "Bonus markers held, not yet used.",
            "x",
            c="count_markers(s->unused[{P}])",
        ),
        _q(
            "used bonuses",
            NUMBER,
            "len(s.used[{P}])",
            "Bonus markers used.",
            "x",
            c="count_markers(s->used[{P}])",
        ),
        _q(
            "largest network",
            NUMBER,
            "_x_largest_network(s, {P})",
            "Posts in the player's largest connected group of cities.",
            "largest network",
            c="x_network(s, {P}, 0)",
        ),
        _q(
            "second largest network",
            NUMBER,
            "_x_network(s, {P}, 1)",
            "Posts in the second largest group (0 if none).",
            "x",
            c="x_network(s, {P}, 1)",
        ),
        _q(
            "third largest network",
            NUMBER,
            "_x_network(s, {P}, 2)",
            "Posts in the third largest group (0 if none).",
            "x",
            c="x_network(s, {P}, 2)",
        ),
        _q(
            "rank",
            NUMBER,
            "_x_rank(s, {P})",
            "1 + the number of players with more track PP.",
            "rank = players",
            c="x_rank(s, {P})",
        ),
        _q(
            "seat",
            NUMBER,
            "({P} + 1)",
            "The seat, 1 for the first player.",
            "seat = 1",
            c="(({P}) + 1)",
        ),
        # ---- the game
        _q(
            "completed cities",
            NUMBER,
            "s.completed",
            "Cities whose every space is taken.",
            "completed cities >= 5",
            per_player=False,
            c="s->completed",
        ),
        _q(
            "turn number",
            NUMBER,
            "s.turns",
            "Turns begun so far, this one included (1 on the first player's first turn).",
            "turn number <= 4",
            per_player=False,
            c="s->turns",
        ),
        _q(
            "players",
            NUMBER,
            "s.num_players",
            "Number of players.",
            "rank = players",
            per_player=False,
            c="s->num_players",
        ),
        # ---- players
        _q(
            "you",
            PLAYER,
            "{Y}",
            "The rule's player (even inside a count over players).",
            "you",
            per_player=False,
            c="{Y}",
        ),
        _q(
            "them",
            PLAYER,
            "{P}",
            "The player being counted over.",
            "them",
            per_player=False,
            c="{P}",
        ),
        _q(
            "last seat",
            PLAYER,
            "(s.num_players - 1)",
            "The player who moves last.",
            "you are the last seat",
            per_player=False,
            c="(s->num_players - 1)",
        ),
        _q(
            "first seat",
            PLAYER,
            "0",
            "The start player.",
            "you are the first seat",
            per_player=False,
            c="0",
        ),
        _q(
            "nobody",
            PLAYER,
            "-1",
            "No player.",
            "controller is nobody",
            per_player=False,
            c="-1",
        ),
        _q(
            "victim",
            PLAYER,
            "{V}",
            "The owner of the piece being displaced (forbid displace, after displace).",
            "track PP of the victim < your track PP",
            needs="victim",
            per_player=False,
            c="{V}",
        ),
        _q(
            "displaced player",
            PLAYER,
            "{V}",
            "The owner of the piece being displaced: the victim.",
            "after displace: the displaced player gains 1 PP",
            needs="victim",
            per_player=False,
            c="{V}",
        ),
        _q(
            "controller",
            PLAYER,
            "_controller(s, {C})",
            "The player controlling the city counted over (nobody: none; with ties shared, a"
            " tied city has no single controller: nobody).",
            "controller is you",
            needs="city",
            per_player=False,
            c="controller(s, {C})",
        ),
        _q(
            "controls here",
            BOOL,
            "(_controller(s, {C}) == {P})",
            "The player controls the city counted over (with ties shared: each tied player"
            " does); `city you control` is short for `city where your controls here`.",
            "count cities where controls here",
            needs="city",
            code_shared="_controls(s, {P}, {C})",
            c="(controller(s, {C}) == ({P}))",
            c_shared="controls(s, {P}, {C})",
        ),
        # ---- board facts of a city
        _q(
            "coins",
            NUMBER,
            "CITY_COINS[{C}]",
            "PP printed on the city's spaces.",
            "coins > 0",
            "city",
            per_player=False,
            c="CITY_COINS[{C}]",
        ),
        _q(
            "spaces",
            NUMBER,
            "CITY_SIZE[{C}]",
            "Trading-post spaces of the city.",
            "x",
            "city",
            per_player=False,
            c="CITY_SIZE[{C}]",
        ),
        _q(
            "free spaces",
            NUMBER,
            "(CITY_SIZE[{C}] - s.filled[{C}])",
            "Spaces still free.",
            "free spaces = 0",
            "city",
            per_player=False,
            c="(CITY_SIZE[{C}] - s->filled[{C}])",
        ),
        _q(
            "all posts here",
            NUMBER,
            "(s.filled[{C}] + len(s.extra[{C}]))",
            "Posts of every player in the city.",
            "x",
            "city",
            per_player=False,
            c="(s->filled[{C}] + s->nextra[{C}])",
        ),
        _q(
            "green",
            BOOL,
            "CITY_GREEN[{C}]",
            "A green (non-Hanseatic) city.",
            "not green",
            "city",
            per_player=False,
            c="CITY_GREEN[{C}]",
        ),
        _q(
            "completed",
            BOOL,
            "(s.filled[{C}] == CITY_SIZE[{C}])",
            "Every space is taken.",
            "completed",
            "city",
            per_player=False,
            c="(s->filled[{C}] == CITY_SIZE[{C}])",
        ),
        _q(
            "abilities offered",
            NUMBER,
            "len(CITY_ABILITIES[{C}])",
            "Abilities a route to the city develops.",
            "abilities offered > 0",
            "city",
            per_player=False,
            c="(CITY_ABILITIES_OFF[({C}) + 1] - CITY_ABILITIES_OFF[{C}])",
        ),
        _q(
            "white spaces",
            NUMBER,
            "CITY_COLOUR_SPACES[{C}][0]",
            "Spaces any player may take.",
            "x",
            "city",
            per_player=False,
            c="CITY_COLOUR_SPACES[4 * ({C}) + 0]",
        ),
        _q(
            "orange spaces",
            NUMBER,
            "CITY_COLOUR_SPACES[{C}][1]",
            "Spaces needing orange privilege.",
            "x",
            "city",
            per_player=False,
            c="CITY_COLOUR_SPACES[4 * ({C}) + 1]",
        ),
        _q(
            "pink spaces",
            NUMBER,
            "CITY_COLOUR_SPACES[{C}][2]",
            "Spaces needing pink privilege.",
            "x",
            "city",
            per_player=False,
            c="CITY_COLOUR_SPACES[4 * ({C}) + 2]",
        ),
        _q(
            "black spaces",
            NUMBER,
            "CITY_COLOUR_SPACES[{C}][3]",
            "Spaces needing black privilege.",
            "x",
            "city",
            per_player=False,
            c="CITY_COLOUR_SPACES[4 * ({C}) + 3]",
        ),
        # ---- places by name and networks (docs/rules-language.md, "Places and networks"): a
        # city or route is named after `of` (`controller of Lübeck`, `free points of
        # Hamburg-Lübeck`), a city after `to` (`distance to Lübeck`), two cities joined by a
        # hyphen (`your posts connect København-Stockholm`); {T} and {U} are named cities
        _q(
            "route holder",
            PLAYER,
            "_x_route_holder(s, {R})",
            "The player whose pieces fill every point of the route counted over or named (it"
            " may be created), else nobody.",
            "route holder of Hamburg-Lübeck is you",
            needs="route",
            per_player=False,
            c="x_route_holder(s, {R})",
        ),
        _q(
            "route complete",
            BOOL,
            "(_x_route_holder(s, {R}) >= 0)",
            "Every point of the route counted over or named holds a piece of one player.",
            "count routes where route complete",
            needs="route",
            per_player=False,
            c="(x_route_holder(s, {R}) >= 0)",
        ),
        _q(
            "created now",
            BOOL,
            "({R} == r)",
            "The route counted over or named is the one the action just done created (by `you`).",
            "after create_route: gain 2 PP if created now of Hamburg-Lübeck",
            needs="route created",
            per_player=False,
            c="(({R}) == r)",
        ),
        _q(
            "posts connect",
            BOOL,
            "_x_connects(s, {P}, {T}, {U})",
            "The player's posts link the two named cities through cities where the player has"
            " posts (as the East-West link does).",
            "your posts connect København-Stockholm",
            arg="pair",
            c="x_connects(s, {P}, {T}, {U})",
        ),
        _q(
            "distance to",
            NUMBER,
            "X_TABLE_DISTANCE[{C} * N_CITIES + {T}]",
            "Routes on the shortest way from the city counted over or named to the city named"
            " (0: the same city; the number of cities when no way leads there).",
            "distance to Stockholm of København",
            needs="city",
            arg="city",
            per_player=False,
            c="X_TABLE_DISTANCE[({C}) * N_CITIES + ({T})]",
        ),
        _q(
            "adjacent to",
            BOOL,
            "(X_TABLE_DISTANCE[{C} * N_CITIES + {T}] == 1)",
            "A route joins the city counted over or named to the city named.",
            "count cities where adjacent to Lübeck",
            needs="city",
            arg="city",
            per_player=False,
            c="(X_TABLE_DISTANCE[({C}) * N_CITIES + ({T})] == 1)",
        ),
        _q(
            "longest chain",
            NUMBER,
            "_x_longest_chain(s, {P})",
            "Cities in the player's largest group of controlled cities joined to each other by"
            " routes (branches included).",
            "longest chain >= 4",
            c="x_longest_chain(s, {P})",
        ),
        # ---- yes and no: the values a flag is set to (`your used_relief becomes yes`)
        _q(
            "yes",
            BOOL,
            "True",
            "True: a flag's value.",
            "your used_relief becomes yes",
            per_player=False,
            c="1",
        ),
        _q(
            "no",
            BOOL,
            "False",
            "False: a flag's value.",
            "your used_relief becomes no",
            per_player=False,
            c="0",
        ),
        # ---- board facts of a route
        _q(
            "points",
            NUMBER,
            "len(ROUTE_POINTS[{R}])",
            "Connection points on the route.",
            "x",
            "route",
            per_player=False,
            c="(ROUTE_POINTS_OFF[({R}) + 1] - ROUTE_POINTS_OFF[{R}])",
        ),
        _q(
            "ship points",
            NUMBER,
            "ROUTE_SHIPS[{R}]",
            "Merchant-only points on the route.",
            "ship points > 0",
            "route",
            per_player=False,
            c="ROUTE_SHIPS[{R}]",
        ),
        _q(
            "free points",
            NUMBER,
            "_x_free_points(s, {R})",
            "Empty points on the route.",
            "x",
            "route",
            per_player=False,
            c="x_free_points(s, {R})",
        ),
        _q(
            "tavern",
            BOOL,
            "ROUTE_TAVERN[{R}]",
            "A tavern route (start marker).",
            "tavern",
            "route",
            per_player=False,
            c="ROUTE_TAVERN[{R}]",
        ),
    )
}

# Domains for count/sum/max/min/some/every and `per`: singular and plural spellings.
DOMAINS = {
    "city": "city",
    "cities": "city",
    "route": "route",
    "routes": "route",
    "player": "player",
    "players": "player",
    "opponent": "opponent",
    "opponents": "opponent",
    "ability": "ability",
    "abilities": "ability",
}

# Effects, the hooks they may appear in, and an example each.
# `after ACTION:` for the actions other than create_route, and `after use marker:`.
AFTER_HOOKS = ("after_income", "after_place", "after_displace", "after_use_marker")
EFFECT_HOOKS = (
    "setup",
    "turn_start",
    "turn_end",
    "marker_used",
    "after_create_route",
    *AFTER_HOOKS,
    "favour",
)
# Hooks where an effect may ask the player a decision (at turn end the turn has passed).
DECISION_HOOKS = tuple(h for h in EFFECT_HOOKS if h != "turn_end")
# The marker draw (Create Route, step 2) takes effects that ask nothing and leave the supply as
# it is, besides `draw N keep 1` itself (compiler/expr/check.py).
MARKER_DRAW_HOOK = "marker_draw"
# The effects that change the drawing itself: one of them per rule set.
DRAW_EFFECTS = ("draw_keep", "display")
TURN_HOOKS = ("turn_start", "marker_used", "after_create_route", *AFTER_HOOKS)
# What each hook or forbidden action can read of the action (a quantity's `needs`): after
# create_route the route, its completed cities and its post; income its pieces; displace the
# displaced piece and its owner; a bonus marker's use the marker.
HOOK_FACTS = {
    "after_create_route": ("created", "route", "post"),
    "after_income": ("income",),
    "after_displace": ("displaced", "victim"),
    "after_use_marker": ("marker",),
    "forbid:income": ("income",),
    "forbid:displace": ("displaced", "victim"),
    "forbid:use_marker": ("marker",),
}
EFFECTS = {
    "gain_pp": (
        "gain 1 PP per city you control",
        (*EFFECT_HOOKS, MARKER_DRAW_HOOK),
        "PP on the track.",
    ),
    "lose_pp": (
        "lose 2 PP if rank = 1",
        (*EFFECT_HOOKS, MARKER_DRAW_HOOK),
        "PP off the track (never below 0).",
    ),
    "extra_actions": ("gain 2 actions", TURN_HOOKS, "Extra actions this turn."),
    "develop": (
        "develop book / develop an ability",
        EFFECT_HOOKS,
        "Develop a named ability, or one the player chooses (a decision), if it can be.",
    ),
    "take": (
        "take 2 traders from the stock",
        EFFECT_HOOKS,
        "Pieces from the general stock to the supply (as many as there are).",
    ),
    "receive": (
        "receive marker plus_3_actions",
        EFFECT_HOOKS,
        "A bonus marker of that type from the marker supply (if one is left); usable from the next"
        " action on.",
    ),
    "may_take": (
        "you may take 1 piece from the stock",
        DECISION_HOOKS,
        "A decision of the player: take that many pieces (piece: a trader or a merchant, each"
        " one chosen; trader(s)/merchant(s): that kind) from the general stock, one at a time,"
        " or stop; only kinds the stock holds are offered.",
    ),
    "draw_keep": (
        "draw 3 keep 1",
        (MARKER_DRAW_HOOK,),
        "A decision of the player: draw that many markers from the face-down supply instead of"
        " one (as many as there are), keep one to place at the end of the turn, and shuffle the"
        " others back into the supply; only the player sees the markers drawn.",
    ),
    "display": (
        "choose from 3 on display",
        (MARKER_DRAW_HOOK,),
        "The top markers of the supply lie face up, that many, from setup on (a display every"
        " player sees); the player drawing takes one of them instead of the top one (a decision"
        " when they differ), and the next face-down marker turns up in its place.",
    ),
    "set_param": (
        "your control PP becomes 2 if rank = players",
        EFFECT_HOOKS,
        "Set one of the player's rule parameters: control PP, full track PP, city PP, extra"
        " actions (every turn), trader compensation, displacement reach; or a counter (kept"
        " within 0..1,000) or flag (yes or no) the rule set declares (`counter NAME`, `flag"
        " NAME`).",
    ),
}

# Each effect's statements in each target, side by side: (Python lines, C lines), with the holes
# {who} (the player it acts on), {you} (the rule's player), {amount}, {value}, {a} (an ability's
# index), {kind} (0 trader, 1 merchant), {kinds}, {marker} (a marker type's index), {index} (a
# parameter's). `develop_chosen`: `develop an ability`, a decision of the player.
EFFECT_CODE: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    # the track and the actions left saturate at their bounds (compiler/model/sizes.py)
    "gain_pp": (
        ("s.track[{who}] = min(MAX_PP, s.track[{who}] + max(0, {amount}))",),
        ("s->track[{who}] = (int32_t)min64(MAX_PP, s->track[{who}] + max64(0, {amount}));",),
    ),
    "lose_pp": (
        ("s.track[{who}] = max(0, s.track[{who}] - {amount})",),
        ("s->track[{who}] = max64(0, s->track[{who}] - {amount});",),
    ),
    "extra_actions": (
        (
            "if {you} == s.player:",
            "    s.actions_left = min(MAX_ACTIONS_LEFT, s.actions_left + max(0, {amount}))",
        ),
        (
            "if ({you} == s->player)",
            "    s->actions_left = (int16_t)min64(MAX_ACTIONS_LEFT, s->actions_left"
            " + max64(0, {amount}));",
        ),
    ),
    "develop": (
        ("if _can_develop(s, {who}, {a}):", "    _develop(s, {who}, {a})"),
        ("if (can_develop(s, {who}, {a})) develop(s, {who}, {a});",),
    ),
    "develop_chosen": (
        ("if _develop_options(s, {you}, -1):", "    s.stack.append((F_DEVELOP, {you}, -1))"),
        ("if (develop_options(s, {you}, -1, NULL)) push_frame(s, F_DEVELOP, {you})->a = -1;",),
    ),
    "take": (("_x_take(s, {who}, {kind}, {value})",), ("x_take(s, {who}, {kind}, {value});",)),
    "set_param": (
        ("s.xparam[{you} * N_X_PARAMS + {index}] = max(0, {value})",),
        ("s->xparam[({you}) * N_X_PARAMS + {index}] = max64(0, {value});",),
    ),
    # a decision frame for the player (the take-from-stock frame of the favour templates)
    "may_take": (
        ("_x_may_take(s, {you}, {kinds}, {value})",),
        ("x_may_take(s, {you}, {kinds}, {value});",),
    ),
    # the draw itself (the draw_keep templates): N markers, a keep decision if they differ
    "draw_keep": (("_x_draw_keep(s, {you}, {value})",), ("x_draw_keep(s, {you}, {value});",)),
    # the display's take (the display templates): a decision if the face-up markers differ
    "display": (("_x_display(s, {you})",), ("x_display(s, {you});",)),
    "receive": (("_x_receive(s, {who}, {marker})",), ("x_receive(s, {who}, {marker});",)),
    # a counter or flag the rule set declares (`counter harbours`): a slot of the per-player
    # parameters, a counter kept within 0..{top}, a flag 0 or 1
    "set_counter": (
        ("s.xparam[{you} * N_X_PARAMS + {index}] = min({top}, max(0, {value}))",),
        ("s->xparam[({you}) * N_X_PARAMS + {index}] = min64({top}, max64(0, {value}));",),
    ),
    "set_flag": (
        ("s.xparam[{you} * N_X_PARAMS + {index}] = 1 if {value} else 0",),
        ("s->xparam[({you}) * N_X_PARAMS + {index}] = ({value}) ? 1 : 0;",),
    ),
}
# What a forbidden action would do, as the locals a `forbid` condition reads: per action, each
# fact's name, type and code in each target (Python, C).
FORBID_FACT_CODE: dict[str, dict[str, tuple[str, str, str]]] = {
    "income": {
        "traders_taken": (
            "int64",
            "(action - A_INCOME) // (MERCHANTS + 1)",
            "(action - A_INCOME) / (MERCHANTS + 1)",
        ),
        "merchants_taken": (
            "int64",
            "(action - A_INCOME) % (MERCHANTS + 1)",
            "(action - A_INCOME) % (MERCHANTS + 1)",
        ),
    },
    "displace": {
        "v": (
            "int",
            "s.pt[(action - A_DISPLACE) >> 1] >> 1",
            "s->pt[(action - A_DISPLACE) >> 1] >> 1",
        ),
        "displaced_kind": (
            "int",
            "s.pt[(action - A_DISPLACE) >> 1] & 1",
            "s->pt[(action - A_DISPLACE) >> 1] & 1",
        ),
    },
    "use_marker": {"marker_used": ("int", "action - A_USE_MARKER", "action - A_USE_MARKER")},
}

# Per-player parameters an effect may set (Emperor's Favour style), and what each changes.
SETTABLE: dict[str, str] = {
    "control pp": "PP its controller gets for a city next to a created route (step 1).",
    "full track pp": "PP in category B for each fully developed ability that scores (instead of"
    " each track's; a track scoring nothing when full, as Keys, still scores nothing).",
    "city pp": "PP at the end for each city the player controls (the controlled-cities category).",
    "extra actions": "Actions the player has every turn beyond its Actions value.",
    "trader compensation": "Extra pieces the player takes when one of its traders is displaced.",
    "displacement reach": "1: the player's displaced pieces may go to any free point (0: the"
    " nearest routes with one, as usual).",
}

HOOK_DOCS = {
    "setup": ("at setup: develop book if you are the last seat", "Once per seat at setup."),
    "turn_start": ("at turn start: gain 1 PP if rank = players", "When a player's turn begins."),
    "turn_end": (
        "at turn end: gain 1 PP if pieces in supply = 0",
        "When a player's turn ends, after its drawn markers are placed and before the next"
        " player's turn begins (no decisions: `develop book`, not `develop an ability`).",
    ),
    "marker_draw": (
        "at marker draw: draw 3 keep 1",
        "When the player creating a route takes its bonus marker and draws the replacement"
        " (Create Route, step 2; not when the supply is empty); `draw N keep 1` changes the"
        " drawing itself, other effects (PP) happen at that moment.",
    ),
    "marker_used": (
        'bonus "Guild charter" count 2 when used: gain 1 PP per city you control',
        "A new bonus-marker kind; `count`/`start` as for other markers.",
    ),
    "after_create_route": (
        "after create_route: gain 2 PP if cities completed now > 0",
        "After Create Route's steps (the creator is `you`); reads the route, the cities it"
        " completed and the post it established.",
    ),
    "after_income": (
        "after income: gain 1 PP if pieces taken now = 0",
        "After an Income action (`you` took it); reads the pieces it took.",
    ),
    "after_place": (
        "after place: lose 1 PP if pieces in supply = 0",
        "After a Place action.",
    ),
    "after_displace": (
        "after displace: the displaced player gains 1 PP",
        "After a Displace action, once the displacer's piece stands on the point and before the"
        " displaced owner re-places; reads the displaced piece and its owner.",
    ),
    "after_use_marker": (
        "after use marker: gain 1 PP if marker used is plus_4_actions",
        "After a bonus marker's use (its own decisions still to come); reads the marker.",
    ),
    "favour": (
        'favour "More actions": your extra actions becomes 1',
        "An Emperor's Favour tile: taken instead of a turn's actions; its effects apply to its"
        ' taker. `favour "NAME" when another player takes income: EFFECTS` (or `any player'
        " takes ACTION`, `you take ACTION`, `another player uses a bonus marker`, …) is a"
        " triggered tile: its effects apply to each holder after every such action or marker"
        " use, holders clockwise from the acting player, before the next decision of the turn.",
    ),
    "forbid": (
        "forbid displace when displaced piece is a merchant",
        "An action is illegal while the condition holds; it reads what the action would do"
        " (`forbid income`: the pieces taken; `forbid displace`: the displaced piece and the"
        " victim; `forbid use marker`: the marker used).",
    ),
    "score": (
        'score H "Harbour master": 2 PP per city where coins > 0 and your posts here > 0',
        "A final-scoring category (no effects).",
    ),
    "end": (
        "end when some player has at least 3 fully developed abilities",
        "The game ends after the action in which the condition becomes true (`… after turn` /"
        " `… after round`: when that turn or round is over).",
    ),
    "tiebreak": (
        "tiebreak fewest pieces in stock, shared",
        "A tie-break step comparing a quantity.",
    ),
    "order": (
        "turn_order fewest track PP",
        "The order of the seats in a round: seat 0 begins the game; then, of the seats yet to"
        " play this round, the one with the fewest (`most`: the most) of a number plays next,"
        " ties to the lower seat.",
    ),
    "control": (
        "control goes to most posts here",
        "Who controls a city: the rightmost post, nobody on a tie, or most of a quantity.",
    ),
}


def words_markdown() -> str:
    """Every quantity, hook and effect of rules in words, with an example each (Markdown)."""
    needs = {
        "": "",
        "city": "a city",
        "route": "a route",
        "victim": "forbid/after displace",
        "created": "after create_route",
        "ability": "an ability",
        "post": "after create_route",
        "income": "forbid/after income",
        "displaced": "forbid/after displace",
        "marker": "forbid/after use marker",
    }
    rows = ["| quantity | type | reads | meaning | example |", "|---|---|---|---|---|"]
    for q in QUANTITIES.values():
        args = {
            "ability": " of ABILITY",
            "category": " of CATEGORY",
            "country": " COUNTRY",
            "city": " CITY",
            "pair": " CITY-CITY",
        }
        name = q.name + args.get(q.arg, "")
        focus = [needs[n] for n in q.needs.split()]
        reads = ", ".join(w for w in (*focus, "a player" if q.per_player else "") if w)
        rows.append(f"| `{name}` | {q.type} | {reads or '—'} | {q.doc} | `{q.example}` |")
    rows += ["", "| hook | meaning | example |", "|---|---|---|"]
    for hook, (example, doc) in HOOK_DOCS.items():
        rows.append(f"| `{hook}` | {doc} | `{example}` |")
    rows += ["", "| effect | allowed in | meaning | example |", "|---|---|---|---|"]
    for kind, (example, hooks, doc) in EFFECTS.items():
        if kind == "set_param" and not SETTABLE:
            continue  # no per-player parameter is settable yet
        rows.append(f"| `{kind}` | {', '.join(hooks)} | {doc} | `{example}` |")
    return "\n".join(rows) + "\n"
