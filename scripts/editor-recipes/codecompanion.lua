-- Drives CodeCompanion.nvim headless against ferret: one prompt, the permission answered with
-- Accept, the reply read back from the chat buffer. Run by scripts/check-editor-recipes.sh.
local plugins = assert(os.getenv("RECIPE_PLUGINS"), "RECIPE_PLUGINS unset")
local out = assert(os.getenv("RECIPE_OUT"), "RECIPE_OUT unset")
vim.opt.rtp:prepend(plugins .. "/plenary.nvim")
vim.opt.rtp:prepend(plugins .. "/codecompanion.nvim")
vim.cmd("runtime! plugin/codecompanion.lua")

local log = {}
local function say(s) table.insert(log, s) end

-- The recipe from docs/ide.md, with its pickers set to approval "suggest" (so the write asks
-- first) and reasoning "low": CodeCompanion sends session/set_config_option for each.
require("codecompanion").setup({
  adapters = {
    acp = {
      ferret = function()
        return require("codecompanion.adapters").extend("goose", {
          name = "ferret",
          formatted_name = "Ferret",
          commands = { default = { "chimera", "ferret", "serve" } },
          defaults = { session_config_options = { _ferret_approval = "suggest", thought_level = "low" } },
        })
      end,
    },
  },
  interactions = { chat = { adapter = "ferret" } },
  opts = { log_level = "DEBUG" },
})

local chat

local saw_view, answered, started = false, false, vim.uv.now()
local function finish(code)
  local lines = vim.api.nvim_buf_get_lines(chat.bufnr, 0, -1, false)
  table.insert(log, "---- chat buffer ----")
  vim.list_extend(log, lines)
  -- CodeCompanion keeps an RPC log per agent process under Neovim's temp folder.
  for _, f in ipairs(vim.fn.glob(vim.fn.fnamemodify(vim.fn.tempname(), ":h") .. "/*.log", false, true)) do
    table.insert(log, "---- " .. vim.fn.fnamemodify(f, ":t") .. " ----")
    vim.list_extend(log, vim.fn.readfile(f))
  end
  vim.fn.writefile(log, out)
  vim.cmd((code == 0) and "qa!" or "cq!")
end

local timer = vim.uv.new_timer()
-- As a person would: open the chat, and once its agent has connected and made a session
-- (CodeCompanion does both in the background when the chat opens), type the message and send
-- it. Sending earlier takes CodeCompanion's synchronous path, which fails on Debian's LuaJIT
-- (built with Lua 5.2 compatibility, coroutine.running() is never nil there).
vim.api.nvim_create_autocmd("VimEnter", { once = true, callback = vim.schedule_wrap(function()
  chat = require("codecompanion").chat({ auto_submit = false })
  say("chat opened, buffer " .. chat.bufnr)
  local waited = 0
  local function send()
    local conn = chat.acp_connection
    if not (conn and conn:is_ready() and conn.session_id) and waited < 20000 then
      waited = waited + 100
      return vim.defer_fn(send, 100)
    end
    say("agent connected after " .. waited .. " ms; sending")
    local last = vim.api.nvim_buf_line_count(chat.bufnr)
    vim.api.nvim_buf_set_lines(chat.bufnr, last, last, false, { "Create hello.txt saying hi" })
    chat:submit()
  end
  send()
end) })
timer:start(200, 200, vim.schedule_wrap(function()
  if not chat then return end
  if not answered then
    for _, m in ipairs(vim.api.nvim_buf_get_keymap(chat.bufnr, "n")) do
      if m.desc == "View" then saw_view = true end
    end
    for _, m in ipairs(vim.api.nvim_buf_get_keymap(chat.bufnr, "n")) do
      if m.desc == "Accept" and m.callback then
        say("permission prompt shown; View offered: " .. tostring(saw_view))
        answered = true
        m.callback()
      end
    end
  end
  local text = table.concat(vim.api.nvim_buf_get_lines(chat.bufnr, 0, -1, false), "\n")
  if text:find("Done: hello.txt written.", 1, true) then
    timer:stop()
    local f = io.open(vim.fn.getcwd() .. "/hello.txt")
    say("hello.txt on disk: " .. tostring(f and f:read("*a")))
    finish(answered and 0 or 1)
  elseif vim.uv.now() - started > 45000 then
    timer:stop()
    say("TIMEOUT waiting for the reply")
    finish(1)
  end
end))
