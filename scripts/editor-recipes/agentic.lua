-- Drives agentic.nvim headless against ferret: one prompt typed in its input and sent with
-- <C-s>, the permission answered with the number key of "Allow", the chat read back.
-- Run by scripts/check-editor-recipes.sh.
local plugins = assert(os.getenv("RECIPE_PLUGINS"), "RECIPE_PLUGINS unset")
local out = assert(os.getenv("RECIPE_OUT"), "RECIPE_OUT unset")
vim.opt.rtp:prepend(plugins .. "/agentic.nvim")

local log = {}
local function say(s) table.insert(log, s) end

-- The recipe from docs/ide.md, with --approval suggest so the write asks first.
require("agentic").setup({
  provider = "ferret",
  acp_providers = {
    -- agentic.nvim starts the agent with PATH and these variables only: the model's key (here the
    -- scripted model) and CHIMERA_HOME must be named.
    ferret = {
      name = "Ferret",
      command = "chimera",
      args = { "ferret", "serve", "--approval", "suggest" },
      env = { FERRET_MODEL = os.getenv("FERRET_MODEL"), CHIMERA_HOME = os.getenv("CHIMERA_HOME") },
    },
  },
})

local function buf_of(ft)
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_valid(b) and vim.bo[b].filetype == ft then return b end
  end
end
local function lines(b) return b and vim.api.nvim_buf_get_lines(b, 0, -1, false) or {} end
local function map_of(b, lhs)
  for _, m in ipairs(vim.api.nvim_buf_get_keymap(b, "n")) do
    if m.lhs == lhs then return m end
  end
end

local started, sent, answered = vim.uv.now(), false, false
local function finish(code)
  say("---- chat ----")
  vim.list_extend(log, lines(buf_of("AgenticChat")))
  vim.fn.writefile(log, out)
  vim.cmd(code == 0 and "qa!" or "cq!")
end

vim.api.nvim_create_autocmd("VimEnter", { once = true, callback = vim.schedule_wrap(function()
  require("agentic").open()
end) })

local timer = vim.uv.new_timer()
timer:start(300, 300, vim.schedule_wrap(function()
  local input, chat = buf_of("AgenticInput"), buf_of("AgenticChat")
  if not sent and input and vim.uv.now() - started > 1500 then
    sent = true
    vim.api.nvim_buf_set_lines(input, 0, -1, false, { "Create hello.txt saying hi" })
    for _, m in ipairs(vim.api.nvim_buf_get_keymap(input, "n")) do
      if m.lhs == "<C-S>" and m.callback then say("typed the prompt, pressing <C-s>"); m.callback() end
    end
  end
  if sent and not answered and chat and map_of(chat, "1") then
    for _, l in ipairs(lines(chat)) do
      local n = l:match("^%- %[(%d+)%].-%sAllow%s*$") -- "- [1] <icon> Allow"
      if n and map_of(chat, n) then
        answered = true
        say("permission buttons shown; pressing " .. n .. " (" .. vim.trim(l) .. ")")
        map_of(chat, n).callback()
        break
      end
    end
  end
  local f = io.open(vim.fn.getcwd() .. "/hello.txt")
  local text = table.concat(lines(chat), "\n")
  if f and text:find("Done: hello.txt written.", 1, true) then
    timer:stop()
    say("hello.txt on disk: " .. f:read("*a"))
    vim.defer_fn(function() finish(answered and 0 or 1) end, 500)
  elseif vim.uv.now() - started > 45000 then
    timer:stop()
    say("TIMEOUT")
    finish(1)
  end
end))
