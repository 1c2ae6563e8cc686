"""docs/editor.md's configuration snippets are what an editor reads: each parses in its own
language (JSON, TOML, JavaScript where Node is installed), and together they name the same
server command, language, file type and TextMate grammar, the one shipped in docs/editor/."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
PAGE = ROOT / "docs" / "editor.md"
GRAMMAR = ROOT / "docs" / "editor" / "hansa.tmLanguage.json"


def _snippets(language: str) -> list[str]:
    text = PAGE.read_text(encoding="utf-8")
    return re.findall(rf"^```{language}\n(.*?)^```$", text, flags=re.M | re.S)


def test_the_page_shows_and_names_the_shipped_grammar():
    grammar = json.loads(GRAMMAR.read_text(encoding="utf-8"))
    assert grammar["scopeName"] == "source.hansa" and grammar["fileTypes"] == ["hansa"]
    assert "docs/editor/hansa.tmLanguage.json" in PAGE.read_text(encoding="utf-8")
    assert len(_snippets("json")) == 2 and len(_snippets("toml")) == 1


def test_the_vs_code_snippets_are_json_naming_the_language_grammar_and_server():
    grammar = json.loads(GRAMMAR.read_text(encoding="utf-8"))
    package, settings = (json.loads(snippet) for snippet in _snippets("json"))
    [language] = package["contributes"]["languages"]
    assert language["id"] == "hansa" and language["extensions"] == [".hansa"]
    [contributed] = package["contributes"]["grammars"]
    assert contributed["language"] == "hansa"
    assert contributed["scopeName"] == grammar["scopeName"]
    assert Path(contributed["path"]).name == GRAMMAR.name
    assert {"name", "publisher", "version", "engines"} <= set(package)
    assert settings["glspc.server.command"] == "hansa"
    assert settings["glspc.server.commandArguments"] == ["lsp"]
    assert settings["glspc.server.languageId"] == ["hansa"]


def test_the_helix_snippet_is_toml_naming_the_server_and_the_file_type():
    grammar = json.loads(GRAMMAR.read_text(encoding="utf-8"))
    [snippet] = _snippets("toml")
    config = tomllib.loads(snippet)
    server = config["language-server"]["hansa"]
    assert (server["command"], server["args"]) == ("hansa", ["lsp"])
    [language] = config["language"]
    assert language["name"] == "hansa" and language["language-servers"] == ["hansa"]
    assert language["file-types"] == grammar["fileTypes"]
    assert language["scope"] == grammar["scopeName"]


def test_the_vs_code_extension_script_is_javascript_starting_the_server(tmp_path):
    [script] = _snippets("js")
    assert '{ command: "hansa", args: ["lsp"] }' in script
    assert 'documentSelector: [{ language: "hansa" }]' in script
    node = shutil.which("node") or shutil.which("nodejs")
    if node is None:
        pytest.skip("Node is not installed: the script's syntax is not checked")
    path = tmp_path / "extension.js"
    path.write_text(script, encoding="utf-8")
    checked = subprocess.run([node, "--check", str(path)], capture_output=True, text=True)
    assert checked.returncode == 0, checked.stderr
