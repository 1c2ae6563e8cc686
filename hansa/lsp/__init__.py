"""`hansa lsp`: a language server for spec files (the `editor` extra: pygls, lsprotocol).

The application layer: it imports the compiler and the runtime, never the reverse. `server.py`
speaks the protocol; `workspace.py` checks the unsaved buffers with the workspace; `symbols.py`,
`hover.py` and `complete.py` answer what a word names, means and what may be written; `text.py`
converts between the editor's positions and the compiler's. docs/editor.md says how to use it.
"""
