"""The playtest table, round 2 (issue #36), in Debian's chromium driven by Playwright, with the
fixtures of tests/app/web/test_serve_browser.py: two friends in two browser contexts name
themselves, chat (escaped), get a sound and a notification when their turn comes with the tab
hidden (permission asked on a click), see what happened since their last decision, and open the
rules help; the creating page forgets the other seat's token once the links were shown; a
displaced player sees the notice, the displaced piece and the targets at once; every board's city
names and score track are legible at 1280×720 and 1440×900, hit areas stay ≥ 24 px when zoomed
out, and a phone-sized page has no horizontal overflow.

Screenshots go under the system's temporary folder, or to the folder named by HANSA_SCREENSHOTS
(docs/serve when the docs' pictures are taken again).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

pytest.importorskip("playwright")

from test_serve_browser import (  # noqa: E402, F401  (fixtures)
    ARTIFACTS,
    GAME,
    Page,
    body,
    catalogue,
    chromium,
    click_an_offered_action,
    open_start_page,
    page,
    page_view,
    server,
    settled,
    start_a_game_for_two,
    wait_for,
)
from test_serve_doors import start_server, stop_server  # noqa: E402
from test_serve_turn_signal import displaced_position  # noqa: E402

SHOTS = Path(os.environ.get("HANSA_SCREENSHOTS") or ARTIFACTS)
BOARDS = [
    "bigbox-hanseatic-3p",
    "bigbox-hanseatic-45p",
    "bigbox-eastern",
    "bigbox-britannia-3p",
    "bigbox-britannia-45p",
    "original-hanseatic-2p",
]
HOSTILE = '<img src=x onerror="document.body.dataset.pwned=1">'

# Records notifications instead of showing them, and lets the test hide the tab.
FAKE_NOTIFICATIONS = """
window.__notes = [];
window.Notification = class { constructor(title, options) { window.__notes.push(title); }
  static get permission() { return window.__granted ? "granted" : "default"; }
  static requestPermission() { window.__asked = (window.__asked || 0) + 1; window.__granted = true;
    return Promise.resolve("granted"); } };
Object.defineProperty(document, "hidden", { get: () => !!window.__hidden });
"""


def shot(page, name: str) -> None:  # noqa: F811
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"))


def test_two_friends_names_chat_signals_summary_and_rules(chromium, tmp_path):  # noqa: F811
    process, url = start_server(store=tmp_path / "games.sqlite")
    host, guest = Page(chromium), Page(chromium)
    for each in (host, guest):
        each.context.add_init_script(FAKE_NOTIFICATIONS)
    try:
        link, _spectator = start_a_game_for_two(host.page, url)
        h, g = host.page, guest.page
        # the creating page forgot the guest's token once the links were shown
        assert h.evaluate("() => Object.keys(S.tokens.seats)") == ["0"]
        assert h.evaluate("() => JSON.stringify(S.tokens)").count(link.split(".")[-1]) == 0
        h.click("#btn-links")
        assert not h.is_visible("#link-seat-1") and h.is_visible("#link-seat-0")
        h.click("#links-close")
        assert h.evaluate("() => window.__asked || 0") == 0  # never asked on load
        g.goto(link)
        wait_for(g, lambda: body(g, "viewer") == "seat 1", "the guest's page")

        h.fill("#name-input", "Ann")
        h.click("#name-set")
        g.fill("#name-input", "Bo")
        g.click("#name-set")
        wait_for(h, lambda: "Bo" in h.inner_text("#desks"), "the guest's name on the host's page")
        wait_for(g, lambda: "Ann" in g.inner_text("#desks"), "the host's name on the guest's page")
        h.fill("#chat-input", HOSTILE)
        h.click("#chat-send")
        wait_for(g, lambda: HOSTILE in g.inner_text("#chat-list"), "the message, as text")
        assert g.evaluate("() => document.querySelectorAll('#chat-list img').length") == 0
        assert body(g, "pwned") is None
        assert "Ann: " + HOSTILE in g.inner_text("#chat-list")

        g.click("#btn-sound")  # the guest wants a sound and a notification …
        g.click("#btn-notify")
        assert g.evaluate("() => window.__asked") == 1
        g.evaluate("() => { window.__hidden = true; }")  # … and looks at another tab
        beeps = int(body(g, "beeps") or 0)

        h.click("#btn-rules")
        assert "bigbox_missions" in h.inner_text("#rules-title")
        assert "mission" in h.inner_text("#rules-changes").lower()
        assert "Mission card" in h.inner_text("#rules-help")
        shot(h, "table-rules-panel")
        h.click("#rules-close")
        h.click(".track-name[data-help]")
        assert h.is_visible("#help-pop") and "Develop" in h.inner_text("#help-pop")
        h.click("#own-mission")
        assert "Only you see your own card" in h.inner_text("#help-pop")

        pages = {0: h, 1: g}
        noticed = summary = False
        for _ in range(40):
            for each in pages.values():
                wait_for(each, lambda p=each: settled(p), "the pages to settle")
            current = page_view(h)["current_player"]
            if current not in pages:
                continue
            mover = pages[current]
            wait_for(mover, lambda m=mover: body(m, "turn") != "none", "the mover's turn signal")
            if current == 1 and not noticed:
                wait_for(g, lambda: g.evaluate("() => window.__notes.length") > 0, "a note")
                assert int(body(g, "beeps") or 0) > beeps
                noticed = True
            if mover.is_visible("#since-box") and not summary:
                text = mover.inner_text("#since-list")
                assert "decision" in text and ("Ann" in text or "Bo" in text), text
                shot(mover, f"table-since-seat-{current}")
                mover.click("#since-close")
                assert not mover.is_visible("#since-box")
                summary = True
            if noticed and summary:
                break
            at = int(body(mover, "length"))
            click_an_offered_action(mover)
            wait_for(h, lambda n=at: int(body(h, "length")) > n, "a decision")
        assert noticed and summary
        assert "Ann" in h.inner_text("#status") or "Bo" in h.inner_text("#status")
        shot(h, "table-two-friends-host")
        shot(g, "table-two-friends-guest")
    finally:
        stop_server(process)
        host.close()
        guest.close()


def test_a_displaced_player_sees_the_notice_the_piece_and_the_targets(server, page, tmp_path):  # noqa: F811
    state, victim = displaced_position()
    position = tmp_path / "displaced.json"
    position.write_text(state.to_json(), encoding="utf-8")
    open_start_page(page, server)
    for p in range(3):
        page.select_option(f"#f-seat-{p}", "human" if p == victim else "greedy")
    page.select_option("#agent-delay", "-1")
    page.set_input_files("#f-state", str(position))
    wait_for(page, lambda: body(page, "turn") == "displaced", "the displaced player's decision")
    # at once, without a redraw: the notice, the piece and the highlighted targets
    assert page.is_visible("#displaced-notice")
    assert "displaced" in page.inner_text("#displaced-notice")
    assert page.locator("#displaced-piece").count() == 1
    assert page.locator("#targets .legal").count() > 0
    shot(page, "table-displaced")


def _legible(page) -> dict:  # noqa: F811
    return page.evaluate(
        """() => {
        const names = [...document.querySelectorAll('#board .city-name')]
          .map((t) => t.getBoundingClientRect().height);
        const track = [...document.querySelectorAll('#score-track text.small')]
          .map((t) => t.getBoundingClientRect().height);
        const hits = [...document.querySelectorAll('#targets .hit')].map((t) => {
          const r = t.getBoundingClientRect(); return Math.min(r.width, r.height); });
        return { names: Math.min(...names), track: Math.min(...track),
                 hits: hits.length ? Math.min(...hits) : null,
                 overflow: document.documentElement.scrollWidth - window.innerWidth };
    }"""
    )


@pytest.mark.parametrize("game", BOARDS)
def test_every_board_is_legible_and_its_hit_areas_stay_large(chromium, server, game):  # noqa: F811
    tab = Page(chromium)
    page = tab.page  # noqa: F811
    try:
        open_start_page(page, server)
        page.select_option("#f-game", game)
        page.select_option("#agent-delay", "0")  # the agents play until the human decides
        page.click("#f-start")
        wait_for(page, lambda: body(page, "waiting") == "human" and settled(page), "my turn")
        for width, height in ((1280, 720), (1440, 900)):
            page.set_viewport_size({"width": width, "height": height})
            page.click("#zoom-fit")
            page.wait_for_timeout(100)
            seen = _legible(page)
            assert seen["names"] >= 11, (game, width, seen)  # about a 12 px font
            assert seen["track"] >= 10, (game, width, seen)
            assert seen["overflow"] <= 0, (game, width, seen)
            if width == 1440 and game.startswith(("bigbox-britannia-3p", "bigbox-hanseatic-3p")):
                shot(page, f"table-{game}-{width}x{height}")
        page.click("#groups button.kind")  # the first kind on the board: its targets shown
        for _ in range(3):
            page.click("#zoom-out")
        seen = _legible(page)
        assert seen["hits"] is not None and seen["hits"] >= 23.5, (game, seen)
    finally:
        tab.close()


@pytest.mark.parametrize("size", [(360, 740), (390, 844)])
def test_a_phone_sized_page_has_no_horizontal_overflow(chromium, server, size):  # noqa: F811
    width, height = size
    context = chromium.new_context(
        viewport={"width": width, "height": height}, is_mobile=True, has_touch=True
    )
    page = context.new_page()  # noqa: F811
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        open_start_page(page, server)
        assert page.evaluate("() => document.documentElement.scrollWidth") <= width
        page.select_option("#f-game", "bigbox-britannia-3p")
        page.select_option("#agent-delay", "-1")
        page.click("#f-start")
        wait_for(page, lambda: body(page, "waiting") == "human" and settled(page), "my turn")
        page.wait_for_timeout(100)
        board = page.evaluate(
            "() => document.getElementById('board-area').getBoundingClientRect().width"
        )
        assert board >= width - 1  # the board fills the width …
        assert page.evaluate("() => document.documentElement.scrollWidth") <= width  # … no overflow
        side = page.evaluate("() => document.getElementById('side').getBoundingClientRect().top")
        assert (
            side
            >= page.evaluate(
                "() => document.getElementById('board-area').getBoundingClientRect().bottom"
            )
            - 1
        )  # the desks and decisions are panels below
        page.click('#groups button.kind[data-kind="place"]')
        seen = _legible(page)
        assert seen["hits"] >= 23.5, seen
        shot(page, f"table-phone-{width}x{height}")
        # one finger pans, two pinch to zoom in (touches sent as the phone's browser sends them)
        page.evaluate("() => window.scrollTo(0, 0)")  # the board in view again
        area = page.evaluate(
            "() => { const r = document.getElementById('board').getBoundingClientRect();"
            " return [r.left + r.width / 2, r.top + r.height / 2]; }"
        )
        x, y = area
        touch = context.new_cdp_session(page)

        def fingers(kind: str, points: list) -> None:
            touch.send(
                "Input.dispatchTouchEvent",
                {
                    "type": kind,
                    "touchPoints": [
                        {"x": px, "y": py, "id": i + 1} for i, (px, py) in enumerate(points)
                    ],
                },
            )

        start = page.evaluate("() => S.viewBox.slice()")
        fingers("touchStart", [(x, y)])
        for step in range(1, 6):
            fingers("touchMove", [(x + 10 * step, y)])
        fingers("touchEnd", [])
        panned = page.evaluate("() => S.viewBox.slice()")
        assert panned[0] < start[0] and panned[2] == start[2], (start, panned)
        fingers("touchStart", [(x - 20, y), (x + 20, y)])
        for step in range(1, 6):
            fingers("touchMove", [(x - 20 - 12 * step, y), (x + 20 + 12 * step, y)])
        fingers("touchEnd", [])
        pinched = page.evaluate("() => S.viewBox.slice()")
        assert pinched[2] < panned[2] * 0.6, (panned, pinched)  # zoomed in
        assert _legible(page)["hits"] >= 23.5
        assert not errors, errors
    finally:
        context.close()
