"""Screenshots of `hansa serve`'s table for every game kind, for docs/serve.md.

Serves the page from this checkout (uvicorn in a thread), starts one game per kind with a human
seat 0 and greedy agents, plays it some way in (the greedy agent's choices for the human, the
agents' own for theirs, through the HTTP API), then opens the human seat's link in headless
Chromium (the system's, driven by Playwright) and saves the page as `OUT/serve-KIND.png` (in 256
colours when Pillow is installed, as it is with matplotlib: a third of the size). The test suite
never writes here: its screenshots go under a temporary folder.

    .venv/bin/python scripts/screenshots.py [--out docs/serve] [--only KIND ...]
"""

from __future__ import annotations

import argparse
import json
import shutil
import socket
import sys
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# kind: (game, players, seats, human decisions to play first, seed)
KINDS = {
    "base": ("bigbox-hanseatic-3p", 3, ["human", "greedy", "greedy"], 40, 7),
    "missions": ("bigbox-hanseatic-3p-missions", 3, ["human", "greedy", "greedy"], 30, 3),
    "favour": ("bigbox-hanseatic-3p-favour", 3, ["human", "greedy", "greedy"], 40, 5),
    "britannia": ("bigbox-britannia-3p", 3, ["human", "greedy", "greedy"], 40, 2),
    "eastern": ("bigbox-eastern", 4, ["human", "greedy", "greedy", "greedy"], 40, 4),
    "two-player": ("original-hanseatic-2p", 2, ["human", "greedy"], 30, 6),
    "house-rule": ("guild-charter-hanseatic-45p", 4, ["human"] + ["greedy"] * 3, 30, 8),
}
WINDOW = (1366, 768)


def serve(spec: Path):
    """The app on a free local port, in a daemon thread: (url, stop, app)."""
    import uvicorn

    from hansa.web.app import create_app
    from hansa.web.sessions import Catalogue

    app = create_app(Catalogue(spec))
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)

    def stop() -> None:
        app.state.stop()
        server.should_exit = True
        thread.join(timeout=20)

    return f"http://127.0.0.1:{sock.getsockname()[1]}", stop, app


def call(url: str, method: str = "GET", body: dict | None = None, token: str | None = None):
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method=method)
    request.add_header("content-type", "application/json")
    if token:
        request.add_header("x-hansa-token", token)
    with urllib.request.urlopen(request, timeout=120) as response:
        return json.loads(response.read())


def play_in(base: str, app, game: str, players: int, seats: list[str], human: int, seed: int):
    """A session `human` human decisions in (ending at the human's decision), the human seat
    deciding as the greedy agent would (so the table looks like a game being played, not random
    clicks), through the page's own API: (id, token)."""
    from hansa.play.simulate import make_agent

    view = call(
        f"{base}/api/sessions",
        "POST",
        {"game": game, "players": players, "seats": seats, "seed": seed},
    )
    sid, token = view["id"], view["tokens"]["seats"]["0"]
    session = app.state.sessions.get(sid)
    advisor = make_agent("greedy", seed)
    made = 0
    url = f"{base}/api/sessions/{sid}"
    while not view["terminal"]:
        if view["waiting_for"] == "agent":
            view = call(f"{url}/agent", "POST", {"until_human": True}, token)
            continue
        if made >= human:
            break
        with session.lock:
            position = session.state.clone()
        choice = advisor.step(position, position.legal_actions())
        view = call(f"{url}/action", "POST", {"action": choice, "at": view["length"]}, token)
        made += 1
    return sid, token


def shrink(path: Path) -> None:
    """The screenshot in 256 colours (the page has few), where Pillow is there to do it."""
    try:
        from PIL import Image
    except ImportError:
        return
    with Image.open(path) as image:
        small = image.convert("RGB").quantize(256, dither=Image.Dither.NONE)
    small.save(path, optimize=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "docs" / "serve"))
    parser.add_argument("--only", nargs="*", choices=sorted(KINDS))
    parser.add_argument("--spec", default=str(ROOT / "spec"))
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    base, stop, app = serve(Path(args.spec))
    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=chromium, args=["--no-sandbox", "--disable-gpu", "--hide-scrollbars"]
        )
        page = browser.new_page(viewport={"width": WINDOW[0], "height": WINDOW[1]})
        try:
            for kind in args.only or KINDS:
                game, players, seats, human, seed = KINDS[kind]
                sid, token = play_in(base, app, game, players, seats, human, seed)
                page.goto("about:blank")
                page.goto(f"{base}/#join={sid}.{token}")
                page.wait_for_function(
                    "() => typeof S !== 'undefined' && S.view"
                    " && document.body.dataset.busy === '0'",
                    timeout=60_000,
                )
                # show where the first kind on the board can be played (the page's own button)
                page.evaluate(
                    "() => { const b = document.querySelector('#groups button.kind');"
                    " if (b) b.click(); }"
                )
                # a desk with values a rule changed (favour tiles held): scrolled into view
                page.evaluate(
                    "() => { const v = document.querySelector('.desk .line.values');"
                    " if (v) v.scrollIntoView({block: 'end'}); }"
                )
                time.sleep(0.3)
                path = out / f"serve-{kind}.png"
                page.screenshot(path=str(path))
                shrink(path)
                print(f"{kind}: {game}, {path}")
        finally:
            browser.close()
            stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
