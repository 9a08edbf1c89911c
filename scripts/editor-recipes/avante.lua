-- Drives avante.nvim's ACP mode headless against ferret: one prompt, the permission answered
-- Yes as its confirm popup's button does, the reply read back from the sidebar.
-- Run by scripts/check-editor-recipes.sh.
local plugins = assert(os.getenv("RECIPE_PLUGINS"), "RECIPE_PLUGINS unset")
local out = assert(os.getenv("RECIPE_OUT"), "RECIPE_OUT unset")
for _, p in ipairs({ "plenary.nvim", "nui.nvim", "avante.nvim" }) do vim.opt.rtp:prepend(plugins .. "/" .. p) end

-- avante's prompt templates are a Rust library (avante_templates) that cannot be built without
-- crates.io. ACP mode renders them but sends the agent only the person's message, so an empty
-- renderer stands in for it here.
package.preload["avante_templates"] = function()
  return { initialize = function() end, render = function() return "" end }
end
vim.cmd("runtime! plugin/avante.lua")

local log = {}
local function say(s) table.insert(log, s) end

-- The recipe from docs/ide.md, with --approval suggest so the write asks first.
require("avante").setup({
  provider = "ferret",
  -- avante approves every tool by itself unless told not to; then ferret's questions reach you.
  behaviour = { auto_approve_tool_permissions = false },
  acp_providers = {
    ferret = {
      command = "chimera",
      args = { "ferret", "serve", "--approval", "suggest" },
      env = { FERRET_MODEL = os.getenv("FERRET_MODEL"), CHIMERA_HOME = os.getenv("CHIMERA_HOME") },
    },
  },
})

local helpers = require("avante.llm_tools.helpers")
local real_confirm = helpers.confirm
local asked = {}
helpers.confirm = function(message, cb, confirm_opts, ...)
  table.insert(asked, message)
  local names = {}
  for _, o in ipairs((confirm_opts or {}).permission_options or {}) do table.insert(names, o.name .. "=" .. o.kind) end
  say("permission asked: " .. tostring(message) .. " options: " .. table.concat(names, ", "))
  return real_confirm(message, cb, confirm_opts, ...)
end

local started, answered = vim.uv.now(), false
local function sidebar_text()
  local sb = require("avante").get()
  if not (sb and sb.containers and sb.containers.result and sb.containers.result.bufnr) then return "" end
  return table.concat(vim.api.nvim_buf_get_lines(sb.containers.result.bufnr, 0, -1, false), "\n")
end
local function finish(code)
  say("---- sidebar ----")
  vim.list_extend(log, vim.split(sidebar_text(), "\n"))
  vim.fn.writefile(log, out)
  vim.cmd(code == 0 and "qa!" or "cq!")
end

vim.api.nvim_create_autocmd("VimEnter", { once = true, callback = vim.schedule_wrap(function()
  require("avante.api").ask({ question = "Create hello.txt saying hi", without_selection = true })
  say("asked")
end) })

local timer = vim.uv.new_timer()
timer:start(300, 300, vim.schedule_wrap(function()
  local sb = require("avante").get()
  if not answered and sb and sb.permission_handler and sb.permission_button_options then
    local ids = {}
    for _, b in ipairs(sb.permission_button_options) do table.insert(ids, b.id .. "=" .. (b.name or "")) end
    say("inline buttons shown: " .. table.concat(ids, ", "))
    for _, b in ipairs(sb.permission_button_options) do
      if b.id == "allow_once" or b.id == "allow" then
        answered = true
        say("pressing " .. b.id)
        sb.permission_handler(b.id)
        break
      end
    end
  end
  local f = io.open(vim.fn.getcwd() .. "/hello.txt")
  local text = sidebar_text()
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
