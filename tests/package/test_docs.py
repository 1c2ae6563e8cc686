"""The docs are self-contained and true: they cite nothing a user does not have, every Python
example runs as written, and the names they quote are the code's."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import hansa

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted((ROOT / "docs").glob("*.md")) + [ROOT / "README.md"]
EXAMPLES = [
    pytest.param(block, id=f"{page.name}#{i}")
    for page in PAGES
    for i, block in enumerate(re.findall(r"```python\n(.*?)```", page.read_text("utf-8"), re.S))
]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_docs_cite_only_what_users_have(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    for word in ("../shared", "RULES.md", "DESIGN.md", "/work/"):
        assert word not in text, f"{page.name} cites {word}"
    for target in re.findall(r"`(docs/[\w./-]+\.md)`", text):
        assert (ROOT / target).is_file(), f"{page.name} points at missing {target}"


def test_the_docs_examples_are_found() -> None:
    assert len(EXAMPLES) >= 4


@pytest.mark.parametrize("block", EXAMPLES)
def test_every_python_example_runs(block: str, tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(ROOT)  # examples name spec/… files relative to the project
    exec(compile(block, "<docs example>", "exec"), {"__name__": "__docs__"})


def test_the_state_format_names_the_real_marker_keys() -> None:
    text = (ROOT / "docs" / "state-format.md").read_text(encoding="utf-8")
    section = text.split("Bonus markers are named by")[1].split("## ")[0]
    quoted = set(re.findall(r"`([a-z_0-9]+)`", section)) - {
        "bonus",
        "MARKER_KEYS",
        "move_tradesmen",
    }
    keys = set()
    for name in ("bigbox-hanseatic-45p", "original-hanseatic-45p"):
        keys |= set(hansa.load_game(name).module.MARKER_KEYS)
    assert quoted - {"extra_actions"} <= keys
    assert keys <= quoted | {"move_tradesmen"}


def test_rules_page_lists_every_decision_option() -> None:
    """docs/rules.md states every Decision; each rule-set option the catalogue has is among them."""
    from hansa.compiler.rules.catalogue import CATALOGUE

    text = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    names = [kind for section, kind in CATALOGUE if section == "option"]
    assert names
    for name in names:
        assert f"option {name} = " in text, name
    assert text.count("**Decision") >= 7
