"""Final scoring and the tie-break chain. Scoring kinds defined in the prelude become rules in
words, like a category written in words; the others are procedures with a template
(SCORE_KINDS)."""

from __future__ import annotations

import re

from ..errors import did_you_mean
from ..rules.catalogue import component
from ..rules.prelude import defined
from .ending import expand_at
from .fold import Fold, error, where

# Kinds that stay templates because they are procedures, not values (docs/architecture.md).
SCORE_KINDS = ("country_majority", "missions")


def _missions(f: Fold, sc, params: dict) -> None:
    """MISSION_CARDS (the cities of each secret card), MISSION_POST_PP, MISSION_ALL_PP."""
    k, board, players = f.k, f.board, max(f.game.players)
    if "MISSION_CARDS" in k:
        raise error("only one mission-card category is allowed", sc.span)
    cards = []
    for number, card_cities in enumerate(params.get("cards", ()), start=1):
        unknown = [c for c in card_cities if c not in f.city_index]
        if unknown:
            raise error(
                f"mission card {number} names {unknown[0]!r}, which is not a city of"
                f" board {board.id!r}" + did_you_mean(unknown[0], list(f.city_index)),
                sc.span,
            )
        cards.append(tuple(f.city_index[c] for c in card_cities))
    if len(cards) < players:
        raise error(f"{len(cards)} mission cards cannot be dealt to {players} players", sc.span)
    k["MISSION_CARDS"] = tuple(cards)
    k["MISSION_POST_PP"] = int(params.get("post_pp", 1))
    k["MISSION_ALL_PP"] = int(params.get("all_pp", 5))


def _category(f: Fold, sc) -> dict | None:
    """A `score` statement's parameters as its template reads them (None: nothing to score)."""
    definition = defined("score", sc.kind)
    if sc.kind not in SCORE_KINDS and definition is None:
        raise error(f"scoring category {sc.kind!r} has no definition", sc.span)
    if not re.fullmatch(r"[A-Z]", sc.key):
        raise error(f"scoring category key {sc.key!r} must be one capital letter", sc.span)
    params = dict(sc.params)
    if definition is not None:
        catalogue = component("score", sc.kind)
        values = {p.name: params.get(p.name, p.default) for p in catalogue.params}
        rule, defaults = expand_at(definition, sc.key, values, sc.span)
        f.prelude_rules.append(rule)
        f.settable_defaults.update(defaults)
        return {}
    if sc.kind == "country_majority":
        if not f.comp["permissions"]:
            return None  # no country needs a permission on this board: nothing to score
        f.k["COUNTRY_MAJORITY_PP"] = tuple(int(v) for v in params.get("pp", (7, 4, 2)))
        return {"pp": f.k["COUNTRY_MAJORITY_PP"]}
    if sc.kind == "missions":  # secret cards dealt at setup (docs/rules-language.md)
        _missions(f, sc, params)
        return {}
    return params


def fold_scoring(f: Fold) -> None:
    """SCORE_KEYS and SCORE_KINDS per category, CITY_CONTROL_PP (per controlled city, unless a
    rule sets it per player); components scoring (key, kind, params), score_templates, missions.
    A category written in words is named by its title in score tables ("H Harbour master")."""
    k, comp, categories = f.k, f.comp, f.categories
    for sc in f.rules.scoring:
        params = _category(f, sc)
        if params is None:
            continue
        categories.append((sc.key, sc.kind, params))
        f.origins[f"score:{sc.key}"] = where(sc.span)
    for rule in f.rules.hook_rules:
        if rule.hook == "score":
            if rule.target in [c[0] for c in categories]:
                raise error(f"score category {rule.target} is declared twice", rule.span)
            categories.append((rule.target, rule.label or "expression", {}))
            f.origins[f"score:{rule.target}"] = where(rule.span)
    # by key, A first: a category in words replacing E stays between D and F
    categories.sort(key=lambda c: c[0])
    k["SCORE_KEYS"] = tuple(c[0] for c in categories)
    k["SCORE_KINDS"] = tuple(c[1] for c in categories)
    # categories that read a player's secret (their mission card): hidden from the others in play
    k["SECRET_SCORE_KEYS"] = tuple(c[0] for c in categories if c[1] == "missions")
    comp["scoring"] = categories
    comp["score_templates"] = [c for c in categories if c[1] in SCORE_KINDS]
    comp["missions"] = "MISSION_CARDS" in k
    k["CITY_CONTROL_PP"] = f.settable_defaults.get("city pp", 0)


def fold_tiebreak(f: Fold) -> None:
    """TIEBREAK: steps (rule, what, index): ("shared", "", -1), or fewest/most of an ability, of
    a score category, or of the N-th quantity written in words (`Fold.tie_exprs`)."""
    steps = []
    names, kinds = f.k["ABILITY_NAMES"], [c[1] for c in f.categories]
    for st in f.rules.tiebreak:
        if st.rule == "shared":
            steps.append(("shared", "", -1))
            continue
        if st.rule not in ("fewest", "most"):
            raise error(f"tie-break rule {st.rule!r} is not known", st.span)
        if st.what == "ability":
            if st.name not in names:
                raise error(f"tie-break names unknown ability {st.name!r}", st.span)
            steps.append((st.rule, "ability", names.index(st.name)))
        elif st.what == "score":  # by kind (`most score network`) or key (`most score F`)
            keys = [c[0] for c in f.categories]
            if st.name in kinds:
                steps.append((st.rule, "score", kinds.index(st.name)))
            elif st.name in keys:
                steps.append((st.rule, "score", keys.index(st.name)))
            else:
                raise error(f"tie-break names unknown score category {st.name!r}", st.span)
        elif st.what == "expr":
            steps.append((st.rule, "expr", len(f.tie_exprs)))
            f.tie_exprs.append(st.expr)
        else:
            raise error(f"tie-break step compares unknown {st.what!r}", st.span)
    f.k["TIEBREAK"] = tuple(steps)
    if f.rules.tiebreak:
        f.origins["tiebreak"] = where(f.rules.tiebreak[0].span)
