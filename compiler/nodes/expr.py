"""The IR of rules in words: expressions, effects and the hooked rules that hold them.

Rules written in words (`score G "Harbour master": 2 PP per city where coins > 0 and your posts
here > 0`) lower to these frozen dataclasses (compiler/expr/lower.py), are type-checked against the
quantity catalogue (compiler/expr/check.py) and compiled to Python by compiler/expr/codegen.py,
one method per node class. Every node keeps its span (not part of equality, so formatting is
never a difference); `text` renders a node back in the spec's words for `hansa diff`.

Names (quantities, abilities, marker labels) stay plain strings here; code generation turns them
into table indices or `repr` literals, never into code.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import NO_SPAN, Span


@dataclass(frozen=True)
class Num:
    """A whole number; `unit` is "pp" or "actions" in an amount (`2 PP`), else ""."""

    value: int
    unit: str = ""
    span: Span = field(default=NO_SPAN, compare=False, repr=False)

    def text(self) -> str:
        unit = {"pp": " PP", "actions": " actions"}.get(self.unit, "")
        return f"{self.value}{unit}"


@dataclass(frozen=True)
class Ref:
    """A quantity or a name: `words` (lower case, articles dropped) with `of …` arguments.

    `owner` is "your" (the rule's player) or "their" (the player being counted over), or "".
    """

    words: str
    args: tuple[str, ...] = ()
    owner: str = ""
    span: Span = field(default=NO_SPAN, compare=False, repr=False)

    def text(self) -> str:
        head = f"{self.owner} {self.words}" if self.owner else self.words
        return " of ".join((head, *self.args))


@dataclass(frozen=True)
class BinOp:
    """Arithmetic: + - *, and `//` whose right side is a non-zero literal (checked in lowering)."""

    op: str
    left: Expr
    right: Expr
    span: Span = field(default=NO_SPAN, compare=False, repr=False)

    def text(self) -> str:
        op = "/" if self.op == "//" else self.op
        return f"({self.left.text()} {op} {self.right.text()})"


@dataclass(frozen=True)
class Compare:
    op: str  # >= <= > < == !=
    left: Expr
    right: Expr
    span: Span = field(default=NO_SPAN, compare=False, repr=False)

    def text(self) -> str:
        op = {"==": "=", "!=": "is not"}.get(self.op, self.op)
        return f"{self.left.text()} {op} {self.right.text()}"


@dataclass(frozen=True)
class BoolOp:
    op: str  # and | or
    items: tuple[Expr, ...]
    span: Span = field(default=NO_SPAN, compare=False, repr=False)

    def text(self) -> str:
        return f" {self.op} ".join(i.text() for i in self.items)


@dataclass(frozen=True)
class Not:
    item: Expr
    span: Span = field(default=NO_SPAN, compare=False, repr=False)

    def text(self) -> str:
        return f"not {self.item.text()}"


@dataclass(frozen=True)
class Domain:
    """A board or player set: `cities` / `routes` / `players` / `opponents` / `abilities`, with a
    filter; `country` keeps cities or routes of one country of the board (`cities in wales`)."""

    kind: str  # city | route | player | opponent | ability
    where: Expr | None = None
    country: str = field(default="", metadata={"omit_default": True})
    span: Span = field(default=NO_SPAN, compare=False, repr=False)

    def text(self) -> str:
        country = f" in {self.country}" if self.country else ""
        if self.where == Ref("controls here", owner="your") and not country:
            return f"{self.kind} you control"
        return self.kind + country + (f" where {self.where.text()}" if self.where else "")


@dataclass(frozen=True)
class Aggregate:
    """count / sum / max / min over a domain (`body` is None for count); empty sets give 0.
    some / every: whether the condition `body` holds for one / all members."""

    fn: str  # count | sum | max | min | some | every
    domain: Domain
    body: Expr | None = None
    span: Span = field(default=NO_SPAN, compare=False, repr=False)

    def text(self) -> str:
        if self.body is None:
            return f"{self.fn} {self.domain.text()}"
        if self.fn in ("some", "every"):
            return f"{self.fn} {self.domain.text()} has {self.body.text()}"
        return f"{self.fn} {self.body.text()} over {self.domain.text()}"


@dataclass(frozen=True)
class Lookup:
    """`collected bonuses by table`: the PP of the last row whose count `value` reaches (0 below
    the first row). `table` names a kind's table parameter (compiler/rules/prelude.hansa);
    expanding the kind fills `rows` ((least count, PP), …) from the rule set."""

    value: Expr
    table: str
    rows: tuple[tuple[int, int], ...] = ()
    span: Span = field(default=NO_SPAN, compare=False, repr=False)

    def text(self) -> str:
        if self.rows:
            rows = ", ".join(f"{low}+: {pp}" for low, pp in self.rows)
            return f"{self.value.text()} by {{ {rows} }}"
        return f"{self.value.text()} by {self.table}"


Expr = Num | Ref | BinOp | Compare | BoolOp | Not | Aggregate | Lookup


@dataclass(frozen=True)
class Amount:
    """`2 PP per city you control`: `value` times the size of `per` (when given)."""

    value: Expr
    per: Domain | None = None
    span: Span = field(default=NO_SPAN, compare=False, repr=False)

    def text(self) -> str:
        return self.value.text() + (f" per {self.per.text()}" if self.per is not None else "")


@dataclass(frozen=True)
class Whom:
    """Who an effect acts on when not the rule's own player: `kind` "player" (one player,
    `player`: `the displaced player`), "each" (every member of `domain`: `each other player`),
    or "most"/"fewest" (every player tied for the most/fewest `value`: `the player with the
    fewest track PP`). The effect's own quantities read that player (`their X`); `your X` and
    `you` stay the rule's player."""

    kind: str
    player: Expr | None = None
    domain: Domain | None = None
    value: Expr | None = None
    span: Span = field(default=NO_SPAN, compare=False, repr=False)

    def members(self) -> Domain:
        """The players acted on, as a set (`most`/`fewest`: a player whose value is the
        extreme over all players)."""
        if self.domain is not None:
            return self.domain
        fn = "max" if self.kind == "most" else "min"
        best = Aggregate(fn, Domain("player", span=self.span), self.value, span=self.span)
        where = Compare("==", self.value, best, span=self.span)
        return Domain("player", where, span=self.span)

    def text(self) -> str:
        if self.kind == "player":  # `the displaced player`, `the last seat`
            text = self.player.text()
            return text if text in ("you", "them", "nobody") else f"the {text}"
        if self.kind == "each":
            if self.domain.kind == "opponent" and self.domain.where is None:
                return "each other player"
            return f"each {self.domain.text()}"
        if self.value is None:  # no kind the parser makes: an edited tree's (a diff's) words
            return f"the {self.kind.replace('_', ' ')}"
        return f"the player with the {self.kind} {self.value.text()}"


# The third person of an effect's verb, for an effect on other players (`each opponent gains`).
_THIRD_PERSON = {"gain ": "gains ", "lose ": "loses ", "develop ": "develops ", "take ": "takes "}


@dataclass(frozen=True)
class Effect:
    """One effect: kind gain_pp | lose_pp | extra_actions | develop | take | receive | set_param.

    `amount` for gain/lose/extra actions, `value` for take/set_param, `name` the ability (""
    = the player chooses), the piece kind, the marker label or the parameter; `when` a condition.
    """

    kind: str
    amount: Amount | None = None
    value: Expr | None = None
    name: str = ""
    when: Expr | None = None
    span: Span = field(default=NO_SPAN, compare=False, repr=False)
    # The players it acts on (None: the rule's own player, `you`).
    whom: Whom | None = field(default=None, metadata={"omit_default": True})

    def text(self) -> str:
        amount = self.amount.text() if self.amount is not None else ""
        value = self.value.text() if self.value is not None else ""
        body = {
            "gain_pp": f"gain {amount}",
            "lose_pp": f"lose {amount}",
            "extra_actions": f"gain {amount}",
            "develop": f"develop {self.name or 'an ability'}",
            "take": f"take {value} {self.name} from the stock",
            "receive": f"receive marker {self.name}",
            "set_param": f"your {self.name} becomes {value}",
            "may_take": f"you may take {value} {self.name} from the stock",
            "draw_keep": f"draw {value} keep 1",
            "display": f"choose from {value} on display",
        }.get(self.kind, f"{self.kind} {amount or value or self.name}")
        if self.whom is not None:
            verb, _, rest = body.partition(" ")
            third = _THIRD_PERSON.get(verb + " ", verb + "s ").strip()
            body = f"{self.whom.text()} {third} {rest}"
        return body + (f" if {self.when.text()}" if self.when is not None else "")


# Where a rule acts (docs/rules-language.md lists what each hook may do).
HOOKS = (
    "setup",
    "turn_start",
    "turn_end",
    "marker_draw",
    "marker_used",
    "after_create_route",
    "after_income",
    "after_place",
    "after_displace",
    "after_use_marker",
    "favour",
    "forbid",
    "score",
    "end",
    "tiebreak",
    "control",
    "state",
    "order",
)


@dataclass(frozen=True)
class HookRule:
    """A rule in words. `key` identifies it across `extends` (a child's rule with the same key
    replaces the parent's): hook plus label/category/action. `effects` for effect hooks; `amount`
    for a score category; `condition` for forbid and end; `target` the forbidden action, the
    category key or the marker label; `params` a marker's count/start."""

    hook: str
    key: str
    target: str = ""
    label: str = ""
    effects: tuple[Effect, ...] = ()
    amount: Amount | None = None
    condition: Expr | None = None
    params: tuple[tuple[str, int], ...] = ()
    span: Span = field(default=NO_SPAN, compare=False, repr=False)
    # A triggered favour tile: "WHO:ACTION" (WHO another | any | you), "" for the others.
    trigger: str = field(default="", metadata={"omit_default": True})

    def text(self) -> str:
        condition = self.condition.text() if self.condition is not None else ""
        if self.hook == "score" and self.amount is not None:
            label = f' "{self.label}"' if self.label else ""
            return f"score {self.target}{label}: {self.amount.text()}"
        if self.hook == "end":  # `target`: its timing, "turn" or "round" ("" at once)
            return f"end when {condition}" + (f" after {self.target}" if self.target else "")
        if self.hook == "forbid":
            action = "use marker" if self.target == MARKER_TRIGGER else self.target
            return f"forbid {action} when {condition}"
        if self.hook == "control":
            rule = {
                "rightmost_post": "the rightmost post",
                "nobody": "nobody on a tie",
                "shared": "every tied player",
            }
            return f"control goes to {rule.get(self.target, self.target)}" + (
                f" {self.condition.text()}" if self.condition is not None else ""
            )
        if self.hook == "order":  # `turn_order fewest track PP`
            return f"turn_order {self.target} {condition}"
        if self.hook == "state":  # `counter harbours`, `flag used_relief private yes`
            private = " private yes" if dict(self.params).get("private") else ""
            return f"{self.label} {self.target}{private}"
        effects = ", ".join(e.text() for e in self.effects)
        head = {
            "setup": "at setup",
            "turn_start": "at turn start",
            "turn_end": "at turn end",
            "marker_draw": "at marker draw",
            "after_create_route": "after create_route",
            "after_use_marker": "after use marker",
            "favour": f'favour "{self.target}"' + trigger_text(self.trigger),
            "marker_used": f'bonus "{self.target}"'
            + "".join(f" {k} {v}" for k, v in self.params)
            + " when used",
        }.get(self.hook, "")
        if not head and self.hook.startswith("after_"):  # `after income`, `after displace`
            head = self.hook.replace("_", " ", 1)
        head = head or f"{self.hook} {self.target} {condition}".strip()
        return f"{head}: {effects}"


TRIGGER_WHO = {"another": "another player takes", "any": "any player takes", "you": "you take"}
# The trigger of a tile reacting to a bonus marker's use ("another:use_marker").
MARKER_TRIGGER = "use_marker"
MARKER_TRIGGER_WHO = {"another": "another player uses", "any": "any player uses", "you": "you use"}


def trigger_text(trigger: str) -> str:
    """` when another player takes income` for a triggered tile's "another:income", else ""."""
    if not trigger:
        return ""
    who, known, action = trigger.partition(":")
    if not known or who not in TRIGGER_WHO:  # not one the language writes: shown as it is
        return f" when {trigger}"
    if action == MARKER_TRIGGER:
        return f" when {MARKER_TRIGGER_WHO[who]} a bonus marker"
    return f" when {TRIGGER_WHO[who]} {action}"
