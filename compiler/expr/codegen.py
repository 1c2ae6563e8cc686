"""Compile rules in words (checked expr_ir nodes) into plain Python functions of the game module.

One method per node class (`_Num`, `_Ref`, `_BinOp`, …) returns the node's Python text; effects
become statements. The only text that reaches the module is fixed code from this file and the
quantity catalogue, variable names this compiler makes up (`c1`, `r2`, `q1`) and integers (table
indices, literals): an ability, category or marker is referred to by its index, so no name or
string an author writes can become code. Everything runs at compile time; the module has no
interpreter.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

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
from .catalogue import AFTER_HOOKS, QUANTITIES, SETTABLE
from .check import MAY_TAKE_KINDS, Names, Scope, hook_scope, resolve_ref


@dataclass(frozen=True)
class Env:
    """Python names in scope: the rule's player, the focus player/city/route, the victim."""

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
# generated module's count of members (players: the target's own expression for the count).
LOOP_VARIABLES = {
    "city": ("c", "city", "N_CITIES"),
    "route": ("r", "route", "N_ROUTES"),
    "ability": ("a", "ability", "NA"),
}


def loop_variable(domain: Domain, env, players: str):
    """(variable, member count, the environment inside) of a loop over `domain`: one variable
    per nesting depth, so nested sets never share one."""
    letter, field, bound = LOOP_VARIABLES.get(domain.kind, ("q", "player", players))
    depth = env.depth + 1
    var = f"{letter}{depth}"
    return var, bound, replace(env, **{field: var, "depth": depth})


class ExprCompiler:
    """Compiles expressions against one game's tables (ability and category indices)."""

    def __init__(
        self,
        names: Names,
        abilities: tuple[str, ...],
        categories: list[tuple[str, str]],
        marker_ids: dict[str, int],
        x_params: bool = False,
        city_countries: tuple[tuple[int, ...], ...] = (),
        shared_control: bool = False,
    ):
        self.names = names
        self.abilities = abilities
        self.categories = categories  # (key, kind) in SCORE_KEYS order
        self.marker_ids = marker_ids
        self.x_params = x_params  # the game has per-player parameters (s.xparam)
        self.shared_control = shared_control  # city-control ties are shared (`_controls`)
        self.constants: dict[str, tuple] = {}  # tables precomputed (`… by TABLE`, countries)
        self.city_countries = city_countries  # the board's CITY_COUNTRIES (country indices)
        # The spec's own rules in words (not the prelude's) by identity -> their index in
        # RULE_SOURCES: their hooks count in RULE_FIRED each time they apply (`hansa simulate`).
        self.rule_index: dict[int, int] = {}

    def _fired(self, rule: HookRule, effects: tuple[Effect, ...], env: Env) -> list[str]:
        """The line counting that `rule` applied (an effect whose condition holds), or none."""
        i = self.rule_index.get(id(rule))
        if i is None:
            return []
        whens = [e.when for e in effects]
        if not whens or any(w is None for w in whens) or any(e.whom for e in effects):
            return [f"RULE_FIRED[{i}] += 1"]
        tests = [self.expr(w, env) for w in whens]
        # a comparison or a joined condition compiles parenthesised already
        closed = [isinstance(w, Compare | BoolOp | Not) for w in whens]
        test = (
            tests[0]
            if len(tests) == 1
            else " or ".join(t if c else f"({t})" for t, c in zip(tests, closed, strict=True))
        )
        return [f"if {test}:", f"    RULE_FIRED[{i}] += 1"]

    # ---- expressions: one method per node class

    def expr(self, node, env: Env) -> str:
        return getattr(self, "_" + type(node).__name__)(node, env)

    def _Num(self, node: Num, env: Env) -> str:
        return str(int(node.value))

    def _Ref(self, node: Ref, env: Env) -> str:
        quantity, named, owner, player = resolve_ref(node, self.names, env.scope())
        who = env.player
        if owner == "your":
            who = env.you
        if player is not None:
            who = self.expr(player, env)
        ability: int | str = 0
        category = country = 0
        if quantity.arg == "ability" or quantity.needs == "ability":
            ability = self.abilities.index(named) if named else env.ability
        elif quantity.arg == "category":
            category = self._category(named)
        elif quantity.arg == "country":
            country = self._country(named)
        elif quantity.arg == "marker":
            return str(self.marker_ids[named])  # a marker type by name: its index
        code = quantity.code_params if self.x_params and quantity.code_params else quantity.code
        if self.shared_control and quantity.code_shared:
            code = quantity.code_shared
        code = code.format(
            P=who,
            Y=env.you,
            C=env.city,
            R=env.route,
            V=env.victim,
            A=ability,
            K=category,
            N=country,
            D=env.done,
        )
        return code  # a bool quantity's code yields a bool (a comparison or a table of bools)

    def _category(self, named: str) -> int:
        for i, (key, kind) in enumerate(self.categories):
            if named in (key, kind):
                return i
        raise HansaError(f"internal error: no scoring category {named!r}")

    def _country(self, name: str) -> int:
        """The country's index (checked by resolve_ref); its cities become a table of the module."""
        index = self.names.countries.index(name)
        n_countries = len(self.names.countries)
        self.constants["X_COUNTRY_CITIES"] = tuple(
            tuple(c for c, inside in enumerate(self.city_countries) if n in inside)
            for n in range(n_countries)
        )
        return index

    def _BinOp(self, node: BinOp, env: Env) -> str:
        return f"({self.expr(node.left, env)} {node.op} {self.expr(node.right, env)})"

    def _Compare(self, node: Compare, env: Env) -> str:
        return f"({self.expr(node.left, env)} {node.op} {self.expr(node.right, env)})"

    def _BoolOp(self, node: BoolOp, env: Env) -> str:
        return "(" + f" {node.op} ".join(self.expr(i, env) for i in node.items) + ")"

    def _Not(self, node: Not, env: Env) -> str:
        return f"(not {self.expr(node.item, env)})"

    def _Lookup(self, node: Lookup, env: Env) -> str:
        """A table folded at compile time into one tuple indexed by the (clamped) count."""
        top = node.rows[-1][0]
        values = []
        for count in range(top + 1):
            values.append(next((pp for low, pp in reversed(node.rows) if count >= low), 0))
        name = f"X_TABLE_{len(self.constants)}"
        for known, table in self.constants.items():
            if table == tuple(values):
                name = known
        self.constants[name] = tuple(values)
        return f"{name}[min(max({self.expr(node.value, env)}, 0), {top})]"

    def _Aggregate(self, node: Aggregate, env: Env) -> str:
        whole = self._whole_players(node, env)
        if whole:
            return f"{node.fn}({whole})"
        var, loop, inner = self.loop(node.domain, env)
        body = "1" if node.body is None else self.expr(node.body, inner)
        if node.fn in ("count", "sum"):
            return f"sum({body} for {var} in {loop})"
        if node.fn in ("max", "min"):
            return f"{node.fn}(({body} for {var} in {loop}), default=0)"
        return f"{'any' if node.fn == 'some' else 'all'}({body} for {var} in {loop})"

    def _whole_players(self, node: Aggregate, env: Env) -> str:
        """`max track PP over players`: the quantity's list of every player's value, when it has
        one (`max(s.track)`), instead of a loop."""
        body = node.body
        if node.fn not in ("max", "min", "sum") or node.domain.kind != "player":
            return ""
        if node.domain.where is not None or not isinstance(body, Ref):
            return ""
        if body.args or body.owner:
            return ""
        quantity = QUANTITIES.get(body.words)
        return quantity.whole if quantity is not None else ""

    def loop(self, domain: Domain, env: Env) -> tuple[str, str, Env]:
        """(variable, iterable with its filter, the environment inside) of a bounded loop."""
        var, bound, inner = loop_variable(domain, env, "s.num_players")
        rng = f"range({bound})"
        conditions = []
        if domain.country:
            n = self._country(domain.country)
            if domain.kind == "city":
                conditions.append(f"{n} in CITY_COUNTRIES[{var}]")
            else:
                conditions.append(f"ROUTE_COUNTRY[{var}] == {n}")
        if domain.kind == "opponent":
            conditions.append(f"{var} != {env.you}")
        if domain.where is not None:
            conditions.append(self.expr(domain.where, inner))
        if conditions:
            return var, f"{rng} if " + " and ".join(conditions), inner
        return var, rng, inner

    def amount(self, amount: Amount, env: Env) -> str:
        if amount.per is None:
            return self.expr(amount.value, env)
        var, loop, inner = self.loop(amount.per, env)
        return f"sum({self.expr(amount.value, inner)} for {var} in {loop})"

    # ---- effects: statements, one method per effect kind

    def effects(self, effects: tuple[Effect, ...], env: Env) -> list[str]:
        lines: list[str] = []
        for effect in effects:
            if effect.whom is not None:
                lines.extend(self._effect_for(effect, env))
                continue
            lines.extend(self._guarded(effect, env))
        return lines or ["pass"]

    def _guarded(self, effect: Effect, env: Env) -> list[str]:
        body = getattr(self, "_effect_" + effect.kind)(effect, env)
        if effect.when is None:
            return body
        return [f"if {self.expr(effect.when, env)}:", *("    " + line for line in body)]

    def _effect_for(self, effect: Effect, env: Env) -> list[str]:
        """An effect on other players: a loop over them (or one player, if not nobody), the
        effect acting on each (`subject`) and reading each as the player counted over."""
        whom = effect.whom
        if whom.kind == "player":
            var, _bound, inner = loop_variable(Domain("player"), env, "s.num_players")
            body = self._guarded(effect, replace(inner, subject=var))
            head = [f"{var} = {self.expr(whom.player, env)}", f"if {var} >= 0:"]
            return head + ["    " + line for line in body]
        var, loop, inner = self.loop(whom.members(), env)
        body = self._guarded(effect, replace(inner, subject=var))
        # the players are found first: an effect on one of them (PP gained) changes no other's
        # membership (two players tied for the fewest PP both gain)
        return [f"for {var} in [{var} for {var} in {loop}]:", *("    " + line for line in body)]

    def _effect_gain_pp(self, effect: Effect, env: Env) -> list[str]:
        who = env.subject or env.you
        amount = self.amount(effect.amount, env)
        return [f"s.track[{who}] = min(MAX_PP, s.track[{who}] + max(0, {amount}))"]

    def _effect_lose_pp(self, effect: Effect, env: Env) -> list[str]:
        you = env.subject or env.you
        return [f"s.track[{you}] = max(0, s.track[{you}] - {self.amount(effect.amount, env)})"]

    def _effect_extra_actions(self, effect: Effect, env: Env) -> list[str]:
        amount = self.amount(effect.amount, env)
        return [
            f"if {env.you} == s.player:",
            f"    s.actions_left = min(MAX_ACTIONS_LEFT, s.actions_left + max(0, {amount}))",
        ]

    def _effect_develop(self, effect: Effect, env: Env) -> list[str]:
        you = env.subject or env.you
        if effect.name:
            a = self.abilities.index(effect.name)
            return [f"if _can_develop(s, {you}, {a}):", f"    _develop(s, {you}, {a})"]
        return [
            f"if _develop_options(s, {you}, -1):",
            f"    s.stack.append((F_DEVELOP, {you}, -1))",
        ]

    def _effect_take(self, effect: Effect, env: Env) -> list[str]:
        kind = 1 if effect.name.startswith("merchant") else 0
        who = env.subject or env.you
        return [f"_x_take(s, {who}, {kind}, {self.expr(effect.value, env)})"]

    def _effect_set_param(self, effect: Effect, env: Env) -> list[str]:
        index = list(SETTABLE).index(effect.name)
        value = self.expr(effect.value, env)
        return [f"s.xparam[{env.you} * N_X_PARAMS + {index}] = max(0, {value})"]

    def _effect_may_take(self, effect: Effect, env: Env) -> list[str]:
        """A decision frame for the player (core/favour.py.j2's take-from-stock frame)."""
        kinds = MAY_TAKE_KINDS[effect.name]
        return [f"_x_may_take(s, {env.you}, {kinds}, {self.expr(effect.value, env)})"]

    def _effect_draw_keep(self, effect: Effect, env: Env) -> list[str]:
        """The draw itself (core/draw_keep.py.j2): N markers, a keep decision if they differ."""
        return [f"_x_draw_keep(s, {env.you}, {self.expr(effect.value, env)})"]

    def _effect_receive(self, effect: Effect, env: Env) -> list[str]:
        who = env.subject or env.you
        return [f"_x_receive(s, {who}, {self.marker_ids[effect.name]})"]

    # ---- whole functions for the hooks

    def hook_functions(
        self, rules: tuple[HookRule, ...], marker_first: int, tie_exprs: list
    ) -> dict[str, str]:
        """Function source by name: `_x_setup`, `_x_turn_start`, `_x_after_route`,
        `_x_forbidden`, `_x_end`, `_x_tie_N`, `_score_K`, `_usable_rule_N`/`_effect_rule_N`,
        `_x_control_value`. Only hooks the rule set uses get one."""
        out: dict[str, str] = {}
        env = Env()
        for hook, name in (
            ("setup", "_x_setup"),
            ("turn_start", "_x_turn_start"),
            ("turn_end", "_x_turn_end"),
            ("marker_draw", "_x_marker_draw"),
            ("after_create_route", "_x_after_route"),
        ):
            chosen = [r for r in rules if r.hook == hook]
            if chosen:
                lines = []
                here, params = env, "s: State, p: int"
                if hook == "after_create_route":  # the route created, what it completed, its post
                    here, params = (
                        replace(env, route="r", done="done", facts=hook_scope(hook).facts),
                        params + ", r: int, done: int, " + AFTER_PARAMS[hook],
                    )
                for rule in chosen:
                    lines.extend(self._fired(rule, rule.effects, here))
                    lines.extend(self.effects(rule.effects, here))
                out[name] = _function(name, params, "None", lines)
        out.update(self.after_functions(rules, env))
        markers = [r for r in rules if r.hook == "marker_used"]
        for i, rule in enumerate(markers):
            n = marker_first + i
            out[f"_usable_rule_{n}"] = _function(
                f"_usable_rule_{n}", "s: State, p: int, m: int", "bool", ["return True"]
            )
            out[f"_effect_rule_{n}"] = _function(
                f"_effect_rule_{n}",
                "s: State, p: int, m: int",
                "None",
                self._fired(rule, rule.effects, env) + self.effects(rule.effects, env),
            )
        favours = [r for r in rules if r.hook == "favour"]
        for i, rule in enumerate(favours):
            effects = () if rule.trigger else rule.effects  # a triggered tile acts later
            out[f"_favour_{i}"] = _function(
                f"_favour_{i}", "s: State, p: int", "None", self.effects(effects, env)
            )
        if any(rule.trigger for rule in favours):
            out.update(self.trigger_functions(favours, env))
        forbids = [r for r in rules if r.hook == "forbid"]
        if forbids:
            lines = []
            for rule in forbids:
                test = _ACTION_TESTS[rule.target]
                inner = env
                lines.append(f"if {test}:")
                facts = hook_scope(f"forbid:{rule.target}")
                inner = replace(env, facts=facts.facts, victim="v" if facts.victim else "")
                condition = self.expr(rule.condition, inner)
                for local, code in FORBID_FACTS.get(rule.target, {}).items():
                    if re.search(rf"\b{local}\b", condition):
                        lines.append(f"    {local} = {code}")
                lines.append(f"    if {condition}:")
                lines.extend("        " + line for line in self._fired(rule, (), inner))
                lines.append("        return True")
            lines.append("return False")
            out["_x_forbidden"] = _function(
                "_x_forbidden", "s: State, p: int, action: int", "bool", lines
            )
        ends = [r for r in rules if r.hook == "end"]
        # by timing (`target`): at once `_x_end`, `after turn`/`after round` their own functions
        for timing, name in (
            ("", "_x_end"),
            ("turn", "_x_end_after_turn"),
            ("round", "_x_end_after_round"),
        ):
            timed = [r for r in ends if r.target == timing]
            if timed:
                tests = " or ".join(self.expr(r.condition, env) for r in timed)
                out[name] = _function(name, "s: State, p: int", "bool", [f"return {tests}"])
        if ends:
            # Which of them hold, by name (a catalogue kind or the condition's words), for
            # reports of how a game ended: `state.end_conditions_met()`.
            named = "".join(
                f"({r.key.removeprefix('end:')!r}, {self.expr(r.condition, env)}), " for r in ends
            )
            out["_x_ends_met"] = _function(
                "_x_ends_met",
                "s: State, p: int",
                "list[str]",
                [f"return [name for name, met in ({named}) if met]"],
            )
        for rule in rules:
            if rule.hook == "score":
                name = f"_score_{rule.target}"
                out[name] = _function(
                    name, "s: State, p: int", "int", [f"return {self.amount(rule.amount, env)}"]
                )
        for i, expr in enumerate(tie_exprs):
            name = f"_x_tie_{i}"
            out[name] = _function(
                name, "s: State, p: int", "int", [f"return {self.expr(expr, env)}"]
            )
        for rule in rules:
            if rule.hook == "control" and rule.condition is not None:
                inner = Env(you="p", player="p", city="c")
                out["_x_control_value"] = _function(
                    "_x_control_value",
                    "s: State, p: int, c: int",
                    "int",
                    [f"return {self.expr(rule.condition, inner)}"],
                )
        return out

    def after_functions(self, rules: tuple[HookRule, ...], env: Env) -> dict[str, str]:
        """`_x_after_income`, `_x_after_place`, `_x_after_displace`, `_x_after_use_marker`:
        called once the action is applied, with what it did (AFTER_PARAMS) and `base`, the
        stack's height before it. Decisions the effects leave wait below the action's own, so
        the action finishes first (a displaced owner re-places, a marker's moves are made)."""
        out: dict[str, str] = {}
        for hook in AFTER_HOOKS:
            chosen = [r for r in rules if r.hook == hook]
            if not chosen:
                continue
            facts = hook_scope(hook)
            here = replace(env, facts=facts.facts, victim="v" if facts.victim else "")
            lines = ["own = s.stack[base:]", "del s.stack[base:]"]
            for rule in chosen:
                lines.extend(self._fired(rule, rule.effects, here))
                lines.extend(self.effects(rule.effects, here))
            lines.append("s.stack.extend(own)")
            params = "s: State, p: int, base: int" + (
                ", " + AFTER_PARAMS[hook] if AFTER_PARAMS[hook] else ""
            )
            out[f"_x_{hook}"] = _function(f"_x_{hook}", params, "None", lines)
        return out

    def trigger_functions(self, favours: list[HookRule], env: Env) -> dict[str, str]:
        """`_favour_when_N` (a triggered tile's effects for one holder) and `_x_after_action`,
        called after every action of a turn: for each action a tile reacts to, each holder
        clockwise from the acting player (the actor last) runs the tile's effects. Decisions
        they leave (frames) go below the action's own, the first holder's on top, so the action
        finishes first and the holders then decide in clockwise order."""
        out: dict[str, str] = {}
        by_action: dict[str, list[tuple[int, str]]] = {}
        for i, rule in enumerate(favours):
            if not rule.trigger:
                continue
            who, action = rule.trigger.split(":", 1)
            out[f"_favour_when_{i}"] = _function(
                f"_favour_when_{i}", "s: State, p: int", "None", self.effects(rule.effects, env)
            )
            by_action.setdefault(action, []).append((i, who))
        lines = ["n = s.num_players", "groups = []"]
        for action, tiles in by_action.items():
            lines.append(f"if {_ACTION_TESTS[action]}:")
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
        out["_x_after_action"] = _function(
            "_x_after_action", "s: State, a: int, action: int", "None", lines
        )
        return out


# What an `after` hook's function receives of its action (the locals its facts read).
AFTER_PARAMS = {
    "after_create_route": "post_city: int, post_kind: int, post_extra: int, special_taken: int",
    "after_income": "traders_taken: int, merchants_taken: int",
    "after_place": "",
    "after_displace": "v: int, displaced_kind: int",
    "after_use_marker": "marker_used: int",
}
# The same facts in `_x_forbidden`, of the action being considered: local -> its code (each
# written only where the condition reads it).
FORBID_FACTS = {
    "income": {
        "traders_taken": "(action - A_INCOME) // (MERCHANTS + 1)",
        "merchants_taken": "(action - A_INCOME) % (MERCHANTS + 1)",
    },
    "displace": {
        "v": "s.pt[(action - A_DISPLACE) >> 1] >> 1",
        "displaced_kind": "s.pt[(action - A_DISPLACE) >> 1] & 1",
    },
    MARKER_TRIGGER: {"marker_used": "action - A_USE_MARKER"},
}

_ACTION_TESTS = {
    "income": "A_INCOME <= action < A_PLACE",
    "place": "A_PLACE <= action < A_DISPLACE",
    "displace": "A_DISPLACE <= action < A_MOVE",
    "move": "action == A_MOVE",
    "create_route": "A_CREATE <= action < A_CREATE + N_ROUTES",
    MARKER_TRIGGER: "A_USE_MARKER <= action < A_USE_MARKER + N_MARKER_TYPES",  # a bonus marker
}


def _function(name: str, args: str, returns: str, lines: list[str]) -> str:
    """A function's source; it sits in a `fmt: off` block, so a long line is marked for ruff."""
    body = "\n".join(_fit("    " + line) for line in lines)
    return f"{_fit(f'def {name}({args}) -> {returns}:')}\n{body}\n"


def _fit(line: str) -> str:
    return line + "  # noqa: E501" if len(line) > 100 else line


def quantity_names() -> tuple[str, ...]:
    return tuple(QUANTITIES)
