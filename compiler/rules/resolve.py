"""`extends` resolution: a rule set's chain of parents folded root first into one complete rule set.

`resolve` applies each link's statements (lowered by `lower.py`) over its folded parent, keeps the
span of the statement that last defined each component, and refuses an unknown parent, a cycle, a
bad statement or an incomplete result, with locations; the consistency checks (`checks.py`) run on
the result.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from ..errors import NO_SPAN, Diagnostic, HansaError, Span, did_you_mean
from ..nodes.rules import RuleSet
from .catalogue import CATALOGUE, kinds
from .checks import check_ruleset
from .lower import apply_statement, build_ruleset, statement_state


def resolve(
    name: str,
    rulesets: Mapping[str, RuleSet],
    span: Span | None = None,
    cache: dict[str, RuleSet | HansaError] | None = None,
) -> RuleSet:
    """The complete rule set `name`: its `extends` chain folded root first, `extends` None, each
    component keeping the span of the statement that last defined it, `sources` the chain's files.
    Unknown names, cycles, bad statements and incomplete results raise HansaError with locations.

    `cache` (name → folded rule set or its error) lets a caller resolving many rule sets of one
    project fold each link of a shared chain once, so resolving all of them stays linear."""
    resolved = _resolve_chain(name, rulesets, span, {} if cache is None else cache)
    problems = [d for d in check_ruleset(resolved) if d.severity == "error"]
    if problems:
        raise HansaError(problems)
    return resolved


def _resolve_chain(
    name: str,
    rulesets: Mapping[str, RuleSet],
    span: Span | None,
    cache: dict[str, RuleSet | HansaError],
) -> RuleSet:
    """Fold the chain iteratively (a chain of any length never exhausts Python's stack): walk up
    to the root or to a link already folded, then fold back down, remembering every link."""
    chain: list[str] = []  # from `name` up, each one extending the next
    on_chain: set[str] = set()
    current, at = name, span
    while True:
        known = cache.get(current)
        if known is not None:
            break
        ruleset = rulesets.get(current)
        if ruleset is None:
            known = HansaError(
                f"unknown rule set '{current}'{did_you_mean(current, list(rulesets))}", at
            )
            break
        chain.append(current)
        on_chain.add(current)
        if ruleset.extends is None:
            break
        if ruleset.extends in on_chain:
            shown = " → ".join((*_shorten(chain), ruleset.extends))
            known = HansaError(
                f"rule sets extend each other in a cycle: {shown}", ruleset.extends_span
            )
            break
        current, at = ruleset.extends, ruleset.extends_span
    # Fold from the top: `known` is the folded parent of chain[-1] (or its error), if any.
    parent = known
    for link in reversed(chain):
        if isinstance(parent, HansaError):
            cache[link] = parent
            continue
        try:
            parent = cache[link] = _fold(rulesets[link], parent)
        except HansaError as exc:
            parent = cache[link] = exc
    if isinstance(parent, HansaError):
        raise parent
    assert parent is not None
    return parent


def _shorten(chain: list[str], keep: int = 6) -> list[str]:
    """The names of a long cycle, with the middle left out (a message stays one line)."""
    if len(chain) <= 2 * keep:
        return chain
    return [*chain[:keep], f"… {len(chain) - 2 * keep} more …", *chain[-keep:]]


def _fold(ruleset: RuleSet, parent: RuleSet | None) -> RuleSet:
    """One link: a root as lowered, or a rule set's statements applied over its folded parent."""
    if ruleset.extends is None or parent is None:
        return _finish(ruleset)  # lower_rules applied a root's statements already
    state, tiebreak = statement_state(parent)
    errors: list[Diagnostic] = []
    for statement in ruleset.statements:
        try:
            apply_statement(state, tiebreak, statement, parent.name)
        except HansaError as exc:
            errors.extend(exc.diagnostics)
    if errors:
        raise HansaError(errors)
    parent_sources = set(parent.sources)
    sources = parent.sources + tuple(s for s in ruleset.sources if s not in parent_sources)
    base = RuleSet(
        name=ruleset.name, title=ruleset.title or parent.title, span=ruleset.span, sources=sources
    )
    folded = build_ruleset(base, state, tiebreak)
    _check_inherited_tiebreak(ruleset, parent, folded)
    return _finish(folded)


def _check_inherited_tiebreak(ruleset: RuleSet, parent: RuleSet, folded: RuleSet) -> None:
    """A child that removes or replaces a category its inherited tie-break compares is told so at
    its own statement (the tie-break line it inherited is in the parent's file)."""
    if any(s.section == "tiebreak" for s in ruleset.statements):
        return  # the child wrote its own chain: the checks locate any problem in it
    changes = [
        s
        for s in ruleset.statements
        if (s.section == "score" and s.op in ("remove", "replace"))
        or (s.section == "hook" and s.op == "replace")
    ]
    if not changes:
        return  # no category of the parent's is gone: its chain still holds
    broken = [d for d in check_ruleset(folded) if "tie-break names score category" in d.message]
    if not broken:
        return
    at = changes[-1].key_span
    step = broken[0].span
    shown = f"{step.file}:{step.line}" if step and step.line else parent.name
    name = broken[0].message.split("'")[1]
    raise HansaError(
        f"this leaves the tie-break inherited from {parent.name} ({shown}) comparing score"
        f" '{name}', which the rule set no longer has: write a `tiebreak` line of its own"
        " (e.g. `tiebreak fewest ability actions, shared`)",
        at,
    )


def _finish(ruleset: RuleSet) -> RuleSet:
    """The resolved form: no parent, no pending statements, completeness checked."""
    resolved = replace(ruleset, extends=None, statements=(), extends_span=NO_SPAN)
    _check_complete(resolved)
    return resolved


def _check_complete(ruleset: RuleSet) -> None:
    """A resolved rule set must have every required component (the root edition declares them)."""
    missing: list[str] = []
    for section, value in (
        ("pieces", ruleset.pieces),
        ("setup", ruleset.setup),
        ("markers", ruleset.marker_rules),
    ):
        if value is None:
            missing.append(f"`{section}`")
    if not ruleset.abilities:
        missing.append("`ability`")
    if not ruleset.actions:
        missing.append("`action`")
    if not ruleset.end_triggers:
        missing.append("`end when` trigger")
    if not ruleset.scoring:
        missing.append("`score` category")
    if not ruleset.tiebreak:
        missing.append("`tiebreak` chain")
    declared = {o.name for o in ruleset.options}
    for option in kinds("option"):
        if option not in declared and CATALOGUE[("option", option)].decision:
            default = CATALOGUE[("option", option)].params[0].default
            shown = ("yes" if default else "no") if isinstance(default, bool) else default
            missing.append(f"`option {option} = {shown}`")
    if missing:
        raise HansaError(
            [
                Diagnostic(
                    f"rule set {ruleset.name} is incomplete: it declares no {m}", ruleset.span
                )
                for m in missing
            ]
        )
