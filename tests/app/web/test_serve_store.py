"""`hansa serve --store FILE`: games kept in SQLite survive a restart of the server, even
`kill -9` (every decision but the one being made), keep their links (tokens) and, once over, their
log; update events reach a page as changes happen."""

from __future__ import annotations

import json
import signal
import threading
import time
import urllib.request
from pathlib import Path

import pytest
from clock_support import HANG_GUARD
from clock_support import deadline as hang_deadline

pytest.importorskip("starlette")
pytest.importorskip("httpx2")

from starlette.testclient import TestClient  # noqa: E402
from test_serve_doors import call, start_server, stop_server  # noqa: E402

from hansa.cli import main  # noqa: E402
from hansa.web.app import create_app  # noqa: E402
from hansa.web.sessions import Catalogue  # noqa: E402
from hansa.web.store import Store  # noqa: E402

GAME = "bigbox-hanseatic-3p-missions"
BASE = "http://localhost"


@pytest.fixture(scope="module")
def catalogue() -> Catalogue:
    return Catalogue(None)


def client_for(catalogue, path: Path, **options) -> TestClient:
    return TestClient(create_app(catalogue, store=Store(path), **options), base_url=BASE)


def seat(view: dict, player: int) -> dict:
    return {"x-hansa-token": view["tokens"]["seats"][str(player)]}


def decide(client, view: dict, created: dict, times: int) -> dict:
    """The deciding seats make `times` decisions, each with its own link."""
    for _ in range(times):
        mine = seat(created, view["current_player"])
        view = client.get(f"/api/sessions/{created['id']}", headers=mine).json()
        action = view["legal"][len(view["legal"]) // 2]["id"]
        body = {"action": action, "since": view["length"]}
        response = client.post(f"/api/sessions/{created['id']}/action", json=body, headers=mine)
        assert response.status_code == 200, response.text
        view = response.json()
    return view


def test_a_game_survives_a_restart_of_the_server_with_its_links(catalogue, tmp_path):
    path = tmp_path / "games.sqlite"
    first = client_for(catalogue, path)
    created = first.post("/api/sessions", json={"game": GAME, "seats": ["human"] * 3}).json()
    before = decide(first, created, created, 9)
    sid = created["id"]
    first.app.state.stop()

    second = client_for(catalogue, path)  # a new server on the same file
    for p in range(3):
        again = second.get(f"/api/sessions/{sid}", headers=seat(created, p))
        assert again.status_code == 200, again.text
        assert again.json()["length"] == 9
    mine = seat(created, before["current_player"])
    now = second.get(f"/api/sessions/{sid}", headers=mine).json()
    assert now["state"] == before["state"] and now["seed"] is None  # still hidden
    wrong = {"x-hansa-token": "y" * 32}
    assert second.get(f"/api/sessions/{sid}", headers=wrong).status_code == 403
    assert decide(second, now, created, 3)["length"] == 12


def test_a_session_dropped_from_memory_is_read_back_from_the_store(catalogue, tmp_path):
    client = client_for(catalogue, tmp_path / "games.sqlite", max_sessions=1)
    one = client.post("/api/sessions", json={"game": GAME, "seats": ["human"] * 3}).json()
    decide(client, one, one, 2)
    client.post("/api/sessions", json={"game": GAME, "seats": ["human"] * 3})
    assert one["id"] not in client.app.state.sessions.items
    back = client.get(f"/api/sessions/{one['id']}", headers=seat(one, 0))
    assert back.status_code == 200 and back.json()["length"] == 2


def test_a_finished_game_keeps_its_log_across_a_restart(catalogue, tmp_path, capsys):
    path = tmp_path / "games.sqlite"
    first = client_for(catalogue, path)
    body = {"game": "bigbox-hanseatic-3p", "seed": 8, "seats": ["greedy"] * 3}
    created = first.post("/api/sessions", json=body).json()
    host = {"x-hansa-token": created["tokens"]["host"]}
    while True:
        view = first.post(
            f"/api/sessions/{created['id']}/agent", json={"until_human": True}, headers=host
        ).json()
        if not view["agents"]["running"]:
            break
    assert view["terminal"]
    first.app.state.stop()
    second = client_for(catalogue, path)
    response = second.get(f"/api/sessions/{created['id']}/log", headers=host)
    assert response.status_code == 200
    log = tmp_path / "kept.jsonl"
    log.write_text(response.text, encoding="utf-8")
    capsys.readouterr()
    assert main(["replay", str(log)]) == 0, capsys.readouterr().err


def test_a_server_killed_with_sigkill_comes_back_with_every_decision(tmp_path):
    path = tmp_path / "games.sqlite"
    process, url = start_server(store=path)
    try:
        created = json.loads(
            call(url, "POST", "api/sessions", {"game": GAME, "seats": ["human"] * 3})[1]
        )
        view = created
        for _ in range(7):
            mine = {"x-hansa-token": created["tokens"]["seats"][str(view["current_player"])]}
            view = json.loads(call(url, "GET", f"api/sessions/{created['id']}", headers=mine)[1])
            body = {"action": view["legal"][0]["id"], "since": view["length"]}
            status, text = call(url, "POST", f"api/sessions/{created['id']}/action", body, mine)
            assert status == 200, text
            view = json.loads(text)
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=HANG_GUARD)
    finally:
        stop_server(process)
    process, url = start_server(store=path)
    try:
        seen_by = {"x-hansa-token": created["tokens"]["seats"][str(view["viewer"]["seat"])]}
        status, text = call(url, "GET", f"api/sessions/{created['id']}", headers=seen_by)
        assert status == 200, text
        again = json.loads(text)
        assert again["length"] == 7 and again["state"] == view["state"]
        mine = {"x-hansa-token": created["tokens"]["seats"][str(again["current_player"])]}
        again = json.loads(call(url, "GET", f"api/sessions/{created['id']}", headers=mine)[1])
        body = {"action": again["legal"][0]["id"], "since": 7}
        status, text = call(url, "POST", f"api/sessions/{created['id']}/action", body, mine)
        assert status == 200 and json.loads(text)["length"] == 8
    finally:
        stop_server(process)


def test_a_store_that_fails_to_write_never_fails_a_decision(catalogue, tmp_path, capsys):
    client = client_for(catalogue, tmp_path / "games.sqlite")
    created = client.post("/api/sessions", json={"game": GAME, "seats": ["human"] * 3}).json()
    client.app.state.sessions.store.db.close()  # the disk went away
    assert decide(client, created, created, 2)["length"] == 2
    assert capsys.readouterr().err.count("cannot write") == 1


def test_a_bad_store_file_is_one_clear_error(tmp_path, capsys):
    bad = tmp_path / "games.sqlite"
    bad.write_bytes(b"this is not a database" * 100)
    assert main(["serve", "--port", "0", "--store", str(bad)]) == 1
    err = capsys.readouterr().err
    assert "--store" in err and "Traceback" not in err


def test_every_page_hears_of_a_change_as_it_happens(catalogue):
    import socket

    import uvicorn

    app = create_app(catalogue)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.02)
    url = f"http://127.0.0.1:{sock.getsockname()[1]}/"
    try:
        created = json.loads(
            call(url, "POST", "api/sessions", {"game": GAME, "seats": ["human"] * 3})[1]
        )
        spectator = created["tokens"]["spectator"]
        stream = urllib.request.urlopen(
            f"{url}api/sessions/{created['id']}/events?token={spectator}&for=3", timeout=HANG_GUARD
        )
        assert stream.headers["content-type"].startswith("text/event-stream")
        events = []

        def read():
            try:
                for line in stream:
                    if line.startswith(b"data: "):
                        events.append((time.monotonic(), json.loads(line[6:])))
            except OSError:
                pass

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        time.sleep(0.3)
        assert events and events[0][1]["length"] == 0  # at once: the state of things
        mine = {"x-hansa-token": created["tokens"]["seats"]["0"]}
        body = {"action": created["legal"][0]["id"]}
        sent = time.monotonic()
        assert call(url, "POST", f"api/sessions/{created['id']}/action", body, mine)[0] == 200
        deadline = hang_deadline()
        while not any(e[1]["length"] == 1 for e in events) and time.monotonic() < deadline:
            time.sleep(0.01)
        heard = [t for t, e in events if e["length"] == 1]
        assert heard and heard[0] - sent < 1.0
        reader.join(timeout=HANG_GUARD)  # the stream ends by itself (for=3)
        assert not reader.is_alive()
        stream.close()
    finally:
        server.should_exit = True
        thread.join(timeout=HANG_GUARD)
        sock.close()
