"""Rules lowering: `rules` and `game` syntax trees → the rules IR; `extends` resolution.

A rule set is a list of statements. Each one sets a component (creating it, or — in a rule set that
`extends` another — updating the parent's component with the same key, parameter by parameter),
`remove`s one, or `replace`s one with another. `lower_rules` checks every statement against the
component catalogue (compiler/rules/catalogue.py) and keeps them in `RuleSet.statements`; `resolve`
applies a rule set's statements on top of its resolved parent and returns the complete rule set,
every component keeping the span of the statement that last defined it.

Keys: ability by name, action by kind, bonus marker by label (`bonus plus_3 = extra_actions(…)`,
the kind when no label is given), score category by its key (A…F), end trigger by kind, option by
name; pieces, setup and markers are single components updated per parameter; tiebreak is
replaced whole.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field, replace

import lark

from ..errors import NO_SPAN, Diagnostic, HansaError, Span, did_you_mean
from ..expr.lower import STATEMENTS as HOOK_STATEMENTS
from ..expr.lower import lower_end_condition, lower_expr, lower_hook_rule
from ..nodes.rules import (
    Ability,
    BoardRule,
    BonusMarker,
    CreateRoute,
    Displace,
    EndTrigger,
    Game,
    Income,
    MarkerRules,
    Move,
    Option,
    Pawn,
    PermanentMarker,
    Pieces,
    Place,
    RuleSet,
    ScoreCategory,
    Setup,
    TieBreakStep,
)
from ..syntax.limits import number_problem
from ..syntax.parser import span_of, unquote
from .catalogue import (
    CATALOGUE,
    MARKER_PARAMS,
    PRIVILEGE_COLOURS,
    SINGLE_SECTIONS,
    Component,
    ListValue,
    MapEntry,
    MapValue,
    Number,
    PairsValue,
    Param,
    RawValue,
    Text,
    Word,
    component,
    kinds,
)

# Rule-set and game names become file and module names downstream: letters (any alphabet), digits,
# `_` and single inner hyphens, starting with a letter — the NAME token, even when written quoted.
NAME_PATTERN = re.compile(r"[^\W\d]\w*(?:-\w+)*")
MIN_PLAYERS, MAX_PLAYERS = 2, 5


@dataclass(frozen=True)
class Statement:
    """One statement of a rule set, checked against the catalogue.

    op: "set" (create or update the component `key` of `section`), "remove", or "replace" (remove
    `key`, put `replacement` — a "set" statement — in its place). `params` holds only the parameters
    written (converted to IR values), `marker` a bonus marker's count/start, `steps` a tiebreak.
    """

    op: str
    section: str
    key: str
    kind: str = ""
    params: tuple[tuple[str, object], ...] = ()
    marker: tuple[tuple[str, object], ...] = ()
    steps: tuple[TieBreakStep, ...] = ()
    replacement: Statement | None = None
    span: Span = field(default=NO_SPAN, compare=False)
    key_span: Span = field(default=NO_SPAN, compare=False)


# -------------------------------------------------------------------------------------------------
# Small tree helpers.


def _word(token: lark.Token) -> str:
    """A name token as text, NFC-normalised as the board language does (a name typed with a
    decomposed 'ü' is the same name as one typed with the composed character)."""
    return unicodedata.normalize("NFC", str(token))


def _name(tree: lark.Tree, file: str, what: str) -> str:
    """A rule-set or game name (`r_name`): a NAME, or a quoted string holding a valid name."""
    token = tree.children[0]
    text = _word(token)
    if token.type == "STRING":  # NAME_PATTERN below is stricter than a text: it says what is wrong
        text = unquote(token, file, f"{what} name", text=True)
    if not NAME_PATTERN.fullmatch(text):
        raise HansaError(
            f"{what} name {text!r} is not a name: use letters, digits, '_' and single inner '-',"
            " starting with a letter",
            span_of(token, file),
        )
    return text


def _board_name(tree: lark.Tree, file: str) -> str:
    """A board reference: any name a `board` declaration accepts, quoted strings included."""
    token = tree.children[0]
    return unquote(token, file, "board name") if token.type == "STRING" else _word(token)


def _int(token: lark.Token, file: str) -> int:
    """An INT token's value, or a HansaError at it when it is larger than MAX_NUMBER."""
    problem = number_problem(str(token))
    if problem:
        raise HansaError(problem, span_of(token, file))
    return int(str(token))


def _raw_atom(tree: lark.Tree, file: str) -> Word | Number | Text:
    token = tree.children[0]
    span = span_of(token, file)
    if token.type == "INT":
        return Number(_int(token, file), span)
    if token.type == "STRING":
        return Text(unquote(token, file, "string", text=True), span)
    return Word(_word(token), span)


def _raw_value(tree: lark.Tree, file: str) -> RawValue:
    if tree.data == "r_atom":
        return _raw_atom(tree, file)
    if tree.data == "r_list":
        return ListValue(tuple(_raw_atom(c, file) for c in tree.children), span_of(tree, file))
    if tree.data == "r_pairs":
        pairs = tuple(
            (_raw_atom(pair.children[0], file), _raw_atom(pair.children[1], file))
            for pair in tree.children
        )
        return PairsValue(pairs, span_of(tree, file))
    if tree.data == "r_map":
        entries = []
        for entry in tree.children:
            key_tree = entry.children[0]
            ints = [
                _int(t, file)
                for t in key_tree.children
                if isinstance(t, lark.Token) and t.type == "INT"
            ]
            key: str | int | tuple[int, int | None]
            if key_tree.data == "r_key_name":
                key = _word(key_tree.children[0])
            elif key_tree.data == "r_key_int":
                key = ints[0]
            elif key_tree.data == "r_key_range":
                key = (ints[0], ints[1])
            else:  # r_key_from
                key = (ints[0], None)
            atoms = [_raw_atom(c, file) for c in entry.children[1:]]
            value = atoms[0] if len(atoms) == 1 else ListValue(tuple(atoms), span_of(entry, file))
            entries.append(MapEntry(key, value, span_of(entry, file)))
        return MapValue(tuple(entries), span_of(tree, file))
    raise AssertionError(f"unexpected value tree {tree.data}")  # pragma: no cover - grammar


def _convert_params(
    comp: Component,
    items: list[tuple[lark.Token, lark.Tree]],
    file: str,
    allowed: tuple[Param, ...] | None = None,
    seen: dict[str, Span] | None = None,
) -> list[tuple[str, object]]:
    """Check `NAME VALUE` pairs against a component's parameters (or `allowed`) and convert them."""
    params = comp.params if allowed is None else allowed
    known = {p.name: p for p in params}
    seen = {} if seen is None else seen
    out: list[tuple[str, object]] = []
    for name_token, value_tree in items:
        name = _word(name_token)
        span = span_of(name_token, file)
        param = known.get(name)
        if param is None:
            what = (
                f"{comp.section} {comp.kind}" if comp.section not in SINGLE_SECTIONS else comp.kind
            )
            if known:
                hint = did_you_mean(name, known) + f"; it takes: {', '.join(known)}"
            else:
                hint = "; it takes no parameters"
            raise HansaError(f"unknown parameter '{name}' for {what}{hint}", span)
        if name in seen:
            raise HansaError(f"parameter '{name}' is given twice (first at {seen[name]})", span)
        seen[name] = span
        out.append((name, param.type.convert(_raw_value(value_tree, file))))
    return out


def _param_pairs(trees) -> list[tuple[lark.Token, lark.Tree]]:
    return [(t.children[0], t.children[1]) for t in trees if t.data in ("r_param", "r_arg")]


def _check_track(comp: Component, values: tuple, span: Span) -> None:
    """An ability track's values: numbers (not falling), colours in Privilege order, or numbers
    ending in `all` (Bank)."""
    if len(values) < 1:
        raise HansaError(f"ability {comp.kind} needs at least one value", span)
    if comp.track_values == "colours":
        for v in values:
            if v not in PRIVILEGE_COLOURS:
                raise HansaError(
                    f"ability {comp.kind} values are privilege colours "
                    f"({', '.join(PRIVILEGE_COLOURS)}); got"
                    f" {v!r}{did_you_mean(str(v), PRIVILEGE_COLOURS)}",
                    span,
                )
        ranks = [PRIVILEGE_COLOURS.index(v) for v in values]
        if ranks != sorted(set(ranks)):
            raise HansaError(
                f"ability {comp.kind} colours must rise: white, orange, pink, black", span
            )
        return
    numbers = list(values)
    if comp.track_values == "numbers_or_all" and numbers and numbers[-1] == "all":
        numbers = numbers[:-1]
    for v in numbers:
        if not isinstance(v, int):
            extra = " (or 'all' last)" if comp.track_values == "numbers_or_all" else ""
            raise HansaError(
                f"ability {comp.kind} values are whole numbers{extra}; got {v!r}", span
            )
    if numbers != sorted(numbers):
        raise HansaError(f"ability {comp.kind} values must not fall from left to right", span)


# -------------------------------------------------------------------------------------------------
# Statements.


def _set_statement(section: str, key: str, kind: str, body: lark.Tree, stmt: lark.Tree, file: str):
    """A "set" statement of `section` whose component kind is `kind` and whose parameters follow."""
    comp = component(section, kind, span_of(body.children[0], file) if body is not None else None)
    children = body.children if body is not None else []
    args = [c for c in children if isinstance(c, lark.Tree) and c.data == "r_args"]
    clauses = [c for c in children if isinstance(c, lark.Tree) and c.data == "r_param"]
    marker: list[tuple[str, object]] = []
    seen: dict[str, Span] = {}
    if section == "bonus":
        params = _convert_params(comp, _param_pairs(args[0].children) if args else [], file)
        marker = _convert_params(comp, _param_pairs(clauses), file, allowed=MARKER_PARAMS)
    elif section == "permanent_marker":
        params = _convert_params(
            comp, (_param_pairs(args[0].children) if args else []) + _param_pairs(clauses), file
        )
    else:
        pairs = (_param_pairs(args[0].children) if args else []) + _param_pairs(clauses)
        params = _convert_params(comp, pairs, file, seen=seen)
    if section == "ability":
        for name, value in params:
            if name == "values":
                _check_track(comp, value, seen["values"])
    return Statement(
        "set",
        section,
        key,
        kind,
        tuple(params),
        tuple(marker),
        span=span_of(stmt, file),
        key_span=span_of(body.children[0], file) if body is not None else span_of(stmt, file),
    )


def _single(section: str, stmt: lark.Tree, file: str) -> Statement:
    comp = CATALOGUE[(section, section)]
    params = _convert_params(comp, _param_pairs(stmt.children), file)
    span = span_of(stmt, file)
    return Statement("set", section, section, section, tuple(params), span=span, key_span=span)


def _bonus(body: lark.Tree, stmt: lark.Tree, file: str) -> Statement:
    label = [c for c in body.children if isinstance(c, lark.Tree) and c.data == "r_label"]
    kind_token = next(c for c in body.children if isinstance(c, lark.Token))
    key = _word(label[0].children[0]) if label else _word(kind_token)
    has_args = any(isinstance(c, lark.Tree) and c.data == "r_args" for c in body.children)
    if not label and not has_args and ("bonus", key) not in CATALOGUE:
        # `bonus plus_3_actions count 1`: update an inherited marker by its label; its kind (and
        # whether the label exists at all) is known only when the statement is applied.
        clauses = [c for c in body.children if isinstance(c, lark.Tree) and c.data == "r_param"]
        comp = Component("bonus", key)
        marker = _convert_params(comp, _param_pairs(clauses), file, allowed=MARKER_PARAMS)
        kind_span = span_of(kind_token, file)
        return Statement(
            "set", "bonus", key, "", (), tuple(marker), span=span_of(stmt, file), key_span=kind_span
        )
    statement = _set_statement("bonus", key, _word(kind_token), body, stmt, file)
    if label:
        key_span = span_of(label[0].children[0], file)
        statement = replace(statement, key_span=key_span)
    return statement


def _single_word(tree: lark.Tree) -> lark.Token | None:
    """The word of an expression that is one bare word (`marker_supply_empty`), else None."""
    if tree.data != "x_ref" or len(tree.children) != 1:
        return None
    words = tree.children[0]
    if words.data != "x_words" or len(words.children) != 1:
        return None
    return words.children[0]


def _end_alternative(tree: lark.Tree, file: str) -> Statement:
    """One alternative of `end when …`: a catalogue trigger, `KIND` or `KIND >= VALUE` with KIND
    a catalogue kind (or any word_with_underscores, so a misspelt kind gets the catalogue's "did
    you mean"), else a condition in words."""
    word = _single_word(tree)
    if word is not None and (_word(word) in kinds("end") or "_" in str(word)):
        return _trigger_statement(word, None, tree, file)
    if tree.data == "x_compare" and len(tree.children) == 3:
        left, op, right = tree.children
        word = _single_word(left)
        if (
            word is not None
            and (_word(word) in kinds("end") or "_" in str(word))
            and "".join(str(t) for t in op.children) == ">="
        ):
            return _trigger_statement(word, _threshold_atom(right, file), tree, file)
    rule = lower_end_condition(tree, file)
    span = span_of(tree, file)
    return Statement("set", "hook", rule.key, params=(("rule", rule),), span=span, key_span=span)


# `end when … after turn` / `after round` (grammar rule -> timing); without one: at once.
END_TIMING_RULES = {"r_after_turn": "turn", "r_after_round": "round"}


def _timed(statement: Statement, timing: str) -> Statement:
    """An `end when` alternative with the timing written after it."""
    if statement.section == "hook":
        rule = replace(dict(statement.params)["rule"], target=timing)
        return replace(statement, params=(("rule", rule),))
    return replace(statement, params=(*statement.params, ("timing", timing)))


def _threshold_atom(tree: lark.Tree, file: str) -> Word | Number | Text:
    """A threshold written in an `end when` condition: a number or one word (`board`)."""
    if tree.data == "x_int":
        return Number(_int(tree.children[0], file), span_of(tree, file))
    word = _single_word(tree)
    if word is None:
        raise HansaError("a threshold is a number or one word (`board`)", span_of(tree, file))
    return Word(_word(word), span_of(word, file))


def _trigger_statement(
    kind_token: lark.Token, raw: Word | Number | Text | None, tree: lark.Tree, file: str
) -> Statement:
    """A catalogue end trigger with its threshold, if written."""
    kind = _word(kind_token)
    comp = component("end", kind, span_of(kind_token, file))
    params: tuple[tuple[str, object], ...] = ()
    if raw is not None:
        param = comp.param("threshold")
        if param is None:
            raise HansaError(f"end trigger {kind} takes no threshold", raw.span)
        params = (("threshold", param.type.convert(raw)),)
    span = span_of(tree, file)
    return Statement(
        "set", "end", kind, kind, params, span=span, key_span=span_of(kind_token, file)
    )


def _trigger(trigger: lark.Tree, file: str) -> Statement:
    """`KIND` or `KIND >= VALUE` in `replace end X with …`."""
    raw = _raw_atom(trigger.children[1], file) if len(trigger.children) > 1 else None
    return _trigger_statement(trigger.children[0], raw, trigger, file)


def _steps(stmt: lark.Tree, file: str) -> tuple[TieBreakStep, ...]:
    steps = []
    for step in stmt.children:
        span = span_of(step, file)
        if step.data == "r_step_shared":
            steps.append(TieBreakStep("shared", span=span))
        else:
            rule = "fewest" if step.children[0].data == "r_fewest" else "most"
            if step.data == "r_step_expr":
                expr = lower_expr(step.children[1], file)
                steps.append(TieBreakStep(rule, "expr", expr.text(), span=span, expr=expr))
                continue
            what = "ability" if step.data == "r_step_ability" else "score"
            steps.append(TieBreakStep(rule, what, _word(step.children[1]), span=span))
    return tuple(steps)


_REMOVE = {
    "r_remove_ability": "ability",
    "r_remove_action": "action",
    "r_remove_bonus": "bonus",
    "r_remove_score": "score",
    "r_remove_end": "end",
    "r_remove_board_rules": "board_rules",
    "r_remove_permanent": "permanent_marker",
}
_REPLACE = {
    "r_replace_ability": "ability",
    "r_replace_action": "action",
    "r_replace_bonus": "bonus",
    "r_replace_score": "score",
    "r_replace_end": "end",
}


def _statements(stmt: lark.Tree, file: str) -> list[Statement]:
    """The statements one statement tree stands for (`end when a | b` stands for two)."""
    data = stmt.data
    span = span_of(stmt, file)
    if data == "r_replace_score_words" or data in HOOK_STATEMENTS:
        return [_hook_statement(stmt, file, span)]
    if data in ("r_pieces", "r_setup", "r_markers", "r_pawn"):
        return [_single(data[2:], stmt, file)]
    if data == "r_ability":
        body = stmt.children[0]
        name = _word(body.children[0])
        return [_set_statement("ability", name, name, body, stmt, file)]
    if data == "r_action":
        body = stmt.children[0]
        name = _word(body.children[0])
        return [_set_statement("action", name, name, body, stmt, file)]
    if data == "r_bonus":
        return [_bonus(stmt.children[0], stmt, file)]
    if data == "r_board_rules":
        body = stmt.children[0]
        name = str(body.children[0])
        return [_set_statement("board_rules", name, name, body, stmt, file)]
    if data == "r_permanent":
        return [_permanent_statement(stmt, file)]
    if data == "r_end":  # each alternative, and its timing when written after it
        alternatives: list[Statement] = []
        for child in stmt.children:
            if child.data in END_TIMING_RULES:
                alternatives[-1] = _timed(alternatives[-1], END_TIMING_RULES[child.data])
            else:
                alternatives.append(_end_alternative(child, file))
        return alternatives
    if data == "r_score":
        key_token, body = stmt.children
        statement = _set_statement(
            "score", _word(key_token), _word(body.children[0]), body, stmt, file
        )
        return [replace(statement, key_span=span_of(key_token, file))]
    if data == "r_tiebreak":
        return [
            Statement(
                "set", "tiebreak", "tiebreak", steps=_steps(stmt, file), span=span, key_span=span
            )
        ]
    if data == "r_option":
        return [_option_statement(stmt, file, span)]
    if data == "r_remove_pawn":
        return [Statement("remove", "pawn", "pawn", span=span, key_span=span)]
    if data in _REMOVE:
        key_token = stmt.children[0]
        return [
            Statement(
                "remove",
                _REMOVE[data],
                _word(key_token),
                span=span,
                key_span=span_of(key_token, file),
            )
        ]
    if data in _REPLACE:
        return [_replace_statement(stmt, file, span)]
    raise AssertionError(f"unexpected statement {data}")  # pragma: no cover - grammar


def _hook_statement(stmt: lark.Tree, file: str, span: Span) -> Statement:
    """A rule in words (compiler/expr/lower.py), or `replace score E "…": AMOUNT`."""
    if stmt.data == "r_replace_score_words":
        rule = lower_hook_rule(lark.Tree("r_score_rule", stmt.children, stmt.meta), file)
        key_span = span_of(stmt.children[0], file)
        return Statement(
            "replace", "hook", rule.key, params=(("rule", rule),), span=span, key_span=key_span
        )
    rule = lower_hook_rule(stmt, file)
    key_span = span_of(stmt.children[0], file) if stmt.data == "r_score_rule" else span
    return Statement(
        "set", "hook", rule.key, params=(("rule", rule),), span=span, key_span=key_span
    )


def _permanent_statement(stmt: lark.Tree, file: str) -> Statement:
    """A permanent marker, keyed by its label (or its kind when it has none)."""
    body = stmt.children[0]
    label = [c for c in body.children if isinstance(c, lark.Tree) and c.data == "r_label"]
    kind_token = next(c for c in body.children if isinstance(c, lark.Token))
    key = str(label[0].children[0]) if label else str(kind_token)
    statement = _set_statement("permanent_marker", key, str(kind_token), body, stmt, file)
    if label:
        statement = replace(statement, key_span=span_of(label[0].children[0], file))
    return statement


def _option_statement(stmt: lark.Tree, file: str, span: Span) -> Statement:
    """`option NAME VALUE`: the value converted by the option's declared type."""
    name_token, atom = stmt.children
    comp = component("option", _word(name_token), span_of(name_token, file))
    value = comp.params[0].type.convert(_raw_atom(atom, file))
    return Statement(
        "set",
        "option",
        comp.kind,
        comp.kind,
        (("value", value),),
        span=span,
        key_span=span_of(name_token, file),
    )


def _replace_statement(stmt: lark.Tree, file: str, span: Span) -> Statement:
    """`replace SECTION KEY with …`: the new component, built as its section builds one."""
    section = _REPLACE[stmt.data]
    key_token, body = stmt.children
    if section == "bonus":
        new = _bonus(body, stmt, file)
    elif section == "end":
        new = _trigger(body, file)
    elif section == "score":
        new = _set_statement("score", _word(key_token), _word(body.children[0]), body, stmt, file)
    else:
        name = _word(body.children[0])
        new = _set_statement(section, name, name, body, stmt, file)
    return Statement(
        "replace",
        section,
        _word(key_token),
        replacement=new,
        span=span,
        key_span=span_of(key_token, file),
    )


# -------------------------------------------------------------------------------------------------
# Applying statements: a rule set's components as ordered dicts, section → key → built component.


@dataclass
class _Built:
    kind: str
    params: dict[str, object]
    marker: dict[str, object]
    span: Span


_State = dict[str, dict[str, _Built]]


def _empty_state() -> _State:
    return {
        s: {}
        for s in (
            "pieces",
            "setup",
            "markers",
            "ability",
            "action",
            "bonus",
            "end",
            "score",
            "option",
            "board_rules",
            "permanent_marker",
            "pawn",
            "hook",
        )
    }


_SECTION_WORDS = {
    "pieces": "pieces",
    "setup": "setup",
    "markers": "markers",
    "ability": "ability",
    "action": "action",
    "bonus": "bonus marker",
    "end": "end trigger",
    "score": "score category",
    "option": "option",
    "board_rules": "board rule",
    "permanent_marker": "permanent marker",
    "pawn": "pawn",
    "hook": "rule",
}


def _fresh(statement: Statement) -> _Built:
    """A new component from a set statement: defaults filled in, required parameters present."""
    comp = CATALOGUE[(statement.section, statement.kind)]
    given = dict(statement.params)
    missing = [p.name for p in comp.params if p.required and p.name not in given]
    if missing:
        what = (
            statement.kind
            if statement.section in SINGLE_SECTIONS
            else f"{statement.section} {statement.kind}"
        )
        raise HansaError(
            f"{what} needs parameter{'s' if len(missing) > 1 else ''} {', '.join(missing)}",
            statement.span,
        )
    params = {p.name: given.get(p.name, p.default) for p in comp.params}
    marker = {p.name: p.default for p in MARKER_PARAMS} if statement.section == "bonus" else {}
    marker.update(dict(statement.marker))
    return _Built(statement.kind, params, marker, statement.span)


def apply_statement(
    state: _State, tiebreak: list[TieBreakStep], statement: Statement, parent: str | None
) -> None:
    """Apply one statement in place; `parent` names the rule set being extended (for messages)."""
    if statement.section == "tiebreak":
        tiebreak[:] = statement.steps  # the chain is replaced whole
        return
    if statement.section == "hook":  # a rule in words: replaces the one with the same key
        rule = dict(statement.params)["rule"]
        if rule.hook == "score":
            _words_category(state, statement, rule, parent)
        state["hook"][statement.key] = rule
        return
    if statement.section == "score" and statement.op != "remove":
        state["hook"].pop(f"score:{statement.key}", None)
    if statement.section == "score" and statement.op == "remove":
        if f"score:{statement.key}" in state["hook"] and statement.key not in state["score"]:
            del state["hook"][f"score:{statement.key}"]
            return
    section = state[statement.section]
    word = _SECTION_WORDS[statement.section]
    if statement.op == "set":
        existing = section.get(statement.key)
        if existing is None and not statement.kind:  # a label that names no inherited marker
            known = [*kinds("bonus"), *section]
            raise HansaError(
                f"unknown bonus marker kind '{statement.key}'{did_you_mean(statement.key, known)};"
                f" known kinds: {', '.join(kinds('bonus'))}"
                + (f"; labels in {parent}: {', '.join(section)}" if parent else ""),
                statement.key_span,
            )
        if existing is not None and not statement.kind:
            statement = replace(statement, kind=existing.kind)
        if existing is None:
            section[statement.key] = _fresh(statement)
        elif existing.kind != statement.kind:
            raise HansaError(
                f"{word} {statement.key} is of kind {existing.kind} in {parent}, not"
                f" {statement.kind};"
                f" write `replace {statement.section} {statement.key} with …` to change its kind",
                statement.key_span,
            )
        else:
            existing.params.update(dict(statement.params))
            existing.marker.update(dict(statement.marker))
            existing.span = statement.span
        return
    if statement.key not in section:
        where = f"{parent} has" if parent else "there is"
        raise HansaError(
            f"cannot {statement.op} {word} {statement.key}: {where} no such {word}"
            + did_you_mean(statement.key, list(section)),
            statement.key_span,
        )
    if statement.op == "remove":
        del section[statement.key]
        return
    new = statement.replacement
    assert new is not None
    if new.key != statement.key and new.key in section:
        raise HansaError(
            f"{word} {new.key} already exists; remove it or choose another", new.key_span
        )
    built = _fresh(new)
    rebuilt = {
        (new.key if k == statement.key else k): (built if k == statement.key else v)
        for k, v in section.items()
    }
    section.clear()
    section.update(rebuilt)


def _words_category(state: _State, statement: Statement, rule, parent: str | None) -> None:
    """A category in words: `score G "…": …` adds G or changes the parent's G written in words;
    the parent's catalogue category of that key (another kind) is only replaced by `replace score
    G "…": …`, which keeps its place."""
    key = rule.target
    inherited = state["score"].get(key)
    if statement.op == "replace":
        if inherited is None and statement.key not in state["hook"]:
            where = f"{parent} has" if parent else "there is"
            raise HansaError(
                f"cannot replace score category {key}: {where} no such score category"
                + did_you_mean(key, [*state["score"], *_words_keys(state)]),
                statement.key_span,
            )
        state["score"].pop(key, None)
        return
    if inherited is not None:
        raise HansaError(
            f"score category {key} is of kind {inherited.kind} in {parent or 'this rule set'};"
            " a category in words"
            f" would silently take its place: write `replace score {key} …: …` to replace it,"
            " or use another letter to add a category"
            + (f" (free: {_free_letter(state)})" if _free_letter(state) else ""),
            statement.key_span,
        )


def _words_keys(state: _State) -> list[str]:
    return [r.target for r in state["hook"].values() if getattr(r, "hook", "") == "score"]


def _free_letter(state: _State) -> str:
    """The first capital letter no category uses (for the hint), or ''."""
    used = {*state["score"], *_words_keys(state)}
    return next((c for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ" if c not in used), "")


def statement_state(ruleset: RuleSet) -> tuple[_State, list[TieBreakStep]]:
    """The components of a resolved rule set as a mutable state (to apply a child's statements)."""
    state = _empty_state()
    for section, item in (
        ("pieces", ruleset.pieces),
        ("setup", ruleset.setup),
        ("markers", ruleset.marker_rules),
        ("pawn", ruleset.pawn),
    ):
        if item is not None:
            params = {p.name: getattr(item, p.name) for p in CATALOGUE[(section, section)].params}
            state[section][section] = _Built(section, params, {}, item.span)
    for a in ruleset.abilities:
        params = {
            "values": a.values,
            "covered_by": a.covered_by,
            "full_pp": a.full_pp,
            "role": a.role,
        }
        state["ability"][a.name] = _Built(a.name, params, {}, a.span)
    for act in ruleset.actions:
        kind = _ACTION_KINDS[type(act)]
        params = {p.name: getattr(act, p.name) for p in CATALOGUE[("action", kind)].params}
        state["action"][kind] = _Built(kind, params, {}, act.span)
    for b in ruleset.bonus_markers:
        state["bonus"][b.name or b.kind] = _Built(
            b.kind, dict(b.params), {"count": b.count, "start": b.start}, b.span
        )
    for e in ruleset.end_triggers:
        comp = CATALOGUE[("end", e.kind)]
        params = {p.name: getattr(e, p.name) for p in comp.params}
        state["end"][e.kind] = _Built(e.kind, params, {}, e.span)
    for s in ruleset.scoring:
        state["score"][s.key] = _Built(s.kind, dict(s.params), {}, s.span)
    for o in ruleset.options:
        state["option"][o.name] = _Built(o.name, {"value": o.value}, {}, o.span)
    for br in ruleset.board_rules:
        state["board_rules"][br.kind] = _Built(br.kind, dict(br.params), {}, br.span)
    for pm in ruleset.permanent_markers:
        state["permanent_marker"][pm.name] = _Built(pm.kind, dict(pm.params), {}, pm.span)
    for rule in ruleset.hook_rules:
        state["hook"][rule.key] = rule
    return state, list(ruleset.tiebreak)


_ACTION_CLASSES = {
    "income": Income,
    "place": Place,
    "displace": Displace,
    "move": Move,
    "create_route": CreateRoute,
}
_ACTION_KINDS = {cls: kind for kind, cls in _ACTION_CLASSES.items()}


def build_ruleset(base: RuleSet, state: _State, tiebreak: list[TieBreakStep]) -> RuleSet:
    """A RuleSet from a state; components are IR dataclasses, parameters in catalogue order."""

    def single(section, cls):
        built = state[section].get(section)
        return None if built is None else cls(**built.params, span=built.span)

    abilities = tuple(
        Ability(
            name,
            b.params["values"],
            b.params["covered_by"],
            b.params["full_pp"],
            b.params["role"],
            span=b.span,
        )
        for name, b in state["ability"].items()
    )
    actions = tuple(
        _ACTION_CLASSES[kind](**b.params, span=b.span) for kind, b in state["action"].items()
    )
    markers = tuple(
        BonusMarker(
            b.kind,
            tuple(
                (p.name, b.params.get(p.name, p.default))
                for p in CATALOGUE[("bonus", b.kind)].params
            ),
            b.marker["count"],
            b.marker["start"],
            name=key,
            span=b.span,
        )
        for key, b in state["bonus"].items()
    )
    ends = tuple(
        EndTrigger(kind, b.params.get("threshold"), b.params.get("timing", "now"), span=b.span)
        for kind, b in state["end"].items()
    )
    scoring = tuple(
        ScoreCategory(
            key,
            b.kind,
            tuple(
                (p.name, b.params.get(p.name, p.default))
                for p in CATALOGUE[("score", b.kind)].params
            ),
            span=b.span,
        )
        for key, b in state["score"].items()
    )
    options = tuple(
        Option(name, b.params["value"], span=b.span) for name, b in state["option"].items()
    )

    def ordered(section: str, b: _Built) -> tuple:
        return tuple(
            (p.name, b.params.get(p.name, p.default)) for p in CATALOGUE[(section, b.kind)].params
        )

    board_rules = tuple(
        BoardRule(kind, ordered("board_rules", b), span=b.span)
        for kind, b in state["board_rules"].items()
    )
    permanent = tuple(
        PermanentMarker(name, b.kind, ordered("permanent_marker", b), span=b.span)
        for name, b in state["permanent_marker"].items()
    )
    return RuleSet(
        name=base.name,
        title=base.title,
        extends=base.extends,
        pieces=single("pieces", Pieces),
        setup=single("setup", Setup),
        abilities=abilities,
        actions=actions,
        bonus_markers=markers,
        marker_rules=single("markers", MarkerRules),
        end_triggers=ends,
        scoring=scoring,
        tiebreak=tuple(tiebreak),
        options=options,
        pawn=single("pawn", Pawn),
        span=base.span,
        hook_rules=tuple(state["hook"].values()),
        sources=base.sources,
        statements=base.statements,
        extends_span=base.extends_span,
        board_rules=board_rules,
        permanent_markers=permanent,
    )


# -------------------------------------------------------------------------------------------------
# Entry points.


def lower_rules(tree: lark.Tree, file: str) -> RuleSet:
    """A `rules` tree → RuleSet. A root rule set gets its components; one that `extends` another
    keeps only its statements until `resolve`. Every bad statement is reported (one HansaError)."""
    children = list(tree.children)
    name = _name(children[0], file, "rule set")
    title = ""
    extends: str | None = None
    extends_span = NO_SPAN
    statements: list[Statement] = []
    errors: list[Diagnostic] = []
    first_seen: dict[tuple[str, str], Span] = {}
    for child in children[1:]:
        if child.data == "r_title":
            title = unquote(child.children[0], file, "title", text=True)
            continue
        if child.data == "r_extends":
            extends = _name(child.children[0], file, "rule set")
            extends_span = span_of(child.children[0], file)
            continue
        try:
            for statement in _statements(child, file):
                addressed = [(statement.section, statement.key)]
                if statement.replacement is not None and statement.replacement.key != statement.key:
                    addressed.append((statement.section, statement.replacement.key))
                for section, key in addressed:
                    if (section, key) in first_seen:
                        word = _SECTION_WORDS.get(section, section)
                        label = (
                            word
                            if section in SINGLE_SECTIONS or section == "tiebreak"
                            else f"{word} {key}"
                        )
                        if key.startswith("state:"):  # `counter tally` then `flag tally`
                            label = f"the counter or flag '{key.removeprefix('state:')}'"
                        raise HansaError(
                            f"{label} is declared twice in rule set {name} (first at"
                            f" {first_seen[(section, key)]})",
                            statement.key_span,
                        )
                    first_seen[(section, key)] = statement.key_span
                statements.append(statement)
        except HansaError as exc:
            errors.extend(exc.diagnostics)
    if errors:
        raise HansaError(errors)
    ruleset = RuleSet(
        name=name,
        title=title,
        extends=extends,
        span=span_of(tree, file),
        sources=(file,),
        statements=tuple(statements),
        extends_span=extends_span,
    )
    if extends is not None:
        return ruleset
    state, tiebreak = statement_state(ruleset)
    for statement in statements:
        try:
            apply_statement(state, tiebreak, statement, None)
        except HansaError as exc:
            errors.extend(exc.diagnostics)
    if errors:
        raise HansaError(errors)
    return build_ruleset(ruleset, state, tiebreak)


def lower_game(tree: lark.Tree, file: str) -> Game:
    """A `game` tree → Game: `game NAME = RULES on BOARD players 4..5` (or `3`, or `3, 4`)."""
    name_tree, rules_tree, board_tree, players_tree = tree.children
    ints = [_int(t, file) for t in players_tree.children]
    span = span_of(players_tree, file)
    if players_tree.data == "r_players_range":
        low, high = ints
        if high < low:
            raise HansaError(f"empty player range {low}..{high}", span)
        players = tuple(range(low, high + 1))
    else:
        players = tuple(ints)
        if len(set(players)) != len(players):
            raise HansaError("a player count is listed twice", span)
        if list(players) != sorted(players):
            raise HansaError("list player counts in rising order", span)
    return Game(
        name=_name(name_tree, file, "game"),
        rules=_name(rules_tree, file, "rule set"),
        board=_board_name(board_tree, file),
        players=players,
        span=span_of(tree, file),
        rules_span=span_of(rules_tree, file),
        board_span=span_of(board_tree, file),
        players_span=span,
    )
