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


def check_country(name: str, names: Names, node) -> None:
    """An unknown country, or a board without countries, is an error at the phrase naming it."""
    if names.countries is None or name in names.countries:
        return
    if not names.countries:
        board = f"board '{names.board}'" if names.board else "this game's board"
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
    return Names(tuple(a.name for a in ruleset.abilities), tuple(categories), tuple(markers), roles)


def resolve_ref(ref: Ref, names: Names, scope: Scope) -> tuple[object, str, str, Ref | None]:
    """(quantity, ability or category argument, owner, player argument) of a quantity reference.

    Raises ExprError for unknown names, missing or extra arguments and a focus that is not there.
    """
    quantity = QUANTITIES.get(ref.words)
    named = ""
    if quantity is None:  # `posts in wales`: a quantity whose last words name a country
        for q in QUANTITIES.values():
            if q.arg == "country" and ref.words.startswith(q.name + " "):
                quantity, named = q, ref.words[len(q.name) + 1 :]
                check_country(named, names, ref)
    if quantity is None and not ref.args and not ref.owner:
        for label in names.markers:  # a bonus marker by its label or kind
            if label.lower() == ref.words:
                return MARKER_NAME, label, "", None
    if quantity is None:
        # a near miss of a quantity, else of a bonus marker's name (`marker used is plus_5_…`)
        hint = _quantity_hint(ref.words) or did_you_mean(
            ref.words, [m.lower() for m in names.markers]
        )
        raise _fail(f"unknown quantity '{ref.words}'{hint}", ref)
    args = list(ref.args)
    roles = dict(names.roles)
    if quantity.arg == "ability" and not args and scope.ability:
        pass  # the ability counted over (`sum full PP over abilities where …`)
    elif quantity.arg == "country":
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
        if check_expr(player, names, scope) != PLAYER:
            raise _fail(f"`of {args[0]}` must name a player", ref)
    if ref.owner and not quantity.per_player:
        raise _fail(f"'{ref.words}' belongs to no player ('{ref.owner}' is not needed)", ref)
    if ref.owner == "their" and not scope.counting_players:
        raise _fail("'their' only inside count/sum/… over players", ref)
    if "city" in quantity.needs.split() and not scope.city:
        raise _fail(f"'{ref.words}' needs a city: use it in `… where` over cities", ref)
    if quantity.needs == "route" and not scope.route:
        raise _fail(f"'{ref.words}' needs a route: use it in `… where` over routes", ref)
    if quantity.needs == "ability" and not scope.ability:
        raise _fail(f"'{ref.words}' needs an ability: use it in `… where` over abilities", ref)
    if quantity.needs == "created" and not scope.created:
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
    return quantity, named, ref.owner, player


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
    if effect.kind == "may_take":
        _need(effect.value, NUMBER, names, scope, "take a number of pieces")
        if effect.name not in MAY_TAKE_KINDS:
            raise _fail(f"take pieces, traders or merchants, not '{effect.name}'", effect)
    if effect.kind == "receive" and effect.name.lower() not in {m.lower() for m in names.markers}:
        raise _fail(
            f"unknown bonus marker '{effect.name}'{marker_hint(effect.name, names)}", effect
        )
    if effect.kind == "set_param":
        if effect.name not in SETTABLE:
            raise _fail(
                f"'{effect.name}' is not a parameter a rule can set"
                f"{did_you_mean(effect.name, SETTABLE)}; settable: {', '.join(SETTABLE)}",
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


def _check_one_draw(rule: HookRule, ruleset: RuleSet) -> None:
    """One way of drawing: a second `draw N keep 1` (in this rule or another) is refused there."""
    draws = [
        e
        for r in ruleset.hook_rules
        if r.hook == MARKER_DRAW_HOOK
        for e in r.effects
        if e.kind == "draw_keep"
    ]
    for effect in draws[1:]:
        if any(effect is e for e in rule.effects):
            first = draws[0].span
            raise _fail(
                f"the marker draw is already changed by '{draws[0].text()}' (line {first.line}):"
                " one `draw N keep 1` per rule set",
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
