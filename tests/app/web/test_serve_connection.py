"""Connection state (issue #36, item 7): the page says when it lost the server and when it is
back, and a click made meanwhile is never sent. The server is a `hansa serve --store FILE`
process, killed mid-game and started again on the same port, as in
tests/app/web/test_serve_browser.py
(whose fixtures these tests use), in Debian's chromium driven by Playwright.
"""

from __future__ import annotations

import json
import signal
import time

import pytest

pytest.importorskip("playwright")

from clock_support import HANG_GUARD  # noqa: E402
from test_serve_browser import (  # noqa: E402, F401  (fixtures)
    GAME,
    OFFERED,
    Page,
    body,
    chromium,
    click_an_offered_action,
    free_port,
    list_choice,
    open_start_page,
    page_view,
    settled,
    shot,
    wait_for,
)
from test_serve_doors import call, start_server, stop_server  # noqa: E402


def banner(page) -> tuple[str, str]:
    """The connection state the page shows, and the banner's text ("" when hidden)."""
    state = body(page, "connection") or "ok"
    shown = page.is_visible("#connection")
    return state, page.inner_text("#connection") if shown else ""


def test_the_page_says_it_lost_the_server_and_that_it_is_back(chromium, tmp_path):  # noqa: F811
    store, port = tmp_path / "games.sqlite", free_port()
    process, url = start_server("--port", str(port), store=store)
    tab = Page(chromium)
    page = tab.page
    try:
        open_start_page(page, url)
        page.select_option("#f-game", GAME)
        for p, name in enumerate(["human", "greedy", "greedy"]):
            page.select_option(f"#f-seat-{p}", name)
        page.select_option("#agent-delay", "0")
        page.click("#f-start")
        wait_for(page, lambda: body(page, "waiting") == "human" and settled(page), "my turn")
        assert banner(page) == ("ok", "")
        sid, length = page_view(page)["id"], int(body(page, "length"))

        process.send_signal(signal.SIGKILL)  # the server dies …
        assert process.wait(timeout=HANG_GUARD) == -signal.SIGKILL
        stop_server(process)
        wait_for(page, lambda: banner(page)[0] == "lost", "the lost banner")
        assert "lost" in banner(page)[1]
        shot(page, "12-connection-lost")

        # a click while the server is away is not sent …
        move = next(a for a in page_view(page)["legal"] if a["kind"] != "end_turn")
        assert str(move["id"]) in page.evaluate(OFFERED)["listed"]
        list_choice(page, str(move["id"]))
        time.sleep(0.3)
        state, text = banner(page)
        assert state == "lost" and "that move was not sent" in text, text
        assert int(body(page, "length")) == length
        assert body(page, "error") != "1"

        process, again = start_server("--port", str(port), store=store)  # … and comes back
        assert again == url
        wait_for(page, lambda: banner(page)[0] == "back", "the back banner")
        assert "again" in banner(page)[1]
        shot(page, "13-connection-back")
        status, text = call(url, "GET", f"api/sessions/{sid}", headers=_seat(page))
        assert status == 200 and json.loads(text)["length"] == length  # … and was never applied
        assert page_view(page)["length"] == length
        wait_for(page, lambda: banner(page) == ("ok", ""), "the banner to go")

        wait_for(page, lambda: settled(page) and body(page, "waiting") == "human", "my turn")
        click_an_offered_action(page)  # play goes on
        wait_for(page, lambda: int(body(page, "length")) > length, "a decision after")
    finally:
        stop_server(process)
        tab.close()


def _seat(page) -> dict:
    return {"x-hansa-token": page.evaluate("() => S.token")}
