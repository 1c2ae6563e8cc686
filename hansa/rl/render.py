"""Pictures and text of a running game for the RL adapters' `render()` (docs/rl.md, "Rendering").

- `rgb_array`: the board as `hansa render` draws it (compiler/board/render.py, matplotlib's Agg
  canvas, which the core install has: no rasteriser to add), drawn once per game and kept as
  pixels; each frame copies it and paints the pieces with numpy — traders as squares, merchants
  as discs in the owner's colour on the route points, trading posts on the city spaces, bonus
  markers as tiles by type at the middle of their route — and a strip under the map with each
  player's score-track PP as a bar (the deciding player's outlined). The sides are padded to
  multiples of 16 pixels, which video encoders (imageio/ffmpeg's macro blocks) need.
- `ansi`: a multi-line text board (players' PP, supplies, abilities, markers; every city's posts;
  every route's pieces and marker).
- `human`: the `ansi` text printed (there is no display to open a window on).

Both show public information only, read from the position (`point_pieces`, `space_posts`, …):
never the face-down marker order or anyone's mission card, so every seat may see them.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

import hansa

RENDER_MODES = ("ansi", "rgb_array", "human")
LONG_SIDE = 960  # pixels of the picture's longer side before padding
BLOCK = 16  # sides padded to a multiple of this (video encoders' macro blocks)
STRIP = 32  # pixels of the score strip under the map
PLAYER_COLOURS = (
    (214, 39, 40),
    (31, 119, 180),
    (44, 160, 44),
    (255, 127, 14),
    (148, 103, 189),
)
MARKER_COLOURS = (
    (0, 0, 0),
    (140, 86, 75),
    (227, 119, 194),
    (23, 190, 207),
    (188, 189, 34),
    (127, 127, 127),
    (255, 215, 0),
    (0, 128, 128),
)


def check_render_mode(mode, modes) -> None:
    if mode is not None and mode not in modes:
        shown = ", ".join(repr(m) for m in modes)
        raise hansa.HansaError(f"render_mode must be None or one of {shown}, got {mode!r}")


def render(state, mode: str | None, pictures) -> str | np.ndarray | None:
    """What `render()` returns for `mode`; `pictures()` gives the game's BoardPicture."""
    if mode is None:
        return None
    picture = pictures()
    if mode == "rgb_array":
        return picture.frame(state)
    text = ansi_board(state, picture.module)
    if mode == "human":
        print(text)
        return None
    return text


def _spec_folder() -> Path | None:
    """The spec folder the built games come from (a source checkout or an installed package)."""
    here = Path(hansa.__file__).resolve().parent
    for folder in (here.parent / "spec", here / "spec"):
        if (folder / "boards").is_dir():
            return folder
    return None


def board_of(module):
    """The board IR to draw: the spec's board of the module's BOARD_ID when it matches the module,
    else one rebuilt from the module's tables (as the web page does)."""
    from hansa.compiler.project import load_board
    from hansa.web.board import _matches, board_from_module

    folder = _spec_folder()
    if folder is not None:
        try:
            board = load_board(module.BOARD_ID, folder)
        except hansa.HansaError:
            board = None
        if board is not None and _matches(board, module):
            return board
    return board_from_module(module)


class BoardPicture:
    """One game's board as pixels, and where each route point, city space and route is on it
    (drawn on first use of a picture: a text board needs only the module)."""

    def __init__(self, game) -> None:
        self.module = game.module
        self.n = game.num_players()
        self._drawn = False

    def _draw(self) -> None:
        from hansa.compiler.board.render import draw_board
        from hansa.web.board import SCALE, board_layout

        module = self.module
        self._drawn = True
        board = board_of(module)
        figure = draw_board(board, legend=False)
        width, height = figure.get_size_inches()
        dpi = LONG_SIDE / max(width, height)
        figure.set_dpi(dpi)
        canvas = figure.canvas
        canvas.draw()
        pixels = np.asarray(canvas.buffer_rgba())[:, :, :3]
        h, w = pixels.shape[:2]
        full_h = -(-(h + STRIP) // BLOCK) * BLOCK
        full_w = -(-w // BLOCK) * BLOCK
        self.background = np.full((full_h, full_w, 3), 255, np.uint8)
        self.background[:h, :w] = pixels
        self.map_height = h
        layout = board_layout(module, {module.BOARD_ID: board})
        to_pixels = figure.axes[0].transData

        def at(xy) -> tuple[int, int]:
            x, y = to_pixels.transform((xy[0] / SCALE, xy[1] / SCALE))
            return int(round(h - y)), int(round(x))

        unit = abs(to_pixels.transform((1.0, 0.0))[0] - to_pixels.transform((0.0, 0.0))[0])
        self.points: dict[int, tuple[int, int, int]] = {}
        self.routes: list[tuple[int, int, int]] = []
        for route in layout["routes"]:
            size = max(2, int(route["size"] / SCALE * unit / 2))
            for point in route["points"]:
                self.points[point["id"]] = (*at(point["at"]), size)
            middle = route["points"][len(route["points"]) // 2]["at"]
            row, col = at(middle)
            self.routes.append((row - 2 * size, col, size))
        space = max(2, int(layout["space_size"] / SCALE * unit / 2))
        self.spaces: dict[int, tuple[int, int, int]] = {}
        for city in layout["cities"]:
            for s in city["spaces"]:
                self.spaces[s["id"]] = (*at(s["at"]), space)
        self.cities = [at(city["centre"]) for city in layout["cities"]]

    def frame(self, state) -> np.ndarray:
        """The picture of `state`: (height, width, 3) uint8."""
        if not self._drawn:
            self._draw()
        image = self.background.copy()
        for x, code in enumerate(state.point_pieces()):
            if code >= 0:
                _paint(image, self.points[x], PLAYER_COLOURS[code >> 1], disc=bool(code & 1))
        for s, code in enumerate(state.space_posts()):
            if code >= 0:
                row, col, size = self.spaces[s]
                _paint(image, (row, col, max(2, size - 1)), PLAYER_COLOURS[code >> 1], code & 1)
        for c, extra in enumerate(state.additional_posts()):
            row, col = self.cities[c]
            for i, code in enumerate(extra):
                spot = (row + 14, col - 12 + 8 * i, 3)
                _paint(image, spot, PLAYER_COLOURS[code >> 1], disc=bool(code & 1))
        for r, marker in enumerate(state.route_markers()):
            if marker >= 0:
                _paint(image, self.routes[r], MARKER_COLOURS[marker % len(MARKER_COLOURS)])
        self._strip(image, state)
        return image

    def _strip(self, image: np.ndarray, state) -> None:
        """Each player's score-track PP as a bar under the map; the decider's outlined."""
        top = self.map_height + 4
        width = image.shape[1] // self.n
        deciding = state.current_player()
        for p, pp in enumerate(state.track_pp()):
            left = p * width + 4
            length = min(width - 8, 4 + int(pp) * 4)
            if p == deciding:
                image[top : top + STRIP - 8, left : left + width - 8] = (0, 0, 0)
                image[top + 2 : top + STRIP - 10, left + 2 : left + width - 10] = (255, 255, 255)
            image[top + 6 : top + STRIP - 14, left + 4 : left + 4 + length] = PLAYER_COLOURS[p]


def _paint(image: np.ndarray, spot: tuple[int, int, int], colour, disc: bool = False) -> None:
    """A filled square (or disc) of half-side `size` centred at (row, col), outlined in black."""
    row, col, size = spot
    top, left = max(0, row - size), max(0, col - size)
    bottom, right = min(image.shape[0], row + size + 1), min(image.shape[1], col + size + 1)
    if top >= bottom or left >= right:
        return
    rows, cols = np.ogrid[top:bottom, left:right]
    if disc:
        inside = (rows - row) ** 2 + (cols - col) ** 2 <= size * size
        core = (rows - row) ** 2 + (cols - col) ** 2 <= (size - 1) ** 2
    else:
        inside = np.ones((bottom - top, right - left), bool)
        core = (np.abs(rows - row) < size) & (np.abs(cols - col) < size)
    patch = image[top:bottom, left:right]
    patch[inside] = (0, 0, 0)
    patch[core] = colour


def _piece(code: int) -> str:
    return "." if code < 0 else f"{code >> 1}{'m' if code & 1 else 't'}"


def ansi_board(state, module) -> str:
    """The position as text, public information only (see the module docstring); `module` is
    the game's generated module (`game.module`: its names of cities, routes, markers)."""
    m = module
    n = state.num_players
    deciding = state.current_player()
    lines = [f"{m.GAME_NAME}, {n} players: " + _who(state, deciding)]
    abilities = " ".join(a[:4] for a in m.ABILITY_NAMES)
    lines.append(f"player  PP  supply t/m  stock t/m  abilities ({abilities})  unused markers")
    track = state.track_pp()
    for p in range(n):
        supply, stock = state.personal_supply(p), state.general_stock(p)
        levels = " ".join(f"{state.ability_level(p, a):>4}" for a in range(len(m.ABILITY_NAMES)))
        unused = ", ".join(m.MARKER_KEYS[k] for k in state.unused_markers(p)) or "-"
        mark = "*" if p == deciding else " "
        lines.append(
            f"  {p}{mark}   {track[p]:>3}  {supply[0]:>4}/{supply[1]:<4}"
            f"  {stock[0]:>4}/{stock[1]:<4}  {levels}  {unused}"
        )
    left, face_up = state.marker_supply_size(), getattr(m, "DISPLAY_SIZE", 0)
    if face_up:  # `choose from N on display`: the first markers of the supply lie face up
        shown = state.to_dict()["marker_display"]
        lines.append(f"markers on display: {', '.join(shown) or '-'}")
        left -= len(shown)
    lines.append(f"face-down markers: {left}")
    lines.append("cities (posts from the left; 0t = player 0's trader, 1m = a merchant; + extra):")
    posts, extra = state.space_posts(), state.additional_posts()
    for c, name in enumerate(m.CITY_NAMES):
        shown = " ".join(_piece(posts[s]) for s in m.CITY_SPACES[c])
        more = (" +" + " ".join(_piece(code) for code in extra[c])) if extra[c] else ""
        lines.append(f"  {name:<16} [{shown}]{more}")
    lines.append("routes (pieces on the points; the bonus marker lying there):")
    pieces, markers = state.point_pieces(), state.route_markers()
    for r, (a, b) in enumerate(m.ROUTE_CITIES):
        shown = " ".join(_piece(pieces[x]) for x in m.ROUTE_POINTS[r])
        marker = f"  [{m.MARKER_KEYS[markers[r]]}]" if markers[r] >= 0 else ""
        lines.append(f"  {m.CITY_NAMES[a] + '-' + m.CITY_NAMES[b]:<32} {shown}{marker}")
    return "\n".join(lines)


def _who(state, deciding: int) -> str:
    if state.is_terminal():
        winners = ", ".join(str(p) for p in state.winners())
        return f"game over, final PP {list(state.returns())}, won by player {winners}"
    return f"player {deciding} decides"
