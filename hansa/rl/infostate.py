"""The information-state tensor: what one player has seen, in a fixed number of floats.

The observation tensor is the position as a player sees it now; it forgets how the game got there.
An information state adds what the player has seen on the way (docs/rl.md, "Information state"):

1. `observation`: the player's observation tensor now (the public position and its own secrets);
2. `setup_route_markers` (and `setup_favour_face_up` in games with Emperor's Favour tiles): the
   public setup a position no longer shows — the start markers on the taverns, the face-up tiles
   (the only parts of the setup observation that differ from one deal to another);
3. `decisions`: how many decisions were taken so far;
4. `history`: the last `HISTORY` decisions, newest first, each as: present (1), who decided
   (owner relative to the observer, one-hot), which kind of action (the module's ACTION_RANGES,
   one-hot) and which one within the kind (its index, a raw number).

Every decision is public, so all of it is a function of the OpenSpiel information-state string
(the setup, every decision, the observation): two histories a player cannot tell apart give the
same tensor. Histories it can tell apart give different tensors when they differ in the position,
the setup or the last `HISTORY` decisions; the string keeps the whole history, a fixed-size tensor
cannot. Nothing hidden goes in: the face-down order and the others' cards are in no block.
"""

from __future__ import annotations

import numpy as np

HISTORY = 32  # decisions kept in the tensor's window
SETUP_BLOCKS = ("route_markers", "favour_face_up")


class InfoStateLayout:
    """The layout of one game's information-state tensor for one player count."""

    def __init__(self, game) -> None:
        self.n = n = game.num_players()
        self.obs_size = game.observation_tensor_shape()[0]
        self.obs_high = np.asarray(game.observation_tensor_high(), np.float32)
        blocks = {b["name"]: b for b in game.observation_tensor_layout()}
        self.setup_spans = []
        layout = [("observation", 0, (self.obs_size,), "the observation tensor now (its layout)")]
        offset = self.obs_size
        for name in SETUP_BLOCKS:
            if name in blocks:
                block = blocks[name]
                size = int(np.prod(block["shape"]))
                self.setup_spans.append((block["offset"], size))
                meaning = f"at setup: {block['meaning']}"
                layout.append((f"setup_{name}", offset, tuple(block["shape"]), meaning))
                offset += size
        layout.append(("decisions", offset, (1,), "decisions taken so far"))
        self.count_offset = offset
        offset += 1
        ranges = game.module.ACTION_RANGES
        self.kind_names = tuple(kind for kind, _first, _size in ranges)
        k = len(ranges)
        self.kind_of = np.zeros(game.num_distinct_actions(), np.int64)
        self.index_of = np.zeros(game.num_distinct_actions(), np.float32)
        for i, (_kind, first, size) in enumerate(ranges):
            self.kind_of[first : first + size] = i
            self.index_of[first : first + size] = np.arange(size)
        self.entry = 1 + n + k + 1
        self.history_offset = offset
        layout.append(
            (
                "history",
                offset,
                (HISTORY, self.entry),
                f"last {HISTORY} decisions, newest first: present, who (owner, {n}), "
                f"kind ({k}: ACTION_RANGES), index within the kind",
            )
        )
        self.size = offset + HISTORY * self.entry
        self.layout = tuple(layout)
        self.max_index = max(size for _kind, _first, size in ranges)

    def high(self) -> np.ndarray:
        """Per entry, the most it can hold (a Box's upper bound)."""
        high = np.ones(self.size, np.float32)
        high[: self.obs_size] = self.obs_high
        high[self.count_offset] = float(1 << 24)
        window = high[self.history_offset :].reshape(HISTORY, self.entry)
        window[:, -1] = float(self.max_index)
        return high

    def blocks(self) -> list[dict]:
        return [
            {"name": name, "offset": offset, "shape": shape, "meaning": meaning}
            for name, offset, shape, meaning in self.layout
        ]


_LAYOUTS: dict[tuple, InfoStateLayout] = {}


def layout_of(game) -> InfoStateLayout:
    """The game's layout, made once per module and player count."""
    key = (game.module.__name__, game.num_players())
    if key not in _LAYOUTS:
        _LAYOUTS[key] = InfoStateLayout(game)
    return _LAYOUTS[key]


class InformationState:
    """What every player has seen of one game beyond the position: the public setup blocks and
    the decisions (the last ones as `player << 32 | action`, at most 2 × HISTORY kept, and their
    count). Recording is one list append per decision (a learner's step pays for it); a copy
    (OpenSpiel clones states often) shares the read-only setup and copies the short list."""

    __slots__ = ("setup", "log", "count")

    def __init__(self) -> None:
        self.setup: np.ndarray | None = None
        self.log: list[int] = []
        self.count = 0

    def reset(self, layout: InfoStateLayout, state) -> None:
        """A new game: its setup blocks (read from any player's tensor: they are public)."""
        first = np.asarray(state.observation_tensor(0), np.float32)
        parts = [first[start : start + size] for start, size in layout.setup_spans]
        self.setup = np.concatenate(parts) if parts else np.zeros(0, np.float32)
        self.setup.flags.writeable = False
        self.log = []
        self.count = 0

    def record(self, player: int, action: int) -> None:
        log = self.log
        log.append(player << 32 | int(action))  # numpy integers are action ids too
        self.count += 1
        if len(log) >= 2 * HISTORY:
            del log[:HISTORY]

    @property
    def window(self) -> list[tuple[int, int]]:
        """The last HISTORY decisions, newest first, as (player, action)."""
        return [(code >> 32, code & 0xFFFFFFFF) for code in reversed(self.log[-HISTORY:])]

    def tensor(
        self, layout: InfoStateLayout, state, observer: int, out: np.ndarray | None = None
    ) -> np.ndarray:
        """`observer`'s information-state tensor for `state` (the game this object followed)."""
        if out is None:
            out = np.zeros(layout.size, np.float32)
        else:
            out[:] = 0.0
        state.observation_tensor(observer, out[: layout.obs_size])
        setup_end = layout.obs_size + len(self.setup)
        out[layout.obs_size : setup_end] = self.setup
        out[layout.count_offset] = self.count
        n, entry, base = layout.n, layout.entry, layout.history_offset
        kind_at = 1 + n
        for i, (player, action) in enumerate(self.window):
            at = base + i * entry
            out[at] = 1.0
            out[at + 1 + (player - observer) % n] = 1.0
            out[at + kind_at + layout.kind_of[action]] = 1.0
            out[at + entry - 1] = layout.index_of[action]
        return out

    def __deepcopy__(self, memo: dict) -> InformationState:
        other = InformationState()
        other.setup, other.log, other.count = self.setup, self.log[:], self.count
        return other
