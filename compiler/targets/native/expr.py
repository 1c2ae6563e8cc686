"""The C twin of `compiler/expr/codegen.py`: rules in words (checked expr nodes) compiled into C
functions of the native module.

One method per node class, as in the Python compiler; a quantity compiles through `C_QUANTITIES`
(its C text, with the same holes as the catalogue's Python code). Aggregates become GCC statement
expressions with a bounded loop. A quantity, effect or hook with no C text here is refused with
`Unsupported`, naming it, so the native target never compiles a rule it cannot play.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ...expr.catalogue import AFTER_HOOKS, SETTABLE
from ...expr.check import MAY_TAKE_KINDS, hook_scope, resolve_ref
from ...expr.codegen import loop_variable
from ...nodes.expr import MARKER_TRIGGER, Aggregate, Amount, Domain, Effect, HookRule, Ref


class Unsupported(Exception):
    """A construct the native target cannot compile yet; the message names it."""


# Quantity name -> C expression text ({P} player, {Y} you, {C} city, {R} route, {V} victim,
# {A} ability index, {K} category index, {N} country index, {D} the cities the route just created
# completed). Every value is an int64_t expression.
C_QUANTITIES: dict[str, str] = {
    "track pp": "s->track[{P}]",
    "score": "score_of(s, {K}, {P})",
    "posts": "x_posts(s, {P})",
    "posts here": "x_posts_in(s, {P}, {C})",
    "posts in": "x_posts_in_country(s, {P}, {N})",
    "trader posts": "x_kind_posts(s, {P}, 0)",
    "merchant posts": "x_kind_posts(s, {P}, 1)",
    "trader posts here": "x_kind_posts_in(s, {P}, {C}, 0)",
    "merchant posts here": "x_kind_posts_in(s, {P}, {C}, 1)",
    "traders here": "x_kind_on(s, {P}, {R}, 0)",
    "merchants here": "x_kind_on(s, {P}, {R}, 1)",
    "controlled cities": "x_controlled(s, {P})",
    "pieces here": "x_pieces_on(s, {P}, {R})",
    "pieces on routes": "(s->onboard[2 * ({P})] + s->onboard[2 * ({P}) + 1])",
    "traders on routes": "s->onboard[2 * ({P})]",
    "merchants on routes": "s->onboard[2 * ({P}) + 1]",
    "pieces in supply": "(s->supply[2 * ({P})] + s->supply[2 * ({P}) + 1])",
    "traders in supply": "s->supply[2 * ({P})]",
    "merchants in supply": "s->supply[2 * ({P}) + 1]",
    "pieces in stock": "(s->stock[2 * ({P})] + s->stock[2 * ({P}) + 1])",
    "traders in stock": "s->stock[2 * ({P})]",
    "merchants in stock": "s->stock[2 * ({P}) + 1]",
    "level": "s->level[({P}) * NA + ({A})]",
    "value": "ability_value(s, {P}, {A})",
    "fully developed abilities": "x_full(s, {P})",
    "full pp": "ABILITY_FULL_PP[{A}]",
    "fully developed": "(s->level[({P}) * NA + ({A})] >= ABILITY_MAX[{A}])",
    "city pp": "CITY_CONTROL_PP",
    "special prestige": "x_special(s, {P})",
    "collected bonuses": "x_markers(s, {P})",
    "unused bonuses": "count_markers(s->unused[{P}])",
    "used bonuses": "count_markers(s->used[{P}])",
    "largest network": "x_network(s, {P}, 0)",
    "second largest network": "x_network(s, {P}, 1)",
    "third largest network": "x_network(s, {P}, 2)",
    "rank": "x_rank(s, {P})",
    "seat": "(({P}) + 1)",
    "completed cities": "s->completed",
    "turn number": "s->turns",
    "players": "s->num_players",
    "you": "{Y}",
    "them": "{P}",
    "last seat": "(s->num_players - 1)",
    "first seat": "0",
    "nobody": "-1",
    "victim": "{V}",
    "displaced player": "{V}",
    # what the action would do, in `forbid displace when …` (x_forbidden's locals)
    "displaced piece": "displaced_kind",
    "traders taken now": "traders_taken",
    "merchants taken now": "merchants_taken",
    "pieces taken now": "(traders_taken + merchants_taken)",
    "marker used": "marker_used",
    # what Create Route did, in `after create_route:` (x_after_route's parameters)
    "cities completed now": "{D}",
    "posts established now": "(post_city >= 0)",
    "additional posts established now": "post_extra",
    "established piece": "post_kind",
    "post established here": "(({C}) == post_city)",
    "special prestige taken now": "special_taken",
    "trader": "0",
    "merchant": "1",
    "controller": "controller(s, {C})",
    "controls here": "(controller(s, {C}) == ({P}))",  # ties shared: C_SHARED
    "coins": "CITY_COINS[{C}]",
    "spaces": "CITY_SIZE[{C}]",
    "free spaces": "(CITY_SIZE[{C}] - s->filled[{C}])",
    "all posts here": "(s->filled[{C}] + s->nextra[{C}])",
    "green": "CITY_GREEN[{C}]",
    "completed": "(s->filled[{C}] == CITY_SIZE[{C}])",
    "abilities offered": "(CITY_ABILITIES_OFF[({C}) + 1] - CITY_ABILITIES_OFF[{C}])",
    "white spaces": "CITY_COLOUR_SPACES[4 * ({C}) + 0]",
    "orange spaces": "CITY_COLOUR_SPACES[4 * ({C}) + 1]",
    "pink spaces": "CITY_COLOUR_SPACES[4 * ({C}) + 2]",
    "black spaces": "CITY_COLOUR_SPACES[4 * ({C}) + 3]",
    "points": "(ROUTE_POINTS_OFF[({R}) + 1] - ROUTE_POINTS_OFF[{R}])",
    "ship points": "ROUTE_SHIPS[{R}]",
    "free points": "x_free_points(s, {R})",
    "tavern": "ROUTE_TAVERN[{R}]",
}

# The code in a game whose city-control ties are shared (the catalogue's `code_shared`).
C_SHARED: dict[str, str] = {"controls here": "controls(s, {P}, {C})"}
# The quantities whose value a rule may set per player (`your city PP becomes 4`): their C text
# in a game with per-player parameters (s->xparam, the catalogue's `code_params`).
C_QUANTITIES_PARAMS: dict[str, str] = {
    "full pp": "(s->xparam[({P}) * N_X_PARAMS + X_FULL_ABILITY_PP] >= 0 && ABILITY_FULL_PP[{A}]"
    " ? s->xparam[({P}) * N_X_PARAMS + X_FULL_ABILITY_PP] : ABILITY_FULL_PP[{A}])",
    "city pp": "s->xparam[({P}) * N_X_PARAMS + X_CITY_PP]",
}

# The hooks the native templates call (others are refused by the target).
C_HOOKS = (
    "score",
    "end",
    "tiebreak",
    "setup",
    "turn_start",
    "turn_end",
    "forbid",
    "marker_used",
    "marker_draw",
    "after_create_route",
    *AFTER_HOOKS,
    "control",
    "favour",
)

# What an `after` hook's function receives of its action (the locals its facts read), as in
# compiler/expr/codegen.py's AFTER_PARAMS.
AFTER_PARAMS = {
    "after_create_route": "int r, int64_t done, int post_city, int post_kind, int post_extra,"
    " int special_taken",
    "after_income": "int base, int64_t traders_taken, int64_t merchants_taken",
    "after_place": "int base",
    "after_displace": "int base, int v, int displaced_kind",
    "after_use_marker": "int base, int marker_used",
}

_ACTION_TESTS = {
    "income": "(A_INCOME <= action && action < A_PLACE)",
    "place": "(A_PLACE <= action && action < A_DISPLACE)",
    "displace": "(A_DISPLACE <= action && action < A_MOVE)",
    "move": "(action == A_MOVE)",
    "create_route": "(A_CREATE <= action && action < A_CREATE + N_ROUTES)",
    MARKER_TRIGGER: "(A_USE_MARKER <= action && action < A_USE_MARKER + N_MARKER_TYPES)",
}
# What a favour tile may react to: an action, or a bonus marker's use (`when another player uses
# a bonus marker`).
_TRIGGER_TESTS = {
    **_ACTION_TESTS,
    MARKER_TRIGGER: "(A_USE_MARKER <= action && action < A_USE_MARKER + N_MARKER_TYPES)",
}


@dataclass(frozen=True)
class Env:
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
    facts: tuple[str, ...] = ()  # the action's facts the function has as locals or parameters

    def scope(self):
        from ...expr.check import Scope

        return Scope(
            city=bool(self.city),
            route=bool(self.route),
            victim=bool(self.victim),
            counting_players=self.player != self.you,
            ability=bool(self.ability),
            created=bool(self.done),
            facts=self.facts,
        )


class CExprCompiler:
    """Compiles checked expressions into C text against one game's tables."""

    def __init__(
        self,
        names,
        abilities,
        categories,
        marker_ids,
        x_params: bool = False,
        shared_control: bool = False,
    ):
        self.names = names
        self.abilities = tuple(abilities)
        self.categories = list(categories)
        self.marker_ids = dict(marker_ids)
        self.shared_control = shared_control  # city-control ties are shared (`controls`)
        self.constants: dict[str, tuple[int, ...]] = {}
        self.x_params = x_params  # the game has per-player parameters (s->xparam)

    def expr(self, node, env: Env) -> str:
        method = getattr(self, "_" + type(node).__name__, None)
        if method is None:
            raise Unsupported(f"the expression node {type(node).__name__}")
        return method(node, env)

    def _Num(self, node, env: Env) -> str:
        return f"((int64_t){int(node.value)})"

    def _Ref(self, node: Ref, env: Env) -> str:
        quantity, named, owner, player = resolve_ref(node, self.names, env.scope())
        if quantity.arg == "marker":
            return f"((int64_t){int(self.marker_ids[named])})"  # a marker type by name: its index
        code = C_QUANTITIES.get(quantity.name)
        if self.shared_control:
            code = C_SHARED.get(quantity.name, code)
        if self.x_params:
            code = C_QUANTITIES_PARAMS.get(quantity.name, code)
        if code is None:
            raise Unsupported(f"the quantity '{quantity.name}'")
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
            country = self.names.countries.index(named)  # checked by resolve_ref
        elif quantity.arg:
            raise Unsupported(f"the quantity '{quantity.name}' (by {quantity.arg})")
        return (
            "((int64_t)"
            + code.format(
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
            + ")"
        )

    def _category(self, named: str) -> int:
        for i, (key, kind) in enumerate(self.categories):
            if named in (key, kind):
                return i
        raise Unsupported(f"the scoring category {named!r}")

    def _BinOp(self, node, env: Env) -> str:
        left, right = self.expr(node.left, env), self.expr(node.right, env)
        if node.op == "//":
            return f"floordiv({left}, {right})"
        if node.op not in ("+", "-", "*"):
            raise Unsupported(f"the operator {node.op!r}")
        # in 64 bits whatever the operands' C types (a quantity may be an int32 field): the
        # bounds (compiler/model/bounds.py) keep every result far inside them
        return f"((int64_t)({left}) {node.op} (int64_t)({right}))"

    def _Compare(self, node, env: Env) -> str:
        if node.op not in (">=", "<=", ">", "<", "==", "!="):
            raise Unsupported(f"the comparison {node.op!r}")
        return f"((int64_t)({self.expr(node.left, env)} {node.op} {self.expr(node.right, env)}))"

    def _BoolOp(self, node, env: Env) -> str:
        op = {"and": "&&", "or": "||"}[node.op]
        return "((int64_t)(" + f" {op} ".join(self.expr(i, env) for i in node.items) + "))"

    def _Not(self, node, env: Env) -> str:
        return f"((int64_t)!{self.expr(node.item, env)})"

    def _Lookup(self, node, env: Env) -> str:
        top = node.rows[-1][0]
        values = tuple(
            next((pp for low, pp in reversed(node.rows) if count >= low), 0)
            for count in range(top + 1)
        )
        name = next((k for k, v in self.constants.items() if v == values), None)
        if name is None:
            name = f"X_TABLE_{len(self.constants)}"
            self.constants[name] = values
        return f"((int64_t){name}[clamp({self.expr(node.value, env)}, 0, {top})])"

    def _Aggregate(self, node: Aggregate, env: Env) -> str:
        var, header, cond, inner = self.loop(node.domain, env)
        body = "1" if node.body is None else self.expr(node.body, inner)
        fn = node.fn
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
        guard = f"if (!({cond})) continue; " if cond else ""
        return (
            f"({{ int64_t acc = {init}; int any = 0; (void)any; "
            f"{header} {{ {guard}{step} }} acc; }})"
        )

    def loop(self, domain: Domain, env: Env) -> tuple[str, str, str, Env]:
        """(variable, C for-header, filter condition, the environment inside)."""
        var, bound, inner = loop_variable(domain, env, "s->num_players")
        conditions = []
        if domain.country:  # the cities or routes of a country (checked by check_country)
            n = self.names.countries.index(domain.country)
            if domain.kind == "city":
                conditions.append(f"x_city_in_country({var}, {n})")
            else:
                conditions.append(f"ROUTE_COUNTRY[{var}] == {n}")
        if domain.kind == "opponent":
            conditions.append(f"{var} != {env.you}")
        if domain.where is not None:
            conditions.append(self.expr(domain.where, inner))
        header = f"for (int {var} = 0; {var} < {bound}; {var}++)"
        return var, header, " && ".join(conditions), inner

    def amount(self, amount: Amount, env: Env) -> str:
        if amount.per is None:
            return self.expr(amount.value, env)
        var, header, cond, inner = self.loop(amount.per, env)
        guard = f"if (!({cond})) continue; " if cond else ""
        value = self.expr(amount.value, inner)
        return f"({{ int64_t acc = 0; {header} {{ {guard}acc += {value}; }} acc; }})"

    # ---- effects
    def effects(self, effects: tuple[Effect, ...], env: Env) -> list[str]:
        lines: list[str] = []
        for effect in effects:
            if effect.whom is not None:
                lines.extend(self._effect_for(effect, env))
            else:
                lines.extend(self._guarded(effect, env))
        return lines

    def _guarded(self, effect: Effect, env: Env) -> list[str]:
        method = getattr(self, "_effect_" + effect.kind, None)
        if method is None:
            raise Unsupported(f"the effect '{effect.kind}'")
        body = method(effect, env)
        if effect.when is None:
            return body
        return [f"if ({self.expr(effect.when, env)}) {{", *("    " + line for line in body), "}"]

    def _effect_for(self, effect: Effect, env: Env) -> list[str]:
        """An effect on other players: one player (if not nobody), or a loop over them, the
        effect acting on each (`subject`) and reading each as the player counted over."""
        whom = effect.whom
        if whom.kind == "player":
            var, _bound, inner = loop_variable(Domain("player"), env, "s->num_players")
            body = self._guarded(effect, replace(inner, subject=var))
            head = [f"int {var} = (int){self.expr(whom.player, env)};", f"if ({var} >= 0) {{"]
            return [
                "{",
                *("    " + line for line in head + ["    " + b for b in body] + ["}"]),
                "}",
            ]
        var, header, cond, inner = self.loop(whom.members(), env)
        body = self._guarded(effect, replace(inner, subject=var))
        guard = f"if (!({cond})) continue; " if cond else ""
        # the players are found first: an effect on one of them (PP gained) changes no other's
        # membership (two players tied for the fewest PP both gain)
        return [
            "{",
            f"    int {var}_list[MAXP], {var}_n = 0;",
            f"    {header} {{ {guard}{var}_list[{var}_n++] = {var}; }}",
            f"    for (int {var}_i = 0; {var}_i < {var}_n; {var}_i++) {{",
            f"        int {var} = {var}_list[{var}_i];",
            *("        " + line for line in body),
            "    }",
            "}",
        ]

    def _effect_gain_pp(self, effect: Effect, env: Env) -> list[str]:
        who = env.subject or env.you
        amount = self.amount(effect.amount, env)
        return [f"s->track[{who}] = (int32_t)min64(MAX_PP, s->track[{who}] + max64(0, {amount}));"]

    def _effect_lose_pp(self, effect: Effect, env: Env) -> list[str]:
        you = env.subject or env.you
        return [f"s->track[{you}] = max64(0, s->track[{you}] - {self.amount(effect.amount, env)});"]

    def _effect_extra_actions(self, effect: Effect, env: Env) -> list[str]:
        return [
            f"if ({env.you} == s->player) "
            f"s->actions_left = (int16_t)min64(MAX_ACTIONS_LEFT, s->actions_left"
            f" + max64(0, {self.amount(effect.amount, env)}));"
        ]

    def _effect_develop(self, effect: Effect, env: Env) -> list[str]:
        if not effect.name:  # the player's choice: a develop decision of any ability
            return [
                f"if (develop_options(s, {env.you}, -1, NULL)) "
                f"push_frame(s, F_DEVELOP, {env.you})->a = -1;"
            ]
        a = self.abilities.index(effect.name)
        you = env.subject or env.you
        return [f"if (can_develop(s, {you}, {a})) develop(s, {you}, {a});"]

    def _effect_take(self, effect: Effect, env: Env) -> list[str]:
        kind = 1 if effect.name.startswith("merchant") else 0
        who = env.subject or env.you
        return [f"x_take(s, {who}, {kind}, {self.expr(effect.value, env)});"]

    def _effect_draw_keep(self, effect: Effect, env: Env) -> list[str]:
        """The draw itself (draw_keep.c.j2): N markers, a keep decision if they differ."""
        return [f"x_draw_keep(s, {env.you}, {self.expr(effect.value, env)});"]

    def _effect_receive(self, effect: Effect, env: Env) -> list[str]:
        who = env.subject or env.you
        return [f"x_receive(s, {who}, {self.marker_ids[effect.name]});"]

    def _effect_set_param(self, effect: Effect, env: Env) -> list[str]:
        index = list(SETTABLE).index(effect.name)
        value = self.expr(effect.value, env)
        return [f"s->xparam[({env.you}) * N_X_PARAMS + {index}] = max64(0, {value});"]

    def _effect_may_take(self, effect: Effect, env: Env) -> list[str]:
        """A decision frame for the player (rules.c.j2's take-from-stock frame)."""
        kinds = MAY_TAKE_KINDS[effect.name]
        return [f"x_may_take(s, {env.you}, {kinds}, {self.expr(effect.value, env)});"]

    # ---- Emperor's Favour tiles (compiler/expr/codegen.py: _favour_N, trigger_functions)
    def favour_functions(self, rules: tuple[HookRule, ...], env: Env) -> dict[str, str]:
        """`x_favour` (a tile's effects once its taker has flipped the markers; a triggered
        tile's wait for the trigger) and, with triggered tiles, `x_after_action`: after each
        action a tile reacts to, each holder clockwise from the actor (the actor last) runs the
        tile's effects; the decisions they leave go below the action's own, the first holder's
        on top (`holder_frames` moves them)."""
        favours = [r for r in rules if r.hook == "favour"]
        if not favours:
            return {}
        lines = ["switch (t) {"]
        for i, rule in enumerate(favours):
            if rule.trigger:
                continue
            lines.append(f"case {i}: {{")
            lines.extend("    " + line for line in self.effects(rule.effects, env))
            lines += ["    break;", "}"]
        lines += ["}", "(void)s; (void)p;"]
        out = {"x_favour": _function("void x_favour(S *s, int p, int t)", lines)}
        by_action: dict[str, list[tuple[int, str]]] = {}
        lines = ["switch (t) {"]
        for i, rule in enumerate(favours):
            if not rule.trigger:
                continue
            who, action = rule.trigger.split(":", 1)
            if action not in _TRIGGER_TESTS:
                raise Unsupported(f"a favour tile triggered by '{action}' ({rule.text()})")
            by_action.setdefault(action, []).append((i, who))
            lines.append(f"case {i}: {{")
            lines.extend("    " + line for line in self.effects(rule.effects, env))
            lines += ["    break;", "}"]
        if not by_action:
            return out
        lines += ["}", "(void)s; (void)p;"]
        out["x_favour_when"] = _function("void x_favour_when(S *s, int p, int t)", lines)
        lines = [
            "int n = s->num_players, base = s->nstack;",
            "Frame groups[MAX_STACK];",
            "int ngroups = 0, sizes[MAXP * N_FAVOUR], nsizes = 0;",
        ]
        for action, tiles in by_action.items():
            lines.append(f"if {_TRIGGER_TESTS[action]} {{")
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
        out["x_after_action"] = _function("void x_after_action(S *s, int a, int action)", lines)
        return out

    # ---- whole functions
    def hook_functions(
        self, rules: tuple[HookRule, ...], tie_exprs, marker_first: int = 0
    ) -> dict[str, str]:
        """C function text by name: x_setup, x_turn_start, x_turn_end, x_forbidden, x_end,
        x_end_met, score_K, x_tie_N, x_marker_rule (the effects of the bonus markers written in
        words, by marker type). Only hooks the rule set uses get one, as in the Python target."""
        out: dict[str, str] = {}
        env = Env()
        for rule in rules:
            if rule.hook not in C_HOOKS:
                raise Unsupported(f"the rule hook '{rule.hook}' ({rule.text()})")
        out.update(self.after_functions(rules, env))
        lines = ["switch (m) {"]
        for i, rule in enumerate(r for r in rules if r.hook == "marker_used"):
            lines.append(f"case {marker_first + i}: {{")
            lines.extend("    " + line for line in self.effects(rule.effects, env))
            lines += ["    break;", "}"]
        lines += ["}", "(void)s; (void)p;"]
        out["x_marker_rule"] = _function("void x_marker_rule(S *s, int p, int m)", lines)
        out.update(self.favour_functions(rules, env))
        for hook, name in (
            ("setup", "x_setup"),
            ("turn_start", "x_turn_start"),
            ("turn_end", "x_turn_end"),
            ("marker_draw", "x_marker_draw"),
        ):
            chosen = [r for r in rules if r.hook == hook]
            if chosen:
                lines = [line for rule in chosen for line in self.effects(rule.effects, env)]
                out[name] = _function(f"void {name}(S *s, int p)", lines)
        forbids = [r for r in rules if r.hook == "forbid"]
        if forbids:
            lines = []
            for rule in forbids:
                test = _ACTION_TESTS.get(rule.target)
                if test is None:
                    raise Unsupported(f"forbidding the action '{rule.target}' ({rule.text()})")
                inner = env
                lines.append(f"if {test} {{")
                if rule.target == "displace":
                    lines.append("    int v = s->pt[(action - A_DISPLACE) >> 1] >> 1; (void)v;")
                    lines.append(
                        "    int displaced_kind = s->pt[(action - A_DISPLACE) >> 1] & 1;"
                        " (void)displaced_kind;"
                    )
                    inner = replace(env, victim="v", facts=("displaced",))
                if rule.target == "income":
                    lines.append(
                        "    int64_t traders_taken = (action - A_INCOME) / (MERCHANTS + 1);"
                        " int64_t merchants_taken = (action - A_INCOME) % (MERCHANTS + 1);"
                        " (void)traders_taken; (void)merchants_taken;"
                    )
                    inner = replace(env, facts=("income",))
                if rule.target == MARKER_TRIGGER:
                    lines.append("    int marker_used = action - A_USE_MARKER; (void)marker_used;")
                    inner = replace(env, facts=("marker",))
                lines.append(f"    if ({self.expr(rule.condition, inner)}) return 1;")
                lines.append("}")
            lines.append("return 0;")
            out["x_forbidden"] = _function("int x_forbidden(S *s, int p, int action)", lines)
        ends = [r for r in rules if r.hook == "end"]
        tests = [self.expr(r.condition, env) for r in ends]
        # by timing (`target`): at once `x_end`, `after turn`/`after round` their own functions
        for timing, name in (
            ("", "x_end"),
            ("turn", "x_end_after_turn"),
            ("round", "x_end_after_round"),
        ):
            timed = [t for r, t in zip(ends, tests, strict=True) if r.target == timing]
            if timed or not timing:
                out[name] = _function(
                    f"int {name}(S *s, int p)", [f"return {' || '.join(timed) if timed else '0'};"]
                )
        lines = ["switch (i) {"]
        for i, test in enumerate(tests):
            lines.append(f"case {i}: return (int)({test});")
        lines += ["}", "return 0;"]
        out["x_end_met"] = _function("int x_end_met(S *s, int p, int i)", lines)
        for rule in rules:
            if rule.hook == "score":
                key = rule.target
                out[f"score_{key}"] = _function(
                    f"int64_t score_{key}(S *s, int p)",
                    [f"return {self.amount(rule.amount, env)};"],
                )
        for i, expr in enumerate(tie_exprs):
            out[f"x_tie_{i}"] = _function(
                f"int64_t x_tie_{i}(S *s, int p)", [f"return {self.expr(expr, env)};"]
            )
        for rule in rules:
            if rule.hook == "control" and rule.condition is not None:
                inner = Env(you="p", player="p", city="c")
                out["x_control_value"] = _function(
                    "int64_t x_control_value(S *s, int p, int c)",
                    [f"return {self.expr(rule.condition, inner)};"],
                )
        return out

    def after_functions(self, rules: tuple[HookRule, ...], env: Env) -> dict[str, str]:
        """x_after_route (after create_route: the route, what it completed, its post) and
        x_after_income, x_after_place, x_after_displace, x_after_use_marker: called once the
        action is applied, with what it did (AFTER_PARAMS) and `base`, the stack's height before
        it. As in the Python target, the action's own frames are set aside while the effects
        run (a marker received goes to the unused ones when no decision of the turn is open) and
        put back on top of whatever the effects leave, so the action finishes first."""
        out: dict[str, str] = {}
        for hook in ("after_create_route", *AFTER_HOOKS):
            chosen = [r for r in rules if r.hook == hook]
            if not chosen:
                continue
            facts = hook_scope(hook)
            here = replace(env, facts=facts.facts, victim="v" if facts.victim else "")
            name = "x_after_route" if hook == "after_create_route" else f"x_{hook}"
            if hook == "after_create_route":
                here = replace(here, route="r", done="done")
            body = [line for rule in chosen for line in self.effects(rule.effects, here)]
            if hook == "after_create_route":
                lines = [*body, "(void)r; (void)done; (void)post_city; (void)post_kind;"]
                lines.append("(void)post_extra; (void)special_taken;")
            else:
                lines = [
                    "Frame own[MAX_STACK];",
                    "int nown = s->nstack - base;",
                    "memcpy(own, s->stack + base, sizeof(Frame) * (size_t)nown);",
                    "s->nstack = (int8_t)base;",
                    *body,
                    "memcpy(s->stack + s->nstack, own, sizeof(Frame) * (size_t)nown);",
                    "s->nstack = (int8_t)(s->nstack + nown);",
                ]
            out[name] = _function(f"void {name}(S *s, int p, {AFTER_PARAMS[hook]})", lines)
        return out


def end_names(rules: tuple[HookRule, ...]) -> list[str]:
    """The names `end_conditions_met` reports, in the order of x_end_met's indices."""
    return [r.key.removeprefix("end:") for r in rules if r.hook == "end"]


def _function(signature: str, lines: list[str]) -> str:
    body = "\n".join("    " + line for line in lines)
    return f"static {signature} {{\n{body}\n}}\n"
