"""`hansa serve` in a real headless browser (Debian's chromium + chromedriver, driven by selenium).

A human seat plays a full game of bigbox-hanseatic-3p against two greedy agents by choosing a kind
of decision and clicking its highlighted targets (only that kind's), the Income control, or the
searchable full list, confirming an early end of turn, until the final scoring; the game's log is
saved from the page and verified by `hansa replay`; a `hansa play --log` log is opened and stepped
through with the arrow keys; two people play a game with mission cards from their own seat links
in two browsers (each its own profile), each seeing only its own card, one takes a decision back
with Undo and both pages follow, and a link with a wrong token is refused.
Screenshots go to hansa-tests/screenshots/ under the system's temporary folder.
"""

from __future__ import annotations

import json
import random
import shutil
import socket
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

import pytest

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
if not (Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists()):
    pytest.skip(
        "needs Debian's chromium and chromium-driver (apt-get install chromium chromium-driver)",
        allow_module_level=True,
    )
pytest.importorskip("selenium")
pytest.importorskip("uvicorn")
pytest.importorskip("starlette")

import uvicorn  # noqa: E402
from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import Select  # noqa: E402

from hansa.cli import main  # noqa: E402
from hansa.web.app import create_app  # noqa: E402
from hansa.web.sessions import Catalogue  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = Path(tempfile.gettempdir()) / "hansa-tests" / "screenshots"  # never the checkout
GAME = "bigbox-hanseatic-3p"
FLAGS = (
    "--headless --no-sandbox --disable-gpu --disable-quic --no-first-run "
    "--disable-background-networking --disable-component-update --disable-sync "
    "--disable-dev-shm-usage --window-size=1366,768"
).split()
MAX_HUMAN_DECISIONS = 1500
SERVED: dict = {}  # the application of the running server (its sessions, for the truth)


class Running:
    """uvicorn serving `app` on a local port, in a thread."""

    def __init__(self, app, port: int = 0) -> None:
        self.app = app
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", port))
        self.sock.listen(64)
        self.server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
        self.thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True
        )
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            assert time.monotonic() < deadline, "uvicorn did not start"
            time.sleep(0.05)
        self.port = self.sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}/"

    def stop(self) -> None:
        self.app.state.stop()  # as `hansa serve` does on a signal: agents stop, streams end
        self.server.should_exit = True
        self.thread.join(timeout=20)
        self.sock.close()


@pytest.fixture(scope="module")
def catalogue() -> Catalogue:
    return Catalogue(ROOT / "spec")


@pytest.fixture(scope="module")
def server(catalogue):
    app = create_app(catalogue)
    SERVED["app"] = app
    running = Running(app)
    yield running.url
    running.stop()


def start_chromium():
    """A headless Chromium with its own fresh profile (so its own cookies and storage: a
    browser context of its own); (driver, profile folder)."""
    profile = tempfile.mkdtemp(prefix="hansa-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={profile}")
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": 1366, "height": 768, "deviceScaleFactor": 1, "mobile": False},
    )
    driver.set_script_timeout(90)
    return driver, profile


@pytest.fixture(scope="module")
def browser():
    driver, profile = start_chromium()
    yield driver
    driver.quit()
    shutil.rmtree(profile, ignore_errors=True)


def shot(driver, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    driver.save_screenshot(str(ARTIFACTS / f"{name}.png"))


def body(driver, key: str) -> str | None:
    return driver.execute_script(f"return document.body.dataset.{key} || null")


def wait_for(driver, condition, what: str, timeout: float = 30.0, error_expected: bool = False):
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if body(driver, "error") == "1" and not error_expected:
            text = driver.find_element(By.ID, "error-text").text
            raise AssertionError(f"the page shows an error while waiting for {what}: {text}")
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.03)


def in_words(name: str) -> str:
    """An action name as the page shows it: the spec's snake_case names in it in words
    (`use bonus marker plus_3_actions` → `use bonus marker +3 actions`)."""
    import re

    def spoken(match: re.Match) -> str:
        text = re.sub(r"^plus_(\d)", r"+\1", match.group()).replace("_", " ")
        return re.sub(r"\bpp\b", "PP", text, flags=re.IGNORECASE)

    return re.sub(r"\b[a-z]+(?:_[a-z0-9]+)+\b", spoken, name)


def settled(driver) -> bool:
    """The page is idle: no request running and no agent about to move."""
    return body(driver, "busy") == "0" and (
        body(driver, "waiting") != "agent" or body(driver, "terminal") == "1"
    )


# Waits inside the page (one round trip) until it shows a decision after `at` and is idle.
WAIT_AFTER = """
const [at, done] = [arguments[0], arguments[arguments.length - 1]];
const start = Date.now();
(function poll() {
  const d = document.body.dataset;
  if (d.error === "1") return done("error: " + document.getElementById("error-text").textContent);
  const idle = d.busy === "0" && (d.waiting !== "agent" || d.terminal === "1");
  if (idle && Number(d.at) > at) return done("ok");
  if (Date.now() - start > 60000) return done("timeout");
  setTimeout(poll, 5);
})();
"""
# What the page offers now: the list's action ids and the board's highlighted targets.
OFFERED = """
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
"""


def click_board_target(driver, target) -> bool:
    """Click a highlighted board element where it is drawn (a route at the middle of its line)."""
    x, y, hit = driver.execute_script(
        """
        const target = arguments[0];
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
        """,
        target,
    )
    if not hit:  # covered by another target: the list offers the same actions
        return False
    actions = ActionChains(driver)
    actions.w3c_actions.pointer_action.move_to_location(int(x), int(y))
    actions.w3c_actions.pointer_action.click()
    actions.perform()
    return True


def confirm_if_asked(driver, stats: dict) -> None:
    """Ending a turn with actions left asks first: confirm."""
    if driver.find_element(By.ID, "confirm").is_displayed():
        assert "left?" in driver.find_element(By.ID, "confirm-text").text
        driver.find_element(By.ID, "confirm-yes").click()
        stats["confirmed"] += 1


def list_choice(driver, action: str) -> None:
    """Click a choice in the full list (opened first: it is folded away)."""
    details = driver.find_element(By.ID, "all-choices")
    if details.get_attribute("open") is None:
        details.find_element(By.TAG_NAME, "summary").click()
    driver.find_element(By.CSS_SELECTOR, f'#legal-list button[data-action="{action}"]').click()


def play_one_human_decision(driver, offered: dict, rng: random.Random, stats: dict) -> None:
    assert offered["listed"], "a human decision without legal actions in the list"
    clicked = False
    if offered["kinds"] and not offered["targets"] and rng.random() < 0.5:
        kind = rng.choice(offered["kinds"])  # show where that kind can be played: only there
        key = {"place": "p", "displace": "d"}.get(kind)
        if key and rng.random() < 0.5:  # its keyboard shortcut
            driver.find_element(By.TAG_NAME, "body").send_keys(key)
            stats["keys"] += 1
        else:
            driver.find_element(By.CSS_SELECTOR, f'#groups button.kind[data-kind="{kind}"]').click()
        offered = driver.execute_script(OFFERED)
        shown = driver.execute_script(
            "return [...document.querySelectorAll('#targets .legal')]"
            ".flatMap(g => g.dataset.actions.split(',').map(Number))"
        )
        kind_of = {a["id"]: a["kind"] for a in driver.execute_script("return S.view.legal")}
        assert shown and {kind_of[a] for a in shown} == {kind}, (kind, shown)  # only that kind
        stats["kind"] += 1
    if offered["income"] and rng.random() < 0.15:
        driver.find_element(By.ID, "income-go").click()
        stats["income"] += 1
        clicked = True
    elif offered["targets"] and rng.random() < 0.8:
        key = rng.choice(offered["targets"])
        target = driver.find_element(By.CSS_SELECTOR, f'#targets [data-target="{key}"]')
        if click_board_target(driver, target):
            menu = driver.find_elements(By.CSS_SELECTOR, "#menu:not(.hidden) button[data-action]")
            if menu:
                rng.choice(menu).click()
                stats["menu"] += 1
            stats["board"] += 1
            clicked = True
    if not clicked:
        action = rng.choice(offered["listed"])
        list_choice(driver, action)
        stats["list"] += 1
    confirm_if_asked(driver, stats)
    result = driver.execute_async_script(WAIT_AFTER, offered["at"])
    assert result == "ok", result


def test_a_full_game_with_a_human_seat_in_the_browser(server, browser, tmp_path):
    driver = browser
    driver.get(server)
    wait_for(driver, lambda: driver.find_elements(By.CSS_SELECTOR, "#f-game option"), "games")
    Select(driver.find_element(By.ID, "f-game")).select_by_value(GAME)
    seats = [Select(driver.find_element(By.ID, f"f-seat-{p}")) for p in range(3)]
    for seat, name in zip(seats, ["human", "greedy", "greedy"], strict=True):
        seat.select_by_value(name)
    seed = driver.find_element(By.ID, "f-seed")
    seed.clear()
    seed.send_keys("7")
    shot(driver, "01-start")
    Select(driver.find_element(By.ID, "agent-delay")).select_by_value("0")
    driver.find_element(By.ID, "f-start").click()
    wait_for(driver, lambda: body(driver, "waiting") == "human", "the human's first decision")
    status = driver.find_element(By.ID, "status").text
    assert "Player 0 (you)" in status and "your decision" in status
    assert driver.find_elements(By.CSS_SELECTOR, "#board .city")  # the board is drawn
    shot(driver, "02-first-decision")

    rng = random.Random(7)
    stats = {"board": 0, "list": 0, "menu": 0, "kind": 0, "keys": 0, "income": 0, "confirmed": 0}
    started = time.monotonic()
    for decision in range(MAX_HUMAN_DECISIONS):
        offered = driver.execute_script(OFFERED)
        if offered["terminal"] == "1":
            break
        assert offered["waiting"] == "human", offered
        if decision == 40:
            shot(driver, "03-midgame")
        play_one_human_decision(driver, offered, rng, stats)
    else:
        raise AssertionError(f"the game did not end after {MAX_HUMAN_DECISIONS} human decisions")
    elapsed = time.monotonic() - started
    print(f"human decisions: {decision} ({stats}), {elapsed:.1f} s")
    assert stats["board"] > 10 and stats["list"] > 10 and stats["keys"] > 0
    assert stats["confirmed"] > 0 and stats["income"] > 0

    # the final scoring table opens by itself
    wait_for(driver, lambda: driver.find_element(By.ID, "scores").is_displayed(), "final scores")
    assert driver.find_element(By.ID, "scores-title").text == "Final scoring"
    rows = driver.find_elements(By.CSS_SELECTOR, "#scores-table tbody tr")
    assert len(rows) == 3 and driver.find_elements(By.CSS_SELECTOR, "#scores-table tr.winner")
    assert "wins" in driver.find_element(By.ID, "status").text or "Shared" in (
        driver.find_element(By.ID, "status").text
    )
    shot(driver, "04-final-scores")
    driver.find_element(By.ID, "scores-close").click()

    # the page's log is a hansa play --log log: hansa replay verifies it
    href = driver.find_element(By.ID, "btn-log").get_attribute("href")
    with urllib.request.urlopen(href, timeout=30) as response:
        text = response.read().decode("utf-8")
    log = tmp_path / "browser-game.jsonl"
    log.write_text(text, encoding="utf-8")
    assert main(["replay", str(log)]) == 0
    footer = json.loads(text.splitlines()[-1])
    assert footer["finished"] is True and footer["decisions"] == int(body(driver, "length"))


def test_a_cli_log_is_stepped_through_with_the_keyboard(server, browser, tmp_path):
    driver = browser
    log = tmp_path / "greedy.jsonl"
    assert main(["play", GAME, "--seed", "3", "--agents", "greedy", "--log", str(log)]) == 0
    decisions = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()[1:-1]]
    driver.get(server)
    wait_for(driver, lambda: driver.find_elements(By.CSS_SELECTOR, "#f-game option"), "games")
    driver.find_element(By.ID, "f-log").send_keys(str(log))
    wait_for(driver, lambda: body(driver, "length") == str(len(decisions)), "the log to open")
    assert body(driver, "at") == "0"
    assert len(driver.find_elements(By.CSS_SELECTOR, "#history li")) == len(decisions)
    page = driver.find_element(By.TAG_NAME, "body")
    for n in range(1, 6):
        page.send_keys(Keys.ARROW_RIGHT)
        wait_for(driver, lambda n=n: body(driver, "at") == str(n) and settled(driver), f"step {n}")
        now = driver.find_element(By.CSS_SELECTOR, "#history li.now").text
        assert now == f"P{decisions[n - 1]['player']}: {in_words(decisions[n - 1]['name'])}"
    page.send_keys(Keys.ARROW_LEFT)
    wait_for(driver, lambda: body(driver, "at") == "4" and settled(driver), "a step back")
    slider = driver.find_element(By.ID, "slider")
    driver.execute_script(
        "arguments[0].value = 150; arguments[0].dispatchEvent(new Event('change'))", slider
    )
    wait_for(driver, lambda: body(driver, "at") == "150" and settled(driver), "the slider")
    assert "position after decision 150" in driver.find_element(By.ID, "status").text
    pieces = driver.find_elements(By.CSS_SELECTOR, "#pieces .piece-g")
    assert pieces, "no pieces on the board at decision 150"
    shot(driver, "05-log-step")
    page.send_keys(Keys.END)
    wait_for(driver, lambda: body(driver, "terminal") == "1" and settled(driver), "the end")
    shot(driver, "06-log-end")


def test_a_broken_log_shows_the_cli_message(server, browser, tmp_path, capsys):
    driver = browser
    log = tmp_path / "broken.jsonl"
    assert main(["play", GAME, "--seed", "1", "--log", str(log)]) == 0
    lines = log.read_text(encoding="utf-8").splitlines()
    log.write_text("\n".join(lines[:-1]) + "\n", encoding="utf-8")  # no footer
    capsys.readouterr()
    assert main(["replay", str(log)]) == 1
    expected = capsys.readouterr().err.strip()
    driver.get(server)
    wait_for(driver, lambda: driver.find_elements(By.CSS_SELECTOR, "#f-game option"), "games")
    driver.find_element(By.ID, "f-log").send_keys(str(log))
    shown = lambda: driver.find_element(By.ID, "error").is_displayed()  # noqa: E731
    wait_for(driver, shown, "the error", error_expected=True)
    shown = driver.find_element(By.ID, "error-text").text
    # the page names the file as the browser uploads it (its base name)
    assert shown == expected.replace(str(log), log.name)


def test_a_position_plays_on_step_by_step(server, browser, tmp_path):
    import hansa

    driver = browser
    state = hansa.load_game(GAME, 3).new_initial_state(2)
    for _ in range(12):
        state.apply_action(state.legal_actions()[-1])
    position = tmp_path / "position.json"
    position.write_text(state.to_json(), encoding="utf-8")
    driver.get(server)
    wait_for(driver, lambda: driver.find_elements(By.CSS_SELECTOR, "#f-seat-2"), "the seats")
    for p in range(3):
        Select(driver.find_element(By.ID, f"f-seat-{p}")).select_by_value("greedy")
    Select(driver.find_element(By.ID, "agent-delay")).select_by_value("-1")
    driver.find_element(By.ID, "f-state").send_keys(str(position))
    wait_for(driver, lambda: body(driver, "waiting") == "agent" and settled_step(driver), "it")
    assert body(driver, "length") == "0"
    assert "Save log" in driver.find_element(By.ID, "btn-log").text
    assert "disabled" in driver.find_element(By.ID, "btn-log").get_attribute("class")
    for n in range(1, 4):
        driver.find_element(By.ID, "agent-step").click()
        wait_for(driver, lambda n=n: body(driver, "length") == str(n), f"agent step {n}")
    time.sleep(0.3)  # step by step: nothing moves by itself
    assert body(driver, "length") == "3"
    pieces = driver.find_elements(By.CSS_SELECTOR, "#pieces .piece-g")
    assert len(pieces) >= sum(
        1 for r in state.to_dict()["routes"] for piece in r["points"] if piece
    )


def settled_step(driver) -> bool:
    return body(driver, "busy") == "0"


def click_an_offered_action(driver) -> None:
    offered = driver.execute_script(OFFERED)
    action = offered["listed"][len(offered["listed"]) // 2]
    list_choice(driver, action)
    confirm_if_asked(driver, {"confirmed": 0})


def page_view(driver) -> dict:
    return driver.execute_script("return S.view")


def start_a_game_for_two(driver, url: str) -> str:
    """Player 0 starts a missions game with another person in seat 1; the seat-1 link."""
    driver.get(url)
    wait_for(driver, lambda: driver.find_elements(By.CSS_SELECTOR, "#f-game option"), "games")
    Select(driver.find_element(By.ID, "f-game")).select_by_value("bigbox-hanseatic-3p-missions")
    for p, name in enumerate(["human", "human", "greedy"]):
        Select(driver.find_element(By.ID, f"f-seat-{p}")).select_by_value(name)
    driver.find_element(By.ID, "f-seed").clear()  # a secret seed
    hotseat = driver.find_element(By.ID, "f-hotseat")
    if hotseat.is_selected():
        hotseat.click()  # the other player gets a link
    Select(driver.find_element(By.ID, "agent-delay")).select_by_value("0")
    driver.find_element(By.ID, "f-start").click()
    wait_for(driver, lambda: body(driver, "waiting") == "human", "the first decision")
    driver.find_element(By.ID, "btn-links").click()
    link = driver.find_element(By.ID, "link-seat-1").get_attribute("value")
    shot(driver, "07-links")
    driver.find_element(By.ID, "links-close").click()
    return link


def take_turns(driver, pages: dict, decisions: int) -> None:
    """The two people decide in turn (each in its own tab, or its own browser: a page is a
    window handle of `driver`, or a (driver, handle) pair); the other page follows each decision
    by itself (update events)."""

    def go(seat: int):
        page = pages[seat]
        which, handle = page if isinstance(page, tuple) else (driver, page)
        which.switch_to.window(handle)
        return which

    made = 0
    while made < decisions:
        current = page_view(go(0))["current_player"]
        if current not in pages:  # the agent's turn: the page asks it
            time.sleep(0.05)
            continue
        now = go(current)
        wait_for(now, lambda d=now: body(d, "waiting") == "human" and settled(d), "a turn")
        if page_view(now)["current_player"] != current:
            continue
        at = int(body(now, "length"))
        click_an_offered_action(now)
        assert now.execute_async_script(WAIT_AFTER, at) == "ok"
        other = go(1 - current)
        wait_for(other, lambda d=other, n=at: int(body(d, "length")) > n, "the other to follow")
        made += 1


def take_back_once(pages: dict) -> None:
    """The deciding person makes a decision that leaves the turn going and takes it back with
    the page's Undo button; both pages return to the position before it."""
    for _ in range(40):
        seat = page_view(pages[0][0])["current_player"]
        if seat not in pages:
            time.sleep(0.05)
            continue
        driver = pages[seat][0]
        wait_for(driver, lambda d=driver: body(d, "waiting") == "human" and settled(d), "a turn")
        at = int(body(driver, "length"))
        legal = [a for a in page_view(driver)["legal"] if a["kind"] not in ("end_turn", "create")]
        list_choice(driver, str(legal[0]["id"]))
        assert driver.execute_async_script(WAIT_AFTER, at) == "ok"
        undo = driver.find_element(By.ID, "btn-undo")
        if undo.is_enabled():
            undo.click()
            for page, _handle in pages.values():
                wait_for(page, lambda p=page, n=at: int(body(p, "length")) == n, "the undo")
            assert len(driver.find_elements(By.CSS_SELECTOR, "#history li")) == at
            return
    raise AssertionError("no decision could be taken back")


def test_two_people_play_from_their_own_links_and_see_only_their_own_cards(server, browser):
    driver = browser
    link = start_a_game_for_two(driver, server)
    driver.find_element(By.ID, "btn-links").click()
    spectator = driver.find_element(By.ID, "link-spectator").get_attribute("value")
    driver.find_element(By.ID, "links-close").click()
    first = driver.current_window_handle
    sid = page_view(driver)["id"]
    truth = SERVED["app"].state.sessions.get(sid)
    cards = [entry["mission"] for entry in truth.state.to_dict()["player_state"]]
    cities = [truth.state.observation(p)["own"]["mission_cities"] for p in range(3)]

    other, profile = start_chromium()  # the second player, in a browser of their own
    try:
        other.get(link)
        wait_for(other, lambda: body(other, "viewer") == "seat 1", "the second seat's page")
        pages = {0: (driver, first), 1: (other, other.current_window_handle)}
        for seat, (page, _handle) in pages.items():
            text = page.find_element(By.ID, "own-mission").text
            assert text == f"your mission card {cards[seat]}: {', '.join(cities[seat])}", text
            view = page_view(page)
            assert view["seed"] is None and "marker_supply" not in view["state"]
            assert all("mission" not in entry for entry in view["state"]["player_state"])
            assert len(page.find_elements(By.ID, "own-mission")) == 1
            for them in range(3):  # no one else's card anywhere in the page or its data
                if them != seat and cards[them] != cards[seat]:
                    assert f"mission card {cards[them]}:" not in page.page_source
                    assert str(view).count(f"'mission': {cards[them]}") == 0
        shot(driver, "07-seat-0-own-mission")
        shot(other, "07-seat-1-own-mission")

        take_turns(driver, pages, 12)  # each page follows the other's decisions as they happen
        take_back_once(pages)
        take_turns(driver, pages, 2)
    finally:
        other.quit()
        shutil.rmtree(profile, ignore_errors=True)
    driver.switch_to.window(first)
    driver.find_element(By.ID, "btn-scores").click()
    cells = driver.find_elements(By.CSS_SELECTOR, "#scores-table tbody tr")
    assert [row.find_elements(By.TAG_NAME, "td")[-2].text for row in cells][1:] == ["?", "?"]
    shot(driver, "08-scores-hidden")
    driver.find_element(By.ID, "scores-close").click()

    driver.switch_to.new_window("tab")  # a spectator sees no one's card
    driver.get(spectator)
    wait_for(driver, lambda: body(driver, "viewer") == "spectator", "the spectator's page")
    assert not driver.find_elements(By.ID, "own-mission")
    assert page_view(driver)["legal"] == []
    wrong = link.rsplit(".", 1)[0] + "." + "x" * 32
    driver.get("about:blank")
    driver.get(wrong)
    shown = lambda: driver.find_element(By.ID, "error").is_displayed()  # noqa: E731
    wait_for(driver, shown, "the refusal", error_expected=True)
    assert "token does not belong" in driver.find_element(By.ID, "error-text").text
    driver.close()
    driver.switch_to.window(first)


def test_both_players_carry_on_after_the_server_is_restarted(catalogue, browser, tmp_path):
    from hansa.web.store import Store

    driver = browser
    store = tmp_path / "games.sqlite"
    running = Running(create_app(catalogue, store=Store(store)))
    try:
        link = start_a_game_for_two(driver, running.url)
        first = driver.current_window_handle
        driver.switch_to.new_window("tab")
        driver.get(link)
        wait_for(driver, lambda: body(driver, "viewer") == "seat 1", "the second seat's page")
        pages = {0: first, 1: driver.current_window_handle}
        take_turns(driver, pages, 4)
        before = int(body(driver, "length"))
        running.stop()  # the server goes away mid-game …
        running = Running(create_app(catalogue, store=Store(store)), running.port)  # … and back
        take_turns(driver, pages, 4)
        for handle in pages.values():
            driver.switch_to.window(handle)
            wait_for(driver, lambda: int(body(driver, "length")) >= before + 4, "both pages")
        driver.switch_to.window(pages[1])
        driver.close()
        driver.switch_to.window(first)
    finally:
        running.stop()
