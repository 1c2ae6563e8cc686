"""End triggers: kinds defined in the prelude become rules in words (compiler/rules/prelude.py);
the others are procedures with a template (END_KINDS)."""

from __future__ import annotations

from dataclasses import replace

from ..errors import Span
from ..rules.prelude import defined, expand
from .fold import Fold, error, where

# Kinds that stay templates because they are procedures, not values (docs/architecture.md); every
# other end trigger is defined in words in compiler/rules/prelude.hansa.
END_KINDS = ("marker_supply_empty",)


def expand_at(definition, key: str, values: dict, span: Span):
    """A prelude kind with the rule set's values, as a rule in words located at the statement,
    and the per-player parameters it starts."""
    rule, defaults = expand(definition, key, values)
    return replace(rule, span=span), defaults


def fold_end_triggers(f: Fold) -> None:
    """END_TRACK_PP and END_COMPLETED_CITIES (thresholds the agents read, play/greedy.py; 0: no
    such trigger); component end_marker_supply_empty; the prelude's kinds as rules in words."""
    k, ends = f.k, {}
    for t in f.rules.end_triggers:
        if t.kind not in END_KINDS and defined("end", t.kind) is None:
            raise error(f"end trigger {t.kind!r} has no definition", t.span)
        ends[t.kind] = t
        f.origins[f"end:{t.kind}"] = where(t.span)
    f.comp["end_marker_supply_empty"] = "marker_supply_empty" in ends
    f.comp["end_marker_supply_empty_timing"] = (
        ends["marker_supply_empty"].timing if "marker_supply_empty" in ends else "now"
    )
    if "track_pp" in ends and ends["track_pp"].threshold is None:
        raise error("the track_pp end trigger needs a threshold", ends["track_pp"].span)
    k["END_TRACK_PP"] = int(ends["track_pp"].threshold) if "track_pp" in ends else 0
    if "completed_cities" in ends:
        thr = ends["completed_cities"].threshold
        thr = f.board.completed_cities if thr is None else int(thr)
        if thr > k["N_CITIES"]:
            raise error(
                f"the completed-cities trigger ({thr}) exceeds the {k['N_CITIES']} cities",
                ends["completed_cities"].span,
            )
        k["END_COMPLETED_CITIES"] = thr
    else:
        k["END_COMPLETED_CITIES"] = 0
    for kind, t in ends.items():
        definition = defined("end", kind)
        if definition is not None:
            threshold = k["END_COMPLETED_CITIES"] if kind == "completed_cities" else t.threshold
            values = {"threshold": threshold} if definition.params else {}
            rule = expand_at(definition, kind, values, t.span)[0]
            timing = "" if t.timing == "now" else t.timing  # a rule in words keeps it as target
            f.prelude_rules.append(replace(rule, target=timing))
