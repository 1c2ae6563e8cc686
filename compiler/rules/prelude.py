"""The prelude: catalogue kinds whose meaning is an expression, defined in the rules language.

`compiler/rules/prelude.hansa` (package data) holds `define score KIND(PARAMS): AMOUNT` and
`define end KIND(PARAMS): CONDITION`. The rules catalogue still gives each kind its statement and
typed parameters (lowering, checks, `hansa diff` and the docs read those), so editions keep writing
`score E controlled_cities pp 2`; when a game is built, `expand` turns such a category or trigger
into a rule in words by putting the rule set's parameter values into the definition, and the
expression compiler makes it plain Python like any other rule in words. One mechanism: no
template and no special case per kind.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, fields, is_dataclass, replace
from pathlib import Path

import lark

from ..errors import HansaError, Span
from ..expr.lower import _words, lower_amount, lower_expr
from ..nodes.expr import Amount, Expr, HookRule, Lookup, Num, Ref
from ..syntax.parser import parse_text, span_of

PRELUDE_FILE = Path(__file__).with_name("prelude.hansa")


@dataclass(frozen=True)
class KindDef:
    """One definition: its section (score | end), kind, parameter names, the parameters that are
    per-player parameters too ((parameter, settable name), …) and its amount or condition."""

    section: str
    kind: str
    params: tuple[str, ...]
    bound: tuple[tuple[str, str], ...]
    amount: Amount | None = None
    condition: Expr | None = None
    span: Span | None = None
    source: str = ""  # the definition as written (one line), for the docs

    def text(self) -> str:
        params = ", ".join(
            p + "".join(f" as {s}" for q, s in self.bound if q == p) for p in self.params
        )
        head = f"define {self.section} {self.kind}" + (f"({params})" if params else "")
        body = self.amount.text() if self.amount is not None else self.condition.text()
        return f"{head}: {body}"


def lower_define(tree: lark.Tree, file: str) -> KindDef:
    kids = list(tree.children)
    kind = str(kids[0])
    params: list[str] = []
    bound: list[tuple[str, str]] = []
    if len(kids) == 3:
        for param in kids[1].children:
            name = str(param.children[0]).lower()
            params.append(name)
            if len(param.children) > 1:
                bound.append((name, _words(param.children[1])))
    body = kids[-1]
    span = span_of(tree, file)
    if isinstance(body, lark.Tree) and body.data == "x_amount":
        amount = lower_amount(body, file)
        return KindDef("score", kind, tuple(params), tuple(bound), amount=amount, span=span)
    condition = lower_expr(body, file)
    return KindDef("end", kind, tuple(params), tuple(bound), condition=condition, span=span)


@functools.cache
def prelude() -> dict[tuple[str, str], KindDef]:
    """Every definition of the package's prelude by (section, kind); parsed once per process."""
    file = str(PRELUDE_FILE)
    text = PRELUDE_FILE.read_text(encoding="utf-8")
    lines = text.splitlines()
    tree = parse_text(text, file)
    out: dict[tuple[str, str], KindDef] = {}
    for decl in tree.children:
        if decl.data != "define":
            raise HansaError("the prelude holds only `define` statements", span_of(decl, file))
        definition = lower_define(decl, file)
        source = lines[definition.span.line - 1].strip()
        definition = replace(definition, source=source)
        out[(definition.section, definition.kind)] = definition
    return out


def defined(section: str, kind: str) -> KindDef | None:
    return prelude().get((section, kind))


def refuse_define(tree: lark.Tree, file: str):
    """A `define` in a spec file: kinds are the package's; a rule set writes its rule in words."""
    raise HansaError(
        "`define` belongs to the package's prelude; a rule set writes a new category or trigger"
        " in words (`score H: 2 PP per city where coins > 0`, `end when completed cities >= 5`)",
        span_of(tree, file),
    )


def expand(
    definition: KindDef, key: str, values: dict[str, object]
) -> tuple[HookRule, dict[str, int]]:
    """The rule in words a kind means with these parameter values, and the default value of each
    per-player parameter it binds (`pp as city PP` → {"city pp": 2}).

    A parameter holds a whole number (read as that number), a table (read by `… by NAME`), or is a
    per-player parameter (read as that quantity, whose default is the value)."""
    bound = dict(definition.bound)
    defaults = {bound[name]: int(value) for name, value in values.items() if name in bound}

    def substitute(node):
        if isinstance(node, Ref) and not node.args and not node.owner and node.words in values:
            if node.words in bound:
                return Ref(bound[node.words], span=node.span)
            value = values[node.words]
            if not isinstance(value, int):
                raise HansaError(f"parameter {node.words} is not a number here", node.span)
            return Num(value, span=node.span)
        if isinstance(node, Lookup) and node.table in values:
            rows = tuple((int(a), int(b)) for a, b in values[node.table])
            return replace(node, value=substitute(node.value), rows=rows)
        if is_dataclass(node) and not isinstance(node, type):
            changes = {}
            for f in fields(node):
                value = getattr(node, f.name)
                if isinstance(value, tuple):
                    changes[f.name] = tuple(substitute(v) for v in value)
                elif is_dataclass(value) and f.name != "span":
                    changes[f.name] = substitute(value)
            return replace(node, **changes) if changes else node
        return node

    if definition.section == "score":
        rule = HookRule("score", f"score:{key}", target=key, amount=substitute(definition.amount))
    else:
        condition = substitute(definition.condition)
        rule = HookRule("end", f"end:{definition.kind}", condition=condition)
    return rule, defaults
