"""The work a rule in words costs each time the game evaluates it, estimated before it is compiled.

A generated module evaluates a rule in words often: an end condition after every action, a
`forbid` rule while listing legal actions, a scoring category whenever an agent previews the
score. Each set a rule counts over (`count cities where …`, `sum … over players`, `… per
city`) repeats what is inside it once per member, so nesting multiplies: five `count cities
where` inside each other are 27⁵ ≈ 14 million steps per evaluation on a 27-city board. The model
stage refuses a rule whose estimate exceeds `MAX_RULE_COST`, at the rule, with the estimate, so
`hansa check` says so instead of `check` or `play` running for minutes.

The estimate is an upper bound in "steps" (one quantity read, one comparison): one method per node
class, as in the code generator. A quantity whose code calls a function of the state walks the
board (or, when it reads the city or route counted over, that one city or route); `score of K`
costs what category K costs.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import Diagnostic
from ..nodes.expr import (
    Aggregate,
    Amount,
    BinOp,
    BoolOp,
    Domain,
    Effect,
    HookRule,
    Lookup,
    Not,
    Num,
    Ref,
)
from .check import FACT_PLACES, ExprError, Names, Scope, resolve_ref

MAX_RULE_COST = 100_000  # steps per evaluation (2 to 10 milliseconds of Python)
_ANY_SCOPE = Scope(
    city=True,
    route=True,
    victim=True,
    counting_players=True,
    ability=True,
    created=True,
    facts=tuple(FACT_PLACES),
)


@dataclass(frozen=True)
class Sizes:
    """What a game's sets and walks cost: the members of each set, and the steps of a walk over
    the whole board and over one city or route."""

    city: int
    route: int
    player: int
    ability: int
    board: int  # a walk over every city, space and point
    local: int  # a walk over one city's spaces or one route's points

    def of(self, domain: Domain) -> int:
        if domain.kind == "opponent":
            return max(self.player - 1, 0)
        return getattr(self, domain.kind)


class RuleWalk:
    """What every static walk of one game's rules in words shares (the cost here, the bounds of
    `compiler/model/bounds.py`): one number per node, one method per node class in the
    subclass, and `score of K` worth what category K's own rule is worth, memoised by key; a
    category without a rule in words (a template) or one reading itself is `template()`."""

    def __init__(self, names: Names, sizes: Sizes, categories: dict[str, HookRule | None]):
        self.names = names
        self.sizes = sizes
        self.categories = categories  # key and kind → its rule in words (None: a template)
        self._known: dict[str, int] = {}
        self._open: set[str] = set()

    def rule(self, rule: HookRule) -> int:
        raise NotImplementedError

    def template(self) -> int:
        raise NotImplementedError

    def category(self, name: str) -> int:
        if name in self._known:
            return self._known[name]
        rule = self.categories.get(name)
        if rule is None or name in self._open:  # a template, or a category reading itself
            return self.template()
        self._open.add(name)
        try:
            value = self.rule(rule)
        finally:
            self._open.discard(name)
        self._known[name] = value
        return value

    @classmethod
    def of_game(cls, rules, names: Names, sizes: Sizes, categories: list[tuple[str, str]]):
        """The walk of a game whose categories are (key, kind) and whose `rules` (its own and
        the prelude's) hold the score rules that say what `score of K` is."""
        scored = {r.target: r for r in rules if r.hook == "score" and r.amount is not None}
        by_name: dict[str, HookRule | None] = {}
        for key, kind in categories:
            by_name[key] = by_name[kind] = scored.get(key)
        return cls(names, sizes, by_name)

    def walk(self, rules: tuple[HookRule, ...], tie_exprs: list, refused=()):
        """(span, value) of each rule and tie-break expression, the value an exception of the
        `refused` types where the walk raised one; a part naming what the checks refuse is
        left to their own error."""
        for part in [*rules, *tie_exprs]:
            try:
                value = self.rule(part) if isinstance(part, HookRule) else self.expr(part)
            except ExprError:
                continue
            except refused as exc:
                value = exc
            yield part.span, value

    def expr(self, node) -> int:
        raise NotImplementedError


class CostEstimator(RuleWalk):
    """Steps per evaluation of expressions and rules of one game."""

    def template(self) -> int:
        return self.sizes.board  # a walk over the board

    def expr(self, node) -> int:
        return getattr(self, "_" + type(node).__name__)(node)

    def _Num(self, node: Num) -> int:
        return 1

    def _Ref(self, node: Ref) -> int:
        quantity, named, _owner, player = resolve_ref(node, self.names, _ANY_SCOPE)
        extra = self.expr(player) if player is not None else 0
        if quantity.arg == "category":
            return extra + self.category(named)
        if "(s" not in quantity.code:
            return extra + 1  # a table or a field of the state
        local = quantity.needs in ("city", "route")
        return extra + (self.sizes.local if local else self.sizes.board)

    def _BinOp(self, node: BinOp) -> int:
        return 1 + self.expr(node.left) + self.expr(node.right)

    _Compare = _BinOp

    def _BoolOp(self, node: BoolOp) -> int:
        return sum(self.expr(item) for item in node.items)

    def _Not(self, node: Not) -> int:
        return 1 + self.expr(node.item)

    def _Aggregate(self, node: Aggregate) -> int:
        body = self.expr(node.body) if node.body is not None else 0
        return self.domain(node.domain, body)

    def _Lookup(self, node: Lookup) -> int:
        return 1 + self.expr(node.value)

    def domain(self, domain: Domain, body: int) -> int:
        """Each member's filter and `body`, once per member of the set."""
        where = self.expr(domain.where) if domain.where is not None else 0
        return self.sizes.of(domain) * (1 + where + body)

    def amount(self, amount: Amount) -> int:
        value = self.expr(amount.value)
        return value + (self.domain(amount.per, 0) if amount.per is not None else 0)

    def effect(self, effect: Effect) -> int:
        cost = 1
        if effect.amount is not None:
            cost += self.amount(effect.amount)
        for part in (effect.value, effect.when):
            if part is not None:
                cost += self.expr(part)
        if effect.whom is not None:  # once per player acted on, after finding them
            whom = effect.whom
            if whom.kind == "player":
                return self.expr(whom.player) + cost
            return self.domain(whom.members(), cost)
        return cost

    def rule(self, rule: HookRule) -> int:
        cost = sum(self.effect(e) for e in rule.effects)
        if rule.amount is not None:
            cost += self.amount(rule.amount)
        if rule.condition is not None:
            cost += self.expr(rule.condition)
        return cost


def costly_rules(
    rules: tuple[HookRule, ...],
    tie_exprs: list,
    names: Names,
    sizes: Sizes,
    categories: list[tuple[str, str]],
) -> list[Diagnostic]:
    """An error at each rule in words (and tie-break expression) whose estimate exceeds
    MAX_RULE_COST. `categories` are the game's (key, kind); `rules` hold the game's rules in words
    and the prelude's, whose score rules give what `score of K` costs."""
    estimator = CostEstimator.of_game(rules, names, sizes, categories)
    problems = []
    for span, cost in estimator.walk(rules, tie_exprs):
        if cost > MAX_RULE_COST:
            problems.append(
                Diagnostic(
                    f"this rule would take about {cost:,} steps each time the game evaluates it"
                    f" (at most {MAX_RULE_COST:,}): a set it counts over repeats what is inside"
                    f" it once per member ({sizes.city} cities, {sizes.route} routes,"
                    f" {sizes.player} players), so nested sets multiply; write it with fewer"
                    " sets inside each other",
                    span,
                )
            )
    return problems
