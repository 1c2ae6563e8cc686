"""`hansa serve` reachable and safe (issue #36, item 6): the store is private to the server's
user, no answer names a path of the server's disk, HTTPS with a certificate, and a server behind a
reverse proxy answers to its public name with tokens required."""

from __future__ import annotations

import json
import os
import shutil
import ssl
import stat
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx2")

from clock_support import HANG_GUARD  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402
from test_serve_doors import call, start_server, stop_server  # noqa: E402

from hansa.cli import main  # noqa: E402
from hansa.commands.serve import open_store  # noqa: E402
from hansa.web.app import create_app  # noqa: E402
from hansa.web.redact import Redactor  # noqa: E402
from hansa.web.sessions import Catalogue  # noqa: E402
from hansa.web.store import Store  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
GAME = "bigbox-hanseatic-3p"
BASE = "http://localhost"


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def wide_umask():
    old = os.umask(0o022)
    yield
    os.umask(old)


# ---- the store: 0600 file, 0700 folder
def test_a_new_store_is_private_whatever_the_umask(tmp_path, wide_umask):
    path = tmp_path / "state" / "hansa" / "games.sqlite"
    store = Store(path)
    catalogue = Catalogue(None)
    client = TestClient(create_app(catalogue, store=store), base_url=BASE)
    assert client.post("/api/sessions", json={"game": GAME, "seats": ["human"] * 3}).is_success
    assert mode(path.parent) == 0o700
    files = [p for p in path.parent.iterdir()]
    assert path in files and len(files) >= 2  # the database and its write-ahead log at least
    assert all(mode(p) == 0o600 for p in files), {p.name: oct(mode(p)) for p in files}
    store.close()


def test_an_existing_store_file_with_wider_modes_is_tightened(tmp_path, wide_umask):
    path = tmp_path / "games.sqlite"
    Store(path).close()
    for p in tmp_path.iterdir():
        p.chmod(0o644)
    Store(path).close()
    assert all(mode(p) == 0o600 for p in tmp_path.iterdir())


def test_a_shared_folder_named_for_the_store_is_refused_with_one_error(tmp_path, capsys):
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o755)
    assert main(["serve", "--port", "0", "--store", str(shared / "games.sqlite")]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert "other users" in err and "chmod 700" in err
    assert not (shared / "games.sqlite").exists() and mode(shared) == 0o755  # left as it was


def test_the_default_store_folder_is_tightened(tmp_path, monkeypatch):
    monkeypatch.delenv("HANSA_STORE", raising=False)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    (tmp_path / "hansa").mkdir(mode=0o755)
    (tmp_path / "hansa").chmod(0o755)  # as an earlier hansa serve made it
    store = open_store(None)
    assert store.path == tmp_path / "hansa" / "serve.sqlite"
    assert mode(tmp_path / "hansa") == 0o700 and mode(store.path) == 0o600
    store.close()


# ---- no answer names a path of the server's disk
BROKEN = "game broken = nothing on nowhere players 3\n"


def test_no_answer_names_a_path_of_the_servers_disk(tmp_path):
    spec = tmp_path / "secret-place" / "spec"
    spec.mkdir(parents=True)
    (spec / "bad.hansa").write_text(BROKEN)
    client = TestClient(create_app(Catalogue(spec.resolve())), base_url=BASE)
    answers = [client.get("/api/games")]
    listing = answers[0].json()
    assert listing["spec"] == "spec" and listing["problems"][0].startswith("spec/bad.hansa:1:")
    for game in ("nope", "broken", "../../etc/passwd", str(spec / "bad.hansa"), GAME + "x"):
        answers.append(client.post("/api/sessions", json={"game": game, "seats": ["human"] * 3}))
        answers.append(client.get(f"/api/games/{game}/board"))
    answers.append(client.post("/api/logs", json={"text": "{not json", "name": "a.jsonl"}))
    answers.append(client.post("/api/positions", json={"text": "{}", "game": "nope"}))
    answers.append(client.get("/api/sessions/nope"))
    answers.append(client.get("/static/../../pyproject.toml"))
    assert any("unknown game" in a.text for a in answers)
    secret = [str(tmp_path), str(ROOT), os.path.expanduser("~"), "secret-place"]
    for answer in answers:
        assert answer.status_code < 500, answer.text
        for place in secret:
            assert place not in answer.text, (place, answer.text)


def test_a_message_keeps_its_words_and_loses_its_paths():
    redact = Redactor([Path("/srv/hansa/spec")])
    assert redact("looked in /srv/hansa/spec (/srv/hansa/spec): games a") == (
        "looked in spec (spec): games a"
    )
    assert redact("/srv/hansa/spec/a.hansa:3:1: error") == "spec/a.hansa:3:1: error"
    assert redact("in /home/ann/.cache/hansa/m.py, line 3") == "in m.py, line 3"
    assert redact("see ~/notes/x.txt or C:\\Users\\ann\\x.hansa") == "see x.txt or x.hansa"
    assert (
        redact("3/4 routes, http://a.example/b/c, and/or")
        == "3/4 routes, http://a.example/b/c, and/or"
    )


# ---- HTTPS
def self_signed(folder: Path) -> tuple[Path, Path]:
    """A certificate for localhost and 127.0.0.1 and its key, made here; skips without a way."""
    cert, key = folder / "cert.pem", folder / "key.pem"
    try:
        from cryptography import x509  # noqa: F401
    except ImportError:
        openssl = shutil.which("openssl")
        if openssl is None:
            pytest.skip("neither the cryptography package nor the openssl command is here")
        subprocess.run(
            [openssl, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
             "-nodes", "-keyout", str(key), "-out", str(cert), "-days", "1",
             "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"],
            check=True, capture_output=True,
        )  # fmt: skip
        return cert, key
    import datetime
    import ipaddress

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    private = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = datetime.datetime.now(datetime.UTC)
    names = [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(private.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName(names), critical=False)
        .sign(private, hashes.SHA256())
    )
    cert.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key.write_bytes(
        private.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert, key


def test_hansa_serve_serves_https_with_a_self_signed_certificate(tmp_path):
    cert, key = self_signed(tmp_path)
    process = subprocess.Popen(
        [sys.executable, "-m", "hansa", "serve", "--port", "0", "--no-store",
         "--ssl-certfile", str(cert), "--ssl-keyfile", str(key)],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        line = process.stdout.readline()
        assert line.startswith("hansa serve: https://127.0.0.1:"), line + process.stderr.read()
        port = line.split()[2].rstrip("/").rsplit(":", 1)[1]
        context = ssl.create_default_context(cafile=str(cert))  # verifies name and chain
        deadline = time.monotonic() + HANG_GUARD
        while True:
            try:
                url = f"https://localhost:{port}/api/games"
                with urllib.request.urlopen(url, context=context, timeout=HANG_GUARD) as response:
                    assert response.status == 200
                    assert GAME in [g["name"] for g in json.load(response)["games"]]
                break
            except urllib.error.URLError as exc:
                assert not isinstance(exc.reason, ssl.SSLError), exc
                assert time.monotonic() < deadline, "the server did not answer"
                time.sleep(0.1)
        with pytest.raises((OSError, urllib.error.URLError)):  # plain HTTP gets no game
            call(f"http://127.0.0.1:{port}/", "GET", "api/games", timeout=5)
    finally:
        stop_server(process)


def test_a_missing_or_broken_certificate_is_one_clear_error(tmp_path, capsys):
    junk = tmp_path / "junk.pem"
    junk.write_text("not a certificate")
    cases = [
        ["--ssl-certfile", str(tmp_path / "none.pem")],
        ["--ssl-certfile", str(junk), "--ssl-keyfile", str(junk)],
        ["--ssl-keyfile", str(junk)],
    ]
    for extra in cases:
        assert main(["serve", "--port", "0", "--no-store", *extra]) == 1
        err = capsys.readouterr().err
        assert "Traceback" not in err and "--ssl-" in err and len(err.strip().splitlines()) == 1


# ---- behind a reverse proxy (the proxy on this machine, passing Host and X-Forwarded-Proto)
def test_behind_a_reverse_proxy_the_public_name_is_answered_and_tokens_are_needed():
    process, url = start_server("--name", "table.example.org")
    try:
        proxied = {
            "host": "table.example.org",
            "origin": "https://table.example.org",
            "x-forwarded-proto": "https",
            "x-forwarded-for": "203.0.113.9",
        }
        body = {"game": GAME, "seed": 1, "seats": ["human", "greedy", "greedy"]}
        status, text = call(url, "POST", "api/sessions", body, proxied)
        assert status == 201, text
        view = json.loads(text)
        status, text = call(url, "GET", f"api/sessions/{view['id']}", headers=proxied)
        assert status == 403 and "token" in json.loads(text)["error"]
        mine = {**proxied, "x-hansa-token": view["tokens"]["seats"]["0"]}
        assert call(url, "GET", f"api/sessions/{view['id']}", headers=mine)[0] == 200
        other = {**proxied, "host": "attacker.test", "origin": "https://attacker.test"}
        assert call(url, "GET", "api/games", headers=other)[0] == 403
        plain = {**proxied, "x-forwarded-proto": "http"}  # the page was https, the request not
        assert call(url, "POST", "api/sessions", body, plain)[0] == 403
    finally:
        stop_server(process)
