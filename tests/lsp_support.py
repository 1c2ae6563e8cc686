"""A small Language Server Protocol client over stdio for the tests of `hansa lsp`.

It starts `python -m hansa lsp` as an editor would, frames JSON-RPC messages with
Content-Length headers, answers the server's own requests with null, and keeps every
notification so a test can wait for the one it expects.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path


class Client:
    """One running server and the messages it sent."""

    def __init__(self, root: Path, debounce: float = 0.02) -> None:
        # standard error to a file: a pipe nobody drains could fill and stop the server
        self.errors = tempfile.TemporaryFile()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "hansa", "lsp", "--debounce", str(debounce)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.errors,
            cwd=root,
        )
        self.next_id = 0
        self.responses: dict[int, dict] = {}
        self.notifications: list[dict] = []
        self.arrived = threading.Condition()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        self.root = root
        self.versions: dict[str, int] = {}
        self.request(
            "initialize",
            {"processId": None, "rootUri": root.as_uri(), "capabilities": {}},
        )
        self.notify("initialized", {})

    def _read(self) -> None:
        stream = self.process.stdout
        while True:
            length = 0
            while True:
                line = stream.readline()
                if not line:
                    return
                if line in (b"\r\n", b"\n"):
                    break
                name, _, value = line.decode("ascii").partition(":")
                if name.lower() == "content-length":
                    length = int(value.strip())
            message = json.loads(stream.read(length))
            if "id" in message and "method" in message:  # the server asks: answer null
                self._send({"jsonrpc": "2.0", "id": message["id"], "result": None})
                continue
            with self.arrived:
                if "id" in message:
                    self.responses[message["id"]] = message
                else:
                    self.notifications.append(message)
                self.arrived.notify_all()

    def _send(self, message: dict) -> None:
        body = json.dumps(message).encode("utf-8")
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()

    def notify(self, method: str, params: dict) -> None:
        self._send({"jsonrpc": "2.0", "method": method, "params": params})

    def request(self, method: str, params: dict, timeout: float = 30) -> object:
        """The result of a request (an error response raises AssertionError with its message)."""
        self.next_id += 1
        number = self.next_id
        self._send({"jsonrpc": "2.0", "id": number, "method": method, "params": params})
        with self.arrived:
            if not self.arrived.wait_for(lambda: number in self.responses, timeout):
                raise TimeoutError(f"no answer to {method}")
            answer = self.responses.pop(number)
        if "error" in answer:
            raise AssertionError(answer["error"]["message"])
        return answer.get("result")

    def request_error(self, method: str, params: dict) -> str:
        try:
            self.request(method, params)
        except AssertionError as exc:
            return str(exc)
        raise AssertionError(f"{method} answered without an error")

    def open(self, path: Path, text: str | None = None) -> str:
        uri = path.as_uri()
        self.versions[uri] = 1
        body = path.read_text(encoding="utf-8") if text is None else text
        document = {"uri": uri, "languageId": "hansa", "version": 1, "text": body}
        self.notify("textDocument/didOpen", {"textDocument": document})
        return uri

    def change(self, uri: str, text: str) -> int:
        self.versions[uri] += 1
        version = self.versions[uri]
        self.notify(
            "textDocument/didChange",
            {
                "textDocument": {"uri": uri, "version": version},
                "contentChanges": [{"text": text}],
            },
        )
        return version

    def diagnostics(self, uri: str, where=lambda d: True, timeout: float = 30) -> list[dict]:
        """The newest diagnostics published for `uri` that satisfy `where` (waits for them)."""
        deadline = time.monotonic() + timeout

        def found():
            for message in reversed(self.notifications):
                if message["method"] == "textDocument/publishDiagnostics":
                    params = message["params"]
                    if params["uri"] == uri:
                        return params if where(params) else None
            return None

        with self.arrived:
            while found() is None:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"no diagnostics for {uri} as expected")
                self.arrived.wait(left)
            return found()["diagnostics"]

    def at(self, uri: str, line: int, character: int) -> dict:
        return {"textDocument": {"uri": uri}, "position": {"line": line, "character": character}}

    def close(self) -> None:
        """Shut the server down as an editor does (killed if it does not exit)."""
        try:
            self.request("shutdown", {}, timeout=10)
            self.notify("exit", {})
            self.process.wait(timeout=10)
        except (TimeoutError, OSError, subprocess.TimeoutExpired):
            self.process.kill()
            self.process.wait()
        self.reader.join(timeout=10)
        for stream in (self.process.stdin, self.process.stdout, self.errors):
            stream.close()

    def stderr(self) -> str:
        """What the server wrote to standard error so far."""
        self.errors.seek(0)
        return self.errors.read().decode("utf-8", "replace")


def position_of(text: str, needle: str, offset: int = 0) -> tuple[int, int]:
    """(line, character) of the first `needle` in `text`, plus `offset` characters (ASCII text
    before it on its line, as in the spec files the tests use)."""
    index = text.index(needle) + offset
    line = text.count("\n", 0, index)
    return line, index - (text.rfind("\n", 0, index) + 1)
