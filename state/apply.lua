-- Apply one user's transitions atomically and idempotently.
-- KEYS[1] = <prefix>:meta ; ARGV[1] = <prefix> ; ARGV[2] = expected version (-1: don't check)
-- ARGV[3] = JSON list of transitions, each:
--   {op, at, puts=[{id, json, slot, scope, live, act, ix, from_slot, from_scope}], created=[[slot, id]],
--    sup={key=json}, read_sup=[key], unsup=[key], deps={key=[id]}, log=[json], erase=bool, ledger=json}
-- where every json (and act) is the position in ARGV of that JSON text (ARGV[4] onwards): the texts
-- come as arguments of their own, so nothing here decodes a document escaped inside another.
-- read_sup: the keys of sup that selection reads (not a value corrected or retracted away, which
-- its record's status keeps out): kept again in <prefix>:rsup, so a lookup never reads the others.
-- A put with from_slot moves the record: it leaves that slot's live list, history and read model.
-- A put with act (its read-model row) carries ix = [unit or false, static value, [word keys],
-- [main topics], [related topics]]: the read index below, kept with the read model in this script
-- so the two never disagree (context.lua reads it; state/read_index.py builds the entry).
-- Returns {applied, 0, version}; {-1, 0, version} when the version check fails; {-2, 0, version}
-- when one of the ops was applied before (the caller's view was stale).
local P = ARGV[1]
local expected = tonumber(ARGV[2])
local version = tonumber(redis.call('HGET', P .. ':meta', 'version') or '0')
if expected >= 0 and expected ~= version then return {-1, 0, version} end
local LOG_CAP = 10000

-- the slot's live list with `id` in it (kept in place, or appended) or out of it
local function set_live(slot, id, live)
  local raw = redis.call('HGET', P .. ':slot', slot)
  local kept, present = {}, false
  for _, other in ipairs(raw and cjson.decode(raw) or {}) do
    if other == id then present = true; if live then kept[#kept + 1] = other end
    else kept[#kept + 1] = other end
  end
  if live and not present then kept[#kept + 1] = id end
  if #kept == 0 then redis.call('HSET', P .. ':slot', slot, '[]')
  else redis.call('HSET', P .. ':slot', slot, cjson.encode(kept)) end
end

-- The read index of one scope S (every key under the user's prefix, so in the user's hash slot):
--   ix:S  hash id -> its entry (what to take out again)   ixs:S  zset id by static value
--   ixt:S:<word key>, ixp:S:<topic>, ixq:S:<topic>: zsets by static value of the rows holding the
--   word, of the attributes mainly about the topic and of those related to it
--   ixa:S hash id -> unit (single-valued attributes only)   ixu:S hash unit -> JSON list of ids
local function index_keys(scope, entry)
  local keys = {}
  for _, word in ipairs(entry[3]) do keys[#keys + 1] = P .. ':ixt:' .. scope .. ':' .. word end
  for _, topic in ipairs(entry[4]) do keys[#keys + 1] = P .. ':ixp:' .. scope .. ':' .. topic end
  for _, topic in ipairs(entry[5]) do keys[#keys + 1] = P .. ':ixq:' .. scope .. ':' .. topic end
  keys[#keys + 1] = P .. ':ixs:' .. scope
  return keys
end

local function unindex(scope, id)
  local raw = redis.call('HGET', P .. ':ix:' .. scope, id)
  if not raw then return end
  local entry = cjson.decode(raw)
  for _, key in ipairs(index_keys(scope, entry)) do redis.call('ZREM', key, id) end
  if entry[1] then
    local units_key = P .. ':ixu:' .. scope
    local kept = {}
    for _, other in ipairs(cjson.decode(redis.call('HGET', units_key, entry[1]) or '[]')) do
      if other ~= id then kept[#kept + 1] = other end
    end
    if #kept == 0 then redis.call('HDEL', units_key, entry[1])
    else redis.call('HSET', units_key, entry[1], cjson.encode(kept)) end
    redis.call('HDEL', P .. ':ixa:' .. scope, id)
  end
  redis.call('HDEL', P .. ':ix:' .. scope, id)
end

local function index(scope, id, entry)
  local encoded = cjson.encode(entry)
  if redis.call('HGET', P .. ':ix:' .. scope, id) == encoded then return end
  unindex(scope, id)
  for _, key in ipairs(index_keys(scope, entry)) do redis.call('ZADD', key, entry[2], id) end
  if entry[1] then
    local units_key = P .. ':ixu:' .. scope
    local ids = cjson.decode(redis.call('HGET', units_key, entry[1]) or '[]')
    ids[#ids + 1] = id
    redis.call('HSET', units_key, entry[1], cjson.encode(ids))
    redis.call('HSET', P .. ':ixa:' .. scope, id, entry[1])
  end
  redis.call('HSET', P .. ':ix:' .. scope, id, encoded)
end

local function erase_user()
  -- the ops ledger stays: op ids are offsets, not user data, and keep redeliveries idempotent
  local keys = {P .. ':rec', P .. ':slot', P .. ':sup', P .. ':rsup', P .. ':log', P .. ':scopes', P .. ':alias', P .. ':dep'}
  for _, scope in ipairs(redis.call('SMEMBERS', P .. ':scopes')) do
    keys[#keys + 1] = P .. ':act:' .. scope
    local seen = {}
    for _, raw in ipairs(redis.call('HVALS', P .. ':ix:' .. scope)) do
      for _, key in ipairs(index_keys(scope, cjson.decode(raw))) do
        if not seen[key] then seen[key] = true; keys[#keys + 1] = key end
      end
    end
    for _, suffix in ipairs({':ix:', ':ixs:', ':ixa:', ':ixu:'}) do keys[#keys + 1] = P .. suffix .. scope end
  end
  for _, sk in ipairs(redis.call('HKEYS', P .. ':slot')) do keys[#keys + 1] = P .. ':hist:' .. redis.sha1hex(sk) end
  for i = 1, #keys, 500 do
    redis.call('DEL', unpack(keys, i, math.min(i + 499, #keys)))
  end
end

-- a user whose suppressions were written before rsup existed: copy the ones selection reads, once
if redis.call('HEXISTS', P .. ':meta', 'rsup') == 0 then
  local sup = redis.call('HGETALL', P .. ':sup')
  for i = 1, #sup, 2 do
    local raw = sup[i + 1]
    if not (string.find(raw, '"reason":"corrected"', 1, true) or string.find(raw, '"reason":"retracted"', 1, true)) then
      redis.call('HSET', P .. ':rsup', sup[i], raw)
    end
  end
  redis.call('HSET', P .. ':meta', 'rsup', 1)
end

local batch = cjson.decode(ARGV[3])
-- An op already applied means the caller reconciled on a stale view: apply nothing, let it reload.
for _, t in ipairs(batch) do
  if redis.call('HEXISTS', P .. ':ops', t.op) == 1 then return {-2, 0, version} end
end
local applied, logged = 0, 0
for _, t in ipairs(batch) do
  do
    if t.erase then
      erase_user()
      redis.call('HSET', P .. ':meta', 'erased_at', t.at)
    end
    for _, p in ipairs(t.puts or {}) do
      redis.call('HSET', P .. ':rec', p.id, ARGV[p.json])
      if p.from_slot then
        set_live(p.from_slot, p.id, false)
        redis.call('LREM', P .. ':hist:' .. redis.sha1hex(p.from_slot), 0, p.id)
        redis.call('RPUSH', P .. ':hist:' .. redis.sha1hex(p.slot), p.id)
        redis.call('HDEL', P .. ':act:' .. p.from_scope, p.id)
        unindex(p.from_scope, p.id)
      end
      set_live(p.slot, p.id, p.live)
      if p.act then
        redis.call('HSET', P .. ':act:' .. p.scope, p.id, ARGV[p.act])
        redis.call('SADD', P .. ':scopes', p.scope)
        index(p.scope, p.id, p.ix)
      else
        redis.call('HDEL', P .. ':act:' .. p.scope, p.id)
        unindex(p.scope, p.id)
      end
    end
    for _, c in ipairs(t.created or {}) do
      redis.call('RPUSH', P .. ':hist:' .. redis.sha1hex(c[1]), c[2])
    end
    for key, at_arg in pairs(t.sup or {}) do redis.call('HSET', P .. ':sup', key, ARGV[at_arg]) end
    for _, key in ipairs(t.read_sup or {}) do redis.call('HSET', P .. ':rsup', key, ARGV[t.sup[key]]) end
    for alias, target in pairs(t.alias or {}) do redis.call('HSET', P .. ':alias', alias, target) end
    for key, ids in pairs(t.deps or {}) do
      local raw_dep = redis.call('HGET', P .. ':dep', key)
      local known = raw_dep and cjson.decode(raw_dep) or {}
      local have = {}
      for _, id in ipairs(known) do have[id] = true end
      for _, id in ipairs(ids) do
        if not have[id] then known[#known + 1] = id; have[id] = true end
      end
      redis.call('HSET', P .. ':dep', key, cjson.encode(known))
    end
    for _, key in ipairs(t.unsup or {}) do
      redis.call('HDEL', P .. ':sup', key)
      redis.call('HDEL', P .. ':rsup', key)
    end
    if t.log and #t.log > 0 then
      local entries = {}
      for k, at_arg in ipairs(t.log) do entries[k] = ARGV[at_arg] end
      redis.call('RPUSH', P .. ':log', unpack(entries))
      logged = logged + #entries
    end
    redis.call('HSET', P .. ':ops', t.op, ARGV[t.ledger])
    -- the user's event-time watermark: the expiry sweep's clock for this user's records
    local wm = tonumber(redis.call('HGET', P .. ':meta', 'watermark') or '0')
    if t.at_ms > wm then redis.call('HSET', P .. ':meta', 'watermark', t.at_ms) end
    version = redis.call('HINCRBY', P .. ':meta', 'version', 1)
    applied = applied + 1
  end
end
if logged > 0 then redis.call('LTRIM', P .. ':log', -LOG_CAP, -1) end
if applied > 0 then
  -- the write stamp readers cache against (state/context_cache.py): the version, and the server's
  -- time, which differs from any write lost in a crash even where the version climbs back
  local now = redis.call('TIME')
  redis.call('HSET', P .. ':meta', 'written', now[1] .. '.' .. now[2])
end
return {applied, 0, version}
