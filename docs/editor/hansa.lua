-- Neovim (0.7 or later): `hansa lsp` for *.hansa files with the built-in LSP client.
-- Put this file in ~/.config/nvim/lua/ and `require("hansa")` from init.lua (docs/editor.md).
-- HANSA_LSP may name the command (a list of words); by default `hansa lsp` from PATH.
vim.cmd([[autocmd BufRead,BufNewFile *.hansa setfiletype hansa]])

local function root_of(file)
  local marker = vim.fn.findfile("pyproject.toml", vim.fn.fnamemodify(file, ":p:h") .. ";")
  if marker ~= "" then return vim.fn.fnamemodify(marker, ":p:h") end
  return vim.fn.fnamemodify(file, ":p:h")
end

vim.api.nvim_create_autocmd("FileType", {
  pattern = "hansa",
  callback = function(args)
    local cmd = vim.env.HANSA_LSP and vim.split(vim.env.HANSA_LSP, " ") or { "hansa", "lsp" }
    local root = root_of(vim.api.nvim_buf_get_name(args.buf))
    local id = vim.lsp.start_client({ name = "hansa", cmd = cmd, root_dir = root })
    if id then vim.lsp.buf_attach_client(args.buf, id) end
  end,
})
