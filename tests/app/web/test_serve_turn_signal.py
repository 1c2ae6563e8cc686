"""Your turn, wherever you are (issue #36, item 1): the tab's title and icon say when this page's
seat must decide — also a displaced player's placements — and go back when it need not, in
Debian's chromium driven by Playwright (two contexts as two friends), as in
tests/app/web/test_serve_browser.py (whose fixtures these tests use).
"""

from __future__ import annotations

import pytest

pytest.importorskip("playwright")

from test_serve_browser import (  # noqa: E402, F401  (fixtures)
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
    shot,
    start_a_game_for_two,
    wait_for,
)
from test_serve_doors import start_server, stop_server  # noqa: E402

import hansa  # noqa: E402
from hansa.web.sessions import action_kind, turn_player  # noqa: E402

YOUR_TURN = "● Your turn — hansa"
DISPLACED = "● Displaced: your move — hansa"
IDLE = "hansa serve"


def signal(tab) -> tuple[str, str]:
    """The tab's title and icon."""
    return tab.title(), tab.get_attribute("#favicon", "href")


def test_the_tab_says_whose_turn_it_is_in_each_friends_browser(chromium, tmp_path):  # noqa: F811
    process, url = start_server(store=tmp_path / "games.sqlite")
    host, guest = Page(chromium), Page(chromium)
    try:
        link, _spectator = start_a_game_for_two(host.page, url)
        guest.page.goto(link)
        wait_for(guest.page, lambda: body(guest.page, "viewer") == "seat 1", "the guest's page")
        pages = {0: host.page, 1: guest.page}
        seen = set()
        for _ in range(12):
            for each in pages.values():
                wait_for(each, lambda p=each: settled(p), "the pages to settle")
            current = page_view(host.page)["current_player"]
            wait_for(
                host.page,
                lambda: all(page_view(p)["length"] == page_view(host.page)["length"]
                            for p in pages.values()),
                "both pages at the same decision",
            )  # fmt: skip
            for seat, each in pages.items():
                title, icon = signal(each)
                if seat == current:
                    assert title in (YOUR_TURN, DISPLACED) and icon.endswith("favicon-turn.svg")
                    seen.add("mine")
                else:
                    assert (title, icon) == (IDLE, "/static/favicon.svg"), (seat, current)
                    seen.add("theirs")
            if current in pages:
                shot(pages[current], f"10-turn-signal-seat-{current}")
                at = int(body(pages[current], "length"))
                click_an_offered_action(pages[current])
                wait_for(host.page, lambda n=at: int(body(host.page, "length")) > n, "a decision")
        assert seen == {"mine", "theirs"}
    finally:
        stop_server(process)
        host.close()
        guest.close()


def displaced_position(seed: int = 4):
    """A position of GAME in which a displaced player places its pieces: (state, that player)."""
    from hansa.play.simulate import make_agent

    game = hansa.load_game(GAME, 3)
    state, greedy = game.new_initial_state(seed), make_agent("greedy", seed)
    for _ in range(2000):
        assert not state.is_terminal(), "no displacement in the game"
        player = state.current_player()
        legal = state.legal_actions()
        displace = [a for a in legal if action_kind(game.module, a) == "displace"]
        if displace and turn_player(state) == player:
            state.apply_action(displace[0])
            while state.current_player() == player:  # the turn player pays the cost
                state.apply_action(greedy.step(state.clone(), state.legal_actions()))
            stack = state.to_dict()["stack"]
            assert stack and stack[-1]["frame"] == "displaced", stack
            return state, state.current_player()
        state.apply_action(greedy.step(state.clone(), legal))
    raise AssertionError("no displacement")


def test_a_displaced_players_tab_says_so_and_goes_back_after(server, page, tmp_path):  # noqa: F811
    state, victim = displaced_position()
    assert turn_player(state) != victim
    position = tmp_path / "displaced.json"
    position.write_text(state.to_json(), encoding="utf-8")
    open_start_page(page, server)
    assert signal(page) == (IDLE, "/static/favicon.svg")
    for p in range(3):
        page.select_option(f"#f-seat-{p}", "human" if p == victim else "greedy")
    page.select_option("#agent-delay", "-1")  # the agents move only when asked
    page.set_input_files("#f-state", str(position))
    wait_for(page, lambda: body(page, "turn") == "displaced", "the displaced player's decision")
    assert signal(page) == (DISPLACED, "/static/favicon-turn.svg")
    assert body(page, "viewer") == f"seat {victim}"
    shot(page, "11-turn-signal-displaced")
    for _ in range(10):  # the victim places its pieces; then the turn player's agent decides
        if body(page, "waiting") == "agent":
            break
        at = int(body(page, "length"))
        click_an_offered_action(page)
        wait_for(
            page, lambda n=at: int(body(page, "length")) > n and body(page, "busy") == "0", "a step"
        )
    assert body(page, "waiting") == "agent"
    wait_for(page, lambda: signal(page) == (IDLE, "/static/favicon.svg"), "the title to go back")
