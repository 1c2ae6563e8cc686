"""Rules in words: syntax trees of compiler/syntax/grammar/expr.lark → the expression IR
(compiler/nodes/expr.py).

Lowering is purely structural, with two rules that make division by zero and unbounded loops
impossible by construction: `/` only takes a non-zero whole-number literal, and the only loops are
count/sum/max/min/some/every over a board set (cities, routes) or the players. Names are checked
later (compiler/expr/check.py), against the quantity catalogue and the rule set, with "did you
mean".
"""

from __future__ import annotations

from dataclasses import replace

import lark

from ..errors import HansaError, Span, did_you_mean
from ..nodes.expr import (
    MARKER_TRIGGER,
    MARKER_TRIGGER_WHO,
    Aggregate,
    Amount,
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
    Whom,
)
from ..syntax.limits import number_problem
from ..syntax.parser import span_of, unquote
from .catalogue import DOMAINS

ARTICLES = ("the", "a", "an")
# The actions a triggered favour tile may react to (`when another player takes income`).
TRIGGER_ACTIONS = ("income", "place", "displace", "move", "create_route")
# The actions an `after ACTION:` hook follows (create_route has its own statement; a bonus
# marker's use is `after use marker:`). Not Move: its pieces are moved by decisions after it.
AFTER_ACTIONS = ("income", "place", "displace", "create_route")


def when_marker(when: lark.Tree) -> bool:
    """Whether a tile's trigger is a bonus marker's use (`another player uses a bonus marker`)."""
    return when.data.endswith("_marker")


UNITS = {"pp": "pp", "action": "actions", "actions": "actions"}
_OPS = {">=": ">=", "<=": "<=", ">": ">", "<": "<", "=": "==", "!=": "!="}


def _words(tree: lark.Tree) -> str:
    """A phrase, lower case, articles dropped: `the Track PP` → "track pp"."""
    words = [str(t).lower() for t in tree.children]
    kept = [w for w in words if w not in ARTICLES]
    return " ".join(kept or words)  # `of A`: a category key, not an article


def _int(token: lark.Token, file: str) -> int:
    """A number in a rule in words, or a HansaError at it when it exceeds MAX_NUMBER."""
    problem = number_problem(str(token))
    if problem:
        raise HansaError(problem, span_of(token, file))
    return int(str(token))


def lower_expr(tree: lark.Tree | lark.Token, file: str) -> Expr:
    span = span_of(tree, file)
    if isinstance(tree, lark.Token):  # pragma: no cover - the grammar wraps every token
        raise HansaError("unexpected token in an expression", span)
    data = tree.data
    kids = tree.children
    if data == "x_int":
        return Num(_int(kids[0], file), span=span)
    if data == "x_int_unit":
        unit = str(kids[1]).lower()
        if unit not in UNITS:
            raise HansaError(
                f"unknown unit '{kids[1]}' after {kids[0]} (units: PP, actions)",
                span_of(kids[1], file),
            )
        return Num(_int(kids[0], file), UNITS[unit], span=span)
    if data == "x_int_action":
        return Num(_int(kids[0], file), "actions", span=span)
    if data == "x_ref":
        owner = ""
        rest = list(kids)
        if isinstance(rest[0], lark.Tree) and rest[0].data == "x_possessive":
            owner = str(rest[0].children[0])
            rest = rest[1:]
        words = _words(rest[0])
        args = tuple(_words(t) for t in rest[1:])
        if not words:
            raise HansaError("a name is missing here", span)
        return Ref(words, args, owner, span=span)
    if data in ("x_add", "x_sub", "x_mul"):
        op = {"x_add": "+", "x_sub": "-", "x_mul": "*"}[data]
        return BinOp(op, lower_expr(kids[0], file), lower_expr(kids[1], file), span=span)
    if data == "x_div":
        divisor = _int(kids[1], file)
        if divisor == 0:
            raise HansaError("division by zero", span_of(kids[1], file))
        return BinOp("//", lower_expr(kids[0], file), Num(divisor, span=span), span=span)
    if data == "x_compare":
        op = _OPS[str(kids[1].children[0])]
        return Compare(op, lower_expr(kids[0], file), lower_expr(kids[2], file), span=span)
    if data == "x_is":
        return Compare("==", lower_expr(kids[0], file), lower_expr(kids[1], file), span=span)
    if data == "x_is_not":
        return Compare("!=", lower_expr(kids[0], file), lower_expr(kids[1], file), span=span)
    if data in ("x_and", "x_or"):
        op = data[2:]
        items: list[Expr] = []
        for kid in kids:
            item = lower_expr(kid, file)
            items.extend(item.items if isinstance(item, BoolOp) and item.op == op else (item,))
        return BoolOp(op, tuple(items), span=span)
    if data == "x_not":
        return Not(lower_expr(kids[0], file), span=span)
    if data == "x_count":
        return Aggregate("count", lower_domain(kids[0], file), span=span)
    if data == "x_aggregate":
        fn = str(kids[0].children[0])
        body = lower_expr(kids[1], file)
        return Aggregate(fn, lower_domain(kids[2], file), body, span=span)
    if data in ("x_some", "x_every"):
        fn = data[2:]
        return Aggregate(fn, lower_domain(kids[0], file), lower_expr(kids[1], file), span=span)
    if data in ("x_at_least", "x_at_most"):
        op = ">=" if data == "x_at_least" else "<="
        return Compare(op, lower_expr(kids[1], file), lower_expr(kids[0], file), span=span)
    if data == "x_lookup":
        return Lookup(lower_expr(kids[0], file), str(kids[1]).lower(), span=span)
    raise HansaError(f"unexpected expression {data}", span)  # pragma: no cover - grammar


def lower_domain(tree: lark.Tree, file: str) -> Domain:
    span = span_of(tree, file)
    word = str(tree.children[0]).lower()
    kind = DOMAINS.get(word)
    if kind is None:
        raise HansaError(
            f"unknown set '{tree.children[0]}'{did_you_mean(word, DOMAINS)}; count over cities,"
            " routes, players or opponents",
            span_of(tree.children[0], file),
        )
    if tree.data == "x_set_controlled":
        if kind != "city":
            raise HansaError(f"only cities are controlled, not {word}", span)
        # `controls here`, not `controller is you`: with ties shared a city has several
        return Domain(kind, Ref("controls here", owner="your", span=span), span=span)
    if tree.data == "x_set_in":
        if kind not in ("city", "route"):
            raise HansaError(f"only cities and routes lie in a country, not {word}", span)
        where = lower_expr(tree.children[2], file) if len(tree.children) > 2 else None
        return Domain(kind, where, str(tree.children[1]).lower(), span=span)
    where = lower_expr(tree.children[1], file) if len(tree.children) > 1 else None
    return Domain(kind, where, span=span)


def lower_amount(tree: lark.Tree, file: str) -> Amount:
    value = lower_expr(tree.children[0], file)
    per = lower_domain(tree.children[1], file) if len(tree.children) > 1 else None
    return Amount(value, per, span=span_of(tree, file))


def amount_unit(amount: Amount) -> tuple[str, Span]:
    """The unit an amount is in ("" when none is written): the unit of its numbers."""
    units: list[tuple[str, Span]] = []

    def walk(node) -> None:
        if isinstance(node, Num) and node.unit:
            units.append((node.unit, node.span))
        for child in (
            getattr(node, "left", None),
            getattr(node, "right", None),
            getattr(node, "item", None),
        ):
            if child is not None:
                walk(child)
        for child in getattr(node, "items", ()) or ():
            walk(child)

    walk(amount.value)
    if not units:
        return "", amount.span
    for unit, span in units[1:]:
        if unit != units[0][0]:
            raise HansaError(f"an amount mixes {units[0][0]} and {unit}", span)
    return units[0]


def lower_effects(tree: lark.Tree, file: str) -> tuple[Effect, ...]:
    out: list[Effect] = []
    for guarded in tree.children:
        effect_tree = guarded.children[0]
        if guarded.data == "x_guarded_for":  # an effect on other players
            whom = lower_whom(guarded.children[0], file)
            effect_tree = guarded.children[1]
            when = lower_expr(guarded.children[2], file) if len(guarded.children) > 2 else None
            out.append(replace(_effect(effect_tree, when, file), whom=whom))
            continue
        when = lower_expr(guarded.children[1], file) if len(guarded.children) > 1 else None
        out.append(_effect(effect_tree, when, file))
    return tuple(out)


def lower_whom(tree: lark.Tree, file: str) -> Whom:
    """`each other player`, `each player where …`, `the player with the fewest X`, or one
    player (`the displaced player`): the players an effect acts on."""
    span = span_of(tree, file)
    kids = tree.children
    if tree.data == "x_whom_others":
        return Whom("each", domain=Domain("opponent", span=span), span=span)
    if tree.data == "x_whom_each":
        domain = lower_domain(kids[0], file)
        if domain.kind not in ("player", "opponent"):
            raise HansaError(
                f"only players gain, lose, develop, take or receive; not {domain.kind}s"
                " (write `each player …`, `each opponent …` or `each other player …`)",
                span_of(kids[0], file),
            )
        return Whom("each", domain=domain, span=span)
    if tree.data == "x_whom_extreme":
        words = _words(kids[0])
        if words not in ("player", "players"):
            raise HansaError(
                f"write `the player with the {kids[1].data[2:]} …`, not '{words} with'",
                span_of(kids[0], file),
            )
        return Whom(kids[1].data[2:], value=lower_expr(kids[2], file), span=span)
    return Whom("player", player=Ref(_words(kids[0]), span=span), span=span)


def _effect(tree: lark.Tree, when: Expr | None, file: str) -> Effect:
    span = span_of(tree, file)
    data = tree.data
    kids = tree.children
    if data in ("x_gain", "x_lose"):
        amount = lower_amount(kids[0], file)
        unit, unit_span = amount_unit(amount)
        if not unit:
            raise HansaError(
                f"say what to {data[2:]}: write a unit, as in `{data[2:]} 2 PP` or"
                f" `{data[2:]} 1 action`",
                amount.span,
            )
        if unit == "actions":
            if data == "x_lose":
                raise HansaError("actions can be gained, not lost", unit_span)
            return Effect("extra_actions", amount=amount, when=when, span=span)
        return Effect(
            "gain_pp" if data == "x_gain" else "lose_pp", amount=amount, when=when, span=span
        )
    if data == "x_develop":
        name = _words(kids[0])
        if name in ("ability", "any ability", "one ability"):
            name = ""
        return Effect("develop", name=name, when=when, span=span)
    if data == "x_develop_any":
        return Effect("develop", name="", when=when, span=span)
    if data == "x_take":
        value = lower_expr(kids[0], file)
        what = _words(kids[1])
        source = _words(kids[2])
        if source not in ("stock", "general stock"):
            raise HansaError(f"pieces come from the stock, not '{source}'", span_of(kids[2], file))
        return Effect("take", value=value, name=what, when=when, span=span)
    if data == "x_may_take":  # a decision of the player: which piece, or none
        value = lower_expr(kids[0], file)
        source = _words(kids[2])
        if source not in ("stock", "general stock"):
            raise HansaError(f"pieces come from the stock, not '{source}'", span_of(kids[2], file))
        return Effect("may_take", value=value, name=_words(kids[1]), when=when, span=span)
    if data == "x_receive":
        token = kids[0].children[0]
        label = str(token)[1:-1] if token.type == "STRING" else str(token)
        return Effect("receive", name=label, when=when, span=span)
    if data == "x_draw_keep":  # the player chooses which drawn marker stays; keep is always 1
        keep = Num(_int(kids[1], file), span=span_of(kids[1], file))
        if keep.value != 1:
            raise HansaError(
                "`draw N keep 1`: one drawn marker is kept (it replaces the marker taken), the"
                " others go back to the supply",
                span_of(kids[1], file),
            )
        count = Num(_int(kids[0], file), span=span_of(kids[0], file))
        return Effect("draw_keep", value=count, when=when, span=span)
    if data == "x_display":  # the top N markers of the supply lie face up; one is taken
        size = Num(_int(kids[0], file), span=span_of(kids[0], file))
        return Effect("display", value=size, when=when, span=span)
    if data == "x_set_param":
        return Effect(
            "set_param",
            value=lower_expr(kids[1], file),
            name=_words(kids[0]),
            when=when,
            span=span,
        )
    raise HansaError(f"unexpected effect {data}", span)  # pragma: no cover - grammar


# ---- statements (called from rules_lower)

STATEMENTS = (
    "r_bonus_rule",
    "r_score_rule",
    "r_score_effect",
    "r_at_setup",
    "r_at_turn_start",
    "r_after_create_route",
    "r_after_action",
    "r_after_marker",
    "r_at_turn_end",
    "r_at_marker_draw",
    "r_favour",
    "r_favour_when",
    "r_forbid",
    "r_forbid_marker",
    "r_control_words",
    "r_control_most",
    "r_counter",
    "r_flag",
    "r_turn_order",
)


def lower_end_condition(tree: lark.Tree, file: str) -> HookRule:
    """One alternative of `end when …` written in words: the game ends after the action in which
    the condition becomes true."""
    condition = lower_expr(tree, file)
    return HookRule("end", f"end:{condition.text()}", condition=condition, span=span_of(tree, file))


# Statements that are a hook and its effects: grammar rule -> hook.
_EFFECT_HOOKS = {
    "r_at_setup": "setup",
    "r_at_turn_start": "turn_start",
    "r_at_turn_end": "turn_end",
    "r_at_marker_draw": "marker_draw",
    "r_after_create_route": "after_create_route",
}


def lower_hook_rule(stmt: lark.Tree, file: str) -> HookRule:
    """One statement in words → a HookRule (its `key` addresses it across `extends`)."""
    lower = _HOOK_LOWERINGS.get(stmt.data)
    if lower is None and stmt.data in _EFFECT_HOOKS:
        lower = _lower_effect_hook
    if lower is None:  # pragma: no cover - the grammar has no other statement in words
        raise HansaError(f"unexpected statement {stmt.data}", span_of(stmt, file))
    return lower(stmt.data, stmt.children, span_of(stmt, file), file)


def _lower_bonus_rule(data: str, kids: list, span: Span, file: str) -> HookRule:
    """`bonus "NAME" count N when used: EFFECTS`: a marker kind written in words."""
    label = unquote(kids[0], file, "bonus marker name")
    if not label.strip():
        raise HansaError("a bonus marker needs a name", span_of(kids[0], file))
    params: list[tuple[str, int]] = []
    for param in kids[1:-1]:
        name = str(param.children[0])
        value_tree = param.children[1]
        token = value_tree.children[0] if value_tree.data == "r_atom" else None
        if name not in ("count", "start"):
            raise HansaError(
                f"unknown parameter '{name}' for a bonus marker; it takes: count, start",
                span_of(param.children[0], file),
            )
        if token is None or token.type != "INT":
            raise HansaError(f"{name} is a whole number", span_of(value_tree, file))
        if any(n == name for n, _ in params):
            raise HansaError(f"parameter '{name}' is given twice", span_of(param, file))
        params.append((name, int(token)))
    effects = lower_effects(kids[-1], file)
    return HookRule(
        "marker_used",
        f"marker:{label}",
        target=label,
        label=label,
        effects=effects,
        params=tuple(params),
        span=span,
    )


def _lower_score_rule(data: str, kids: list, span: Span, file: str) -> HookRule:
    """`score K "LABEL": AMOUNT`: a scoring category in words."""
    key = str(kids[0])
    label = unquote(kids[1], file, "score label") if len(kids) == 3 else ""
    amount = lower_amount(kids[-1], file)
    unit, unit_span = amount_unit(amount)
    if unit == "actions":
        raise HansaError("a scoring category gives PP, not actions", unit_span)
    return HookRule("score", f"score:{key}", target=key, label=label, amount=amount, span=span)


def _lower_score_effect(data: str, kids: list, span: Span, file: str) -> HookRule:
    """A scoring category given an effect: refused, with what to write."""
    raise HansaError(
        f"scoring category {kids[0]} cannot take an effect: it only counts PP at the end"
        " (write `score H: 2 PP per …`; effects belong in `at setup`, `at turn start`,"
        " `after create_route` or a marker's `when used`)",
        span_of(kids[-1], file),
    )


def _lower_effect_hook(data: str, kids: list, span: Span, file: str) -> HookRule:
    """`at setup:`, `at turn start:`, `at turn end:`, `at marker draw:`: effects."""
    hook = _EFFECT_HOOKS[data]
    effects = lower_effects(kids[0], file)
    return HookRule(
        hook,
        f"{hook}:{len(effects)}:" + "; ".join(e.text() for e in effects),
        effects=effects,
        span=span,
    )


def _lower_after(data: str, kids: list, span: Span, file: str) -> HookRule:
    """`after ACTION:` / `after use marker:`: effects once the action is applied."""
    if data == "r_after_marker":
        action = MARKER_TRIGGER
    else:
        action = str(kids[0])
        if action == "move":
            raise HansaError(
                "Move has no `after move:` hook: its pieces are picked and put down by"
                " decisions after the action begins; write the rule `at turn end:` instead",
                span_of(kids[0], file),
            )
        if action not in AFTER_ACTIONS:
            raise HansaError(
                f"unknown action '{action}' after `after`{did_you_mean(action, AFTER_ACTIONS)};"
                f" write `after ACTION:` with one of {', '.join(AFTER_ACTIONS)}, or"
                " `after use marker:`",
                span_of(kids[0], file),
            )
    hook = f"after_{action}"
    effects = lower_effects(kids[-1], file)
    return HookRule(
        hook,
        f"{hook}:{len(effects)}:" + "; ".join(e.text() for e in effects),
        effects=effects,
        span=span,
    )


def _lower_favour(data: str, kids: list, span: Span, file: str) -> HookRule:
    """An Emperor's Favour tile, for its taker; a triggered one (`when …`) acts each time."""
    # a triggered one (`when …`) acts each time it fires
    label = unquote(kids[0], file, "favour tile name")
    if not label.strip():
        raise HansaError("a favour tile needs a name", span_of(kids[0], file))
    trigger = ""
    if data == "r_favour_when" and when_marker(kids[1]):
        when = kids[1]
        if str(when.children[0]).lower() != "a":
            raise HansaError(
                f"write `{MARKER_TRIGGER_WHO[when.data.split('_')[2]]} a bonus marker`",
                span_of(when.children[0], file),
            )
        trigger = f"{when.data.split('_')[2]}:{MARKER_TRIGGER}"
    elif data == "r_favour_when":
        when = kids[1]
        action = str(when.children[0])
        if action not in TRIGGER_ACTIONS:
            raise HansaError(
                f"unknown action '{action}' in a trigger"
                f"{did_you_mean(action, TRIGGER_ACTIONS)};"
                f" actions: {', '.join(TRIGGER_ACTIONS)}",
                span_of(when.children[0], file),
            )
        trigger = f"{when.data.removeprefix('r_when_')}:{action}"
    return HookRule(
        "favour",
        f"favour:{label}",
        target=label,
        label=label,
        effects=lower_effects(kids[-1], file),
        span=span,
        trigger=trigger,
    )


def _lower_forbid_marker(data: str, kids: list, span: Span, file: str) -> HookRule:
    """`forbid use marker when …`."""
    condition = lower_expr(kids[0], file)
    return HookRule(
        "forbid",
        f"forbid:{MARKER_TRIGGER}",
        target=MARKER_TRIGGER,
        condition=condition,
        span=span,
    )


def _lower_forbid(data: str, kids: list, span: Span, file: str) -> HookRule:
    """`forbid ACTION when …`."""
    action = str(kids[0])
    condition = lower_expr(kids[1], file)
    return HookRule("forbid", f"forbid:{action}", target=action, condition=condition, span=span)


def _lower_control_words(data: str, kids: list, span: Span, file: str) -> HookRule:
    """`control goes to the rightmost post`, `… nobody on a tie`, `… every tied player`."""
    words = _words(kids[0])
    rule = {
        "rightmost post": "rightmost_post",
        "nobody on tie": "nobody",
        "every tied player": "shared",  # ties shared: each tied player controls the city
    }.get(words)
    if rule is None:
        raise HansaError(
            f"unknown control rule '{words}'; write `control goes to the rightmost post`,"
            " `control goes to nobody on a tie`, `control goes to every tied player` or"
            " `control goes to most QUANTITY`",
            span_of(kids[0], file),
        )
    return HookRule("control", "control", target=rule, span=span)


def _lower_control_most(data: str, kids: list, span: Span, file: str) -> HookRule:
    """`control goes to most QUANTITY`."""
    return HookRule(
        "control", "control", target="most", condition=lower_expr(kids[0], file), span=span
    )


def _lower_state(data: str, kids: list, span: Span, file: str) -> HookRule:
    """`counter NAME` / `flag NAME`, optionally `private yes`: a value each player has, 0 (a
    flag: no) at setup, that rules set (`your NAME becomes …`) and read (`your NAME`)."""
    kind = data.removeprefix("r_")
    name = str(kids[0]).lower()
    private = 0
    for param in kids[1:]:
        key = str(param.children[0])
        value_tree = param.children[1]
        token = value_tree.children[0] if value_tree.data == "r_atom" else None
        if key != "private":
            raise HansaError(
                f"unknown parameter '{key}' for a {kind}{did_you_mean(key, ('private',))};"
                " it takes: private yes|no",
                span_of(param.children[0], file),
            )
        if token is None or str(token) not in ("yes", "no"):
            raise HansaError("private is yes or no", span_of(value_tree, file))
        private = int(str(token) == "yes")
    return HookRule(
        "state", f"state:{name}", target=name, label=kind, params=(("private", private),), span=span
    )


def _lower_turn_order(data: str, kids: list, span: Span, file: str) -> HookRule:
    """`turn_order fewest|most QUANTITY`: who plays next in a round."""
    order = kids[0].data.removeprefix("r_")
    return HookRule("order", "order", target=order, condition=lower_expr(kids[1], file), span=span)


_HOOK_LOWERINGS = {
    "r_bonus_rule": _lower_bonus_rule,
    "r_score_rule": _lower_score_rule,
    "r_score_effect": _lower_score_effect,
    "r_after_action": _lower_after,
    "r_after_marker": _lower_after,
    "r_favour": _lower_favour,
    "r_favour_when": _lower_favour,
    "r_forbid_marker": _lower_forbid_marker,
    "r_forbid": _lower_forbid,
    "r_control_words": _lower_control_words,
    "r_control_most": _lower_control_most,
    "r_counter": _lower_state,
    "r_flag": _lower_state,
    "r_turn_order": _lower_turn_order,
}
