"""The fields a native state exchanges with the Python backend's state, in order, by name.

One list for both sides: the C template reads each field's index from it (`FIELD_<NAME>`), the
Python side (hansa/native.py) builds and reads the tuple by these names, and the differential test
names a diverging field with its description. A new part of the state is one more entry here.
"""

from __future__ import annotations

# (name, what the field holds)
STATE_FIELDS: tuple[tuple[str, str], ...] = (
    ("scalars", "scalars (players, player, actions left, ending, terminal, completed cities)"),
    ("pt", "pt"),
    ("mask", "mask"),
    ("full_owner", "full_owner"),
    ("post", "post"),
    ("filled", "filled"),
    ("extra", "extra"),
    ("special", "special"),
    ("rmark", "rmark"),
    ("supply", "supply"),
    ("stock", "stock"),
    ("onboard", "onboard"),
    ("level", "level"),
    ("track", "track"),
    ("unused", "unused"),
    ("used", "used"),
    ("out", "out"),
    ("fresh", "fresh"),
    ("plate", "plate"),
    ("msupply", "msupply"),
    ("ew", "ew"),
    ("stack", "stack"),
    ("mission", "mission"),
    ("pawn", "pawn (region, free move)"),
    ("perm_used", "permissions used this turn"),
    ("turns", "turn number"),
    ("favour", "favour (per-player parameters, tiles face up, tiles held, this turn)"),
    ("rules", "rules in words (end after the turn / round, the seats that played this round)"),
)
FIELD_NAMES: tuple[str, ...] = tuple(name for name, _what in STATE_FIELDS)
FIELD_INDEX: dict[str, int] = {name: i for i, name in enumerate(FIELD_NAMES)}


def field_defines() -> list[str]:
    """The C defines of the field indices and their count."""
    lines = [f"#define FIELD_{name.upper()} {i}" for i, name in enumerate(FIELD_NAMES)]
    return [*lines, f"#define N_FIELDS {len(FIELD_NAMES)}"]
