"""`hansa lsp` in a real editor: Debian's Neovim, headless, with its built-in LSP client set up
for *.hansa files by docs/editor/hansa.lua (the configuration docs/editor.md gives). It opens a
spec file with a mistake and reads back the diagnostic (line and message), a hover and a
completion list. Skipped where `nvim` is not installed (.ci/run installs it)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("pygls")

from lsp_support import position_of  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
NVIM = shutil.which("nvim")

PROBE = r"""
local out = vim.env.HANSA_OUT
local ok = vim.wait(60000, function() return #vim.diagnostic.get(0) > 0 end, 50)
local found = {}
for _, d in ipairs(vim.diagnostic.get(0)) do
  table.insert(found, { line = d.lnum, message = d.message })
end
local uri = vim.uri_from_bufnr(0)
local function ask(method, line, character)
  local answers = vim.lsp.buf_request_sync(0, method, {
    textDocument = { uri = uri }, position = { line = line, character = character } }, 30000)
  for _, answer in pairs(answers or {}) do return answer.result end
end
local env = vim.env
local hover = ask("textDocument/hover", tonumber(env.HOVER_LINE), tonumber(env.HOVER_COL))
local completion = ask("textDocument/completion", tonumber(env.COMPLETE_LINE),
  tonumber(env.COMPLETE_COL))
local labels = {}
for _, item in ipairs(completion and (completion.items or completion) or {}) do
  table.insert(labels, item.label)
end
vim.fn.writefile({ vim.fn.json_encode({ waited = ok, diagnostics = found,
  hover = hover and hover.contents.value or vim.NIL, completion = labels }) }, out)
vim.cmd("qa!")
"""


@pytest.mark.skipif(NVIM is None, reason="Neovim (nvim) is not installed")
def test_neovim_shows_the_diagnostic_a_hover_and_completions(tmp_path):
    folder = tmp_path / "spec"
    folder.mkdir()
    spec = folder / "mine.hansa"
    text = (
        "# A house rule with a mistake: a misspelt parameter.\n"
        'rules mine "Mine" extends bigbox_2021 {\n'
        "    action create_route control_pp 2 coin_ppp no\n"
        "    end when track_pp >= 15\n"
        "}\n"
        "game mine-hanseatic-45p = mine on hanseatic_45p players 4..5\n"
    )
    spec.write_text(text, encoding="utf-8")
    probe = tmp_path / "probe.lua"
    probe.write_text(PROBE, encoding="utf-8")
    hover_at = position_of(text, "create_route")
    complete_at = position_of(text, "control_pp 2 ", len("control_pp 2 "))
    env = {
        **os.environ,
        "HANSA_LSP": f"{sys.executable} -m hansa lsp",
        "HANSA_OUT": str(tmp_path / "out.json"),
        "HOVER_LINE": str(hover_at[0]),
        "HOVER_COL": str(hover_at[1]),
        "COMPLETE_LINE": str(complete_at[0]),
        "COMPLETE_COL": str(complete_at[1]),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
    }
    config = ROOT / "docs" / "editor" / "hansa.lua"
    command = [NVIM, "--headless", "-n", "-i", "NONE", "-u", str(config), str(spec)]
    subprocess.run(
        [*command, "-c", f"luafile {probe}"],
        env=env,
        cwd=tmp_path,
        timeout=120,
        check=False,
        stdin=subprocess.DEVNULL,
        capture_output=True,
    )
    result = json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))
    assert result["waited"] is True
    [diagnostic] = result["diagnostics"]
    assert diagnostic["line"] == 2
    assert "unknown parameter 'coin_ppp'" in diagnostic["message"]
    assert "did you mean 'coin_pp'" in diagnostic["message"]
    assert "E: create a completed route" in result["hover"]
    assert {"coin_pp", "control_tie", "space_shapes"} <= set(result["completion"])
