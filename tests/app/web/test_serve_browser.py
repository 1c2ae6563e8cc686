"""`hansa serve` in a real headless browser: Debian's chromium, driven by Playwright (its browser
contexts are isolated like separate browsers: own cookies, storage and cache, in one process).

A human seat plays a full game of bigbox-hanseatic-3p against two greedy agents by choosing a kind
of decision and clicking its highlighted targets (only that kind's), the Income control, or the
searchable full list, confirming an early end of turn, until the final scoring; the game's log is
saved from the page and verified by `hansa replay`; a `hansa play --log` log is opened and stepped
through with the arrow keys; two people play a game with mission cards from their own seat links
in two contexts of one browser against a `hansa serve --store FILE` process, each seeing only its
own card; a third context with a wrong token is refused (403); one takes a decision back with Undo
and both pages follow; the server is killed with SIGKILL mid-game, started again on the same store
and port, and both players carry on from the pages they had open.
Screenshots go to hansa-tests/screenshots/ under the system's temporary folder.
"""

from __future__ import annotations

import json
import random
import re
import shutil
import signal
import socket
import sqlite3
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

import pytest
from clock_support import HANG_GUARD
from clock_support import deadline as hang_deadline

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
if not Path(CHROMIUM).exists():
    pytest.skip("needs Debian's chromium (apt-get install chromium)", allow_module_level=True)
pytest.importorskip("playwright")
pytest.importorskip("uvicorn")
pytest.importorskip("starlette")

import uvicorn  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402
from test_serve_doors import start_server, stop_server  # noqa: E402

import hansa  # noqa: E402
from hansa.cli import main  # noqa: E402
from hansa.web.app import create_app  # noqa: E402
from hansa.web.sessions import Catalogue  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
ARTIFACTS = Path(tempfile.gettempdir()) / "hansa-tests" / "screenshots"  # never the checkout
GAME = "bigbox-hanseatic-3p"
MISSIONS = "bigbox-hanseatic-3p-missions"
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-dev-shm-usage",
]
VIEWPORT = {"width": 1366, "height": 768}
MAX_HUMAN_DECISIONS = 1500


class Running:
    """uvicorn serving `app` on a local port, in a thread."""

    def __init__(self, app) -> None:
        self.app = app
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
        self.thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True
        )
        self.thread.start()
        deadline = hang_deadline()
        while not self.server.started:
            assert time.monotonic() < deadline, "uvicorn did not start"
            time.sleep(0.05)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}/"

    def stop(self) -> None:
        self.app.state.stop()  # as `hansa serve` does on a signal: agents stop, streams end
        self.server.should_exit = True
        self.thread.join(timeout=HANG_GUARD)
        self.sock.close()


@pytest.fixture(scope="module")
def catalogue() -> Catalogue:
    return Catalogue(ROOT / "spec")


@pytest.fixture(scope="module")
def server(catalogue):
    running = Running(create_app(catalogue))
    yield running.url
    running.stop()


@pytest.fixture(scope="module")
def chromium():
    """One headless Chromium (the system's: Playwright downloads no browser)."""
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield browser
        browser.close()


class Page:
    """A page in a browser context of its own, failing the test on any uncaught script error."""

    def __init__(self, browser) -> None:
        self.context = browser.new_context(viewport=VIEWPORT)
        self.context.set_default_timeout(HANG_GUARD * 1000)
        self.page = self.context.new_page()
        self.errors: list[str] = []
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))

    def close(self) -> None:
        self.context.close()
        assert not self.errors, self.errors


@pytest.fixture
def page(chromium):
    opened = Page(chromium)
    yield opened.page
    opened.close()


def shot(page, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"))


def body(page, key: str) -> str | None:
    return page.evaluate(f"() => document.body.dataset.{key} || null")


def wait_for(page, condition, what: str, timeout: float = HANG_GUARD, error_expected: bool = False):
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if body(page, "error") == "1" and not error_expected:
            text = page.inner_text("#error-text")
            raise AssertionError(f"the page shows an error while waiting for {what}: {text}")
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.03)


def in_words(name: str) -> str:
    """An action name as the page shows it: the spec's snake_case names in it in words
    (`use bonus marker plus_3_actions` → `use bonus marker +3 actions`)."""

    def spoken(match: re.Match) -> str:
        text = re.sub(r"^plus_(\d)", r"+\1", match.group()).replace("_", " ")
        return re.sub(r"\bpp\b", "PP", text, flags=re.IGNORECASE)

    return re.sub(r"\b[a-z]+(?:_[a-z0-9]+)+\b", spoken, name)


def settled(page) -> bool:
    """The page is idle: no request running and no agent about to move."""
    return body(page, "busy") == "0" and (
        body(page, "waiting") != "agent" or body(page, "terminal") == "1"
    )


# Waits inside the page (one round trip) until it shows a decision after `at` and is idle.
WAIT_AFTER = """
(at) => new Promise((done) => {
  const start = Date.now();
  (function poll() {
    const d = document.body.dataset;
    if (d.error === "1") return done("error: " + document.getElementById("error-text").textContent);
    const idle = d.busy === "0" && (d.waiting !== "agent" || d.terminal === "1");
    if (idle && Number(d.at) > at) return done("ok");
    if (Date.now() - start > 60000) return done("timeout");
    setTimeout(poll, 5);
  })();
})
"""
# What the page offers now: the list's action ids and the board's highlighted targets.
OFFERED = """
() => {
  const d = document.body.dataset;
  return {
    at: Number(d.at), waiting: d.waiting, terminal: d.terminal,
    listed: [...document.querySelectorAll("#legal-list button[data-action]")]
      .map(b => b.dataset.action),
    targets: [...document.querySelectorAll("#targets .legal")].map(g => g.dataset.target),
    kinds: [...document.querySelectorAll("#groups button.kind")].map(b => b.dataset.kind),
    income: !!document.getElementById("income-go"),
    undo: !document.getElementById("btn-undo").disabled,
  };
}
"""
# Where a highlighted board element is drawn (a route at the middle of its line), and whether a
# click there reaches it.
TARGET_POINT = """
(target) => {
  const shape = target.querySelector('.hit, .route-under');
  let p;
  if (shape.tagName === 'polyline') {
    p = shape.getPointAtLength(shape.getTotalLength() / 2);
  } else {
    const b = shape.getBBox();
    p = {x: b.x + b.width / 2, y: b.y + b.height / 2};
  }
  const m = shape.getScreenCTM();
  const x = p.x * m.a + p.y * m.c + m.e, y = p.x * m.b + p.y * m.d + m.f;
  const top = document.elementFromPoint(x, y);
  return [x, y, !!top && target.contains(top)];
}
"""


def click_board_target(page, target) -> bool:
    """Click a highlighted board element where it is drawn, as a mouse would."""
    x, y, hit = target.evaluate(TARGET_POINT)
    if not hit:  # covered by another target: the list offers the same actions
        return False
    page.mouse.click(x, y)
    return True


def confirm_if_asked(page, stats: dict) -> None:
    """Ending a turn with actions left asks first: confirm."""
    if page.is_visible("#confirm"):
        assert "left?" in page.inner_text("#confirm-text")
        page.click("#confirm-yes")
        stats["confirmed"] += 1


def list_choice(page, action: str) -> None:
    """Click a choice in the full list (opened first: it is folded away)."""
    if page.get_attribute("#all-choices", "open") is None:
        page.click("#all-choices summary")
    page.click(f'#legal-list button[data-action="{action}"]')


def play_one_human_decision(page, offered: dict, rng: random.Random, stats: dict) -> None:
    assert offered["listed"], "a human decision without legal actions in the list"
    clicked = False
    if offered["kinds"] and not offered["targets"] and rng.random() < 0.5:
        kind = rng.choice(offered["kinds"])  # show where that kind can be played: only there
        key = {"place": "p", "displace": "d"}.get(kind)
        if key and rng.random() < 0.5:  # its keyboard shortcut
            page.press("body", key)
            stats["keys"] += 1
        else:
            page.click(f'#groups button.kind[data-kind="{kind}"]')
        offered = page.evaluate(OFFERED)
        shown = page.evaluate(
            "() => [...document.querySelectorAll('#targets .legal')]"
            ".flatMap(g => g.dataset.actions.split(',').map(Number))"
        )
        kind_of = {a["id"]: a["kind"] for a in page.evaluate("() => S.view.legal")}
        assert shown and {kind_of[a] for a in shown} == {kind}, (kind, shown)  # only that kind
        stats["kind"] += 1
    if offered["income"] and rng.random() < 0.15:
        page.click("#income-go")
        stats["income"] += 1
        clicked = True
    elif offered["targets"] and rng.random() < 0.8:
        key = rng.choice(offered["targets"])
        target = page.query_selector(f'#targets [data-target="{key}"]')
        if click_board_target(page, target):
            menu = page.query_selector_all("#menu:not(.hidden) button[data-action]")
            if menu:
                rng.choice(menu).click()
                stats["menu"] += 1
            stats["board"] += 1
            clicked = True
    if not clicked:
        list_choice(page, rng.choice(offered["listed"]))
        stats["list"] += 1
    confirm_if_asked(page, stats)
    result = page.evaluate(WAIT_AFTER, offered["at"])
    assert result == "ok", result


def open_start_page(page, url: str) -> None:
    page.goto(url)
    page.wait_for_selector("#f-game option", state="attached")


def test_a_full_game_with_a_human_seat_in_the_browser(server, page, tmp_path):
    open_start_page(page, server)
    page.select_option("#f-game", GAME)
    for p, name in enumerate(["human", "greedy", "greedy"]):
        page.select_option(f"#f-seat-{p}", name)
    page.fill("#f-seed", "7")
    shot(page, "01-start")
    page.select_option("#agent-delay", "0")
    page.click("#f-start")
    wait_for(page, lambda: body(page, "waiting") == "human", "the human's first decision")
    status = page.inner_text("#status")
    assert "Player 0 (you)" in status and "your decision" in status
    assert page.query_selector_all("#board .city")  # the board is drawn
    shot(page, "02-first-decision")

    rng = random.Random(7)
    stats = {"board": 0, "list": 0, "menu": 0, "kind": 0, "keys": 0, "income": 0, "confirmed": 0}
    started = time.monotonic()
    for decision in range(MAX_HUMAN_DECISIONS):
        offered = page.evaluate(OFFERED)
        if offered["terminal"] == "1":
            break
        assert offered["waiting"] == "human", offered
        if decision == 40:
            shot(page, "03-midgame")
        play_one_human_decision(page, offered, rng, stats)
    else:
        raise AssertionError(f"the game did not end after {MAX_HUMAN_DECISIONS} human decisions")
    elapsed = time.monotonic() - started
    print(f"human decisions: {decision} ({stats}), {elapsed:.1f} s")
    assert stats["board"] > 10 and stats["list"] > 10 and stats["keys"] > 0
    assert stats["confirmed"] > 0 and stats["income"] > 0

    # the final scoring table opens by itself
    page.wait_for_selector("#scores", state="visible")
    assert page.inner_text("#scores-title") == "Final scoring"
    assert len(page.query_selector_all("#scores-table tbody tr")) == 3
    assert page.query_selector_all("#scores-table tr.winner")
    status = page.inner_text("#status")
    assert "wins" in status or "Shared" in status
    shot(page, "04-final-scores")
    page.click("#scores-close")

    # the page's log is a hansa play --log log: hansa replay verifies it
    href = page.evaluate("() => document.getElementById('btn-log').href")
    with urllib.request.urlopen(href, timeout=HANG_GUARD) as response:
        text = response.read().decode("utf-8")
    log = tmp_path / "browser-game.jsonl"
    log.write_text(text, encoding="utf-8")
    assert main(["replay", str(log)]) == 0
    footer = json.loads(text.splitlines()[-1])
    assert footer["finished"] is True and footer["decisions"] == int(body(page, "length"))


def test_a_cli_log_is_stepped_through_with_the_keyboard(server, page, tmp_path):
    log = tmp_path / "greedy.jsonl"
    assert main(["play", GAME, "--seed", "3", "--agents", "greedy", "--log", str(log)]) == 0
    decisions = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()[1:-1]]
    open_start_page(page, server)
    page.set_input_files("#f-log", str(log))
    wait_for(page, lambda: body(page, "length") == str(len(decisions)), "the log to open")
    assert body(page, "at") == "0"
    assert len(page.query_selector_all("#history li")) == len(decisions)
    for n in range(1, 6):
        page.press("body", "ArrowRight")
        wait_for(page, lambda n=n: body(page, "at") == str(n) and settled(page), f"step {n}")
        now = page.inner_text("#history li.now")
        assert now == f"P{decisions[n - 1]['player']}: {in_words(decisions[n - 1]['name'])}"
    page.press("body", "ArrowLeft")
    wait_for(page, lambda: body(page, "at") == "4" and settled(page), "a step back")
    page.eval_on_selector(
        "#slider", "(s) => { s.value = 150; s.dispatchEvent(new Event('change')); }"
    )
    wait_for(page, lambda: body(page, "at") == "150" and settled(page), "the slider")
    assert "position after decision 150" in page.inner_text("#status")
    assert page.query_selector_all("#pieces .piece-g"), "no pieces on the board at decision 150"
    shot(page, "05-log-step")
    page.press("body", "End")
    wait_for(page, lambda: body(page, "terminal") == "1" and settled(page), "the end")
    shot(page, "06-log-end")


def test_a_broken_log_shows_the_cli_message(server, page, tmp_path, capsys):
    log = tmp_path / "broken.jsonl"
    assert main(["play", GAME, "--seed", "1", "--log", str(log)]) == 0
    lines = log.read_text(encoding="utf-8").splitlines()
    log.write_text("\n".join(lines[:-1]) + "\n", encoding="utf-8")  # no footer
    capsys.readouterr()
    assert main(["replay", str(log)]) == 1
    expected = capsys.readouterr().err.strip()
    open_start_page(page, server)
    page.set_input_files("#f-log", str(log))
    page.wait_for_selector("#error", state="visible")
    # the page names the file as the browser uploads it (its base name)
    assert page.inner_text("#error-text") == expected.replace(str(log), log.name)


def test_a_position_plays_on_step_by_step(server, page, tmp_path):
    state = hansa.load_game(GAME, 3).new_initial_state(2)
    for _ in range(12):
        state.apply_action(state.legal_actions()[-1])
    position = tmp_path / "position.json"
    position.write_text(state.to_json(), encoding="utf-8")
    open_start_page(page, server)
    for p in range(3):
        page.select_option(f"#f-seat-{p}", "greedy")
    page.select_option("#agent-delay", "-1")
    page.set_input_files("#f-state", str(position))
    wait_for(page, lambda: body(page, "waiting") == "agent" and body(page, "busy") == "0", "it")
    assert body(page, "length") == "0"
    assert "Save log" in page.inner_text("#btn-log")
    assert "disabled" in page.get_attribute("#btn-log", "class")
    for n in range(1, 4):
        page.click("#agent-step")
        wait_for(page, lambda n=n: body(page, "length") == str(n), f"agent step {n}")
    time.sleep(0.3)  # step by step: nothing moves by itself
    assert body(page, "length") == "3"
    pieces = page.query_selector_all("#pieces .piece-g")
    assert len(pieces) >= sum(
        1 for r in state.to_dict()["routes"] for piece in r["points"] if piece
    )


def test_the_neutral_pawns_region_is_drawn_filled(server, page, catalogue, tmp_path):
    """A 2-player position with the pawn in an inner region: that region is filled (within the
    box of the cities on its outline) and its border routes tinted; only one region is."""
    from hansa.play.simulate import make_agent

    name = "original-hanseatic-2p"
    state, agent = hansa.load_game(name, 2).new_initial_state(6), make_agent("greedy", 6)
    while state.to_dict()["pawn"]["region"] in (None, 0):
        state.apply_action(agent.step(state.clone(), state.legal_actions()))
    region = state.to_dict()["pawn"]["region"]
    open_position(page, server, name, state, tmp_path)
    page.wait_for_selector("#regions path.region-fill", state="attached")
    fills = page.query_selector_all("#regions path.region-fill")
    assert [f.get_attribute("data-region") for f in fills] == [str(region)]
    rules = catalogue.layout(name)
    cities = {c["index"]: c["centre"] for c in rules["layout"]["cities"]}
    corners = [cities[c] for walk in rules["regions"][region]["outline"] for c in walk]
    box = fills[0].evaluate(
        "(p) => { const b = p.getBBox(); return [b.x, b.y, b.width, b.height]; }"
    )
    xs, ys = [x for x, _y in corners], [y for _x, y in corners]
    slack = rules["layout"]["space_size"] * 3  # the routes' drawn lines bend a little
    assert min(xs) - slack <= box[0] and box[0] + box[2] <= max(xs) + slack, (box, xs)
    assert min(ys) - slack <= box[1] and box[1] + box[3] <= max(ys) + slack, (box, ys)
    assert box[2] * box[3] > 0
    borders = page.query_selector_all("#regions .region-border")
    assert len(borders) == len(rules["regions"][region]["routes"])
    shot(page, "09-pawn-region")


def open_position(page, server: str, name: str, state, tmp_path) -> None:
    """Open `state` of game `name` in the page, every seat played by the agent step by step."""
    position = tmp_path / "position.json"
    position.write_text(state.to_json(), encoding="utf-8")
    open_start_page(page, server)
    page.select_option("#f-game", name)
    for p in range(state.num_players):
        page.select_option(f"#f-seat-{p}", "greedy")
    page.select_option("#agent-delay", "-1")
    page.set_input_files("#f-state", str(position))
    wait_for(page, lambda: body(page, "busy") == "0" and page_view(page), "the position")


def test_a_favour_tiles_changed_values_are_on_its_holders_desk(server, page, catalogue, tmp_path):
    """Once a player holds an Emperor's Favour tile that changes one of its values, its desk
    shows that value as the spec names it (and no other desk shows a changed value)."""
    from hansa.play.simulate import make_agent

    name = "bigbox-hanseatic-3p-favour"
    state, agent = hansa.load_game(name, 3).new_initial_state(5), make_agent("greedy", 5)
    rules = catalogue.layout(name)["parameters"]
    usual = {x["key"]: x["default"] for x in rules}

    def changed():
        return {
            (p, x["label"], ps["parameters"][x["key"]])
            for p, ps in enumerate(state.observation(0)["player_state"])
            for x in rules
            if ps["parameters"][x["key"]] != usual[x["key"]]
        }

    while not changed():
        state.apply_action(agent.step(state.clone(), state.legal_actions()))
    open_position(page, server, name, state, tmp_path)
    shown = set()
    for p in range(3):
        chips = page.query_selector_all(f'.desk[data-player="{p}"] .line.values .chip')
        shown |= {(p, chip.inner_text()) for chip in chips}
    spoken = {x["label"]: re.sub(r"\bpp\b", "PP", x["label"]) for x in rules}
    assert shown == {(p, f"{spoken[label]} {v}") for p, label, v in changed()}
    assert [x["label"] for x in rules][:3] == ["control pp", "full track pp", "city pp"]
    shot(page, "10-favour-values")


# ---- two people, one browser, a server killed mid-game


def page_view(page) -> dict:
    return page.evaluate("() => S.view")


def click_an_offered_action(page) -> None:
    offered = page.evaluate(OFFERED)
    list_choice(page, offered["listed"][len(offered["listed"]) // 2])
    confirm_if_asked(page, {"confirmed": 0})


def start_a_game_for_two(page, url: str) -> tuple[str, str]:
    """Player 0 starts a missions game with another person in seat 1: (seat-1 link, spectator
    link)."""
    open_start_page(page, url)
    page.select_option("#f-game", MISSIONS)
    for p, name in enumerate(["human", "human", "greedy"]):
        page.select_option(f"#f-seat-{p}", name)
    page.fill("#f-seed", "")  # a secret seed
    page.uncheck("#f-hotseat")  # the other player gets a link
    page.select_option("#agent-delay", "0")
    page.click("#f-start")
    wait_for(page, lambda: body(page, "waiting") == "human", "the first decision")
    if not page.is_visible("#links"):  # shown at once when the others get links
        page.click("#btn-links")
    link = page.input_value("#link-seat-1")
    spectator = page.input_value("#link-spectator")
    shot(page, "07-links")
    page.click("#links-close")
    return link, spectator


def take_turns(pages: dict, decisions: int) -> None:
    """The two people decide in turn, each in its own page; the other page follows each
    decision by itself (update events)."""
    made = 0
    deadline = hang_deadline()
    while made < decisions:
        assert time.monotonic() < deadline, "the two people did not get their turns"
        current = page_view(pages[0])["current_player"]
        if current not in pages:  # the agent's turn: the host's page asks it
            time.sleep(0.05)
            continue
        now = pages[current]
        wait_for(now, lambda p=now: body(p, "waiting") == "human" and settled(p), "a turn")
        if page_view(now)["current_player"] != current:
            continue
        at = int(body(now, "length"))
        click_an_offered_action(now)
        assert now.evaluate(WAIT_AFTER, at) == "ok"
        other = pages[1 - current]
        wait_for(other, lambda p=other, n=at: int(body(p, "length")) > n, "the other to follow")
        made += 1


def take_back_once(pages: dict) -> None:
    """The deciding person makes a decision that leaves the turn going and takes it back with
    the page's Undo button; both pages return to the position before it."""
    for _ in range(40):
        seat = page_view(pages[0])["current_player"]
        if seat not in pages:
            time.sleep(0.05)
            continue
        page = pages[seat]
        wait_for(page, lambda p=page: body(p, "waiting") == "human" and settled(p), "a turn")
        at = int(body(page, "length"))
        legal = [a for a in page_view(page)["legal"] if a["kind"] not in ("end_turn", "create")]
        list_choice(page, str(legal[0]["id"]))
        assert page.evaluate(WAIT_AFTER, at) == "ok"
        if page.is_enabled("#btn-undo"):
            size = page_view(page)["undo_size"]
            label = page.inner_text("#btn-undo")
            assert label == ("↶ Undo" if size == 1 else f"↶ Undo {size} decisions"), label
            page.click("#btn-undo")
            for each in pages.values():
                wait_for(each, lambda p=each, n=at + 1 - size: int(body(p, "length")) == n, "undo")
            assert len(page.query_selector_all("#history li")) == at + 1 - size
            return
    raise AssertionError("no decision could be taken back")


def mission_cards(store: Path, sid: str) -> list[tuple[int, list[str]]]:
    """Every seat's mission card, from the server's own store (the truth the pages must not
    leak): (card, its cities) per seat."""
    with sqlite3.connect(store) as db:
        game, players, initial = db.execute(
            "SELECT game, players, initial FROM sessions WHERE id = ?", (sid,)
        ).fetchone()
    state = hansa.load_game(game, players).state_from_json(initial)
    cards = [entry["mission"] for entry in state.to_dict()["player_state"]]
    return [(cards[p], state.observation(p)["own"]["mission_cities"]) for p in range(players)]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_two_people_in_one_browser_play_on_through_a_kill_9_of_the_server(chromium, tmp_path):
    store, port = tmp_path / "games.sqlite", free_port()
    process, url = start_server("--port", str(port), store=store)
    host, guest, stranger = Page(chromium), Page(chromium), Page(chromium)
    try:
        link, spectator = start_a_game_for_two(host.page, url)
        sid = page_view(host.page)["id"]
        guest.page.goto(link)
        wait_for(guest.page, lambda: body(guest.page, "viewer") == "seat 1", "the guest's page")
        pages = {0: host.page, 1: guest.page}
        cards = mission_cards(store, sid)
        for seat, page in pages.items():
            card, cities = cards[seat]
            assert page.inner_text("#own-mission") == (
                f"your mission card {card}: {', '.join(cities)}"
            )
            view = page_view(page)
            assert view["seed"] is None and "marker_supply" not in view["state"]
            assert all("mission" not in entry for entry in view["state"]["player_state"])
            assert len(page.query_selector_all("#own-mission")) == 1
            for them, (theirs, _cities) in enumerate(cards):  # no one else's card anywhere
                if them != seat and theirs != card:
                    assert f"mission card {theirs}:" not in page.content()
                    assert f"'mission': {theirs}" not in str(view)
            shot(page, f"07-seat-{seat}-own-mission")

        # a third context with a wrong token is refused, and nothing changes
        length = int(body(host.page, "length"))
        wrong = link.rsplit(".", 1)[0] + "." + "x" * 32
        with stranger.page.expect_response(lambda r: f"/api/sessions/{sid}" in r.url) as answer:
            stranger.page.goto(wrong)
        assert answer.value.status == 403
        stranger.page.wait_for_selector("#error", state="visible")
        assert "token does not belong" in stranger.page.inner_text("#error-text")
        assert int(body(host.page, "length")) == length

        take_turns(pages, 6)  # each page follows the other's decisions as they happen
        take_back_once(pages)
        take_turns(pages, 2)
        for page in pages.values():
            wait_for(page, lambda p=page: settled(p), "the pages to settle")
        before = int(body(host.page, "length"))

        process.send_signal(signal.SIGKILL)  # the server dies mid-game …
        assert process.wait(timeout=HANG_GUARD) == -signal.SIGKILL
        stop_server(process)
        process, again = start_server("--port", str(port), store=store)  # … and comes back
        assert again == url
        take_turns(pages, 4)  # both carry on from the pages they had open
        for page in pages.values():
            wait_for(page, lambda p=page: int(body(p, "length")) >= before + 4, "both pages")
        shot(host.page, "08-after-restart")

        host.page.click("#btn-scores")  # the others' mission points stay hidden
        rows = host.page.query_selector_all("#scores-table tbody tr")
        assert [row.query_selector_all("td")[-2].inner_text() for row in rows][1:] == ["?", "?"]
        host.page.click("#scores-close")

        watcher = stranger.page  # a spectator sees no one's card
        watcher.goto("about:blank")
        watcher.goto(spectator)
        wait_for(watcher, lambda: body(watcher, "viewer") == "spectator", "the spectator's page")
        assert not watcher.query_selector_all("#own-mission")
        assert page_view(watcher)["legal"] == []
    finally:
        stop_server(process)
        host.close()
        guest.close()
        stranger.close()
