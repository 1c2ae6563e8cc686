"""docs/rules-language.md stays true: its catalogue table is the code's, its examples parse."""

from __future__ import annotations

import re
from pathlib import Path

from hansa.compiler.rules_catalogue import catalogue_markdown
from test_rules_lower import lower_all

DOC = Path(__file__).resolve().parent.parent / "docs" / "rules-language.md"
SPEC = Path(__file__).resolve().parent.parent / "spec"


def test_catalogue_table_is_generated_from_the_code():
    text = DOC.read_text(encoding="utf-8")
    table = text.split("<!-- catalogue:start -->\n")[1].split("<!-- catalogue:end -->")[0]
    assert table == catalogue_markdown()


def test_examples_are_the_spec_files_and_lower():
    text = DOC.read_text(encoding="utf-8")
    blocks = re.findall(r"```hansa\n(.*?)```", text, re.S)
    specs = [
        SPEC / "bigbox_2021.hansa",
        SPEC / "original_2009.hansa",
        SPEC / "original_2009_2p.hansa",
        SPEC / "house" / "short_game.hansa",
        SPEC / "house" / "no_compensation.hansa",
        SPEC / "games.hansa",
    ]
    assert blocks == [p.read_text(encoding="utf-8") for p in specs]
    for block in blocks:
        lower_all(block, "doc.hansa")  # raises on any error
