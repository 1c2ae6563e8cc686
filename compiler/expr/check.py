"""Checks of rules in words: names, types and hooks, each problem at its file:line:col.

Types are number, bool (a condition) and player; a city or a route is never a value, only the focus
of `… where` / `per city`, so a quantity that reads the focus (`coins`, `posts here`) is refused
outside one. Effects are allowed only in hooks that can take them (a scoring category, an end
trigger, a forbid or a tie-break step cannot change the position; `gain 2 actions` only during a
turn). Whatever passes these checks compiles (compiler/expr/codegen.py relies on it).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from ..errors import Diagnostic, closest_name, did_you_mean
from ..nodes.board import Board
from ..nodes.expr import (
    MARKER_TRIGGER,
    Aggregate,
    BinOp,
    BoolOp,
    Compare,
    Domain,
    Effect,
    Expr,
    HookRule,
    Lookup,
    Not,
    Num,
    Ref,
)
from ..nodes.rules import RuleSet
from .catalogue import (
    BOOL,
    DRAW_EFFECTS,
    EFFECT_HOOKS,
    EFFECTS,
    HOOK_FACTS,
    MARKER,
    MARKER_DRAW_HOOK,
    NUMBER,
    PLAYER,
    QUANTITIES,
    SETTABLE,
    Quantity,
)

# What `you may take N WHAT from the stock` offers: bit 1 a trader, bit 2 a merchant.
MAY_TAKE_KINDS = {
    "piece": 3,
    "pieces": 3,
    "trader": 1,
    "traders": 1,
    "merchant": 2,
    "merchants": 2,
}

ACTIONS = ("income", "place", "displace", "move", "create_route")


class ExprError(Exception):
    def __init__(self, diagnostic: Diagnostic):
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic


@dataclass(frozen=True)
class Scope:
    """What an expression may read: a city or route focus, a victim, a player being counted."""

    city: bool = False
    route: bool = False
    victim: bool = False
    counting_players: bool = False
    ability: bool = False
    created: bool = False  # in `after create_route:`: the route just created and what it did
    # What else the action did that may be read here (HOOK_FACTS: post, income, displaced, marker)
    facts: tuple[str, ...] = ()


def hook_scope(where: str) -> Scope:
    """What a hook (`after_income`) or a forbidden action (`forbid:displace`) can read of the
    action: its facts (catalogue.HOOK_FACTS), the created route, the victim."""
    facts = HOOK_FACTS.get(where, ())
    return Scope(
        route="route" in facts,
        created="created" in facts,
        victim="victim" in facts,
        facts=tuple(f for f in facts if f not in ("route", "created", "victim")),
    )


# Where each fact of an action is known, for the error of a quantity read elsewhere.
FACT_PLACES = {
    "post": "`after create_route:`",
    "income": "`after income:` and `forbid income when …`",
    "displaced": "`after displace:` and `forbid displace when …`",
    "marker": "`after use marker:` and `forbid use marker when …`",
}
# A bonus marker named in an expression (`marker used is plus_3_actions`): its type index.
MARKER_NAME = Quantity(
    "bonus marker",
    MARKER,
    "{M}",
    "A bonus marker type, by name.",
    "",
    arg="marker",
    per_player=False,
)


def _fail(message: str, node) -> ExprError:
    return ExprError(Diagnostic(message, node.span if node.span.line > 0 else None))


@dataclass(frozen=True)
class Places:
    """The cities and routes of the board a game binds, for rules that name them (`controller
    of Lübeck`, `free points of Hamburg-Lübeck`, `distance to Lübeck`): lower-case names and
    aliases by city index, and each route's two cities."""

    cities: tuple[str, ...]  # the printed names, by index
    keys: tuple[tuple[str, int], ...]  # every lower-case name and alias -> its city
    routes: tuple[tuple[int, int], ...]  # the two cities of each route, by route index

    def city(self, word: str) -> int | None:
        return dict(self.keys).get(word)

    def pair(self, word: str) -> tuple[int, int] | None:
        """Two cities joined by a hyphen (`hamburg-lübeck`); a name holding a hyphen itself is
        found by trying every hyphen."""
        parts = word.split("-")
        for cut in range(1, len(parts)):
            a, b = self.city("-".join(parts[:cut])), self.city("-".join(parts[cut:]))
            if a is not None and b is not None:
                return a, b
        return None

    def route(self, word: str) -> int | None:
        pair = self.pair(word)
        if pair is None:
            return None
        for i, ends in enumerate(self.routes):
            if set(ends) == set(pair):
                return i
        return None

    def route_names(self) -> list[str]:
        return [f"{self.cities[a]}-{self.cities[b]}" for a, b in self.routes]


def places_of(board: Board) -> Places:
    """The places a rule may name on `board`: every city by its name or an alias (any case)."""
    keys: dict[str, int] = {}
    for i, city in enumerate(board.cities):
        for name in (city.name, *city.aliases):
            keys.setdefault(name.lower(), i)
    routes = tuple(  # a route naming an unknown city (a broken board, reported there) joins -1
        (keys.get(r.cities[0].lower(), -1), keys.get(r.cities[1].lower(), -1)) for r in board.routes
    )
    return Places(tuple(c.name for c in board.cities), tuple(keys.items()), routes)


@dataclass
class Names:
    """The rule set's names an expression may mention."""

    abilities: tuple[str, ...]
    categories: tuple[str, ...]  # keys and kinds
    markers: tuple[str, ...]
    roles: tuple[tuple[str, str], ...] = ()  # (role, ability): `value of network_factor`
    # The board's countries (lower case) once a game is built; None while checking a rule set,
    # which knows no board (the build checks the names, so `hansa check` still reports them).
    countries: tuple[str, ...] | None = None
    board: str = ""
    # The per-player counters and flags the rule set declares: (name, counter|flag, private).
    state: tuple[tuple[str, str, int], ...] = ()
    # The board's cities and routes once a game is built; None while checking a rule set alone
    # (a name is then taken as a place, and the game's check finds it on the board or not).
    places: Places | None = None


# Words authors write for the ones the quantities use (`track points` is `track PP`).
_SYNONYMS = {"points": "pp", "point": "pp", "prestige": "pp", "vp": "pp"}


def _as_typed(quantity: str) -> str:
    """A quantity as the docs write it, and so as a suggestion shows it (`track PP`)."""
    return " ".join("PP" if w == "pp" else w for w in quantity.split())


def _quantity_hint(words: str) -> str:
    """ "did you mean" for a phrase: a known quantity that is the phrase with a word said as the
    quantities say it (`track points` → `track PP`), or with a word left out (`trading posts` →
    `posts`), before the nearest by letters."""
    parts = words.split()
    said = " ".join(_SYNONYMS.get(w, w) for w in parts)
    said = " ".join(w for i, w in enumerate(said.split()) if i == 0 or w != said.split()[i - 1])
    if said != words and said in QUANTITIES:
        return f" (did you mean '{_as_typed(said)}'?)"
    for drop in range(len(parts)):
        shorter = " ".join(parts[:drop] + parts[drop + 1 :])
        if shorter in QUANTITIES:
            return f" (did you mean '{_as_typed(shorter)}'?)"
    guess = closest_name(words, list(QUANTITIES))
    return f" (did you mean '{_as_typed(guess)}'?)" if guess and guess != words else ""


def check_country(name: str, names: Names, node, cities: bool = False) -> None:
    """An unknown country, or a board without countries, is an error at the phrase naming it."""
    if names.countries is None or name in names.countries:
        return
    board = f"board '{names.board}'" if names.board else "this game's board"
    places = names.places
    city = did_you_mean(name, places.cities) if cities and places is not None else ""
    if city and not did_you_mean(name, names.countries):  # `posts in Lubek`: a city misspelt
        raise _fail(f"{board} has no city or country '{name}'{city}", node)
    if not names.countries:
        raise _fail(f"'{name}' names a country, but {board} has no countries", node)
    known = ", ".join(names.countries)
    raise _fail(
        f"unknown country '{name}'{did_you_mean(name, names.countries)}; known: {known}", node
    )


def names_of(ruleset: RuleSet) -> Names:
    categories = [s.key for s in ruleset.scoring] + [s.kind for s in ruleset.scoring]
    categories += [r.target for r in ruleset.hook_rules if r.hook == "score"]
    markers = [b.name or b.kind for b in ruleset.bonus_markers]
    markers += [r.label for r in ruleset.hook_rules if r.hook == "marker_used"]
    roles = tuple((a.role, a.name) for a in ruleset.abilities)
    state = tuple(
        (r.target, r.label, dict(r.params).get("private", 0))
        for r in ruleset.hook_rules
        if r.hook == "state"
    )
    return Names(
        tuple(a.name for a in ruleset.abilities),
        tuple(categories),
        tuple(markers),
        roles,
        state=state,
    )


# Quantities a place is named after (`distance to Lübeck`, `your posts connect A-B`): the named
# words follow the quantity's own.
TAIL_ARGS = ("country", "city", "pair")


def state_quantity(name: str, kind: str) -> Quantity:
    """A declared counter (a number) or flag (a condition) as a quantity: its slot {X} of the
    per-player parameters."""
    read = "s.xparam[{P} * N_X_PARAMS + {X}]"
    c_read = "s->xparam[({P}) * N_X_PARAMS + ({X})]"
    if kind == "flag":
        read, c_read = f"({read} > 0)", f"({c_read} > 0)"
    doc = f"The player's {kind} `{name}`."
    type_ = NUMBER if kind == "counter" else BOOL
    return Quantity(name, type_, read, doc, name, arg="state", c=c_read)


@dataclass(frozen=True)
class Resolved:
    """A quantity reference, resolved: the quantity, its ability/category/country/state name or
    named city (`distance to Lübeck`) or pair, its owner and player, and the city or route it
    reads when one is named (`controller of Lübeck`: ("city", "lübeck"))."""

    quantity: Quantity
    named: str
    owner: str
    player: Ref | None
    focus: tuple[str, str] | None = None


def resolve_ref(ref: Ref, names: Names, scope: Scope) -> tuple[object, str, str, Ref | None]:
    """(quantity, ability or category argument, owner, player argument) of a quantity reference.

    Raises ExprError for unknown names, missing or extra arguments and a focus that is not there.
    """
    found = resolve_place_ref(ref, names, scope)
    return found.quantity, found.named, found.owner, found.player


def _tail_quantity(ref: Ref, names: Names) -> tuple[Quantity | None, str, tuple[str, str] | None]:
    """A quantity whose last words name a country, a city or two cities (`posts in wales`,
    `distance to lübeck`, `posts connect a-b`); `posts in lübeck` is `posts here` of that city."""
    for q in QUANTITIES.values():
        if q.arg in TAIL_ARGS and ref.words.startswith(q.name + " "):
            named = ref.words[len(q.name) + 1 :]
            if q.arg == "country":
                places = names.places
                if (
                    places is not None
                    and places.city(named) is not None
                    and (names.countries is None or named not in names.countries)
                ):
                    return QUANTITIES["posts here"], "", ("city", named)
                check_country(named, names, ref, cities=True)
            elif q.arg == "city":
                check_place("city", named, names, ref)
            else:
                check_place("pair", named, names, ref)
            return q, named, None
    return None, "", None


def check_place(kind: str, word: str, names: Names, node) -> None:
    """A city, a route (`a-b`) or two cities (`a-b`) the game's board lacks: an error at the
    phrase, with the closest name of the board (a rule set checked alone takes any name)."""
    places = names.places
    if places is None:
        return
    if kind == "city":
        known = places.city(word) is not None
        choices = places.cities
    elif kind == "route":
        known = places.route(word) is not None
        choices = places.route_names()
    else:
        known = places.pair(word) is not None
        choices = places.cities
        if not known and "-" not in word:
            raise _fail(
                f"name two cities joined by a hyphen (`Hamburg-Lübeck`), not '{word}'", node
            )
    if known:
        return
    what = {"city": "city", "route": "route", "pair": "pair of cities"}[kind]
    board = f"board '{names.board}'" if names.board else "this game's board"
    raise _fail(f"{board} has no {what} '{word}'{did_you_mean(word, choices)}", node)


def _is_player(word: str, names: Names, scope: Scope) -> bool:
    """Whether `of WORD` names a player (`of the victim`) rather than a place (`of Lübeck`)."""
    quantity = QUANTITIES.get(word)
    return quantity is not None and quantity.type == PLAYER


def resolve_place_ref(ref: Ref, names: Names, scope: Scope) -> Resolved:
    """A quantity reference with the places it names (`controller of Lübeck`)."""
    quantity, named, focus = QUANTITIES.get(ref.words), "", None
    if quantity is None:
        quantity, named, focus = _tail_quantity(ref, names)
    if quantity is None:  # a counter or flag the rule set declares (`your harbours`)
        for name, kind, _private in names.state:
            if name == ref.words:
                quantity, named = state_quantity(name, kind), name
    if quantity is None and not ref.args and not ref.owner:
        for label in names.markers:  # a bonus marker by its label or kind
            if label.lower() == ref.words:
                return Resolved(MARKER_NAME, label, "", None)
    if quantity is None:
        # a near miss of a quantity, else of a bonus marker's name (`marker used is plus_5_…`)
        hint = _quantity_hint(ref.words) or did_you_mean(
            ref.words, [m.lower() for m in names.markers]
        )
        raise _fail(f"unknown quantity '{ref.words}'{hint}", ref)
    args = list(ref.args)
    roles = dict(names.roles)
    needs = quantity.needs.split()
    if focus is None and ("city" in needs or "route" in needs):
        # `controller of Lübeck`, `free points of Hamburg-Lübeck`: the place it reads, named
        places = [a for a in args if not _is_player(a, names, scope)]
        if places:
            kind = "city" if "city" in needs else "route"
            if len(places) > 1:
                raise _fail(f"'{ref.words}' reads one {kind}, not {' and '.join(places)}", ref)
            check_place(kind, places[0], names, ref)
            focus = (kind, places[0])
            args.remove(places[0])
    if quantity.arg == "ability" and not args and scope.ability:
        pass  # the ability counted over (`sum full PP over abilities where …`)
    elif quantity.arg in (*TAIL_ARGS, "state"):
        pass  # named above
    elif quantity.arg:
        if not args:
            raise _fail(f"'{ref.words}' needs `of` and {_arg_word(quantity.arg)}", ref)
        named = args.pop(0)
        if quantity.arg == "ability" and named in roles and named not in names.abilities:
            named = roles[named]  # an ability by its role: `value of network_factor`
        known = names.abilities if quantity.arg == "ability" else names.categories
        if named not in known and not (quantity.arg == "category" and named.upper() in known):
            raise _fail(f"unknown {quantity.arg} '{named}'{did_you_mean(named, known)}", ref)
        if quantity.arg == "category" and named not in known:
            named = named.upper()
    player: Ref | None = None
    if args:
        if not quantity.per_player or len(args) > 1:
            raise _fail(f"'{ref.words}' takes no `of {args[-1]}`", ref)
        player = Ref(args[0], span=ref.span)
        if args[0] not in QUANTITIES:
            raise _fail(
                f"'{ref.words}' reads a player, not '{args[0]}' (as in `{ref.words} of the"
                " victim`)",
                ref,
            )
        if check_expr(player, names, scope) != PLAYER:
            raise _fail(f"`of {args[0]}` must name a player", ref)
    if ref.owner and not quantity.per_player:
        raise _fail(f"'{ref.words}' belongs to no player ('{ref.owner}' is not needed)", ref)
    if ref.owner == "their" and not scope.counting_players:
        raise _fail("'their' only inside count/sum/… over players", ref)
    named_place = focus[0] if focus is not None else ""
    if "city" in needs and not scope.city and named_place != "city":
        raise _fail(
            f"'{ref.words}' needs a city: use it in `… where` over cities, or name one"
            f" (`{ref.words} of Lübeck`)",
            ref,
        )
    if "route" in needs and not scope.route and named_place != "route":
        raise _fail(
            f"'{ref.words}' needs a route: use it in `… where` over routes, or name one"
            f" (`{ref.words} of Hamburg-Lübeck`)",
            ref,
        )
    if quantity.needs == "ability" and not scope.ability:
        raise _fail(f"'{ref.words}' needs an ability: use it in `… where` over abilities", ref)
    if "created" in needs and not scope.created:
        raise _fail(f"'{ref.words}' is known only in `after create_route:`", ref)
    if quantity.needs == "victim" and not scope.victim:
        raise _fail(
            f"'{ref.words}' is known only in `forbid displace when …` and `after displace:`", ref
        )
    for need in quantity.needs.split():
        if need in FACT_PLACES and need not in scope.facts:
            raise _fail(f"'{ref.words}' is known only in {FACT_PLACES[need]}", ref)
    if ref.words == "them" and not scope.counting_players:
        raise _fail("'them' only inside count/sum/… over players", ref)
    return Resolved(quantity, named, ref.owner, player, focus)


def _arg_word(arg: str) -> str:
    return "an ability name" if arg == "ability" else "a scoring category (key or kind)"


def check_expr(node: Expr, names: Names, scope: Scope) -> str:
    """The type of an expression (number, bool or player), or ExprError."""
    if isinstance(node, Num):
        return NUMBER
    if isinstance(node, Ref):
        return resolve_ref(node, names, scope)[0].type
    if isinstance(node, BinOp):
        for side in (node.left, node.right):
            t = check_expr(side, names, scope)
            if t != NUMBER:
                raise _fail(f"'{node.op.strip('/') or '/'}' needs numbers, got a {t}", side)
        return NUMBER
    if isinstance(node, Compare):
        left = check_expr(node.left, names, scope)
        right = check_expr(node.right, names, scope)
        if left != right:
            raise _fail(f"cannot compare a {left} with a {right}", node)
        if left != NUMBER and node.op not in ("==", "!="):
            raise _fail(f"only numbers are compared with {node.op}; use `is`", node)
        return BOOL
    if isinstance(node, BoolOp):
        for item in node.items:
            _need(item, BOOL, names, scope, f"'{node.op}' joins conditions")
        return BOOL
    if isinstance(node, Not):
        _need(node.item, BOOL, names, scope, "'not' takes a condition")
        return BOOL
    if isinstance(node, Aggregate):
        inner = check_domain(node.domain, names, scope)
        if node.fn == "count":
            return NUMBER
        if node.fn in ("some", "every"):
            _need(node.body, BOOL, names, inner, f"'{node.fn} … has' takes a condition")
            return BOOL
        _need(node.body, NUMBER, names, inner, f"'{node.fn}' adds up numbers")
        return NUMBER
    if isinstance(node, Lookup):
        _need(node.value, NUMBER, names, scope, "`… by TABLE` looks up a number")
        if not node.rows:
            raise _fail(
                f"unknown table '{node.table}': `… by NAME` reads a table parameter of a kind"
                " defined in the prelude (bonus_markers' `table`)",
                node,
            )
        return NUMBER
    raise _fail("unknown expression", node)  # pragma: no cover - lowering makes only these


def check_domain(domain: Domain, names: Names, scope: Scope) -> Scope:
    inner = {
        "city": replace(scope, city=True),
        "route": replace(scope, route=True),
        "player": replace(scope, counting_players=True),
        "opponent": replace(scope, counting_players=True),
        "ability": replace(scope, ability=True),
    }[domain.kind]
    if domain.country:
        check_country(domain.country, names, domain)
    if domain.where is not None:
        _need(domain.where, BOOL, names, inner, "`where` takes a condition")
    return inner


def _need(node: Expr, wanted: str, names: Names, scope: Scope, why: str) -> None:
    got = check_expr(node, names, scope)
    if got != wanted:
        raise _fail(f"{why}; '{node.text()}' is a {got}", node)


def _check_amount(rule_or_effect, amount, names: Names, scope: Scope) -> None:
    """`V per SET` adds V up over the set, so V may read the set's member (`coins`)."""
    if amount.per is not None:
        scope = check_domain(amount.per, names, scope)
    _need(amount.value, NUMBER, names, scope, "an amount is a number")


# Effects that only the rule's own player can have: a decision, the turn's actions, a parameter.
_OWN_ONLY = {
    "extra_actions": "only the player whose turn it is gains actions",
    "may_take": "a choice is the rule's own player's (`you may take …`)",
    "set_param": "a rule sets only its own player's parameters",
}


def check_whom(effect: Effect, names: Names, scope: Scope) -> Scope:
    """The players an effect acts on, checked; the scope its own words are read in (the player
    acted on is `their`/the unowned player, `you` stays the rule's player)."""
    whom = effect.whom
    why = _OWN_ONLY.get(effect.kind)
    if effect.kind == "develop" and not effect.name:
        why = "a choice is the rule's own player's: name the ability (`develops book`)"
    if why:
        raise _fail(f"'{effect.text()}' acts on other players, but {why}", effect)
    if whom.kind == "player":
        got = check_expr(whom.player, names, scope)
        if got != PLAYER:
            raise _fail(f"'{whom.player.text()}' is a {got}, not a player", whom.player)
        return replace(scope, counting_players=True)
    if whom.kind in ("most", "fewest"):
        _need(
            whom.value,
            NUMBER,
            names,
            replace(scope, counting_players=True),
            f"`with the {whom.kind}` compares a number",
        )
    return check_domain(whom.members(), names, scope)


def check_effect(effect: Effect, hook: str, names: Names, scope: Scope) -> None:
    allowed = EFFECTS[effect.kind][1]
    if hook not in allowed:
        raise _fail(
            f"'{effect.text()}' cannot be done {_hook_words(hook)}; it can be done"
            f" {_hooks_listed(allowed)}",
            effect,
        )
    if effect.whom is not None:
        scope = check_whom(effect, names, scope)
    if hook == "turn_end" and effect.kind == "develop" and not effect.name:
        raise _fail(
            f"'{effect.text()}' asks the player to choose, which cannot be done at turn end (the"
            " turn has passed): name the ability (`develop book`)",
            effect,
        )
    if effect.when is not None:
        _need(effect.when, BOOL, names, scope, "`if` takes a condition")
    if effect.amount is not None:
        _check_amount(effect, effect.amount, names, scope)
    if effect.kind == "develop" and effect.name and effect.name not in names.abilities:
        raise _fail(
            f"unknown ability '{effect.name}'{did_you_mean(effect.name, names.abilities)}", effect
        )
    if effect.kind == "take":
        _need(effect.value, NUMBER, names, scope, "take a number of pieces")
        if effect.name not in ("traders", "trader", "merchants", "merchant"):
            raise _fail(f"take traders or merchants, not '{effect.name}'", effect)
    if effect.kind == "draw_keep":
        _need(effect.value, NUMBER, names, scope, "draw a number of markers")
        if isinstance(effect.value, Num) and effect.value.value < 2:
            raise _fail("`draw N keep 1` draws at least 2 markers (1 is the usual draw)", effect)
    if effect.kind == "display":
        _check_display(effect)
    if effect.kind == "may_take":
        _need(effect.value, NUMBER, names, scope, "take a number of pieces")
        if effect.name not in MAY_TAKE_KINDS:
            raise _fail(f"take pieces, traders or merchants, not '{effect.name}'", effect)
    if effect.kind == "receive" and effect.name.lower() not in {m.lower() for m in names.markers}:
        raise _fail(
            f"unknown bonus marker '{effect.name}'{marker_hint(effect.name, names)}", effect
        )
    if effect.kind == "set_param":
        state = {name: kind for name, kind, _private in names.state}
        if effect.name in state:  # a counter (a number) or a flag (yes, no or a condition)
            if state[effect.name] == "flag":
                _need(effect.value, BOOL, names, scope, "a flag becomes yes, no or a condition")
            else:
                _need(effect.value, NUMBER, names, scope, "a counter becomes a number")
            return
        if effect.name not in SETTABLE:
            known = [*SETTABLE, *state]
            raise _fail(
                f"'{effect.name}' is not a parameter a rule can set"
                f"{did_you_mean(effect.name, known)}; settable: {', '.join(known)}"
                " (a counter or flag of your own is declared first: `counter NAME`, `flag NAME`)",
                effect,
            )
        _need(effect.value, NUMBER, names, scope, "a parameter is set to a number")


def marker_hint(name: str, names: Names) -> str:
    """ " (did you mean …?)" for a bonus marker's name, as it is typed: a label of several words
    in double quotes (`receive marker "Guild charter"`)."""
    guess = closest_name(name, names.markers)
    if not guess or guess == name:
        return ""
    typed = f"'{guess}'" if re.fullmatch(r"[^\W\d][\w-]*", guess) else f'"{guess}"'
    return f" (did you mean {typed}?)"


# Each hook as an author writes its head.
_HOOK_HEADS = {
    "setup": "at setup",
    "turn_start": "at turn start",
    "turn_end": "at turn end",
    "marker_used": "in a bonus marker's `when used:`",
    "after_create_route": "after create_route",
    "after_income": "after income",
    "after_place": "after place",
    "after_displace": "after displace",
    "after_use_marker": "after use marker",
    "favour": "in a favour tile",
    "marker_draw": "at the marker draw",
}


def _hook_words(hook: str) -> str:
    return {
        "marker_draw": "at the marker draw (only PP and `draw N keep 1`)",
        "score": "in a scoring category",
        "end": "in an end trigger",
        "forbid": "in a forbid condition",
        "tiebreak": "in a tie-break step",
    }.get(hook, _HOOK_HEADS.get(hook, f"in `{hook.replace('_', ' ')}`"))


def _hooks_listed(hooks) -> str:
    """Where an effect can be written, every place named as the author writes it."""
    words = [_HOOK_HEADS.get(h, h.replace("_", " ")) for h in hooks]
    return ", ".join(words[:-1]) + " or " + words[-1] if len(words) > 1 else words[0]


def _check_display(effect: Effect) -> None:
    """A display lies face up the whole game: its size is a number, and no condition or other
    player can switch it on and off."""
    if effect.when is not None:
        raise _fail("the display lies face up the whole game: it takes no `if`", effect.when)
    if effect.whom is not None:
        raise _fail(
            "the display serves the player drawing: write `choose from N on display`", effect
        )
    if effect.value.value < 1:  # a display larger than the supply shows all of it
        raise _fail("a display holds at least 1 marker", effect.value)


def _check_one_draw(rule: HookRule, ruleset: RuleSet) -> None:
    """One way of drawing: a second `draw N keep 1` or display (in this rule or another) is
    refused there."""
    draws = [
        e
        for r in ruleset.hook_rules
        if r.hook == MARKER_DRAW_HOOK
        for e in r.effects
        if e.kind in DRAW_EFFECTS
    ]
    for effect in draws[1:]:
        if any(effect is e for e in rule.effects):
            first = draws[0].span
            raise _fail(
                f"the marker draw is already changed by '{draws[0].text()}' (line {first.line}):"
                " one way of drawing per rule set (`draw N keep 1` or `choose from N on"
                " display`)",
                effect,
            )


def check_rule(rule: HookRule, names: Names, ruleset: RuleSet) -> None:
    # after create_route, route quantities read the route just created (`points`, `tavern`);
    # an `after ACTION:` hook reads what its action did
    scope = hook_scope(rule.hook)
    if rule.hook in EFFECT_HOOKS or rule.hook == MARKER_DRAW_HOOK:
        for effect in rule.effects:
            check_effect(effect, rule.hook, names, scope)
        if rule.hook == MARKER_DRAW_HOOK:
            _check_one_draw(rule, ruleset)
        if rule.hook == "marker_used":
            params = dict(rule.params)
            if params.get("start", 0) > params.get("count", 1):
                raise _fail("a bonus marker's start exceeds its count", rule)
        return
    if rule.hook == "order":  # the value of each player, as a tie-break step's
        _need(rule.condition, NUMBER, names, Scope(), "the turn order compares a number")
        return
    if rule.hook == "state":
        if rule.target in QUANTITIES or rule.target.replace("_", " ") in SETTABLE:
            raise _fail(
                f"'{rule.target}' is already a quantity or parameter of the language: give the"
                f" {rule.label} another name",
                rule,
            )
        return
    if rule.hook == "score":
        if len(rule.target) != 1 or not rule.target.isupper():
            raise _fail(f"scoring category key {rule.target!r} must be one capital letter", rule)
        _check_amount(rule, rule.amount, names, scope)
        if _mentions_score(rule.amount):
            raise _fail("a scoring category cannot read `score of …` (it would loop)", rule)
        return
    if rule.hook == "end":
        _need(rule.condition, BOOL, names, scope, "an end trigger is a condition")
        return
    if rule.hook == "forbid":
        if rule.target not in ACTIONS and rule.target != MARKER_TRIGGER:
            raise _fail(f"unknown action '{rule.target}'{did_you_mean(rule.target, ACTIONS)}", rule)
        scope = hook_scope(f"forbid:{rule.target}")
        _need(rule.condition, BOOL, names, scope, "`forbid … when` takes a condition")
        return
    if rule.hook == "control" and rule.condition is not None:
        _need(rule.condition, NUMBER, names, Scope(city=True), "control goes to most of a number")
        if "controller" in _refs(rule.condition) or "controlled cities" in _refs(rule.condition):
            raise _fail("the control rule cannot read who controls a city", rule)


def _refs(node) -> set[str]:
    found: set[str] = set()

    def walk(n) -> None:
        if isinstance(n, Ref):
            found.add(n.words)
        for attr in ("left", "right", "item", "body", "where", "value", "per", "domain"):
            child = getattr(n, attr, None)
            if child is not None:
                walk(child)
        for child in getattr(n, "items", ()) or ():
            walk(child)

    walk(node)
    return found


def _mentions_score(node) -> bool:
    return "score" in _refs(node)


def check_hook_rules(ruleset: RuleSet) -> list[Diagnostic]:
    """Every rule in words and every tie-break quantity of a resolved rule set."""
    names = names_of(ruleset)
    out: list[Diagnostic] = []
    for rule in ruleset.hook_rules:
        try:
            check_rule(rule, names, ruleset)
        except ExprError as exc:
            out.append(exc.diagnostic)
    for step in ruleset.tiebreak:
        if step.what == "expr":
            words = getattr(step.expr, "words", "")
            if words in names.abilities and words not in QUANTITIES:
                message = f"unknown quantity '{words}'; write `{step.rule} ability {words}`"
                out.append(Diagnostic(message, step.expr.span))
                continue
            try:
                _need(step.expr, NUMBER, names, Scope(), "a tie-break step compares a number")
                if _mentions_score(step.expr):
                    pass  # scores are final by then: reading them is fine
            except ExprError as exc:
                out.append(exc.diagnostic)
    keys = [s.key for s in ruleset.scoring]
    for rule in ruleset.hook_rules:
        if rule.hook == "score" and rule.target in keys:
            out.append(Diagnostic(f"score category {rule.target} is declared twice", rule.span))
    labels = [b.name or b.kind for b in ruleset.bonus_markers]
    for rule in ruleset.hook_rules:
        if rule.hook == "marker_used" and rule.label in labels:
            out.append(Diagnostic(f"bonus marker '{rule.label}' is declared twice", rule.span))
    return out


def _nodes(node):
    """Every expression node inside a rule or an expression, the node first."""
    if node is None or isinstance(node, (str, int, bool)):
        return
    if isinstance(node, tuple):
        for item in node:
            yield from _nodes(item)
        return
    if not hasattr(node, "__dataclass_fields__"):
        return
    yield node
    for name in node.__dataclass_fields__:
        if name != "span":
            yield from _nodes(getattr(node, name))


def named_places(ruleset: RuleSet) -> list[tuple[str, str, object]]:
    """(kind, name, node) of every place a rule set's rules in words name: a city or a route read
    (`controller of Lübeck`: city), a city after `to` (city), two cities (pair), and a city or
    country after `posts in` (place). A reference the checks refuse is left to them."""
    names = names_of(ruleset)
    scope = Scope(True, True, True, True, True, True, tuple(FACT_PLACES))
    found: list[tuple[str, str, object]] = []
    exprs = [rule for rule in ruleset.hook_rules]
    exprs += [step.expr for step in ruleset.tiebreak if step.what == "expr"]
    for node in _nodes(tuple(exprs)):
        if not isinstance(node, Ref):
            continue
        try:
            resolved = resolve_place_ref(node, names, scope)
        except ExprError:
            continue
        if resolved.focus is not None:
            found.append((*resolved.focus, node))
        arg = resolved.quantity.arg
        if arg in ("city", "pair"):
            found.append((arg, resolved.named, node))
        elif arg == "country":
            found.append(("place", resolved.named, node))
    return found


def missing_place(kind: str, word: str, places: Places, countries: tuple[str, ...]) -> bool:
    """Whether the board of `places` (and `countries`) lacks a place a rule names."""
    if kind == "city":
        return places.city(word) is None
    if kind == "route":
        return places.route(word) is None
    if kind == "pair":
        return places.pair(word) is None
    return places.city(word) is None and word not in countries
