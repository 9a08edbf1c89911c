import type { ChainableCommander, Redis } from 'ioredis';

/*
 * The store's Lua scripts: each runs atomically in Redis, so a check and the write it guards
 * cannot be split by another instance. ioredis loads each one per connection (EVAL once, then
 * EVALSHA), again after a reconnect or a Redis restart.
 *
 * Lease fencing: a session's writer holds `lease` = its token, and `epoch` counts the leases ever
 * granted. A write is accepted while `lease` is our token, or while it is absent (it expired
 * during an outage) and `epoch` is still ours: nobody took the session in between, so the
 * writer takes the lease back and goes on. Anything else means another instance owns it now.
 */

/** Number with no exponent (Lua's tostring writes 1e+15). */
const D = `local function d(x) return string.format('%d', x) end`;

/** The seq of the stream's last entry (0: empty). */
const TOP = `
local function top(key)
  local last = redis.call('XREVRANGE', key, '+', '-', 'COUNT', 1)
  if #last == 0 then return 0 end
  return tonumber(string.match(last[1][1], '^(%d+)'))
end`;

/** Whether `token` may write: 'own' (the lease is its), 'retake' (absent, epoch unchanged) or false. */
const MAY_WRITE = `
local function may_write(lease, epoch, token, my_epoch)
  local cur = redis.call('GET', lease)
  if cur == token then return 'own' end
  if not cur and redis.call('GET', epoch) == my_epoch then return 'retake' end
  return false
end`;

export const LUA = {
  /**
   * KEYS log, lease, epoch; ARGV instance, ttl → {1, token, epoch, top} or {0, current token}.
   * A new lease: set only if absent, with a TTL; the epoch goes up (earlier tokens can no longer write).
   */
  acquire: {
    keys: 3,
    lua: `${D}${TOP}
local cur = redis.call('GET', KEYS[2])
if cur then return {0, cur} end
local epoch = redis.call('INCR', KEYS[3])
local token = ARGV[1] .. '#' .. d(epoch)
redis.call('SET', KEYS[2], token, 'PX', ARGV[2])
return {1, token, d(epoch), top(KEYS[1])}`,
  },

  /** KEYS lease, epoch; ARGV token, epoch, ttl → 1 extended, 2 taken back (it had expired), 0 lost. */
  renew: {
    keys: 2,
    lua: `${MAY_WRITE}
local may = may_write(KEYS[1], KEYS[2], ARGV[1], ARGV[2])
if may == 'own' then redis.call('PEXPIRE', KEYS[1], ARGV[3]) return 1 end
if may == 'retake' then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[3]) return 2 end
return 0`,
  },

  /** KEYS lease; ARGV token → 1 released, 0 not ours (check-and-del). */
  release: {
    keys: 1,
    lua: `if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) return 1 end
return 0`,
  },

  /**
   * KEYS log, lease, epoch; ARGV token, epoch, ttl, firstSeq, count, lines, macs → {'OK', top} |
   * {'LOST', owner} | {'GAP', top} | {'CONFLICT', top}.
   * Appends events first..first+count-1 as entries `<seq>-0` with fields `e <json> m <mac>`, from
   * `lines` (their JSON, one a line: one argument, so the client sends one string instead of
   * thousands) and `macs` (session-seal.ts: MAC_CHARS each, one after another). A resend of a
   * batch Redis already has (a reply lost with the connection) finds the same entries and
   * writes only what is missing: nothing is written twice, and an entry that differs is a
   * conflict, never overwritten.
   */
  append: {
    keys: 3,
    lua: `${D}${TOP}${MAY_WRITE}
local may = may_write(KEYS[2], KEYS[3], ARGV[1], ARGV[2])
if not may then return {'LOST', redis.call('GET', KEYS[2]) or ''} end
local first = tonumber(ARGV[4])
local n = tonumber(ARGV[5])
local blob = ARGV[6]
local macs = ARGV[7]
local w = tonumber(ARGV[8])
if #macs ~= n * w then return redis.error_reply('ERR append: ' .. n .. ' MACs expected') end
local lines = {}
local pos = 1
for i = 1, n do
  local nl = string.find(blob, '\\n', pos, true)
  if not nl then
    if i < n then return redis.error_reply('ERR append: ' .. n .. ' lines expected, ' .. i .. ' found') end
    nl = #blob + 1
  end
  lines[i] = string.sub(blob, pos, nl - 1)
  pos = nl + 1
end
local t = top(KEYS[1])
local skip = 0
if t >= first then
  local upto = math.min(t, first + n - 1)
  local have = redis.call('XRANGE', KEYS[1], d(first), d(upto))
  if #have ~= upto - first + 1 then return {'CONFLICT', d(t)} end
  for i, e in ipairs(have) do
    if e[2][1] ~= 'e' or e[2][2] ~= lines[i] or e[2][4] ~= string.sub(macs, (i - 1) * w + 1, i * w) then return {'CONFLICT', d(t)} end
  end
  skip = upto - first + 1
elseif t ~= first - 1 then
  return {'GAP', d(t)}
end
if may == 'retake' then redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[3]) end
local xadd = redis.call
for i = skip + 1, n do
  xadd('XADD', KEYS[1], d(first + i - 1) .. '-0', 'e', lines[i], 'm', string.sub(macs, (i - 1) * w + 1, i * w))
end
return {'OK', d(first + n - 1)}`,
  },

  /**
   * KEYS log, lease, epoch, cut; ARGV token, epoch, seq → {'OK', moved} | {'LOST', owner}.
   * Takes the entries after `seq` (a tail a load could not read) out of the stream into the list
   * `cut` (kept for a person to look at) and sets the stream's last id back to it, so the next
   * append is seq+1 again: the stream's analogue of cutting off a torn last line.
   */
  cut: {
    keys: 4,
    lua: `${D}${MAY_WRITE}
if not may_write(KEYS[2], KEYS[3], ARGV[1], ARGV[2]) then return {'LOST', redis.call('GET', KEYS[2]) or ''} end
local seq = tonumber(ARGV[3])
local after = redis.call('XRANGE', KEYS[1], '(' .. d(seq) .. '-0', '+')
for _, e in ipairs(after) do
  redis.call('RPUSH', KEYS[4], e[1] .. ' ' .. (e[2][2] or ''))
  redis.call('XDEL', KEYS[1], e[1])
end
if #after > 0 then redis.call('XSETID', KEYS[1], d(seq) .. '-0') end
return {'OK', #after}`,
  },

  /**
   * KEYS lease, epoch, snap, snap:items, snap:next; ARGV token, epoch, header, itemCount → 1 | 0 lost | -1 items missing.
   * Makes the snapshot written into snap:next the current one, in one step: the previous one stays whole until then.
   */
  commitSnapshot: {
    keys: 5,
    lua: `${MAY_WRITE}
if not may_write(KEYS[1], KEYS[2], ARGV[1], ARGV[2]) then return 0 end
local n = tonumber(ARGV[4])
if redis.call('LLEN', KEYS[5]) ~= n then return -1 end
if n > 0 then redis.call('RENAME', KEYS[5], KEYS[4]) else redis.call('DEL', KEYS[4]) end
redis.call('SET', KEYS[3], ARGV[3])
return 1`,
  },

  /** KEYS metas, order, pos; ARGV id, json, member: the session's summary, and its place in the newest-first order. */
  putMeta: {
    keys: 3,
    lua: `local old = redis.call('HGET', KEYS[3], ARGV[1])
if old ~= ARGV[3] then
  if old then redis.call('ZREM', KEYS[2], old) end
  redis.call('ZADD', KEYS[2], 0, ARGV[3])
  redis.call('HSET', KEYS[3], ARGV[1], ARGV[3])
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1`,
  },

  /**
   * KEYS audit, audit:persisted; ARGV line, mapKey ('' unless a person's always/never) → the entry id.
   * The decision goes into the shared log; a persisted one also into the map every instance loads.
   */
  appendAudit: {
    keys: 2,
    lua: `local id = redis.call('XADD', KEYS[1], '*', 'e', ARGV[1])
if ARGV[2] ~= '' then redis.call('HSET', KEYS[2], ARGV[2], ARGV[1]) end
return id`,
  },
} as const;

export type ScriptName = keyof typeof LUA;
type Arg = string | number;
type Runner = (...args: Arg[]) => Promise<unknown>;

/** Registers every script on a client (idempotent per client). */
export function defineScripts(client: Redis): void {
  const c = client as Redis & { __ferretScripts?: true };
  if (c.__ferretScripts) return;
  for (const [name, s] of Object.entries(LUA)) client.defineCommand(`ferret_${name}`, { numberOfKeys: s.keys, lua: s.lua });
  c.__ferretScripts = true;
}

/** Runs a script on a client (defineScripts first). */
export function runScript(client: Redis, name: ScriptName, keys: readonly string[], args: readonly Arg[]): Promise<unknown> {
  const f = (client as unknown as Record<string, Runner>)[`ferret_${name}`];
  if (!f) throw new Error(`redis script ${name} is not defined on this client`);
  return f.call(client, ...keys, ...args);
}

/** Queues a script on a pipeline (of a client defineScripts was called on). */
export function queueScript(pipeline: ChainableCommander, name: ScriptName, keys: readonly string[], args: readonly Arg[]): void {
  const f = (pipeline as unknown as Record<string, (...a: Arg[]) => unknown>)[`ferret_${name}`];
  if (!f) throw new Error(`redis script ${name} is not defined on this client`);
  f.call(pipeline, ...keys, ...args);
}
