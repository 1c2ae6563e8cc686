"""Rules in words: the rule set's own (`score G "Harbour master": …`, hooks, Emperor's Favour
tiles, marker kinds) and the prelude's kinds it uses, checked against the rule set and the board,
then compiled into plain functions (compiler/expr/codegen.py) with the board facts they read."""

from __future__ import annotations

from dataclasses import replace

from ..errors import HansaError
from ..expr.catalogue import AFTER_HOOKS, SETTABLE
from ..expr.check import ExprError, _refs, check_rule, names_of, places_of
from ..expr.codegen import ExprGenerator, python_generator
from ..expr.cost import Sizes, costly_rules
from ..nodes.board import PRIVILEGES
from ..nodes.expr import MARKER_TRIGGER
from .bounds import unbounded_rules
from .fold import Fold, error, where
from .sizes import BASE_STACK, MAX_PARAM, check_rule_decisions

# Per-player parameters a rule may set (expr/catalogue.py SETTABLE), as X_PARAM_* indices.
X_PARAMS = (
    "control_pp",
    "full_track_pp",
    "city_pp",
    "extra_actions_per_turn",
    "trader_compensation",
)
# Only rule sets that set it get the sixth, so every other module keeps its five.
X_REACH = "displacement_reach"


def _check(f: Fold, names) -> None:
    """Every rule's errors at once (one per rule); then the prelude's expansions, whose error
    names the statement (a rule set without the ability a definition reads, …)."""
    problems = []
    for rule in f.rules.hook_rules:
        try:
            check_rule(rule, names, f.rules)
        except ExprError as exc:
            problems.append(exc.diagnostic)
    if problems:
        raise HansaError(problems)
    for rule in f.prelude_rules:
        try:
            check_rule(rule, names, f.rules)
        except ExprError as exc:
            what = rule.target or rule.key.partition(":")[2]
            raise error(f"{what}: {exc.diagnostic.message}", rule.span) from None


def _sizes(f: Fold) -> Sizes:
    """The sizes the cost of a rule in words is estimated with."""
    spaces = [len(c.spaces) for c in f.board.cities]
    points = [len(r.points) for r in f.board.routes]
    return Sizes(
        city=len(f.board.cities),
        route=len(f.board.routes),
        player=max(f.game.players),
        ability=len(f.rules.abilities),
        board=len(f.board.cities) + sum(spaces) + sum(points),
        local=max(spaces + points + [1]),
    )


def _effects(hook_rules, kind: str, name: str | None = None) -> bool:
    return any(
        e.kind == kind and (name is None or e.name == name) for r in hook_rules for e in r.effects
    )


# The quantities that count one kind of piece (their helpers are emitted only when read).
KIND_QUANTITIES = (
    "trader posts",
    "merchant posts",
    "trader posts here",
    "merchant posts here",
    "traders here",
    "merchants here",
)


def _switches(f: Fold, hook_rules) -> None:
    """The components every module has, whether or not it has rules in words."""
    comp = f.comp
    comp["expr_functions"] = []
    comp["expr_rules"] = ()
    comp["expr_names"] = None
    comp["expr_tie_exprs"] = ()
    comp["expr_marker_ids"] = {}
    comp["expr_first_rule_marker"] = 0
    comp["x_setup"] = comp["x_turn_start"] = comp["x_turn_end"] = comp["x_after_route"] = False
    comp["x_marker_draw"] = False
    comp["x_draw_keep"] = _effects(hook_rules, "draw_keep")
    # `at marker draw: choose from N on display`: the size of the face-up display (0: none)
    comp["x_display"] = max(
        (int(e.value.value) for r in hook_rules for e in r.effects if e.kind == "display"),
        default=0,
    )
    if comp["x_display"]:
        f.k["DISPLAY_SIZE"] = comp["x_display"]
    comp["x_forbid"] = comp["x_end"] = comp["x_control_most"] = False
    comp["x_order"] = comp["x_order_most"] = False
    comp["x_end_after_turn"] = comp["x_end_after_round"] = comp["x_end_later"] = False
    comp["x_forbid_marker"] = any(
        r.hook == "forbid" and r.target == MARKER_TRIGGER for r in hook_rules
    )
    for hook in AFTER_HOOKS:
        comp[f"x_{hook}"] = False
    comp["x_tiebreak"] = bool(f.tie_exprs)
    comp["x_turns"] = _mentions(hook_rules, f.tie_exprs, "turn number")
    comp["x_kinds"] = any(_mentions(hook_rules, f.tie_exprs, q) for q in KIND_QUANTITIES)
    # per-player parameters: those a rule sets, and the counters and flags a rule set declares
    comp["x_params"] = _effects(hook_rules, "set_param") or any(
        r.hook == "state" for r in hook_rules
    )
    comp["x_reach"] = _effects(hook_rules, "set_param", "displacement reach")
    comp["x_chosen_develop"] = any(
        e.kind == "develop" and not e.name for r in hook_rules for e in r.effects
    )
    comp["n_tie_exprs"] = len(f.tie_exprs)
    comp["uses_expr"] = bool(hook_rules or f.tie_exprs)


def _board_facts(f: Fold) -> None:
    """CITY_COINS, CITY_GREEN, CITY_COLOUR_SPACES (spaces per privilege colour), ROUTE_SHIPS,
    ROUTE_TAVERN: what rules in words read about the board."""
    k, board = f.k, f.board
    k["CITY_COINS"] = tuple(sum(sp.coin for sp in c.spaces) for c in board.cities)
    k["CITY_GREEN"] = tuple(not c.hanseatic for c in board.cities)
    k["CITY_COLOUR_SPACES"] = tuple(
        tuple(sum(1 for sp in c.spaces if sp.privilege == colour) for colour in PRIVILEGES)
        for c in board.cities
    )
    k["ROUTE_SHIPS"] = tuple(sum(1 for pt in r.points if pt == "merchant") for r in board.routes)
    k["ROUTE_TAVERN"] = tuple(bool(r.tavern) for r in board.routes)


def _marker_ids(f: Fold, hook_rules) -> dict[str, int]:
    """Marker type ids by every name a rule may use: key, author's name or kind, label."""
    ids = {key: i for i, key in enumerate(f.k["MARKER_KEYS"])}
    for i, bm in enumerate(f.rules.bonus_markers):
        ids[bm.name or bm.kind] = i
    for i, rule in enumerate(r for r in hook_rules if r.hook == "marker_used"):
        ids[rule.label] = f.first_rule_marker + i
    for name, i in list(ids.items()):  # marker names are not case-sensitive (`receive marker`)
        ids.setdefault(name.lower(), i)
    return ids


def _check_setup_receives(f: Fold, hook_rules) -> None:
    """`at setup: receive marker X` with no condition gives every seat one: the supply left after
    the start markers must hold one per seat for the game's largest player count (else some
    seats would silently get none). With a condition, seats receive in seat order while one is
    left, as a marker received in play (docs/rules-language.md)."""
    ids = _marker_ids(f, hook_rules)
    needed: dict[str, list] = {}
    for rule in hook_rules:
        if rule.hook != "setup":
            continue
        for effect in rule.effects:
            if effect.kind != "receive" or effect.when is not None:
                continue
            name = effect.name if effect.name in ids else effect.name.lower()
            if name in ids:
                needed.setdefault(name, []).append(effect)
    players = max(f.game.players)
    for name, effects in needed.items():
        i = ids[name]
        supply = f.k["MARKER_COUNT"][i] - f.k["MARKER_START"][i]
        if supply < players * len(effects):
            raise error(
                f"at setup every seat receives marker {name}, but {players} players need"
                f" {players * len(effects)} and the supply holds {supply} after the start"
                f" markers (count {f.k['MARKER_COUNT'][i]}, start {f.k['MARKER_START'][i]}):"
                f" raise its count (`bonus {name} count {players * len(effects)}`) or add a"
                " condition (`… if you are the last seat`)",
                effects[0].span,
            )


def _parameters(f: Fold) -> None:
    """X_PARAM_NAMES, X_PARAM_LABELS, X_PARAM_DEFAULTS, N_X_PARAMS and X_<NAME> indices of the
    per-player parameters (a default of -1: the ability's own full-track PP)."""
    k, comp = f.k, f.comp
    if comp["x_params"]:
        k["X_PARAM_NAMES"] = X_PARAMS
        k["X_PARAM_DEFAULTS"] = (k["CONTROL_PP"], -1, k["CITY_CONTROL_PP"], 0, k["COMPENSATION"][0])
        k["N_X_PARAMS"] = 5
        k["X_CONTROL_PP"] = 0
        k["X_FULL_ABILITY_PP"] = 1
        k["X_CITY_PP"] = 2
        k["X_EXTRA_ACTIONS"] = 3
        k["X_TRADER_COMPENSATION"] = 4
    if comp["x_reach"]:  # Emperor's Favour "displaced pieces may go to any free points"
        k["X_PARAM_NAMES"] += (X_REACH,)
        k["X_PARAM_DEFAULTS"] += (0,)
        k["N_X_PARAMS"] = 6
        k["X_DISPLACEMENT_REACH"] = 5
    if comp["x_params"]:  # as a rule in words names each (`your city pp becomes 4`): for a desk
        k["X_PARAM_LABELS"] = tuple(SETTABLE)[: k["N_X_PARAMS"]]
    slots = state_slots(f)
    if slots:  # the counters and flags the rule set declares, after the parameters, from 0
        declared = [r for r in f.rules.hook_rules if r.hook == "state"]
        k["X_PARAM_NAMES"] += tuple(slots)
        k["X_PARAM_DEFAULTS"] += (0,) * len(slots)
        k["X_PARAM_LABELS"] += tuple(f"{r.label} {r.target}" for r in declared)
        k["N_X_PARAMS"] += len(slots)
        # a private one is seen in the observations of its own player only
        k["X_PARAM_PRIVATE"] = tuple(r.target for r in declared if dict(r.params)["private"])
        # the range the state JSON reads each in: a parameter's, a counter's, a flag's
        first = k["N_X_PARAMS"] - len(slots)
        k["X_PARAM_LOW"] = (-1,) * first + (0,) * len(slots)
        k["X_PARAM_HIGH"] = (MAX_PARAM,) * first + tuple(
            1 if r.label == "flag" else MAX_PARAM for r in declared
        )


def state_slots(f: Fold) -> dict[str, int]:
    """The slot among the per-player parameters of each counter and flag the rule set declares
    (after the five parameters, and the displacement reach when a rule sets it)."""
    declared = [r for r in f.rules.hook_rules if r.hook == "state"]
    reach = _effects(f.rules.hook_rules, "set_param", "displacement reach")
    first = len(X_PARAMS) + (1 if reach else 0)
    for rule in declared:
        if rule.target in (*X_PARAMS, X_REACH):
            raise error(
                f"'{rule.target}' names a parameter of every player already (the state JSON's"
                f" `parameters`): give the {rule.label} another name",
                rule.span,
            )
    return {r.target: first + i for i, r in enumerate(declared)}


def _shared_control(f: Fold, hook_rules) -> bool:
    """Whether city-control ties are shared (`control_tie shared`, or `control goes to every
    tied player`, which a later control rule in words may override)."""
    shared = f.comp.get("control_tie") == "shared"
    for rule in hook_rules:
        if rule.hook == "control" and rule.condition is None:
            shared = rule.target == "shared"
    return shared


def fold_rules_in_words(f: Fold) -> None:
    """The board facts, the compiler's folded tables (X_TABLE_N, …), the per-player parameters;
    components expr_functions (Python source of each function, by compiler/expr/codegen.py),
    x_<hook> (which hooks have a function), uses_expr and the switches of `_switches`."""
    k, comp = f.k, f.comp
    countries = tuple(n.lower() for n in k.get("COUNTRY_NAMES", ()))
    # The board's countries, for `posts in wales`: every rule is checked again knowing them, so
    # each rule naming an unknown country gets its error (one per rule), not only the first.
    names = replace(
        names_of(f.rules), countries=countries, board=f.board.id, places=places_of(f.board)
    )
    _check(f, names)
    hook_rules = tuple(f.prelude_rules) + tuple(f.rules.hook_rules)
    kinds = [(key, kind) for key, kind, _params in f.categories]
    costly = costly_rules(hook_rules, f.tie_exprs, names, _sizes(f), kinds)
    if costly:
        raise HansaError(costly)
    unbounded = unbounded_rules(hook_rules, f.tie_exprs, names, _sizes(f), kinds)
    if unbounded:
        raise HansaError(unbounded)
    _switches(f, hook_rules)
    if not comp["uses_expr"]:
        return
    _check_setup_receives(f, hook_rules)
    _board_facts(f)
    compiler = python_generator(
        names,
        k["ABILITY_NAMES"],
        [(key, kind) for key, kind, _params in f.categories],
        _marker_ids(f, hook_rules),
        x_params=comp["x_params"],
        city_countries=k.get("CITY_COUNTRIES", ()),
        shared_control=_shared_control(f, hook_rules),
        state_slots=state_slots(f),
    )
    _rule_sources(f, compiler)
    try:
        functions = compiler.hook_functions(hook_rules, f.first_rule_marker, f.tie_exprs)
    except ExprError as exc:  # the checks refuse these first; a rule set built in code may not
        raise HansaError([exc.diagnostic]) from None
    k.update(compiler.constants)
    comp["expr_functions"] = list(functions.values())
    # The checked rules themselves, for targets that compile them into another language (the
    # native target's C twin of the expression compiler): frozen nodes, read only.
    comp["expr_rules"] = hook_rules
    # the decision stack natively: the rules' own frames and what rules in words may push
    comp["max_stack"] = BASE_STACK + check_rule_decisions(f.game, hook_rules, max(f.game.players))
    comp["expr_names"] = names
    comp["expr_tie_exprs"] = tuple(f.tie_exprs)
    comp["expr_marker_ids"] = _marker_ids(f, hook_rules)
    comp["expr_first_rule_marker"] = f.first_rule_marker
    comp["expr_state_slots"] = state_slots(f)
    # each rule's RULE_FIRED slot (-1: not counted), aligned with expr_rules: every target counts
    # the same rules
    comp["expr_rule_slots"] = tuple(compiler.rule_index.get(id(r), -1) for r in hook_rules)
    _parameters(f)
    for switch, function in (
        ("x_setup", "x_setup"),
        ("x_turn_start", "x_turn_start"),
        ("x_turn_end", "x_turn_end"),
        ("x_marker_draw", "x_marker_draw"),
        ("x_after_route", "x_after_route"),
        ("x_forbid", "x_forbidden"),
        ("x_end", "x_end"),
        ("x_end_after_turn", "x_end_after_turn"),
        ("x_end_after_round", "x_end_after_round"),
        ("x_control_most", "x_control_value"),
        ("x_order", "x_order_value"),
        *((f"x_{hook}", f"x_{hook}") for hook in AFTER_HOOKS),
    ):
        comp[switch] = function in functions
    # an end trigger timed `after turn` / `after round` (in words, or the marker supply's)
    comp["x_end_later"] = (
        comp["x_end_after_turn"]
        or comp["x_end_after_round"]
        or comp.get("end_marker_supply_empty_timing", "now") != "now"
    )
    comp["x_order_most"] = any(r.hook == "order" and r.target == "most" for r in hook_rules)
    for rule in hook_rules:
        if rule.hook == "control" and rule.condition is None:
            comp["control_tie"] = rule.target
        if any(e.kind == "develop" and not e.name for e in rule.effects):
            comp["marker_develop_ability"] = True  # the chosen-ability decision


# Rules in words whose use `hansa simulate` counts: a hook's effects (RULE_FIRED, counted when one
# of its effects runs: its condition held, for one of the players it names), a marker's use, a
# forbid refusing an action (RULE_FIRED), a scoring category scoring and an end trigger firing
# (read from the final score and end_conditions_met). compiler/expr/codegen.py does the counting,
# for every target.
COUNTED_HOOKS = (
    "setup",
    "turn_start",
    "turn_end",
    "marker_draw",
    "after_create_route",
    *AFTER_HOOKS,
    "marker_used",
    "forbid",
    "score",
    "end",
)


def _rule_sources(f: Fold, compiler: ExprGenerator) -> None:
    """RULE_SOURCES: per rule of the spec written in words (not the prelude's) that play can
    count, (hook, name, `file:line`, text): the name is the marker's label, the category's key,
    the end trigger's name or the forbidden action. Each gets a RULE_FIRED slot."""
    sources = []
    for rule in f.rules.hook_rules:
        if rule.hook not in COUNTED_HOOKS:
            continue
        if rule.hook == "end":
            name = rule.key.removeprefix("end:")
        elif rule.hook == "marker_used":
            name = rule.label
        else:
            name = rule.target
        compiler.rule_index[id(rule)] = len(sources)
        sources.append((rule.hook, name, where(rule.span), rule.text()))
    f.k["RULE_SOURCES"] = tuple(sources)


def _mentions(hook_rules, tie_exprs, quantity: str) -> bool:
    """Whether any rule in words (or tie-break quantity) reads `quantity`."""
    nodes: list = list(tie_exprs)
    for rule in hook_rules:
        nodes += [rule.amount, rule.condition]
        for effect in rule.effects:
            nodes += [effect.amount, effect.value, effect.when]
            if effect.whom is not None:
                nodes += [effect.whom.player, effect.whom.members()]
    return any(quantity in _refs(node) for node in nodes if node is not None)
