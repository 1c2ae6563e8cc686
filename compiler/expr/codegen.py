"""Compile rules in words (checked expr nodes) into the functions of a game's rule module: one
generator for every target, each target a dialect that holds only what differs.

`ExprGenerator` walks the nodes, one method per node class (`_Num`, `_Ref`, `_BinOp`, …), and
builds the hook functions; a `Dialect` turns each piece into its target's text: the form of a
number, an operator, an aggregate, a statement, an effect, a function. The Python dialect is
below (`PYTHON`); the C dialect is the native target's (`compiler/targets/native/expr.py`), the
way sqlglot specialises one `Generator` per SQL dialect. A quantity's text in each target stands
side by side in the catalogue (`Quantity.code`, `Quantity.c`).

The only text that reaches a module is fixed code from the dialects and the quantity catalogue,
variable names this generator makes up (`c1`, `r2`, `q1`) and integers (table indices, literals):
an ability, category or marker is referred to by its index, so no name or string an author writes
can become code. Everything runs at compile time; a module has no interpreter.

"Applied" is decided here, once, for every target: a rule of the spec counts (`RULE_FIRED`, read
by `hansa simulate`) when one of its effects runs — its condition held, for at least one of the
players it names — and a `forbid` rule counts each otherwise-legal action it refuses.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from dataclasses import dataclass, replace

import networkx as nx

from ..errors import HansaError
from ..nodes.expr import (
    MARKER_TRIGGER,
    Aggregate,
    Amount,
    BinOp,
    BoolOp,
    Compare,
    Domain,
    Effect,
    HookRule,
    Lookup,
    Not,
    Num,
    Ref,
)
from .catalogue import (
    AFTER_HOOKS,
    EFFECT_CODE,
    FORBID_FACT_CODE,
    MAX_COUNTER,
    QUANTITIES,
    SETTABLE,
    Quantity,
)
from .check import MAY_TAKE_KINDS, Names, Scope, hook_scope, resolve_place_ref


class Unsupported(HansaError):
    """A construct a dialect has no text for (a quantity without a C form, an operator): the
    target refuses the game, naming the construct and its rule's location."""


@dataclass(frozen=True)
class Env:
    """Names in scope: the rule's player, the focus player/city/route, the victim."""

    you: str = "p"
    player: str = "p"
    city: str = ""
    route: str = ""
    victim: str = ""
    ability: str = ""
    done: str = ""  # after create_route: the cities the route's action completed
    depth: int = 0
    # The player an effect acts on when not `you` (an effect on other players: Whom)
    subject: str = ""
    facts: tuple[str, ...] = ()  # the action's facts the function has as locals (HOOK_FACTS)
    counted: bool = False  # inside a rule `hansa simulate` counts: a running effect marks it

    def scope(self) -> Scope:
        return Scope(
            city=bool(self.city),
            route=bool(self.route),
            victim=bool(self.victim),
            counting_players=self.player != self.you,
            ability=bool(self.ability),
            created=bool(self.done),
            facts=self.facts,
        )


# A set's loop in every target: the variable's letter, the environment field it names and the
# generated module's count of members (players: the dialect's own expression for the count).
LOOP_VARIABLES = {
    "city": ("c", "city", "N_CITIES"),
    "route": ("r", "route", "N_ROUTES"),
    "ability": ("a", "ability", "NA"),
}

# What an `after` hook's function receives of its action (the facts its rules read), by name and
# type ("int", or "int64" for a count the rules compute with); `base` is the stack's height before
# the action.
HOOK_PARAMS: dict[str, tuple[tuple[str, str], ...]] = {
    "after_create_route": (
        ("r", "int"),
        ("done", "int64"),
        ("post_city", "int"),
        ("post_kind", "int"),
        ("post_extra", "int"),
        ("special_taken", "int"),
    ),
    "after_income": (("base", "int"), ("traders_taken", "int64"), ("merchants_taken", "int64")),
    "after_place": (("base", "int"),),
    "after_displace": (("base", "int"), ("v", "int"), ("displaced_kind", "int")),
    "after_use_marker": (("base", "int"), ("marker_used", "int")),
}
# The hooks whose function runs once per player (or once) with no facts: (hook, function name).
PLAIN_HOOKS = (
    ("setup", "x_setup"),
    ("turn_start", "x_turn_start"),
    ("turn_end", "x_turn_end"),
    ("marker_draw", "x_marker_draw"),
)
# The ids of each kind of action a rule can name (`forbid displace when …`, a favour tile's
# trigger): the first id and the one past the last.
ACTION_IDS = {
    "income": ("A_INCOME", "A_PLACE"),
    "place": ("A_PLACE", "A_DISPLACE"),
    "displace": ("A_DISPLACE", "A_MOVE"),
    "move": ("A_MOVE", ""),  # one id
    "create_route": ("A_CREATE", "A_CREATE + N_ROUTES"),
    MARKER_TRIGGER: ("A_USE_MARKER", "A_USE_MARKER + N_MARKER_TYPES"),  # a bonus marker's use
}


def loop_variable(domain: Domain, env: Env, players: str) -> tuple[str, str, Env]:
    """(variable, member count, the environment inside) of a loop over `domain`: one variable
    per nesting depth, so nested sets never share one."""
    letter, field, bound = LOOP_VARIABLES.get(domain.kind, ("q", "player", players))
    depth = env.depth + 1
    var = f"{letter}{depth}"
    return var, bound, replace(env, **{field: var, "depth": depth})


def where_of(rule: HookRule) -> str:
    span = rule.span
    return f"{span.file}:{span.line}" if span.line else ""


class Dialect(ABC):
    """What one target writes for each piece of a rule: the text of numbers, quantities,
    operators, statements, effects and functions. A subclass is mostly tables (`TEXT`, the
    catalogue's column `FORM`); the methods here read them, and a subclass writes a method only
    where its target's form is more than a pattern (aggregates, dispatch, function heads)."""

    name = ""
    num_players = ""  # the expression of the player count
    true, false = "", ""
    empty: tuple[str, ...] = ()  # the body of a function without statements
    FORM = -1  # which target's code this dialect takes of EFFECT_CODE and FORBID_FACT_CODE
    # Whether the end test `x_end` is written when no end rule is tested at once
    ALWAYS_END = False
    TYPES: dict[str, str] = {}  # int, int64, bool, void, names -> the target's type
    JOIN = {"and": "", "or": ""}  # the target's word for each boolean operator
    # Patterns, by piece: each fills its named holes
    TEXT: dict[str, str] = {}
    # The forms of a quantity this dialect reads: (code, code with per-player parameters, code
    # with shared control) of the catalogue's Quantity
    QUANTITY_FORMS = ("", "", "")
    WHOLE_FORM = ""  # the quantity's form for every player at once, if the dialect has one

    def quantity(self, q: Quantity, x_params: bool, shared: bool) -> str:
        plain, params, shared_code = (getattr(q, name) for name in self.QUANTITY_FORMS)
        code = shared_code if shared and shared_code else plain
        return params if x_params and params else code

    def whole(self, q: Quantity) -> str:
        return getattr(q, self.WHOLE_FORM) if self.WHOLE_FORM else ""

    def text(self, piece: str, **holes) -> str:
        return self.TEXT[piece].format(**holes)

    def num(self, value: int) -> str:
        return self.text("num", n=int(value))

    def value(self, code: str) -> str:
        return self.text("value", code=code)

    def binop(self, op: str, left: str, right: str) -> str:
        return self.text("binop", op=op, left=left, right=right)

    def compare(self, op: str, left: str, right: str) -> str:
        return self.text("compare", op=op, left=left, right=right)

    def boolop(self, op: str, items: list[str]) -> str:
        return self.text("boolop", items=f" {self.JOIN[op]} ".join(items))

    def negate(self, item: str) -> str:
        return self.text("negate", item=item)

    def any_of(self, tests: list[str]) -> str:
        return f" {self.JOIN['or']} ".join(tests)

    def city_in_country(self, city: str, country: int) -> str:
        return self.text("city_in_country", city=city, country=country)

    def lookup(self, table: str, value: str, top: int) -> str:
        return self.text("lookup", table=table, value=value, top=top)

    def mark_applied(self) -> str:
        return self.text("mark_applied")

    def count(self, index: int) -> str:
        return self.text("count", index=index)

    def action_test(self, first: str, end: str) -> str:
        return self.text("one_id" if not end else "id_range", first=first, end=end)

    def local(self, name: str, type_: str, code: str) -> str:
        return self.text("local", type=self.TYPES[type_], name=name, code=code)

    def ret(self, value: str) -> str:
        return self.text("return", value=value)

    # What each target writes its own way (more than a pattern): every dialect implements them.
    @abstractmethod
    def aggregate(self, fn: str, var: str, bound: str, conds: list[str], body: str) -> str:
        """count/sum/max/min/some/every of `body` over the members of a set."""

    @abstractmethod
    def if_(self, test: str, body: list[str]) -> list[str]:
        """Statements run when `test` holds."""

    @abstractmethod
    def one_player(self, var: str, player: str, body: list[str]) -> list[str]:
        """`body` for one player (`var`), unless the expression names nobody."""

    @abstractmethod
    def each_player(self, var: str, bound: str, conds: list[str], body: list[str]) -> list[str]:
        """`body` for each player meeting `conds`, found before any is acted on."""

    @abstractmethod
    def applied(self, index: int, body: list[str]) -> list[str]:
        """A counted rule's effects, RULE_FIRED[index] raised if one of them ran."""

    @abstractmethod
    def set_aside(self, body: list[str]) -> list[str]:
        """`body` with the action's own decisions set aside while it runs, then put back on top."""

    @abstractmethod
    def function(self, name: str, params, returns: str, lines: list[str], player="p") -> str:
        """A function of the module: (state, player, *params) -> returns."""

    @abstractmethod
    def cases(
        self, name: str, case: str, params, selector: str, cases: dict, count: int, dense: bool
    ) -> dict[str, str]:
        """The effects of the markers or favour tiles written in words, by case."""

    @abstractmethod
    def ends_met(self, names: list[str], tests: list[str]) -> dict[str, str]:
        """Which end rules hold, for reports of how a game ended."""

    @abstractmethod
    def after_action(self, by_action: dict[str, list[tuple[int, str]]]) -> dict[str, str]:
        """The triggered favour tiles' turn after each action they react to."""


class ExprGenerator:
    """Compiles a game's rules in words into one dialect, against the game's tables (ability and
    category indices)."""

    def __init__(
        self,
        dialect: Dialect,
        names: Names,
        abilities: tuple[str, ...],
        categories: list[tuple[str, str]],
        marker_ids: dict[str, int],
        x_params: bool = False,
        city_countries: tuple[tuple[int, ...], ...] = (),
        shared_control: bool = False,
        rule_index: dict[int, int] | None = None,
        state_slots: dict[str, int] | None = None,
    ):
        self.d = dialect
        self.names = names
        self.abilities = tuple(abilities)
        self.categories = list(categories)  # (key, kind) in SCORE_KEYS order
        self.marker_ids = dict(marker_ids)
        self.x_params = x_params  # the game has per-player parameters
        self.shared_control = shared_control  # city-control ties are shared
        self.constants: dict[str, tuple] = {}  # tables precomputed (`… by TABLE`, countries)
        self.city_countries = city_countries  # the board's CITY_COUNTRIES (country indices)
        # The spec's own rules in words (not the prelude's) by identity -> their index in
        # RULE_SOURCES: each counts in RULE_FIRED when it applies (`hansa simulate`).
        self.rule_index: dict[int, int] = dict(rule_index or {})
        # The slot of each declared counter and flag among the per-player parameters.
        self.state_slots: dict[str, int] = dict(state_slots or {})

    # ---- expressions: one method per node class

    def expr(self, node, env: Env) -> str:
        method = getattr(self, "_" + type(node).__name__, None)
        if method is None:
            raise Unsupported(f"the expression node {type(node).__name__}")
        return method(node, env)

    def _Num(self, node: Num, env: Env) -> str:
        return self.d.num(int(node.value))

    def _Ref(self, node: Ref, env: Env) -> str:
        found = resolve_place_ref(node, self.names, env.scope())
        quantity, named, owner, player = found.quantity, found.named, found.owner, found.player
        if found.focus is not None:  # `controller of Lübeck`: the city or route it reads
            kind, word = found.focus
            place = self._city(word) if kind == "city" else self._route(word)
            env = replace(env, **{kind: str(place)})
        if quantity.arg == "marker":
            return self.d.num(self.marker_ids[named])  # a marker type by name: its index
        code = self.d.quantity(quantity, self.x_params, self.shared_control)
        if not code:
            raise Unsupported(f"the quantity '{quantity.name}' (no {self.d.name} form)")
        who = env.player
        if owner == "your":
            who = env.you
        if player is not None:
            who = self.expr(player, env)
        ability: int | str = 0
        category = country = slot = first = second = 0
        if quantity.arg == "ability" or quantity.needs == "ability":
            ability = self.abilities.index(named) if named else env.ability
        elif quantity.arg == "category":
            category = self._category(named)
        elif quantity.arg == "country":
            country = self._country(named)
        elif quantity.arg == "city":
            first = self._city(named)
            self._distances()
        elif quantity.arg == "pair":
            first, second = self.names.places.pair(named)
        elif quantity.arg == "state":
            slot = self.state_slots[named]
        elif quantity.arg:
            raise Unsupported(f"the quantity '{quantity.name}' (by {quantity.arg})")
        return self.d.value(
            code.format(
                P=who,
                Y=env.you,
                C=env.city,
                R=env.route,
                V=env.victim,
                A=ability,
                K=category,
                N=country,
                D=env.done,
                T=first,
                U=second,
                X=slot,
            )
        )

    def _city(self, word: str) -> int:
        """A city named in a rule (checked against the board by resolve_place_ref)."""
        return self.names.places.city(word)

    def _route(self, word: str) -> int:
        return self.names.places.route(word)

    def _distances(self) -> None:
        """X_TABLE_DISTANCE: routes on the shortest way between every two cities (row by row),
        found once at compile time; the number of cities where no way leads."""
        if "X_TABLE_DISTANCE" in self.constants:
            return
        places = self.names.places
        n = len(places.cities)
        graph = nx.Graph()
        graph.add_nodes_from(range(n))
        graph.add_edges_from(places.routes)
        lengths = dict(nx.all_pairs_shortest_path_length(graph))
        self.constants["X_TABLE_DISTANCE"] = tuple(
            lengths[a].get(b, n) for a in range(n) for b in range(n)
        )

    def _category(self, named: str) -> int:
        for i, (key, kind) in enumerate(self.categories):
            if named in (key, kind):
                return i
        raise HansaError(f"internal error: no scoring category {named!r}")

    def _country(self, name: str) -> int:
        """The country's index (checked by resolve_ref); its cities become a table of the module."""
        index = self.names.countries.index(name)
        self.constants["X_COUNTRY_CITIES"] = tuple(
            tuple(c for c, inside in enumerate(self.city_countries) if n in inside)
            for n in range(len(self.names.countries))
        )
        return index

    def _BinOp(self, node: BinOp, env: Env) -> str:
        return self.d.binop(node.op, self.expr(node.left, env), self.expr(node.right, env))

    def _Compare(self, node: Compare, env: Env) -> str:
        return self.d.compare(node.op, self.expr(node.left, env), self.expr(node.right, env))

    def _BoolOp(self, node: BoolOp, env: Env) -> str:
        return self.d.boolop(node.op, [self.expr(i, env) for i in node.items])

    def _Not(self, node: Not, env: Env) -> str:
        return self.d.negate(self.expr(node.item, env))

    def _Lookup(self, node: Lookup, env: Env) -> str:
        """A table folded at compile time into one tuple indexed by the (clamped) count."""
        top = node.rows[-1][0]
        values = tuple(
            next((pp for low, pp in reversed(node.rows) if count >= low), 0)
            for count in range(top + 1)
        )
        name = next((k for k, v in self.constants.items() if v == values), None)
        if name is None:
            name = f"X_TABLE_{len(self.constants)}"
            self.constants[name] = values
        return self.d.lookup(name, self.expr(node.value, env), top)

    def _Aggregate(self, node: Aggregate, env: Env) -> str:
        whole = self._whole_players(node)
        if whole:
            return f"{node.fn}({whole})"
        var, bound, conds, inner = self.members(node.domain, env)
        body = "1" if node.body is None else self.expr(node.body, inner)
        return self.d.aggregate(node.fn, var, bound, conds, body)

    def _whole_players(self, node: Aggregate) -> str:
        """`max track PP over players`: the quantity's list of every player's value, where the
        dialect has one (`max(s.track)`), instead of a loop."""
        body = node.body
        if node.fn not in ("max", "min", "sum") or node.domain.kind != "player":
            return ""
        if node.domain.where is not None or not isinstance(body, Ref):
            return ""
        if body.args or body.owner:
            return ""
        quantity = QUANTITIES.get(body.words)
        return self.d.whole(quantity) if quantity is not None else ""

    def members(self, domain: Domain, env: Env) -> tuple[str, str, list[str], Env]:
        """(variable, member count, the conditions a member meets, the environment inside)."""
        var, bound, inner = loop_variable(domain, env, self.d.num_players)
        conditions = []
        if domain.country:
            n = self._country(domain.country)
            if domain.kind == "city":
                conditions.append(self.d.city_in_country(var, n))
            else:
                conditions.append(self.d.compare("==", f"ROUTE_COUNTRY[{var}]", str(n)))
        if domain.kind == "opponent":
            conditions.append(self.d.compare("!=", var, env.you))
        if domain.where is not None:
            conditions.append(self.expr(domain.where, inner))
        return var, bound, conditions, inner

    def amount(self, amount: Amount, env: Env) -> str:
        if amount.per is None:
            return self.expr(amount.value, env)
        var, bound, conds, inner = self.members(amount.per, env)
        return self.d.aggregate("sum", var, bound, conds, self.expr(amount.value, inner))

    # ---- effects: statements, one table entry per effect kind

    def effects(self, effects: tuple[Effect, ...], env: Env) -> list[str]:
        lines: list[str] = []
        for effect in effects:
            if effect.whom is not None:
                lines.extend(self._effect_for(effect, env))
            else:
                lines.extend(self._guarded(effect, env))
        return lines

    def _guarded(self, effect: Effect, env: Env) -> list[str]:
        body = self._effect(effect, env)
        if env.counted:
            body = [self.d.mark_applied(), *body]
        if effect.when is None:
            return body
        return self.d.if_(self.expr(effect.when, env), body)

    def _effect(self, effect: Effect, env: Env) -> list[str]:
        kind = effect.kind
        if kind == "develop" and not effect.name:
            kind = "develop_chosen"  # the player's choice: a develop decision of any ability
        forms = EFFECT_CODE.get(kind)
        lines = forms[self.d.FORM] if forms is not None else None
        if not lines:
            raise Unsupported(f"the effect '{effect.kind}' (no {self.d.name} form)")
        holes = {"who": env.subject or env.you, "you": env.you}
        if effect.amount is not None:
            holes["amount"] = self.amount(effect.amount, env)
        if effect.value is not None:
            holes["value"] = self.expr(effect.value, env)
        if effect.kind == "develop" and effect.name:
            holes["a"] = str(self.abilities.index(effect.name))
        elif effect.kind == "take":
            holes["kind"] = "1" if effect.name.startswith("merchant") else "0"
        elif effect.kind == "may_take":
            holes["kinds"] = str(MAY_TAKE_KINDS[effect.name])
        elif effect.kind == "receive":
            name = effect.name  # as written, else in lower case (names are not case-sensitive)
            holes["marker"] = str(self.marker_ids.get(name, self.marker_ids.get(name.lower())))
        elif effect.kind == "set_param" and effect.name in self.state_slots:
            state = {name: kind for name, kind, _private in self.names.state}
            kind = "set_flag" if state[effect.name] == "flag" else "set_counter"
            holes["index"] = str(self.state_slots[effect.name])
            holes["top"] = str(MAX_COUNTER)
            lines = EFFECT_CODE[kind][self.d.FORM]
        elif effect.kind == "set_param":
            holes["index"] = str(list(SETTABLE).index(effect.name))
        return [line.format(**holes) for line in lines]

    def _effect_for(self, effect: Effect, env: Env) -> list[str]:
        """An effect on other players: one player (if not nobody), or a loop over them, the
        effect acting on each (`subject`) and reading each as the player counted over."""
        whom = effect.whom
        if whom.kind == "player":
            var, _bound, inner = loop_variable(Domain("player"), env, self.d.num_players)
            body = self._guarded(effect, replace(inner, subject=var))
            return self.d.one_player(var, self.expr(whom.player, env), body)
        var, bound, conds, inner = self.members(whom.members(), env)
        body = self._guarded(effect, replace(inner, subject=var))
        # the players are found first: an effect on one of them (PP gained) changes no other's
        # membership (two players tied for the fewest PP both gain)
        return self.d.each_player(var, bound, conds, body)

    def rule_effects(self, rule: HookRule, env: Env) -> list[str]:
        """A rule's effects, counted in RULE_FIRED when one of them runs (a rule of the spec)."""
        index = self.rule_index.get(id(rule))
        try:
            if index is None:
                return self.effects(rule.effects, env)
            if any(e.when is None and e.whom is None for e in rule.effects):  # one always runs
                return [self.d.count(index), *self.effects(rule.effects, env)]
            return self.d.applied(index, self.effects(rule.effects, replace(env, counted=True)))
        except Unsupported as exc:
            raise Unsupported(_located(str(exc), rule)) from None

    def _rule_expr(self, rule: HookRule, node, env: Env) -> str:
        try:
            return self.expr(node, env) if not isinstance(node, Amount) else self.amount(node, env)
        except Unsupported as exc:
            raise Unsupported(_located(str(exc), rule)) from None

    # ---- whole functions for the hooks

    def hook_functions(
        self, rules: tuple[HookRule, ...], marker_first: int, tie_exprs
    ) -> dict[str, str]:
        """Function text by the function's name in the dialect: the hooks' (`x_setup`,
        `x_turn_start`, `x_after_route`, `x_after_income`, …), `x_forbidden`, the end tests,
        the scoring categories (`score_KEY`), `x_tie_N`, `x_control_value`, the bonus markers and
        favour tiles written in words. Only hooks the rule set uses get one."""
        d, env = self.d, Env()
        out: dict[str, str] = {}
        for hook, name in PLAIN_HOOKS:
            chosen = [r for r in rules if r.hook == hook]
            if chosen:
                lines = [line for rule in chosen for line in self.rule_effects(rule, env)]
                out[name] = d.function(name, (), "void", lines)
        out.update(self.after_functions(rules, env))
        markers = [r for r in rules if r.hook == "marker_used"]
        cases = {marker_first + i: self.rule_effects(r, env) for i, r in enumerate(markers)}
        out.update(
            d.cases("x_marker_rule", "effect_rule_{}", (("m", "int"),), "m", cases, 0, False)
        )
        out.update(self.favour_functions(rules, env))
        forbids = [r for r in rules if r.hook == "forbid"]
        if forbids:
            out["x_forbidden"] = d.function(
                "x_forbidden", (("action", "int"),), "bool", self.forbid_lines(forbids, env)
            )
        out.update(self.end_functions([r for r in rules if r.hook == "end"], env))
        for rule in rules:
            if rule.hook == "score":
                name = f"score_{rule.target}"
                value = self._rule_expr(rule, rule.amount, env)
                out[name] = d.function(name, (), "int64", [d.ret(value)])
        for i, expr in enumerate(tie_exprs):
            out[f"x_tie_{i}"] = d.function(f"x_tie_{i}", (), "int64", [d.ret(self.expr(expr, env))])
        for rule in rules:
            if rule.hook == "order":  # who plays next: the fewest (most) of this, ties by seat
                value = self._rule_expr(rule, rule.condition, env)
                out["x_order_value"] = d.function("x_order_value", (), "int64", [d.ret(value)])
        for rule in rules:
            if rule.hook == "control" and rule.condition is not None:
                inner = Env(you="p", player="p", city="c")
                value = self._rule_expr(rule, rule.condition, inner)
                out["x_control_value"] = d.function(
                    "x_control_value", (("c", "int"),), "int64", [d.ret(value)]
                )
        return out

    def forbid_lines(self, forbids: list[HookRule], env: Env) -> list[str]:
        """`x_forbidden(s, p, action)`: whether a rule forbids the otherwise legal `action`; the
        first that does counts (the action it refused)."""
        d, lines = self.d, []
        for rule in forbids:
            if rule.target not in ACTION_IDS:
                raise Unsupported(_located(f"forbidding the action '{rule.target}'", rule))
            facts = hook_scope(f"forbid:{rule.target}")
            inner = replace(env, facts=facts.facts, victim="v" if facts.victim else "")
            condition = self._rule_expr(rule, rule.condition, inner)
            body = [
                d.local(local, type_, code[d.FORM])
                for local, (type_, *code) in FORBID_FACT_CODE.get(rule.target, {}).items()
                if re.search(rf"\b{local}\b", condition)
            ]
            index = self.rule_index.get(id(rule))
            refused = ([d.count(index)] if index is not None else []) + [d.ret(d.true)]
            body += d.if_(condition, refused)
            lines += d.if_(d.action_test(*ACTION_IDS[rule.target]), body)
        return [*lines, d.ret(d.false)]

    def end_functions(self, ends: list[HookRule], env: Env) -> dict[str, str]:
        """By timing (`target`): at once `x_end`, `after turn`/`after round` their own functions;
        and which of them hold, by name, for reports of how a game ended."""
        d, out = self.d, {}
        tests = [self._rule_expr(r, r.condition, env) for r in ends]
        for timing, name in (
            ("", "x_end"),
            ("turn", "x_end_after_turn"),
            ("round", "x_end_after_round"),
        ):
            timed = [t for r, t in zip(ends, tests, strict=True) if r.target == timing]
            if timed or (d.ALWAYS_END and not timing):
                test = d.any_of(timed) if timed else d.false
                out[name] = d.function(name, (), "bool", [d.ret(test)])
        out.update(d.ends_met([r.key.removeprefix("end:") for r in ends], tests))
        return out

    def after_functions(self, rules: tuple[HookRule, ...], env: Env) -> dict[str, str]:
        """`x_after_route` (after create_route: the route, what it completed, its post) and
        `x_after_income`, `x_after_place`, `x_after_displace`, `x_after_use_marker`: called once
        the action is applied, with what it did (HOOK_PARAMS) and `base`, the stack's height
        before it. Decisions the effects leave wait below the action's own (the action's frames
        are set aside while they run), so the action finishes first (a displaced owner
        re-places, a marker's moves are made)."""
        out: dict[str, str] = {}
        for hook in ("after_create_route", *AFTER_HOOKS):
            chosen = [r for r in rules if r.hook == hook]
            if not chosen:
                continue
            facts = hook_scope(hook)
            here = replace(env, facts=facts.facts, victim="v" if facts.victim else "")
            name = f"x_{hook}"
            if hook == "after_create_route":
                here, name = replace(here, route="r", done="done"), "x_after_route"
            body = [line for rule in chosen for line in self.rule_effects(rule, here)]
            if hook != "after_create_route":
                body = self.d.set_aside(body)
            out[name] = self.d.function(name, HOOK_PARAMS[hook], "void", body)
        return out

    def favour_functions(self, rules: tuple[HookRule, ...], env: Env) -> dict[str, str]:
        """The Emperor's Favour tiles: a tile's effects once its taker has flipped the markers
        (`favour_N`; a triggered tile's wait for the trigger: `favour_when_N`, run by
        `x_after_action` for each holder clockwise from the actor, the actor last)."""
        favours = [r for r in rules if r.hook == "favour"]
        if not favours:
            return {}
        d = self.d
        taken = {i: self.rule_effects(r, env) for i, r in enumerate(favours) if not r.trigger}
        out = d.cases("x_favour", "favour_{}", (), "t", taken, len(favours), True)
        triggered = {i: self.rule_effects(r, env) for i, r in enumerate(favours) if r.trigger}
        if not triggered:
            return out
        by_action: dict[str, list[tuple[int, str]]] = {}
        for i, rule in enumerate(favours):
            if rule.trigger:
                who, action = rule.trigger.split(":", 1)
                if action not in ACTION_IDS:
                    raise Unsupported(_located(f"a favour tile triggered by '{action}'", rule))
                by_action.setdefault(action, []).append((i, who))
        out.update(d.cases("x_favour_when", "favour_when_{}", (), "t", triggered, 0, False))
        out.update(d.after_action(by_action))
        return out


def _located(message: str, rule: HookRule) -> str:
    where = where_of(rule)
    return f"{message} at {where}" if where and " at " not in message else message


# ---- the Python dialect


def _indent(lines: list[str], by: str = "    ") -> list[str]:
    return [by + line for line in lines]


class PythonDialect(Dialect):
    name = "Python"
    num_players = "s.num_players"
    true, false = "True", "False"
    empty = ("pass",)
    FORM = 0  # the Python code of the catalogue's tables (EFFECT_CODE, FORBID_FACT_CODE)
    TYPES = {"int": "int", "int64": "int", "bool": "bool", "void": "None", "names": "list[str]"}
    JOIN = {"and": "and", "or": "or"}
    QUANTITY_FORMS = ("code", "code_params", "code_shared")
    WHOLE_FORM = "whole"
    TEXT = {
        "num": "{n}",
        "value": "{code}",  # a bool quantity's code yields a bool (a comparison, a table of bools)
        "binop": "({left} {op} {right})",
        "compare": "({left} {op} {right})",
        "boolop": "({items})",
        "negate": "(not {item})",
        "city_in_country": "{country} in CITY_COUNTRIES[{city}]",
        "lookup": "{table}[min(max({value}, 0), {top})]",
        "mark_applied": "applied = True",
        "count": "RULE_FIRED[{index}] += 1",
        "one_id": "action == {first}",
        "id_range": "{first} <= action < {end}",
        "local": "{name} = {code}",
        "return": "return {value}",
    }

    def _loop(self, var: str, bound: str, conds: list[str]) -> str:
        where = " if " + " and ".join(conds) if conds else ""
        return f"for {var} in range({bound}){where}"

    def aggregate(self, fn: str, var: str, bound: str, conds: list[str], body: str) -> str:
        loop = self._loop(var, bound, conds)
        if fn in ("count", "sum"):
            return f"sum({body} {loop})"
        if fn in ("max", "min"):
            return f"{fn}(({body} {loop}), default=0)"
        if fn in ("some", "every"):
            return f"{'any' if fn == 'some' else 'all'}({body} {loop})"
        raise Unsupported(f"the aggregate {fn!r}")

    def if_(self, test: str, body: list[str]) -> list[str]:
        return [f"if {test}:", *_indent(body or list(self.empty))]

    def one_player(self, var: str, player: str, body: list[str]) -> list[str]:
        return [f"{var} = {player}", *self.if_(f"{var} >= 0", body)]

    def each_player(self, var: str, bound: str, conds: list[str], body: list[str]) -> list[str]:
        return [f"for {var} in [{var} {self._loop(var, bound, conds)}]:", *_indent(body)]

    def applied(self, index: int, body: list[str]) -> list[str]:
        return ["applied = False", *body, "if applied:", "    " + self.count(index)]

    def set_aside(self, body: list[str]) -> list[str]:
        return ["own = s.stack[base:]", "del s.stack[base:]", *body, "s.stack.extend(own)"]

    def function(self, name: str, params, returns: str, lines: list[str], player="p") -> str:
        """A function's source; it sits in a `fmt: off` block, so a long line is marked for ruff."""
        args = "".join(f", {n}: {self.TYPES[t]}" for n, t in params)
        head = _fit(f"def _{name}(s: State, {player}: int{args}) -> {self.TYPES[returns]}:")
        body = "\n".join(_fit("    " + line) for line in (lines or self.empty))
        return f"{head}\n{body}\n"

    def cases(self, name, case, params, selector, cases, count, dense) -> dict[str, str]:
        """One function per case (`_effect_rule_N`, `_favour_N`); a bonus marker written in
        words is always usable (`_usable_rule_N`)."""
        out = {}
        for i in range(count) if dense else sorted(cases):
            fn = case.format(i)
            if fn.startswith("effect_rule_"):
                usable = fn.replace("effect_", "usable_", 1)
                out[usable] = self.function(usable, params, "bool", ["return True"])
            out[fn] = self.function(fn, params, "void", cases.get(i, []))
        return out

    def ends_met(self, names: list[str], tests: list[str]) -> dict[str, str]:
        """`_x_ends_met`: which end rules hold, by name (`state.end_conditions_met()`)."""
        if not names:
            return {}
        named = "".join(f"({n!r}, {t}), " for n, t in zip(names, tests, strict=True))
        lines = [f"return [name for name, met in ({named}) if met]"]
        return {"x_ends_met": self.function("x_ends_met", (), "names", lines)}

    def after_action(self, by_action) -> dict[str, str]:
        """`_x_after_action`, after every action of a turn: for each action a tile reacts to,
        each holder clockwise from the acting player (the actor last) runs the tile's effects.
        Decisions they leave go below the action's own, the first holder's on top, so the action
        finishes first and the holders then decide in clockwise order."""
        lines = ["n = s.num_players", "groups = []"]
        for action, tiles in by_action.items():
            lines.append(f"if {self.action_test(*ACTION_IDS[action])}:")
            lines.append("    for k in range(1, n + 1):  # clockwise from the actor, who is last")
            lines.append("        h = (a + k) % n")
            lines.append("        held = s.fav_held[h]")
            for i, who in tiles:
                guard = {"another": " and h != a", "you": " and h == a", "any": ""}[who]
                lines.append(f"        if {i} in held{guard}:")
                lines.append("            base = len(s.stack)")
                lines.append(f"            _favour_when_{i}(s, h)")
                lines.append("            groups.append(s.stack[base:])")
                lines.append("            del s.stack[base:]")
        lines.append("for group in groups:  # the first holder's decisions end up on top")
        lines.append("    s.stack[0:0] = group")
        params = (("action", "int"),)
        return {"x_after_action": self.function("x_after_action", params, "void", lines, "a")}


def _fit(line: str) -> str:
    return line + "  # noqa: E501" if len(line) > 100 else line


PYTHON = PythonDialect()


def python_generator(*args, **kwargs) -> ExprGenerator:
    """The generator of a game's Python rule module (`compiler/model/words.py`)."""
    return ExprGenerator(PYTHON, *args, **kwargs)


def quantity_names() -> tuple[str, ...]:
    return tuple(QUANTITIES)
