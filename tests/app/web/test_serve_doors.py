"""`hansa serve`'s doors: what a hostile page, a request naming a file, a costly spec or a flood
of agent work can do to the server (nothing), each test named after what it guards.

In-process tests drive the ASGI application with starlette's test client; the tests of
shutdown and of latency under load start `hansa serve` as a process of its own, so the client's
threads do not share the server's interpreter.
"""

from __future__ import annotations

import asyncio
import json
import resource
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from clock_support import HANG_GUARD, cpu_seconds
from clock_support import deadline as hang_deadline

pytest.importorskip("starlette")
httpx = pytest.importorskip("httpx2")

from hansa.runtime.errors import HansaError, Span  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402

from hansa.cli import main  # noqa: E402
from hansa.web.app import SourceGuard, create_app  # noqa: E402
from hansa.web.sessions import MAX_ACTIONS, Catalogue  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
GAME = "bigbox-hanseatic-3p"
BASE = "http://localhost"
SECRET = 'password = "hunter2-SECRET"'
HUGE_SPEC = """rules huge "a million merchants" extends bigbox_2021 {
    pieces traders 27 merchants 1000000 score_marker trader
}
game huge-45p = huge on hanseatic_45p players 4..5
"""


@pytest.fixture(scope="module")
def catalogue() -> Catalogue:
    return Catalogue(None)


@pytest.fixture
def client(catalogue) -> TestClient:
    return TestClient(create_app(catalogue), base_url=BASE)


def new_game(client, seats=("human", "greedy", "greedy"), game=GAME, **headers) -> dict:
    body = {"game": game, "seed": 3, "seats": list(seats)}
    response = client.post("/api/sessions", json=body, headers=headers)
    assert response.status_code == 201, response.text
    return response.json()


def token(view: dict, role: str | int) -> dict:
    value = view["tokens"]["seats"][str(role)] if isinstance(role, int) else view["tokens"][role]
    return {"x-hansa-token": value}


# ---- Host and Origin (DNS rebinding, cross-site requests)
@pytest.mark.parametrize("host", ["attacker.test", "attacker.test:8000", "localhost.attacker.test"])
def test_a_foreign_host_is_refused_so_dns_rebinding_reads_nothing(client, host):
    response = client.get("/api/games", headers={"host": host})
    assert response.status_code == 403 and "not this server" in response.json()["error"]
    assert client.get("/", headers={"host": host}).status_code == 403


@pytest.mark.parametrize("host", ["localhost:8000", "127.0.0.1:8000", "[::1]:8000", "10.0.0.7"])
def test_this_machines_names_and_ip_addresses_are_answered(client, host):
    assert client.get("/api/games", headers={"host": host}).status_code == 200


def test_a_name_the_server_was_started_with_is_answered(catalogue):
    client = TestClient(create_app(catalogue, allowed_hosts={"table.lan"}), base_url=BASE)
    assert client.get("/api/games", headers={"host": "table.lan:8000"}).status_code == 200
    assert client.get("/api/games", headers={"host": "other.lan:8000"}).status_code == 403


def test_the_issues_cross_site_text_plain_post_creates_nothing(client):
    """The reported attack: a 'simple' cross-site POST (no preflight) from another page."""
    body = json.dumps({"game": GAME, "seed": 1, "seats": ["greedy"] * 3})
    headers = {"content-type": "text/plain", "origin": "http://attacker.test"}
    for extra in ({"host": "attacker.test"}, {}):
        response = client.post("/api/sessions", content=body, headers={**headers, **extra})
        assert response.status_code == 403, response.text
    assert not client.app.state.sessions.items


@pytest.mark.parametrize(
    "origin", ["http://attacker.test", "null", "http://localhost:9999", "https://localhost"]
)
def test_a_request_from_another_pages_origin_is_refused(client, origin):
    headers = {"origin": origin}
    assert client.get("/api/games", headers=headers).status_code == 403
    body = {"game": GAME, "seed": 1, "seats": ["greedy"] * 3}
    assert client.post("/api/sessions", json=body, headers=headers).status_code == 403
    assert not client.app.state.sessions.items


def test_the_pages_own_origin_is_answered(client):
    new_game(client, origin=BASE)
    view = new_game(client, **{"sec-fetch-site": "same-origin"})
    assert client.get(f"/api/sessions/{view['id']}", headers={"origin": BASE}).status_code == 200


@pytest.mark.parametrize("site", ["cross-site", "same-site"])
def test_an_api_request_a_browser_marks_as_from_another_site_is_refused(client, site):
    assert client.get("/api/games", headers={"sec-fetch-site": site}).status_code == 403
    assert client.get("/", headers={"sec-fetch-site": site}).status_code == 200  # a shared link


# ---- JSON only
@pytest.mark.parametrize(
    "kind",
    [None, "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"],
)
def test_a_body_that_is_not_declared_json_is_refused(client, kind):
    body = json.dumps({"game": GAME, "seed": 1, "seats": ["greedy"] * 3}).encode()
    headers = {"content-type": kind} if kind else {}
    response = client.post("/api/sessions", content=body, headers=headers)
    assert response.status_code == 415 and "JSON" in response.json()["error"]
    assert not client.app.state.sessions.items


def test_a_cors_preflight_is_never_granted(client):
    headers = {
        "origin": "http://attacker.test",
        "access-control-request-method": "POST",
        "access-control-request-headers": "content-type",
    }
    response = client.options("/api/sessions", headers=headers)
    assert response.status_code >= 400
    assert "access-control-allow-origin" not in response.headers


def test_answers_keep_the_page_out_of_frames_referers_and_caches(client):
    page = client.get("/")
    assert page.headers["x-frame-options"] == "DENY"
    assert "frame-ancestors 'none'" in page.headers["content-security-policy"]
    assert page.headers["referrer-policy"] == "no-referrer"  # links carry tokens
    assert client.get("/api/games").headers["cache-control"] == "no-store"


# ---- a game name is never a file path
@pytest.fixture
def notes(tmp_path) -> dict:
    """A valid game file and a broken one holding a secret, outside any spec folder."""
    good = tmp_path / "notes.hansa"
    good.write_text(
        f"# {SECRET}\ngame notes-45p = bigbox_2021 on hanseatic_45p players 4..5\n",
        encoding="utf-8",
    )
    bad = tmp_path / "broken.hansa"
    bad.write_text(f"{SECRET}\n", encoding="utf-8")
    return {"good": str(good), "bad": str(bad)}


def test_a_game_name_in_a_request_is_never_opened_as_a_file(client, notes, tmp_path):
    for path in notes.values():
        response = client.post("/api/sessions", json={"game": path, "seats": ["greedy"] * 4})
        assert response.status_code == 400 and "unknown game" in response.json()["error"]
        assert "hunter2" not in response.text
        state = json.dumps({"game": path, "players": 4})
        response = client.post("/api/positions", json={"name": "s.json", "text": state})
        assert response.status_code == 400 and "hunter2" not in response.text
        response = client.post(
            "/api/positions", json={"name": "s.json", "text": "{}", "game": path}
        )
        assert response.status_code == 400 and "hunter2" not in response.text
        header = {"type": "header", "format": "hansa-log", "version": 1, "game": path}
        header |= {"players": 4, "seed": 0}
        response = client.post("/api/logs", json={"name": "l.jsonl", "text": json.dumps(header)})
        assert response.status_code == 400 and "hunter2" not in response.text
        quoted = urllib.request.quote(path, safe="")
        response = client.get(f"/api/games/{quoted}/board")
        assert response.status_code in (400, 404) and "hunter2" not in response.text
    assert not client.app.state.sessions.items


def test_an_error_never_quotes_a_file_outside_the_spec_folder(notes):
    spec = ROOT / "spec"
    outside = HansaError("something is wrong", Span(notes["bad"], 1, 1))
    assert "hunter2" not in outside.format(SourceGuard({}, [spec]))
    inside = HansaError("here", Span(str(spec / "games.hansa"), 1, 1))
    first_line = (spec / "games.hansa").read_text(encoding="utf-8").splitlines()[0]
    assert first_line.strip() in inside.format(SourceGuard({}, [spec]))
    uploaded = HansaError("bad line", Span("mine.json", 1, 1))
    assert "my text" in uploaded.format(SourceGuard({"mine.json": "my text"}, [spec]))


def test_hansa_score_and_replay_never_open_a_game_a_file_names(notes, tmp_path, capsys):
    for path in notes.values():
        state = tmp_path / "state.json"
        state.write_text(json.dumps({"game": path, "players": 4}), encoding="utf-8")
        capsys.readouterr()
        assert main(["score", str(state)]) == 1
        err = capsys.readouterr().err
        assert "unknown game" in err and "hunter2" not in err
        log = tmp_path / "game.jsonl"
        header = {"type": "header", "format": "hansa-log", "version": 1, "game": path}
        log.write_text(json.dumps(header | {"players": 4, "seed": 0}) + "\n", encoding="utf-8")
        assert main(["replay", str(log)]) == 1
        err = capsys.readouterr().err
        assert "unknown game" in err and "hunter2" not in err


def test_a_path_the_user_types_is_still_compiled(notes, tmp_path, capsys):
    """`hansa score --game FILE.hansa`: the user named the file on the command line."""
    import hansa

    state = hansa.compile_game(notes["good"], 4).new_initial_state(0).to_dict()
    path = tmp_path / "state.json"
    path.write_text(json.dumps(state), encoding="utf-8")
    capsys.readouterr()
    assert main(["score", str(path), "--game", notes["good"]]) == 0, capsys.readouterr().err


# ---- one request cannot exhaust memory
def test_a_game_with_millions_of_action_ids_is_refused_and_the_server_keeps_answering(tmp_path):
    (tmp_path / "huge.hansa").write_text(HUGE_SPEC, encoding="utf-8")
    client = TestClient(create_app(Catalogue(tmp_path)), base_url=BASE)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = cpu_seconds()
    for _ in range(3):
        body = {"game": "huge-45p", "players": 4, "seats": ["greedy"] * 4}
        response = client.post("/api/sessions", json=body)
        assert response.status_code == 400, response.text
        assert f"at most {MAX_ACTIONS:,}" in response.json()["error"]
        assert client.get("/api/games/huge-45p/board").status_code == 400
        state = json.dumps({"game": "huge-45p", "players": 4})
        assert client.post("/api/positions", json={"name": "s", "text": state}).status_code == 400
    assert cpu_seconds() - started < 60  # CPU: the refusals' cost, not the machine's load
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert grown_mb < 400, f"{grown_mb:.0f} MB"  # 28 million action names would be gigabytes
    assert client.get("/api/games").status_code == 200
    assert new_game(client)["game"] == GAME


# ---- agent work: off the request path, bounded, cancellable
def test_agents_waiting_until_a_human_hold_no_worker(catalogue):
    """The reported starvation: many requests for agents that think long (mcts, until a human)
    at once; the server keeps answering other requests at once."""
    app = create_app(catalogue)

    async def scenario():
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(
            transport=transport, base_url=BASE, timeout=HANG_GUARD
        ) as client:
            body = {"game": "bigbox-hanseatic-45p", "players": 4, "seed": 1, "seats": ["mcts"] * 4}
            view = (await client.post("/api/sessions", json=body)).json()
            headers = token(view, "host")
            url = f"/api/sessions/{view['id']}"
            asks = [
                asyncio.create_task(
                    client.post(f"{url}/agent", json={"until_human": True}, headers=headers)
                )
                for _ in range(45)
            ]
            await asyncio.sleep(0.5)
            started = time.monotonic()
            other = await client.post(
                "/api/sessions", json={"game": GAME, "seed": 2, "seats": ["human"] * 3}
            )
            looked = await client.get(url, headers=headers)
            quick = time.monotonic() - started
            assert other.status_code == 201 and looked.status_code == 200
            assert looked.json()["agents"]["running"]
            stopped = await client.post(f"{url}/agent", json={"stop": True}, headers=headers)
            assert stopped.json()["agents"]["stopped"] == "cancelled"
            answers = await asyncio.gather(*asks)
            assert all(a.status_code == 200 for a in answers)
            return quick

    quick = asyncio.run(scenario())
    app.state.stop()
    assert quick < 1.0, f"{quick:.2f} s"


def test_a_request_gets_its_answer_when_agents_think_longer_than_it_waits(client):
    view = new_game(client, seats=("mcts", "mcts", "mcts"))
    url = f"/api/sessions/{view['id']}/agent"
    started = time.monotonic()
    response = client.post(
        url, json={"until_human": True, "wait": 0.2}, headers=token(view, "host")
    )
    assert response.status_code == 200 and time.monotonic() - started < 5
    assert response.json()["agents"]["running"] is True  # still thinking, in the pool
    client.post(url, json={"stop": True}, headers=token(view, "host"))
    client.app.state.stop()


def test_several_pages_asking_the_agents_the_same_do_not_restart_their_thinking(client):
    view = new_game(client, seats=("mcts", "mcts", "mcts"))
    url = f"/api/sessions/{view['id']}/agent"
    body = {"until_human": True, "wait": 0}
    client.post(url, json=body, headers=token(view, "host"))
    job = client.app.state.sessions.get(view["id"]).job
    client.post(url, json=body, headers=token(view, "host"))
    assert client.app.state.sessions.get(view["id"]).job is job and not job.cancelled
    client.post(url, json={**body, "delay": 0.5}, headers=token(view, "host"))  # a new pace
    assert job.cancelled
    client.post(url, json={"stop": True}, headers=token(view, "host"))
    client.app.state.stop()


# ---- tokens: a seat's decisions need its link
def test_a_seats_decision_without_its_token_is_refused_and_changes_nothing(client):
    view = new_game(client, seats=("human", "human", "greedy"))
    sid, action = view["id"], view["legal"][0]["id"]
    url = f"/api/sessions/{sid}/action"
    for headers in ({}, token(view, "spectator"), token(view, "host"), token(view, 1)):
        response = client.post(url, json={"action": action}, headers=headers)
        assert response.status_code == 403, (headers, response.text)
    wrong = {"x-hansa-token": "x" * 32}
    assert client.post(url, json={"action": action}, headers=wrong).status_code == 403
    assert client.get(f"/api/sessions/{sid}", headers=wrong).status_code == 403
    spectator = client.post(f"/api/sessions/{sid}/agent", json={}, headers=token(view, "spectator"))
    assert spectator.status_code == 403
    assert client.get(f"/api/sessions/{sid}", headers=token(view, 0)).json()["length"] == 0
    assert client.post(url, json={"action": action}, headers=token(view, 0)).status_code == 200


def test_a_server_for_a_network_needs_a_token_for_every_game(catalogue):
    client = TestClient(create_app(catalogue, require_tokens=True), base_url=BASE)
    view = new_game(client)
    assert client.get(f"/api/sessions/{view['id']}").status_code == 403
    assert client.get(f"/api/sessions/{view['id']}/events?for=0").status_code == 403
    assert client.get(f"/api/sessions/{view['id']}", headers=token(view, "spectator")).is_success
    assert client.get(f"/api/sessions/{view['id']}?token={view['tokens']['host']}").is_success


# ---- the server as a process
def start_server(*args: str, cwd: Path = ROOT, store: Path | None = None):
    """`hansa serve` as a process (games kept in `store`, else in memory only): it and its URL."""
    if store is None:
        args = (*args, "--no-store")
    else:
        args = (*args, "--store", str(store))
    process = subprocess.Popen(
        [sys.executable, "-m", "hansa", "serve", "--port", "0", *args],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    line = process.stdout.readline()
    assert line.startswith("hansa serve: http://"), line + process.stderr.read()
    url = line.split()[2].replace("0.0.0.0", "127.0.0.1")
    deadline = hang_deadline()
    while True:
        try:
            call(url, "GET", "api/games")
            return process, url
        except OSError:
            assert time.monotonic() < deadline, "the server did not answer"
            time.sleep(0.1)


def call(url: str, method: str, path: str, body=None, headers=None, timeout=HANG_GUARD):
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url + path, data=data, method=method)
    if data is not None:
        request.add_header("content-type", "application/json")
    for key, value in (headers or {}).items():
        request.add_header(key, value)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


def stop_server(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.kill()
        process.wait(timeout=HANG_GUARD)
    process.stdout.close()
    process.stderr.close()


def test_sigterm_stops_the_server_promptly_while_agents_think_and_streams_are_open():
    process, url = start_server()
    try:
        body = {"game": "bigbox-hanseatic-45p", "players": 4, "seed": 1, "seats": ["mcts"] * 4}
        view = json.loads(call(url, "POST", "api/sessions", body)[1])
        headers = {"x-hansa-token": view["tokens"]["host"]}
        agent_url = f"api/sessions/{view['id']}/agent"
        waiting = [
            threading.Thread(
                target=call,
                args=(url, "POST", agent_url, {"until_human": True, "wait": 30}, headers),
                kwargs={"timeout": HANG_GUARD},
                daemon=True,
            )
            for _ in range(6)
        ]
        for thread in waiting:
            thread.start()
        stream = urllib.request.urlopen(
            f"{url}api/sessions/{view['id']}/events", timeout=HANG_GUARD
        )
        assert stream.readline().startswith(b"retry:")
        time.sleep(1.0)
        started = time.monotonic()
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=20)
        took = time.monotonic() - started
        stream.close()
        assert took < 6.0, f"{took:.1f} s after SIGTERM"
    finally:
        stop_server(process)


def test_good_requests_are_answered_within_a_second_under_a_load_of_bad_ones(tmp_path):
    """A small pool of clients sends hostile, malformed and costly requests (mcts agents until a
    human in four games, a spec with millions of actions, names that are paths, other hosts and
    origins) while another client plays a game among people: every good request is answered
    within a second."""
    spec = tmp_path / "spec"
    spec.mkdir()
    (spec / "huge.hansa").write_text(HUGE_SPEC, encoding="utf-8")
    env_cwd = tmp_path
    process, url = start_server("--spec", str(spec), cwd=env_cwd)
    try:
        mcts = {"game": "bigbox-hanseatic-45p", "players": 4, "seed": 1, "seats": ["mcts"] * 4}
        agent_games = [json.loads(call(url, "POST", "api/sessions", mcts)[1]) for _ in range(4)]
        play_a_little(url)  # first uses (imports, the board's layout) before the load starts
        bad = bad_requests(url, agent_games, spec / "huge.hansa")
        stop = time.monotonic() + 7
        latencies: list[float] = []

        def hammer(worker: int) -> int:
            sent = 0
            while time.monotonic() < stop:
                method, path, body, headers = bad[(worker + sent) % len(bad)]
                try:
                    call(url, method, path, body, headers, timeout=HANG_GUARD)
                except OSError:
                    pass
                sent += 1
            return sent

        with ThreadPoolExecutor(max_workers=6) as pool:
            flood = [pool.submit(hammer, w) for w in range(6)]
            time.sleep(1.0)
            while time.monotonic() < stop - 1:
                latencies.extend(play_a_little(url))
            sent = sum(f.result() for f in flood)
        print(f"{sent} bad requests; {len(latencies)} good ones, slowest {max(latencies):.3f} s")
        assert sent > 20
        assert latencies and max(latencies) < 1.0, (
            f"{len(latencies)} good requests, slowest {max(latencies):.2f} s"
        )
    finally:
        stop_server(process)


def bad_requests(url: str, agent_games: list[dict], path: Path) -> list[tuple]:
    plain = {"content-type": "text/plain"}
    requests = [
        ("GET", "api/games", None, {"host": "attacker.test"}),
        ("POST", "api/sessions", None, {"origin": "http://attacker.test"}),
        ("POST", "api/sessions", {"game": str(path), "seats": ["greedy"] * 4}, None),
        ("POST", "api/sessions", {"game": "huge-45p", "players": 4, "seats": ["greedy"] * 4}, None),
        ("GET", "api/games/huge-45p/board", None, None),
        ("POST", "api/logs", {"name": "x", "text": '{"type": "header"}\n{'}, None),
        ("POST", "api/positions", {"name": "x", "text": "[" * 5000}, None),
        ("GET", "api/sessions/nope?at=abc", None, None),
        ("GET", "api/sessions/" + "f" * 16 + "/log", None, None),
    ]
    for game in agent_games:
        host = {"x-hansa-token": game["tokens"]["host"]}
        think = {"until_human": True, "wait": 0.5}  # each answered soon; the agents think on
        requests.append(("POST", f"api/sessions/{game['id']}/agent", think, host))
        requests.append(("POST", f"api/sessions/{game['id']}/agent", think | {"delay": 0.1}, host))
        requests.append(("GET", f"api/sessions/{game['id']}?since=0", None, plain | host))
    return requests


def play_a_little(url: str) -> list[float]:
    """A few decisions of a game played by people (each seat with its own link), and the other
    things a page asks, timing each good request."""
    times = []

    def timed(method, path, body=None, headers=None):
        started = time.monotonic()
        status, text = call(url, method, path, body, headers)
        times.append(time.monotonic() - started)
        assert status in (200, 201), text[:300]
        return text

    timed("GET", "api/games")
    timed("GET", f"api/games/{GAME}/board")
    view = json.loads(timed("POST", "api/sessions", {"game": GAME, "seats": ["human"] * 3}))
    tokens = view["tokens"]["seats"]
    for _ in range(6):
        mine = {"x-hansa-token": tokens[str(view["current_player"])]}
        action = view["legal"][len(view["legal"]) // 2]["id"]
        body = {"action": action, "since": view["length"]}
        timed("POST", f"api/sessions/{view['id']}/action", body, mine)
        timed("GET", f"api/sessions/{view['id']}/events?for=0", None, mine)
        now = json.loads(timed("GET", f"api/sessions/{view['id']}?since=0", None, mine))
        mine = {"x-hansa-token": tokens[str(now["current_player"])]}
        view = json.loads(timed("GET", f"api/sessions/{view['id']}?since=0", None, mine))
    return times


def test_hansa_serve_for_a_network_says_that_games_need_tokens():
    process, url = start_server("--host", "0.0.0.0")
    try:
        view = json.loads(
            call(url, "POST", "api/sessions", {"game": GAME, "seats": ["greedy"] * 3})[1]
        )
        status, _ = call(url, "GET", f"api/sessions/{view['id']}")
        assert status == 403
        headers = {"x-hansa-token": view["tokens"]["spectator"]}
        assert call(url, "GET", f"api/sessions/{view['id']}", headers=headers)[0] == 200
    finally:
        stop_server(process)
