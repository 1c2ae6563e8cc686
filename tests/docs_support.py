"""What the docs say, read for the tests that keep code and docs in step."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def documented_keys(heading: str) -> set[str]:
    """The keys in the first column of the tables of one section of docs/diff.md."""
    text = (ROOT / "docs" / "diff.md").read_text(encoding="utf-8")
    section = text.split(heading + "\n", 1)[1]
    section = re.split(r"^#{2,3} ", section, maxsplit=1, flags=re.M)[0]
    return set(re.findall(r"^\| `(\w+)`", section, re.M))
