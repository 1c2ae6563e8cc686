"""Stage 6, code generation: one folder per target, each reading only the model."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import jinja2

    from ..model.fold import GameModel


def template_context(model: GameModel) -> dict:
    """The switches every target's templates read, one context for all: the model's components
    (each by its own name) and the facts derived from its tables that select code. A target adds
    only what is its own (its tables' text, its compiled rules), never a switch of its own."""
    comp = model.components
    context = dict(comp)
    context.update(
        coin_pp=bool(model.constants["COIN_PP"]),
        country_majority=any(kind == "country_majority" for _k, kind, _p in comp["scoring"]),
        displaced_own_or_free=bool(comp["countries"]) and comp["displaced_to"] == "own_or_free",
    )
    return context


def template_environment(folder: Path) -> jinja2.Environment:
    """The jinja2 environment every target renders its templates with: an unknown name is an
    error, and the blocks leave no blank lines of their own. (jinja2 is imported here, not with
    the package: a warm native load reads `targets/native/fields.py` and renders nothing.)"""
    import jinja2

    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(folder)),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )
