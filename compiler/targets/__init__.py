"""Stage 6, code generation: one folder per target, each reading only the model."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import jinja2


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
