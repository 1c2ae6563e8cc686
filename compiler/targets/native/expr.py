"""The C dialect of the expression generator (`compiler/expr/codegen.py`): what the native target
writes for each piece of a rule in words, and nothing else.

The generator walks the nodes and builds the hook functions for every target; this table says
how C spells them: every value an `int64_t`, aggregates GCC statement expressions over a bounded
loop, statements with braces, a dispatch `switch` where the Python module has one function per
case. A quantity's C text is the catalogue's `Quantity.c`, beside its Python text. A construct
with no C text is refused (`Unsupported`, naming it and its rule's `file:line`), so the native
target never compiles a rule it cannot play.
"""

from __future__ import annotations

from ...expr.codegen import ACTION_IDS, Dialect, ExprGenerator, Unsupported
from ...nodes.expr import HookRule

__all__ = ["CDialect", "Unsupported", "c_generator", "end_names"]


def _indent(lines: list[str]) -> list[str]:
    return ["    " + line for line in lines]


class CDialect(Dialect):
    name = "C"
    num_players = "s->num_players"
    true, false = "1", "0"
    ALWAYS_END = True  # the templates test x_end after every action
    FORM = 1  # the C code of the catalogue's tables (EFFECT_CODE, FORBID_FACT_CODE)
    TYPES = {"int": "int", "int64": "int64_t", "bool": "int", "void": "void"}
    JOIN = {"and": "&&", "or": "||"}
    QUANTITY_FORMS = ("c", "c_params", "c_shared")
    TEXT = {  # every value an int64_t
        "num": "((int64_t){n})",
        "value": "((int64_t){code})",
        # in 64 bits whatever the operands' C types (a quantity may be an int32 field): the
        # bounds (compiler/model/bounds.py) keep every result far inside them
        "binop": "((int64_t)({left}) {op} (int64_t)({right}))",
        "compare": "((int64_t)({left} {op} {right}))",
        "boolop": "((int64_t)({items}))",
        "negate": "((int64_t)!{item})",
        "city_in_country": "x_city_in_country({city}, {country})",
        "lookup": "((int64_t){table}[clamp({value}, 0, {top})])",
        "mark_applied": "applied = 1;",
        "count": "RULE_FIRED[{index}]++;",
        "one_id": "(action == {first})",
        "id_range": "({first} <= action && action < {end})",
        "local": "{type} {name} = {code};",
        "return": "return {value};",
    }

    def binop(self, op: str, left: str, right: str) -> str:
        if op == "//":
            return f"floordiv({left}, {right})"
        if op not in ("+", "-", "*"):
            raise Unsupported(f"the operator {op!r}")
        return super().binop(op, left, right)

    def aggregate(self, fn: str, var: str, bound: str, conds: list[str], body: str) -> str:
        if fn in ("count", "sum"):
            init, step = "0", f"acc += {body};"
        elif fn in ("max", "min"):
            better = ">" if fn == "max" else "<"
            init = "0"
            step = f"{{ int64_t v = {body}; if (!any || v {better} acc) acc = v; any = 1; }}"
        elif fn == "some":
            init, step = "0", f"if ({body}) {{ acc = 1; break; }}"
        elif fn == "every":
            init, step = "1", f"if (!({body})) {{ acc = 0; break; }}"
        else:
            raise Unsupported(f"the aggregate {fn!r}")
        guard = f"if (!({' && '.join(conds)})) continue; " if conds else ""
        return (
            f"({{ int64_t acc = {init}; int any = 0; (void)any; "
            f"for (int {var} = 0; {var} < {bound}; {var}++) {{ {guard}{step} }} acc; }})"
        )

    def if_(self, test: str, body: list[str]) -> list[str]:
        return [f"if ({test}) {{", *_indent(body), "}"]

    def one_player(self, var: str, player: str, body: list[str]) -> list[str]:
        return [
            "{",
            f"    int {var} = (int){player};",
            *_indent(self.if_(f"{var} >= 0", body)),
            "}",
        ]

    def each_player(self, var: str, bound: str, conds: list[str], body: list[str]) -> list[str]:
        guard = f"if (!({' && '.join(conds)})) continue; " if conds else ""
        return [
            "{",
            f"    int {var}_list[MAXP], {var}_n = 0;",
            f"    for (int {var} = 0; {var} < {bound}; {var}++)",
            f"        {{ {guard}{var}_list[{var}_n++] = {var}; }}",
            f"    for (int {var}_i = 0; {var}_i < {var}_n; {var}_i++) {{",
            f"        int {var} = {var}_list[{var}_i];",
            *("        " + line for line in body),
            "    }",
            "}",
        ]

    def applied(self, index: int, body: list[str]) -> list[str]:
        return [
            "{",
            "    int applied = 0;",
            *_indent(body),
            f"    if (applied) {self.count(index)}",
            "}",
        ]

    def set_aside(self, body: list[str]) -> list[str]:
        return [
            "Frame own[MAX_STACK];",
            "int nown = s->nstack - base;",
            "memcpy(own, s->stack + base, sizeof(Frame) * (size_t)nown);",
            "s->nstack = (int8_t)base;",
            *body,
            "memcpy(s->stack + s->nstack, own, sizeof(Frame) * (size_t)nown);",
            "s->nstack = (int8_t)(s->nstack + nown);",
        ]

    def function(self, name: str, params, returns: str, lines: list[str], player="p") -> str:
        args = "".join(f", {self.TYPES[t]} {n}" for n, t in params)
        body = "\n".join("    " + line for line in lines)
        return f"static {self.TYPES[returns]} {name}(S *s, int {player}{args}) {{\n{body}\n}}\n"

    def cases(self, name, case, params, selector, cases, count, dense) -> dict[str, str]:
        """One function switching on `selector` (the marker type, the tile)."""
        lines = [f"switch ({selector}) {{"]
        for i in sorted(cases):
            lines += [f"case {i}: {{", *_indent(cases[i]), "    break;", "}"]
        lines += ["}", "(void)s; (void)p;"]
        if selector not in (n for n, _t in params):
            params = (*params, (selector, "int"))
        return {name: self.function(name, params, "void", lines)}

    def ends_met(self, names: list[str], tests: list[str]) -> dict[str, str]:
        """`x_end_met(s, p, i)`: whether end rule i holds (their names: `end_names`)."""
        lines = ["switch (i) {"]
        lines += [f"case {i}: return (int)({test});" for i, test in enumerate(tests)]
        lines += ["}", "return 0;"]
        return {"x_end_met": self.function("x_end_met", (("i", "int"),), "bool", lines)}

    def after_action(self, by_action) -> dict[str, str]:
        """`x_after_action`: after each action a tile reacts to, each holder clockwise from the
        actor (the actor last) runs the tile's effects; the decisions they leave go below the
        action's own, the first holder's on top (`holder_frames` moves them)."""
        lines = [
            "int n = s->num_players, base = s->nstack;",
            "Frame groups[MAX_STACK];",
            "int ngroups = 0, sizes[MAXP * N_FAVOUR], nsizes = 0;",
        ]
        for action, tiles in by_action.items():
            lines.append(f"if {self.action_test(*ACTION_IDS[action])} {{")
            lines.append("    for (int k = 1; k <= n; k++) {  /* clockwise from the actor, last */")
            lines.append("        int h = (a + k) % n;")
            for i, who in tiles:
                guard = {"another": " && h != a", "you": " && h == a", "any": ""}[who]
                lines.append(f"        if ((s->fav_held[h] >> {i} & 1){guard}) {{")
                lines.append(f"            x_favour_when(s, h, {i});")
                lines.append(
                    "            sizes[nsizes++] = holder_frames(s, base, groups, &ngroups);"
                )
                lines.append("        }")
            lines.append("    }")
            lines.append("}")
        lines.append("below_the_action(s, groups, sizes, nsizes);")
        params = (("action", "int"),)
        return {"x_after_action": self.function("x_after_action", params, "void", lines, "a")}


C = CDialect()


def c_generator(*args, **kwargs) -> ExprGenerator:
    """The generator of a game's C rule module."""
    return ExprGenerator(C, *args, **kwargs)


def end_names(rules: tuple[HookRule, ...]) -> list[str]:
    """The names `end_conditions_met` reports, in the order of x_end_met's indices."""
    return [r.key.removeprefix("end:") for r in rules if r.hook == "end"]
