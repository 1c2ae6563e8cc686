"""What one player may see of a generated game (docs/game-api.md, "Observations"), and the rule
facts agents read, from the module's tables and its own control rule.

The only hidden information of these rules is the order of the face-down marker supply: its size
and its contents (every marker not visible elsewhere) are public, its order is not. Per-player
secrets (mission cards) are in the observation's "own" part, filled for the observing player
only. The module hands its namespace (tables, `SWITCHES`, and its rule functions `_controller`
and `_post_counts`) and its `StateJson` to `Observations` once, at import.
"""

from __future__ import annotations

from . import graph
from .errors import HansaError
from .observation_tensor import TensorCodec, drawn_markers
from .serialize import encode
from .state_json import ModuleTables, StateJson


class Observations:
    """One game's observations, observation tensors and rule facts, bound to its tables."""

    def __init__(self, namespace: dict, state_json: StateJson) -> None:
        self.namespace = namespace
        self.g = ModuleTables(namespace)
        self.state_json = state_json
        self.missions = "missions" in namespace["SWITCHES"]
        self.keep_frame = namespace.get("F_KEEP")  # `draw N keep 1`: the drawn markers' frame
        # `choose from N on display`: the first N markers of the supply lie face up
        self.display = namespace.get("DISPLAY_SIZE", 0)
        # per-player values a rule set declares private: seen by their own player only
        self.private = tuple(namespace.get("X_PARAM_PRIVATE", ()))
        self.codecs: dict[int, TensorCodec] = {}

    # ---- the observation
    def observation(self, s, player: int) -> dict:
        """The position as `player` sees it: the state JSON without the face-down marker order."""
        g = self.g
        check_observer(s, player)
        seen = self.state_json.to_dict(s)
        del seen["marker_supply"]
        seen["format"] = "hansa-observation"
        seen["observer"] = player
        seen["current_player"] = s._current_player()
        seen["marker_supply_size"] = len(s.msupply)
        # a display (`seen["marker_display"]`, from the state JSON) is face up: every player sees it
        # markers drawn by `draw N keep 1` and not yet kept are seen by their drawer only
        unseen = s.msupply[self.display :] + drawn_markers(s, self.keep_frame)
        seen["marker_supply_counts"] = {
            g.MARKER_KEYS[m]: unseen.count(m) for m in range(g.N_MARKER_TYPES) if m in unseen
        }
        seen["own"] = {}
        if self.keep_frame is not None:
            for frame in seen["stack"]:
                if "drawn" in frame:
                    drawn = frame.pop("drawn")
                    frame["drawn_count"] = len(drawn)
                    if frame["player"] == player:
                        seen["own"]["drawn_markers"] = drawn
        if self.private:
            for q, entry in enumerate(seen["player_state"]):
                values = entry["parameters"]
                hidden = {name: values.pop(name) for name in self.private}
                if q == player:
                    seen["own"]["private"] = hidden
        if self.missions:
            for q, entry in enumerate(seen["player_state"]):
                card = entry.pop("mission")
                if q == player:
                    seen["own"]["mission"] = card
                    seen["own"]["mission_cities"] = [
                        g.CITY_NAMES[c] for c in g.MISSION_CARDS[card - 1]
                    ]
        return seen

    def information_state_string(self, s, player: int) -> str:
        """The observation as canonical JSON: equal strings for positions `player` cannot tell
        apart."""
        return encode(self.observation(s, player))

    def resample_hidden(self, s, rng, observer: int | None = None) -> None:
        """Reshuffle what `observer` cannot see with `rng`: the face-down marker order (and, with
        mission cards, the other players' cards, redealt from the cards the observer does not
        hold). A search agent draws one such completion per iteration (determinization).
        `observer` None: the player to decide now."""
        if observer is None:
            observer = s._current_player()
        # another player's drawn markers are as unknown as the supply: dealt again from it too
        others = [
            i for i, top in enumerate(s.stack) if top[0] == self.keep_frame and top[1] != observer
        ]
        face_up = s.msupply[: self.display]  # a display stays as every player sees it
        rest = list(s.msupply[self.display :]) + [m for i in others for m in s.stack[i][2]]
        rng.shuffle(rest)
        for i in others:
            top = s.stack[i]
            dealt, rest = rest[: len(top[2])], rest[len(top[2]) :]
            s.stack[i] = (top[0], top[1], tuple(sorted(dealt)))
        s.msupply = face_up + tuple(rest)
        if self.missions:
            if observer is None:
                observer = s._current_player()
            if 0 <= observer < s.num_players:
                own = s.mission[observer]
                unseen = [m for m in range(len(self.g.MISSION_CARDS)) if m != own]
                rng.shuffle(unseen)
                dealt = iter(unseen)
                s.mission = tuple(
                    own if q == observer else next(dealt) for q in range(s.num_players)
                )
        s._cached = None

    # ---- the observation tensor (runtime/observation_tensor.py)
    def tensor_codec(self, num_players: int) -> TensorCodec:
        """The layout and encoders of this game's tensor for `num_players` (made once)."""
        codec = self.codecs.get(num_players)
        if codec is None:
            codec = self.codecs[num_players] = TensorCodec(self.namespace, num_players)
        return codec

    def observation_tensor_layout(self, num_players: int) -> tuple:
        """The named blocks of `observation_tensor` for `num_players`: (name, offset, shape,
        meaning). Owners are relative to the observer: 0 = the observer, 1 = the next seat, …"""
        return self.tensor_codec(num_players).layout

    def observation_tensor_size(self, num_players: int) -> int:
        return self.tensor_codec(num_players).size

    # ---- rule facts for agents: the module's own rules, read through public functions
    def controller_if_post(self, s, c: int, player: int, additional: bool = False) -> int:
        """Who would control city `c` if `player` added a post there (its next space, or an
        additional post when `additional`; in a city without spaces, a post right of any there),
        by this game's control rule; the state is left as it was."""
        g = self.g
        controller = g._controller
        code = 2 * player
        if not g.CITY_SPACES[c]:
            extra = s.extra[c]
            s.extra[c] = extra + (code,)
            try:
                return controller(s, c)
            finally:
                s.extra[c] = extra
        if additional:
            extra = s.extra[c]
            s.extra[c] = (code,) + extra
            try:
                return controller(s, c)
            finally:
                s.extra[c] = extra
        spaces = g.CITY_SPACES[c]
        filled = s.filled[c]
        if filled >= len(spaces):
            return controller(s, c)
        space = spaces[filled]
        s.post[space] = code
        s.filled[c] = filled + 1
        try:
            return controller(s, c)
        finally:
            s.post[space] = -1
            s.filled[c] = filled

    def score_total(self, s, player: int) -> int:
        """The sum of the game's scoring categories for `player` now (its `SCORERS`)."""
        return sum([scorer(s, player) for scorer in self.g.SCORERS])

    def score_if_post(self, s, c: int, player: int, additional: bool = False) -> int:
        """`score_total` with one more post of `player` in city `c`, placed as in
        `controller_if_post`; the state is left as it was."""
        code = 2 * player
        spaces = self.g.CITY_SPACES[c]
        filled = s.filled[c]
        if not spaces or additional:
            extra = s.extra[c]
            s.extra[c] = extra + (code,) if not spaces else (code,) + extra
            try:
                return self.score_total(s, player)
            finally:
                s.extra[c] = extra
        if filled >= len(spaces):
            return self.score_total(s, player)
        space = spaces[filled]
        s.post[space] = code
        s.filled[c] = filled + 1
        try:
            return self.score_total(s, player)
        finally:
            s.post[space] = -1
            s.filled[c] = filled

    def controller_if_exchange(self, s, space: int) -> int:
        """Who would control the city of `space` if its post and the one to its right swapped
        places (the Exchange marker), by this game's control rule; the state is left as it was."""
        g = self.g
        c = g.SPACE_CITY[space]
        right = space + 1
        i = g.CITY_SPACES[c].index(space)
        if i + 1 >= s.filled[c]:
            raise HansaError(f"space {space} has no post to its right to exchange with")
        post = s.post
        post[space], post[right] = post[right], post[space]
        try:
            return g._controller(s, c)
        finally:
            post[space], post[right] = post[right], post[space]

    def networks(self, s, p: int) -> list[tuple[int, ...]]:
        """Player `p`'s networks: groups of cities holding p's posts linked through such cities,
        each sorted, largest post count first."""
        g = self.g
        counts = g._post_counts(s, p)
        groups = [tuple(sorted(group)) for group in graph.groups(counts, g.CITY_NEIGHBORS)]
        groups.sort(key=lambda group: (-sum(counts[c] for c in group), group))
        return groups


def check_observer(s, player: int) -> None:
    if isinstance(player, bool) or not isinstance(player, int) or not 0 <= player < s.num_players:
        raise HansaError(f"observer must be a player from 0 to {s.num_players - 1}, got {player!r}")
