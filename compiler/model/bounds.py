"""The largest value each part of a rule in words can take, found before the game is built.

The Python backend computes with unbounded integers, the native one with C's 64-bit integers, so a
rule whose arithmetic could leave 64 bits would play differently on them. Every number a rule
reads is bounded (sizes.py): a written number by MAX_NUMBER, the track by MAX_PP (it saturates),
an ability's value by MAX_ABILITY_VALUE, a count of pieces, cities, spaces or points by the
board and MAX_PIECES, a per-player parameter by MAX_PARAM (below). Sums, differences and
products of them, and counts and sums over a set (its members times what is inside), are bounded
in turn: `BoundEstimator` walks a rule as `compiler/expr/cost.py` does and refuses, at the rule,
one any of whose parts could exceed MAX_VALUE (far inside 64 bits), so both backends compute
every rule exactly. Magnitudes are bounded, not signed intervals: `a - b` is bounded by |a| + |b|.
"""

from __future__ import annotations

from ..errors import Diagnostic
from ..expr.check import Names, resolve_ref
from ..expr.cost import _ANY_SCOPE, RuleWalk, Sizes
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
from ..syntax.limits import MAX_NUMBER
from .sizes import MAX_ABILITY_VALUE, MAX_PARAM, MAX_PIECES, MAX_PP, MAX_TURNS, MAX_VALUE

# Quantities bounded by something smaller than a board-wide sum of PP values.
SMALL = {
    "track pp": MAX_PP,
    "level": MAX_ABILITY_VALUE,
    "value": MAX_ABILITY_VALUE,
    "turn number": MAX_TURNS,
}
PP_WORDS = ("pp", "coins", "prestige", "score")


class BoundError(Exception):
    """A part of a rule whose bound exceeds what it may hold."""

    def __init__(self, bound: int, limit: int, what: str):
        super().__init__(what)
        self.bound, self.limit, self.what = bound, limit, what


class BoundEstimator(RuleWalk):
    """The largest magnitude of each expression of one game."""

    def __init__(self, names: Names, sizes: Sizes, categories: dict[str, HookRule | None]):
        super().__init__(names, sizes, categories)
        self.things = sizes.board + MAX_PIECES * sizes.player  # pieces, cities, spaces, points

    def template(self) -> int:
        """A category without a rule in words (mission cards, country majorities): a PP value
        per thing at most."""
        return MAX_NUMBER * self.things

    def expr(self, node) -> int:
        bound = getattr(self, "_" + type(node).__name__)(node)
        if bound > MAX_VALUE:
            raise BoundError(bound, MAX_VALUE, "a value")
        return bound

    def _Num(self, node: Num) -> int:
        return abs(node.value)

    def _Ref(self, node: Ref) -> int:
        quantity, named, _owner, player = resolve_ref(node, self.names, _ANY_SCOPE)
        if player is not None:
            self.expr(player)
        if quantity.type != "number":
            return max(self.sizes.player, 1)
        if quantity.arg == "category":
            return self.category(named)
        if quantity.arg == "state":
            return MAX_PARAM  # a counter is kept within 0..MAX_PARAM
        if quantity.name in SMALL:
            return SMALL[quantity.name]
        if any(word in quantity.name for word in PP_WORDS):
            return MAX_NUMBER * self.things  # a PP value (at most MAX_NUMBER) per thing at most
        return self.things

    def _BinOp(self, node: BinOp) -> int:
        left, right = self.expr(node.left), self.expr(node.right)
        if node.op == "*":
            return left * right
        if node.op == "//":
            return left
        return left + right

    def _Compare(self, node) -> int:
        self.expr(node.left)
        self.expr(node.right)
        return 1

    def _BoolOp(self, node: BoolOp) -> int:
        for item in node.items:
            self.expr(item)
        return 1

    def _Not(self, node: Not) -> int:
        self.expr(node.item)
        return 1

    def _Aggregate(self, node: Aggregate) -> int:
        members = self.domain(node.domain)
        body = self.expr(node.body) if node.body is not None else 1
        if node.fn == "count":
            return members
        if node.fn == "sum":
            return members * body
        if node.fn in ("max", "min"):
            return body
        return 1

    def _Lookup(self, node: Lookup) -> int:
        self.expr(node.value)
        return max((abs(pp) for _low, pp in node.rows), default=MAX_NUMBER)

    def domain(self, domain: Domain) -> int:
        if domain.where is not None:
            self.expr(domain.where)
        return max(self.sizes.of(domain), 1)

    def amount(self, amount: Amount) -> int:
        value = self.expr(amount.value)
        bound = value * (self.domain(amount.per) if amount.per is not None else 1)
        if bound > MAX_VALUE:
            raise BoundError(bound, MAX_VALUE, "the amount")
        return bound

    def effect(self, effect: Effect) -> None:
        if effect.amount is not None:
            self.amount(effect.amount)
        for part in (effect.value, effect.when):
            if part is not None:
                bound = self.expr(part)
                state = {name for name, _kind, _private in self.names.state}
                if effect.kind == "set_param" and effect.name in state:
                    continue  # a counter is kept within 0..MAX_PARAM as it is set
                if effect.kind == "set_param" and part is effect.value and bound > MAX_PARAM:
                    raise BoundError(bound, MAX_PARAM, f"the value its {effect.name} becomes")
        if effect.whom is not None:
            whom = effect.whom
            for part in (whom.player, whom.value):
                if part is not None:
                    self.expr(part)
            if whom.domain is not None:
                self.domain(whom.domain)

    def rule(self, rule: HookRule) -> int:
        for effect in rule.effects:
            self.effect(effect)
        if rule.condition is not None:
            self.expr(rule.condition)
        return self.amount(rule.amount) if rule.amount is not None else 0


def unbounded_rules(
    rules: tuple[HookRule, ...],
    tie_exprs: list,
    names: Names,
    sizes: Sizes,
    categories: list[tuple[str, str]],
) -> list[Diagnostic]:
    """An error at each rule in words (and tie-break expression) with a part whose bound exceeds
    its limit (MAX_VALUE; MAX_PARAM for a per-player parameter)."""
    estimator = BoundEstimator.of_game(rules, names, sizes, categories)
    problems = []
    for span, exc in estimator.walk(rules, tie_exprs, refused=BoundError):
        if isinstance(exc, BoundError):
            problems.append(
                Diagnostic(
                    f"{exc.what} of this rule could reach {exc.bound:,} (at most {exc.limit:,}):"
                    " every number a rule reads has a largest value (the track at most"
                    f" {MAX_PP:,} PP, a written number at most {MAX_NUMBER:,}), and sums,"
                    " products and sets multiply them; write it with smaller numbers or"
                    " fewer products",
                    span,
                )
            )
    return problems
