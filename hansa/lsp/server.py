"""`hansa lsp`: the Language Server Protocol over stdio (pygls), a door onto the checker.

Every open or changed buffer schedules one check of the workspace with the unsaved buffers
(`workspace.check`), after a short quiet time so that fast typing costs one check, in one worker
thread so checks never overlap. Each check carries a generation number: a result is published
only if no newer edit has been scheduled since, so stale diagnostics never replace fresh ones.
Requests (hover, completion, …) read the newest check and the buffer as the editor holds it now.
No handler lets an exception out: a failure is logged to the editor and answered with nothing.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import sys
import time
import traceback
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidRequest
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from hansa.compiler.board.format import format_source
from hansa.compiler.build.checks import BuildMemo
from hansa.compiler.errors import HansaError

from . import complete, symbols
from . import hover as hovering
from .text import lines_of, whole_range, word_at, word_range
from .workspace import (
    Snapshot,
    check,
    closure,
    diagnostics_by_file,
    inside,
    quick_fix,
    scope_of,
    uri_of,
)

DEBOUNCE_SECONDS = 0.15
WAIT_FOR_CHECK_SECONDS = 10.0
log = logging.getLogger("hansa.lsp")


def file_of(uri: str) -> str:
    """The path a document stands for (an unsaved, untitled buffer keeps its URI as its name)."""
    try:
        path = to_fs_path(uri) if uri.startswith("file:") else None
    except (ValueError, TypeError):
        path = None
    return str(Path(path).absolute()) if path else uri


class HansaServer(LanguageServer):
    """The server's state: the workspace root, the newest check, and the scheduling of checks."""

    def __init__(self, debounce: float = DEBOUNCE_SECONDS) -> None:
        from hansa.cli import version

        super().__init__("hansa", version())
        self.debounce = debounce
        self.snapshot: Snapshot | None = None
        self.generation = 0
        self.pending: asyncio.Task | None = None
        self.checker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="hansa-check")
        self.published: set[str] = set()
        self.parsed: dict = {}  # (file, text) → its parse and lowering (load_project's cache)
        self.builds = BuildMemo()  # each game's check ⇒ build by its model's inputs (bounded)
        self.last_check_seconds = 0.0

    @property
    def root(self) -> Path | None:
        path = self.workspace.root_path
        return Path(path).absolute() if path else None

    def buffers(self) -> dict[str, str]:
        """The text of every open document, by path."""
        return {file_of(uri): doc.source for uri, doc in self.workspace.text_documents.items()}

    def schedule(self, uri: str) -> None:
        """Check again after the quiet time; an edit in the meantime replaces this check."""
        self.generation += 1
        if self.pending is not None and not self.pending.done():
            self.pending.cancel()
        self.pending = asyncio.ensure_future(self._check_logged(self.generation, uri))

    async def _check_logged(self, generation: int, uri: str) -> None:
        try:
            await self._check(generation, uri)
        except asyncio.CancelledError:
            raise
        except Exception:  # publishing failed: say so, and keep serving
            self.log_failure("publishing diagnostics")

    async def _check(self, generation: int, uri: str) -> None:
        """The focus file first (with what it names), published at once; then the whole
        workspace (the files that depend on it too). Either is dropped if a newer edit came."""
        await asyncio.sleep(self.debounce)
        buffers, focus, root = self.buffers(), file_of(uri), self.root
        started = time.perf_counter()
        previous = self.snapshot
        same_scope = previous is not None and previous.scope == scope_of(root, focus)
        quick_files = closure(previous, buffers, focus) if same_scope else None
        if quick_files is not None and len(quick_files) < len(previous.project.files):
            quick = await self._run(
                check, root, buffers, focus, quick_files, self.parsed, self.builds
            )
            if quick is None or generation != self.generation:
                return
            self.publish(quick, only=focus)
        snapshot = await self._run(check, root, buffers, focus, None, self.parsed, self.builds)
        if snapshot is None or generation != self.generation:
            return  # a newer edit was scheduled: its check publishes, this one is stale
        self.last_check_seconds = time.perf_counter() - started
        self.snapshot = snapshot
        self.publish(snapshot)

    async def _run(self, function, *args) -> Snapshot | None:
        """A check in the checking thread (one at a time); None if the compiler failed."""
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self.checker, functools.partial(function, *args))
        except Exception:  # a compiler failure is the server's bug, never the author's problem
            self.log_failure("check")
            return None

    def publish(self, snapshot: Snapshot, only: str | None = None) -> None:
        """Send the check's diagnostics: of every file it checked that has some, is open or had
        some (now none), or of the file `only`. Files another check covers keep theirs."""
        found = diagnostics_by_file(snapshot, self.root)
        versions = {file_of(u): d.version for u, d in self.workspace.text_documents.items()}

        def covered(file: str) -> bool:
            return file == snapshot.focus or inside(snapshot.scope, file)

        known = {f for f in self.published | set(versions) if covered(f)}
        files = {only} if only is not None else set(found) | known
        for file in sorted(files):
            self.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(
                    uri=uri_of(file) if not file.startswith("untitled:") else file,
                    diagnostics=found.get(file, []),
                    version=versions.get(file),
                )
            )
        if only is None:
            self.published = {f for f in self.published if not covered(f)} | set(found)
        elif found.get(only):
            self.published.add(only)

    async def fresh(self, uri: str, settled: bool = False) -> Snapshot | None:
        """The newest check that read the document; if none has, wait (a while) for the one
        scheduled or running. Requests while typing answer at once from the newest check and
        the buffer as it is now (names and declarations seldom change between keystrokes).
        `settled` (references, rename: answers about every file) always waits for the check
        of the buffers as they are now, so no answer comes from a check of an older edit."""
        file = file_of(uri)
        in_snapshot = self.snapshot is not None and file in self.snapshot.project.sources
        if in_snapshot and not settled:
            return self.snapshot
        deadline = time.monotonic() + WAIT_FOR_CHECK_SECONDS * (6 if settled else 1)
        while self.pending is not None and not self.pending.done():
            if time.monotonic() > deadline:
                break
            await asyncio.wait([self.pending], timeout=max(0.0, deadline - time.monotonic()))
        return self.snapshot

    def lines(self, uri: str) -> list[str]:
        return lines_of(self.workspace.get_text_document(uri).source)

    def log_failure(self, what: str) -> None:
        text = traceback.format_exc()
        log.error("%s failed: %s", what, text)
        self.window_log_message(
            types.LogMessageParams(types.MessageType.Error, f"hansa lsp: {what} failed\n{text}")
        )


def guarded(what: str):
    """A handler that never raises: a failure is logged and answered with nothing."""

    def wrap(handler):
        if asyncio.iscoroutinefunction(handler):

            @functools.wraps(handler)
            async def run_async(ls: HansaServer, params):
                try:
                    return await handler(ls, params)
                except JsonRpcInvalidRequest:
                    raise
                except Exception:
                    ls.log_failure(what)
                    return None

            return run_async

        @functools.wraps(handler)
        def run(ls: HansaServer, params):
            try:
                return handler(ls, params)
            except JsonRpcInvalidRequest:
                raise
            except Exception:
                ls.log_failure(what)
                return None

        return run

    return wrap


def create_server(debounce: float = DEBOUNCE_SECONDS) -> HansaServer:
    """The server with every capability registered."""
    server = HansaServer(debounce)
    _register_sync(server)
    _register_requests(server)
    _register_edits(server)
    return server


def _register_sync(server: HansaServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    @guarded("open")
    def did_open(ls: HansaServer, params: types.DidOpenTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    @guarded("change")
    def did_change(ls: HansaServer, params: types.DidChangeTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    @guarded("save")
    def did_save(ls: HansaServer, params: types.DidSaveTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    @guarded("close")
    def did_close(ls: HansaServer, params: types.DidCloseTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri)


def _register_requests(server: HansaServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_HOVER)
    @guarded("hover")
    async def hover(ls: HansaServer, params: types.HoverParams) -> types.Hover | None:
        uri, position = params.text_document.uri, params.position
        snapshot = await ls.fresh(uri)
        if snapshot is None:
            return None
        lines = ls.lines(uri)
        text = hovering.hover(snapshot, file_of(uri), lines, position)
        word = word_at(lines, position)
        if text is None or word is None:
            return None
        content = types.MarkupContent(types.MarkupKind.Markdown, text)
        return types.Hover(contents=content, range=word_range(word, lines))

    @server.feature(
        types.TEXT_DOCUMENT_COMPLETION,
        types.CompletionOptions(trigger_characters=[" ", "(", "="]),
    )
    @guarded("completion")
    async def completion(ls: HansaServer, params: types.CompletionParams) -> types.CompletionList:
        snapshot = await ls.fresh(params.text_document.uri)
        items = []
        if snapshot is not None:
            items = complete.completions(
                snapshot, ls.lines(params.text_document.uri), params.position
            )
        return types.CompletionList(is_incomplete=False, items=items)

    @server.feature(types.TEXT_DOCUMENT_DEFINITION)
    @guarded("definition")
    async def definition(ls: HansaServer, params: types.DefinitionParams) -> types.Location | None:
        snapshot = await ls.fresh(params.text_document.uri, settled=True)
        symbol = _symbol(ls, snapshot, params.text_document.uri, params.position)
        return symbols.location(snapshot, symbol) if symbol is not None else None

    @server.feature(types.TEXT_DOCUMENT_REFERENCES)
    @guarded("references")
    async def references(ls: HansaServer, params: types.ReferenceParams) -> list[types.Location]:
        snapshot = await ls.fresh(params.text_document.uri, settled=True)
        symbol = _symbol(ls, snapshot, params.text_document.uri, params.position)
        if symbol is None:
            return []
        found = symbols.references(snapshot, symbol, ls.root)
        if params.context is not None and not params.context.include_declaration:
            declared = symbols.location(snapshot, symbol)
            found = [where for where in found if where != declared]
        return found

    @server.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    @guarded("document symbols")
    def document_symbol(ls: HansaServer, params: types.DocumentSymbolParams) -> list:
        return symbols.document_symbols(ls.lines(params.text_document.uri))


def _symbol(ls: HansaServer, snapshot: Snapshot | None, uri: str, position):
    if snapshot is None:
        return None
    return symbols.symbol_at(snapshot, file_of(uri), ls.lines(uri), position)


def _register_edits(server: HansaServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_FORMATTING)
    @guarded("formatting")
    def formatting(ls: HansaServer, params: types.DocumentFormattingParams) -> list | None:

        document = ls.workspace.get_text_document(params.text_document.uri)
        text = document.source
        try:
            formatted = format_source(text.replace("\r\n", "\n"), file_of(document.uri)).text
        except HansaError:
            return None  # the diagnostics say why; the formatter never guesses
        if formatted == text:
            return []
        return [types.TextEdit(whole_range(lines_of(text)), formatted)]

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]),
    )
    @guarded("code action")
    def code_action(ls: HansaServer, params: types.CodeActionParams) -> list[types.CodeAction]:
        uri = params.text_document.uri
        lines = ls.lines(uri)
        actions = []
        for diagnostic in params.context.diagnostics:
            edit = quick_fix(lines, diagnostic)
            if edit is not None:
                actions.append(
                    types.CodeAction(
                        title=f"Replace with '{edit.new_text}'",
                        kind=types.CodeActionKind.QuickFix,
                        diagnostics=[diagnostic],
                        edit=types.WorkspaceEdit(changes={uri: [edit]}),
                        is_preferred=True,
                    )
                )
        return actions

    @server.feature(types.TEXT_DOCUMENT_PREPARE_RENAME)
    @guarded("prepare rename")
    async def prepare_rename(ls: HansaServer, params: types.PrepareRenameParams):
        snapshot = await ls.fresh(params.text_document.uri)
        symbol = _symbol(ls, snapshot, params.text_document.uri, params.position)
        lines = ls.lines(params.text_document.uri)
        word = word_at(lines, params.position)
        if symbol is None or symbol.kind not in symbols.RENAMABLE or word is None:
            raise JsonRpcInvalidRequest(symbols.NOT_RENAMABLE)
        return word_range(word, lines)

    @server.feature(types.TEXT_DOCUMENT_RENAME)
    @guarded("rename")
    async def rename(ls: HansaServer, params: types.RenameParams) -> types.WorkspaceEdit | None:
        snapshot = await ls.fresh(params.text_document.uri, settled=True)
        symbol = _symbol(ls, snapshot, params.text_document.uri, params.position)
        if symbol is None:
            raise JsonRpcInvalidRequest(symbols.NOT_RENAMABLE)
        try:
            return symbols.rename(snapshot, symbol, params.new_name, ls.root)
        except HansaError as exc:
            raise JsonRpcInvalidRequest(exc.message) from None


def serve(debounce: float = DEBOUNCE_SECONDS) -> None:
    """Run the server on standard input and output until the editor says exit."""

    create_server(debounce).start_io(sys.__stdin__.buffer, sys.__stdout__.buffer)
