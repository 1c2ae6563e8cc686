"""One expression generator, two dialects (compiler/expr/codegen.py, targets/native/expr.py): the
catalogue holds every quantity's and effect's text in both targets side by side, and a construct
without a C form is a located refusal of the native target, never a silent difference."""

from __future__ import annotations

import dataclasses

import pytest
from hansa.compiler.errors import HansaError
from hansa.compiler.expr import catalogue
from hansa.compiler.expr.catalogue import EFFECT_CODE, EFFECTS, FORBID_FACT_CODE, QUANTITIES
from hansa.compiler.expr.check import ACTIONS, hook_scope
from hansa.compiler.expr.codegen import PYTHON, ExprGenerator
from hansa.compiler.targets.native.codegen import check_supported
from hansa.compiler.targets.native.expr import C

from hansa.native import model_of


def test_every_quantity_has_a_python_and_a_c_form():
    for name, quantity in QUANTITIES.items():
        assert quantity.code, name
        assert quantity.c, f"the quantity {name!r} has no C form"
        assert bool(quantity.code_params) == bool(quantity.c_params), name
        assert bool(quantity.code_shared) == bool(quantity.c_shared), name
        for dialect in (PYTHON, C):  # the forms a dialect reads are the catalogue's
            assert dialect.quantity(quantity, False, False)


def test_every_effect_and_forbid_fact_has_both_forms():
    kinds = set(EFFECTS) | {"develop_chosen"}  # `develop an ability`: the player's choice
    kinds |= {"set_counter", "set_flag"}  # `your NAME becomes …` of a declared counter or flag
    assert set(EFFECT_CODE) == kinds
    for kind, forms in EFFECT_CODE.items():
        assert len(forms) == 2 and all(forms), kind
    for target, facts in FORBID_FACT_CODE.items():
        assert target in (*ACTIONS, "use_marker")
        assert hook_scope(f"forbid:{target}").facts, target
        for name, (type_, python, c) in facts.items():
            assert type_ in PYTHON.TYPES and type_ in C.TYPES and python and c, name


def test_both_dialects_fill_every_pattern_of_the_base():
    keys = set(PYTHON.TEXT)
    assert keys == set(C.TEXT)
    assert set(PYTHON.TYPES) >= set(C.TYPES) >= {"int", "int64", "bool", "void"}


WORDS = """rules words "taverns" extends bigbox_2021 {
    score H "Taverns": 2 PP per route where tavern and your traders here > 0
}
game taverns-45p = words on hanseatic_45p players 4..5
"""


def test_a_quantity_without_a_c_form_is_refused_at_its_rule(tmp_path, monkeypatch):
    (tmp_path / "taverns.hansa").write_text(WORDS, encoding="utf-8")
    model = model_of("taverns-45p", str(tmp_path))
    check_supported(model)  # the C form is there: the game builds natively
    bare = dataclasses.replace(QUANTITIES["tavern"], c="")
    monkeypatch.setitem(catalogue.QUANTITIES, "tavern", bare)
    with pytest.raises(HansaError) as raised:
        check_supported(model)
    message = str(raised.value)
    assert "the quantity 'tavern' (no C form)" in message
    assert f"{tmp_path / 'taverns.hansa'}:2" in message
    assert "Python backend plays it" in message


def test_the_generator_is_one_class_for_both_targets():
    """Neither dialect walks nodes: the node methods exist once, on the generator."""

    def walks(name: str) -> bool:
        return name.startswith("_") and name[1:2].isupper()

    node_methods = {name for name in vars(ExprGenerator) if walks(name)}
    assert {"_Num", "_Ref", "_BinOp", "_Compare", "_BoolOp", "_Not", "_Lookup"} <= node_methods
    for dialect in (PYTHON, C):
        assert not any(walks(name) for name in vars(type(dialect)))
