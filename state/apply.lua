-- Apply users' transitions, each user's atomically and idempotently; several users per call (they
-- share a call's start, its first server call and the server's time for the write stamp).
-- KEYS = the users' <prefix>:meta keys, in order (on a cluster, users of one hash slot only).
-- ARGV[1] = "apply", ARGV[5] = settle_after (0: never): a user whose writes have retired this many
-- records (taken out of their slots' live lists) since it was last settled is named in the reply,
-- for the caller to move the older ones into the cold history (mode "settle", below), as is a user
-- one of whose records of the cold history a write brought back. ARGV[2] = index_above: a scope's read index is kept once the scope holds more
-- rows than this (state/read_index.py, INDEX_ABOVE); a scope that has none yet and holds more after
-- the call is named in the reply, for the caller to build (mode "build", below). ARGV[3] = log_max:
-- the change log keeps the user's newest this many entries. ARGV[4] = ledger_window (ms, 0: keep
-- every entry): the op ledger drops entries whose event time is more than this before the user's
-- newest, and meta's `lfloor` keeps the newest event time it dropped (the caller refuses an op it
-- does not know from before that: it could be one of them).
-- Then, per user in the order of KEYS: <prefix>, expected version (-1: don't check), n (the number
-- of transitions), m (the number of their arguments), the n op ids, then the m arguments: each
-- transition as a flat run (state/apply_args.py writes them; nothing here decodes JSON to read them):
--   op, at, at_ms, erase ("1"/"0"), ledger
--   #puts, each: id, stored record (state/codec.py: its tail when it has a row), slot, scope, live ("1"/"0"), created ("1"/"0"), from_slot,
--     from_scope, from_slot's list, slot's list, row JSON (from_slot "" = not moved; row "" = not in
--     the read model), and for a row: scope new ("1"/"0"), its index entry. created: the record is
--     new to the user, so it has no row or index entry to read or take out. A slot's list: the live
--     list as JSON, written as sent (the caller holds it whole); "" = unchanged; "?" = read the
--     stored list and put the record in or out of it here. scope new "0": the caller knows the
--     user's scope list holds the scope (no SADD for it).
--   #created, (slot, id) pairs ; #sup, (key, stored suppression, read "1"/"0") triples ; #unsup, keys
--   #alias, (alias, target) pairs ; #deps, each: key, #ids, ids ; #log, stored log entries
-- read: selection reads the suppression (not a value corrected or retracted away, which its
-- record's status keeps out): kept again in <prefix>:rsup, so a lookup never reads the others.
-- A put with from_slot moves the record: it leaves that slot's live list, history and read model.
-- A row's index entry (JSON [unit or false, static value, [word keys], [main topics], [related
-- topics], [names listed under when used only if related by meaning]], state/read_index.py) is stored as sent: an unchanged entry is recognised by its text,
-- and only a changed one is decoded.
-- Returns, per user, {applied, 0, version, scopes to index, lfloor, settle (1/0)}; {-1, 0, version} when the version check
-- fails; {-2, 0, version} when one of the ops was applied before (the caller's view was stale). A
-- user refused either way is left as it was; the others are applied all the same.
-- Mode "build": KEYS[1] = <prefix>:meta; ARGV = "build", <prefix>, the version the rows were read
-- at, scope, then (id, index entry) per row of the scope. Indexes every row, or nothing (returns 0)
-- when the user was written since: the caller read the rows, so a write in between may have
-- changed them.
local P  -- the prefix of the user being applied: every function below works on that user's keys
local cursor = 6  -- the next argument to read
local index_above, log_max, ledger_window = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local settle_after = tonumber(ARGV[5])

-- `command key values...` for a list of any length, in blocks: unpack cannot spread more than a
-- few thousand values onto Lua's stack
local function call_in_blocks(command, key, values)
  local reply
  for first = 1, #values, 1000 do
    reply = redis.call(command, key, unpack(values, first, math.min(first + 999, #values)))
  end
  return reply
end

local function take()
  local value = ARGV[cursor]
  cursor = cursor + 1
  return value
end
local function take_list()
  local out = {}
  for k = 1, tonumber(take()) do out[k] = take() end
  return out
end

-- A slot's lineage: the ids of the records it ever held, oldest first. The field of <prefix>:lin
-- named by the slot holds them joined by spaces, less the slot's live ids where those end the
-- lineage: a reader appends the live ids the field does not hold (state/codec.py `lineage_ids`).
-- So a slot with no field has its live list as its lineage (most slots only ever held the records
-- they hold: their lineage takes no bytes), and a corrected one holds the ids it held before. A slot
-- written before the lineage hash has its ids in a list of its own (<prefix>:hist:<sha1 of the
-- slot>). A call works on the lineages of the slots it touches here, read before it changes their
-- live lists (`lineage_of`), and writes them at the end (`write_lineages`), the list of its own gone.
local lineages, lineage_order, listed, fielded = {}, {}, {}, {}
local function lineage_of(slot)
  local ids = lineages[slot]
  if ids then return ids end
  ids = {}
  local joined = redis.call('HGET', P .. ':lin', slot)
  if joined then
    fielded[slot] = true
    for id in string.gmatch(joined, '%S+') do ids[#ids + 1] = id end
  else
    ids = redis.call('LRANGE', P .. ':hist:' .. redis.sha1hex(slot), 0, -1)
    if #ids > 0 then listed[slot] = true end
  end
  if not listed[slot] then  -- the live ids the field leaves out end the lineage
    local held = {}
    for _, id in ipairs(ids) do held[id] = true end
    local live = redis.call('HGET', P .. ':slot', slot)
    for _, id in ipairs(live and cjson.decode(live) or {}) do
      if not held[id] then ids[#ids + 1] = id end
    end
  end
  lineages[slot] = ids
  lineage_order[#lineage_order + 1] = slot
  return ids
end

local function lineage_append(slot, id)
  local ids = lineage_of(slot)
  ids[#ids + 1] = id
end

local function lineage_remove(slot, id)
  local ids, kept = lineage_of(slot), {}
  for _, other in ipairs(ids) do
    if other ~= id then kept[#kept + 1] = other end
  end
  lineages[slot] = kept
end

local function write_lineages()
  for _, slot in ipairs(lineage_order) do
    local ids = lineages[slot]
    local raw = redis.call('HGET', P .. ':slot', slot)
    local live = raw and cjson.decode(raw) or {}
    -- the field: the lineage less the live ids where they end it, in their order
    local kept = #ids - #live
    for k = 1, #live do
      if ids[kept + k] ~= live[k] then kept = #ids; break end
    end
    if kept < 0 then kept = #ids end
    if kept == 0 then
      if fielded[slot] then redis.call('HDEL', P .. ':lin', slot) end
    else
      redis.call('HSET', P .. ':lin', slot, table.concat(ids, ' ', 1, kept))
    end
    if listed[slot] then redis.call('DEL', P .. ':hist:' .. redis.sha1hex(slot)) end
  end
  lineages, lineage_order, listed, fielded = {}, {}, {}, {}
end

-- the slot's live list with `id` in it (kept in place, or appended) or out of it; unchanged lists
-- are not written again. `list`: the caller's list to write instead ("" = unchanged, "?" = none)
local function set_live(slot, id, live, list)
  lineage_of(slot)  -- before the live list changes: it may be the lineage
  if list ~= '?' then
    if list ~= '' then redis.call('HSET', P .. ':slot', slot, list) end
    return
  end
  local raw = redis.call('HGET', P .. ':slot', slot)
  local kept, present = {}, false
  for _, other in ipairs(raw and cjson.decode(raw) or {}) do
    if other == id then present = true; if live then kept[#kept + 1] = other end
    else kept[#kept + 1] = other end
  end
  if raw and present == live then return end
  if live and not present then kept[#kept + 1] = id end
  if #kept == 0 then redis.call('HSET', P .. ':slot', slot, '[]')
  else redis.call('HSET', P .. ':slot', slot, cjson.encode(kept)) end
end

-- The read index of one scope S (every key under the user's prefix, so in the user's hash slot):
--   ix:S  hash id -> its entry (what to take out again)   ixs:S  zset id by static value
--   ixt:S:<word key>, ixp:S:<topic>, ixq:S:<topic>: zsets by static value of the rows holding the
--   word, of the attributes mainly about the topic and of those related to it
--   ixu:S hash unit -> JSON list of ids (single-valued attributes only; context.lua reads a row's
--   unit off its ix entry)
--   ixm:S zset by static value of the rows used only when related by meaning, and ixg:S:<name> of
--   those under each topic and area their entry lists (entry[6]; weight 1 in a lookup)
--   ixr:S hash id -> what a lookup screens such a row with (entry[7], "<areas in hex>|<topics>",
--   stored as one byte giving the count of areas, a byte each, then the topics), read for the rows
--   the meaning lists give (an entry written before it has none: never screened out)
--   (ixa:S, id -> unit, is no longer written: a user's older one is left unread, erased with the rest)
local function index_keys(scope, entry)
  local keys = {}
  for _, word in ipairs(entry[3]) do keys[#keys + 1] = P .. ':ixt:' .. scope .. ':' .. word end
  for _, topic in ipairs(entry[4]) do keys[#keys + 1] = P .. ':ixp:' .. scope .. ':' .. topic end
  for _, topic in ipairs(entry[5]) do keys[#keys + 1] = P .. ':ixq:' .. scope .. ':' .. topic end
  keys[#keys + 1] = P .. ':ixs:' .. scope
  if entry[6] then
    keys[#keys + 1] = P .. ':ixm:' .. scope
    for _, name in ipairs(entry[6]) do keys[#keys + 1] = P .. ':ixg:' .. scope .. ':' .. name end
  end
  return keys
end

-- takes a row out of its scope's index; `raw` is its stored entry when the caller has read it
local function unindex(scope, id, raw)
  raw = raw or redis.call('HGET', P .. ':ix:' .. scope, id)
  if not raw then return end
  local entry = cjson.decode(raw)
  for _, key in ipairs(index_keys(scope, entry)) do redis.call('ZREM', key, id) end
  if entry[7] then redis.call('HDEL', P .. ':ixr:' .. scope, id) end
  if entry[1] then
    local units_key = P .. ':ixu:' .. scope
    local kept = {}
    for _, other in ipairs(cjson.decode(redis.call('HGET', units_key, entry[1]) or '[]')) do
      if other ~= id then kept[#kept + 1] = other end
    end
    if #kept == 0 then redis.call('HDEL', units_key, entry[1])
    else redis.call('HSET', units_key, entry[1], cjson.encode(kept)) end
  end
  redis.call('HDEL', P .. ':ix:' .. scope, id)
end

-- a screen as a lookup reads it: the area bytes from their hex, so that reading them is one call
local function packed_screen(screen)
  local bar = string.find(screen, '|', 1, true)
  local hex = string.sub(screen, 1, bar - 1)
  local bytes = {string.char(#hex / 2)}
  for a = 1, #hex, 2 do bytes[#bytes + 1] = string.char(tonumber(string.sub(hex, a, a + 1), 16)) end
  return table.concat(bytes) .. string.sub(screen, bar + 1)
end

local function index(scope, id, encoded, created)
  local stored = not created and redis.call('HGET', P .. ':ix:' .. scope, id)
  if stored == encoded then return end
  if stored then unindex(scope, id, stored) end
  local entry = cjson.decode(encoded)
  local unit = entry[1]
  for _, key in ipairs(index_keys(scope, entry)) do redis.call('ZADD', key, entry[2], id) end
  if entry[7] then redis.call('HSET', P .. ':ixr:' .. scope, id, packed_screen(entry[7])) end
  if unit then
    local units_key = P .. ':ixu:' .. scope
    local ids = cjson.decode(redis.call('HGET', units_key, unit) or '[]')
    ids[#ids + 1] = id
    redis.call('HSET', units_key, unit, cjson.encode(ids))
  end
  redis.call('HSET', P .. ':ix:' .. scope, id, encoded)
end

-- A compact op-ledger entry (state/codec.py): [time (µs), outcome code, reason, ids], the ids left
-- out, or the time alone. Returns the time, and the outcome, the reason and whether ids follow
-- (nil for the time alone). Read by hand: cmsgpack does not know the extension type of the ids.
local UINT_WIDTH = {[0xcc] = 1, [0xcd] = 2, [0xce] = 4, [0xcf] = 8}
local function ledger_head(raw)
  local first = string.byte(raw, 1)
  local listed = first == 0x93 or first == 0x94
  local pos = listed and 2 or 1
  local b, at = string.byte(raw, pos), 0
  if b < 0x80 then pos = pos + 1; at = b
  else
    local width = UINT_WIDTH[b]
    if not width then error('an op-ledger entry does not start with its time') end
    for k = 1, width do at = at * 256 + string.byte(raw, pos + k) end
    pos = pos + 1 + width
  end
  if not listed then return at end
  local code = string.byte(raw, pos)  -- a positive fixint
  b = string.byte(raw, pos + 1)
  local len, head
  if b >= 0xa0 and b <= 0xbf then len, head = b - 0xa0, 1
  elseif b == 0xd9 then len, head = string.byte(raw, pos + 2), 2
  else len, head = string.byte(raw, pos + 2) * 256 + string.byte(raw, pos + 3), 3 end
  return at, code, string.sub(raw, pos + 1 + head, pos + head + len), first == 0x94
end

-- `written_scopes`: the scopes this call gave a read-model row before the erase, not yet added to
-- <prefix>:scopes (that happens once, at the end of the call): their rows and index go too
local function erase_user(written_scopes)
  -- the ops ledger stays: op ids are offsets, not user data, and keep redeliveries idempotent; the
  -- record ids its entries list (their last field, ',"p":[...]') go
  local ledger, kept = redis.call('HGETALL', P .. ':ops'), {}
  for i = 1, #ledger, 2 do
    local raw = ledger[i + 1]
    local first = string.sub(raw, 1, 1)
    if first == '{' then  -- a JSON entry (state/codec.py): its list is the last field
      local cut = string.find(raw, ',"p":', 1, true)
      if cut then
        kept[#kept + 1] = ledger[i]
        kept[#kept + 1] = string.sub(raw, 1, cut - 1) .. '}'
      end
    elseif not string.find(first, '%d') then
      local at, code, reason, with_ids = ledger_head(raw)
      if code == nil or with_ids then  -- (the time alone: applied, creating one record)
        kept[#kept + 1] = ledger[i]
        kept[#kept + 1] = cmsgpack.pack({at, code or 0, reason or ''})
      end
    end
  end
  call_in_blocks('HSET', P .. ':ops', kept)
  local keys = {
    P .. ':rec', P .. ':slot', P .. ':sup', P .. ':rsup', P .. ':log', P .. ':scopes', P .. ':alias', P .. ':dep', P .. ':cold',
    P .. ':arch',
  }
  local scopes = redis.call('SMEMBERS', P .. ':scopes')
  for scope in pairs(written_scopes) do scopes[#scopes + 1] = scope end
  for _, scope in ipairs(scopes) do
    keys[#keys + 1] = P .. ':act:' .. scope
    local seen = {}
    for _, raw in ipairs(redis.call('HVALS', P .. ':ix:' .. scope)) do
      for _, key in ipairs(index_keys(scope, cjson.decode(raw))) do
        if not seen[key] then seen[key] = true; keys[#keys + 1] = key end
      end
    end
    for _, suffix in ipairs({':ix:', ':ixs:', ':ixa:', ':ixu:', ':ixm:', ':ixr:'}) do keys[#keys + 1] = P .. suffix .. scope end
  end
  keys[#keys + 1] = P .. ':lin'
  for _, sk in ipairs(redis.call('HKEYS', P .. ':slot')) do keys[#keys + 1] = P .. ':hist:' .. redis.sha1hex(sk) end
  for i = 1, #keys, 500 do
    redis.call('DEL', unpack(keys, i, math.min(i + 499, #keys)))
  end
end

-- drops the ledger entries whose event time is before `cutoff` (ms); returns the newest dropped
-- (JSON entries, written before the compact form, are left to `slotstream state compact`)
local function trim_ledger(cutoff, floor)
  local ledger, gone = redis.call('HGETALL', P .. ':ops'), {}
  for i = 1, #ledger, 2 do
    local raw = ledger[i + 1]
    local first = string.sub(raw, 1, 1)
    if first ~= '{' and not string.find(first, '%d') then
      local at_ms = math.floor(ledger_head(raw) / 1000)
      if at_ms < cutoff then
        gone[#gone + 1] = ledger[i]
        if at_ms > floor then floor = at_ms end
      end
    end
  end
  if #gone > 0 then call_in_blocks('HDEL', P .. ':ops', gone) end
  return floor
end

-- a scope's index is kept iff its scope list exists (a scope whose rows all left has neither)
local index_kept = {}
local function indexed(scope)
  local kept = index_kept[scope]
  if kept == nil then
    kept = redis.call('EXISTS', P .. ':ixs:' .. scope) == 1
    index_kept[scope] = kept
  end
  return kept
end

local written  -- the server's time, for the write stamp: asked once a call
local function apply_user()
  P = take()
  index_kept = {}
  lineages, lineage_order, listed, fielded = {}, {}, {}, {}
  local expected, n_ops, n_args = tonumber(take()), tonumber(take()), tonumber(take())
  local ids_from = cursor
  local after = cursor + n_ops + n_args  -- where the next user's arguments start
  local meta = redis.call('HMGET', P .. ':meta', 'version', 'watermark', 'rsup', 'lfloor', 'ltrim', 'retired', 'cstale')
  local version = tonumber(meta[1] or '0')
  if expected >= 0 and expected ~= version then cursor = after; return {-1, 0, version} end
  -- An op already applied means the caller reconciled on a stale view: apply nothing, let it reload.
  -- (asked in blocks, as call_in_blocks does)
  for first = ids_from, ids_from + n_ops - 1, 1000 do
    local last = math.min(first + 999, ids_from + n_ops - 1)
    for _, seen in ipairs(redis.call('HMGET', P .. ':ops', unpack(ARGV, first, last))) do
      if seen then cursor = after; return {-2, 0, version} end
    end
  end
  cursor = ids_from + n_ops

  -- a user whose suppressions were written before rsup existed: copy the ones selection reads, once
  -- (a user with no state yet has none: the write stamp below marks it)
  if not meta[3] and version > 0 then
    local sup = redis.call('HGETALL', P .. ':sup')
    for i = 1, #sup, 2 do
      local raw = sup[i + 1]
      if not slot_only(raw) then
        redis.call('HSET', P .. ':rsup', sup[i], raw)
      end
    end
  end

  -- the user's event-time watermark: the expiry sweep's clock for this user's records
  local watermark = tonumber(meta[2] or '0')
  local erased_at = nil
  -- scopes given a read-model row here that the caller did not know listed: added to <prefix>:scopes
  -- once, at the end
  local scopes_read = {}
  local log_length = 0
  local lfloor, ltrim = tonumber(meta[4] or '0'), tonumber(meta[5] or '0')
  local trimmed = false
  -- records retired here, and the ids the cold history lists (" id id ", read at the first put of a
  -- record that may be one of them; false: none), which a put takes its record's id out of
  local retired, cold_held, cold_taken = tonumber(meta[6] or '0'), nil, false
  for _ = 1, n_ops do
    local op, at, at_ms, erase, ledger = take(), take(), tonumber(take()), take(), take()
    if erase == '1' then
      lineages, lineage_order, listed, fielded = {}, {}, {}, {}  -- erased with the rest
      retired, cold_held, cold_taken = 0, false, false
      erase_user(scopes_read)
      scopes_read = {}
      index_kept = {}
      erased_at = at
    end
    for _ = 1, tonumber(take()) do
      local id, json, slot, scope, live, created = take(), take(), take(), take(), take() == '1', take() == '1'
      local from_slot, from_scope, from_list, list, row = take(), take(), take(), take(), take()
      redis.call('HSET', P .. ':rec', id, json)
      if not live then retired = retired + 1 end
      if not created then  -- a record of the cold history written again: the cold copy stops counting
        if cold_held == nil then cold_held = redis.call('HGET', P .. ':cold', 'ids') or false end
        local at_id = cold_held and string.find(cold_held, ' ' .. id .. ' ', 1, true)
        if at_id then
          cold_held = string.sub(cold_held, 1, at_id) .. string.sub(cold_held, at_id + #id + 2)
          cold_taken = true
        end
      end
      if from_slot ~= '' then
        set_live(from_slot, id, false, from_list)
        lineage_remove(from_slot, id)
        lineage_append(slot, id)
        redis.call('HDEL', P .. ':act:' .. from_scope, id)
        unindex(from_scope, id)
      end
      set_live(slot, id, live, list)
      if row ~= '' then
        redis.call('HSET', P .. ':act:' .. scope, id, row)
        if take() == '1' then scopes_read[scope] = true end
        local entry = take()
        if indexed(scope) then index(scope, id, entry, created) end
      elseif not created then
        redis.call('HDEL', P .. ':act:' .. scope, id)
        unindex(scope, id)
      end
    end
    for _ = 1, tonumber(take()) do
      local slot, id = take(), take()
      lineage_append(slot, id)
    end
    for _ = 1, tonumber(take()) do
      local key, json, read = take(), take(), take()
      redis.call('HSET', P .. ':sup', key, json)
      if read == '1' then redis.call('HSET', P .. ':rsup', key, json) end
    end
    local unsup = take_list()
    for _ = 1, tonumber(take()) do
      local alias, target = take(), take()
      redis.call('HSET', P .. ':alias', alias, target)
    end
    for _ = 1, tonumber(take()) do
      local key = take()
      local ids = take_list()
      local raw_dep = redis.call('HGET', P .. ':dep', key)
      local known = raw_dep and cjson.decode(raw_dep) or {}
      local have = {}
      for _, id in ipairs(known) do have[id] = true end
      for _, id in ipairs(ids) do
        if not have[id] then known[#known + 1] = id; have[id] = true end
      end
      redis.call('HSET', P .. ':dep', key, cjson.encode(known))
    end
    for _, key in ipairs(unsup) do
      redis.call('HDEL', P .. ':sup', key)
      redis.call('HDEL', P .. ':rsup', key)
    end
    local log = take_list()
    if #log > 0 then log_length = call_in_blocks('RPUSH', P .. ':log', log) end
    redis.call('HSET', P .. ':ops', op, ledger)
    if at_ms > watermark then watermark = at_ms end
    -- the ledger's window, trimmed each time the user's event time has moved an eighth of it on:
    -- after an op, so that where a batch ends never changes what is kept
    if ledger_window > 0 and watermark >= ltrim + ledger_window / 8 then
      lfloor = trim_ledger(watermark - ledger_window, lfloor)
      ltrim, trimmed = watermark, true
    end
  end
  write_lineages()
  if cold_taken then
    if string.find(cold_held, '%S') then redis.call('HSET', P .. ':cold', 'ids', cold_held)
    else redis.call('DEL', P .. ':cold') end
  end
  if log_length > log_max then
    if log_max > 0 then redis.call('LTRIM', P .. ':log', -log_max, -1) else redis.call('DEL', P .. ':log') end
  end
  local scopes = {}
  for scope in pairs(scopes_read) do scopes[#scopes + 1] = scope end
  if #scopes > 0 then call_in_blocks('SADD', P .. ':scopes', scopes) end
  version = version + n_ops
  -- the write stamp readers cache against (state/context_cache.py): the version, and the server's
  -- time, which differs from any write lost in a crash even where the version climbs back
  if not written then
    local now = redis.call('TIME')
    written = now[1] .. '.' .. now[2]
  end
  local stamp = {'version', version, 'watermark', watermark, 'written', written, 'rsup', 1, 'retired', retired}
  if erased_at then stamp[#stamp + 1] = 'erased_at'; stamp[#stamp + 1] = erased_at end
  if cold_taken then stamp[#stamp + 1] = 'cstale'; stamp[#stamp + 1] = 1 end
  if trimmed then
    stamp[#stamp + 1] = 'lfloor'; stamp[#stamp + 1] = lfloor
    stamp[#stamp + 1] = 'ltrim'; stamp[#stamp + 1] = ltrim
  end
  redis.call('HSET', P .. ':meta', unpack(stamp))
  -- a layout bug would have the next user's arguments read as this one's: stop the call here
  if cursor ~= after then error('apply.lua: a user\'s arguments did not add up to their count') end
  local to_index = {}
  for scope, kept in pairs(index_kept) do
    if not kept and redis.call('HLEN', P .. ':act:' .. scope) > index_above then to_index[#to_index + 1] = scope end
  end
  -- (a cold history holding bytes of a record written again is settled until it is rewritten: a
  -- forgotten value must not stay in it)
  local stale = cold_taken or meta[7] == '1'
  local settle = (settle_after > 0 and (retired >= settle_after or stale)) and 1 or 0
  return {n_ops, 0, version, to_index, lfloor, settle}
end

if ARGV[1] == 'build' then
  P = ARGV[2]
  if tonumber(redis.call('HGET', P .. ':meta', 'version') or '0') ~= tonumber(ARGV[3]) then return 0 end
  local scope = ARGV[4]
  for k = 5, #ARGV, 2 do index(scope, ARGV[k], ARGV[k + 1], false) end
  return 1
end
-- Mode "settle": KEYS[1] = <prefix>:meta; ARGV = "settle", <prefix>, the version the records were
-- read at, the cold history's ids (" id id "; "": none) and data (state/codec.py), the archive's
-- change (state/archive.py): the position of its newest segment as read ("": none), the position
-- of the segment written now ("": none) and whether it replaces that newest one ("1") or follows
-- it ("0"), the number of lineage fields rewritten and each (slot, ids; "": the field goes), the
-- number of aliases that moved to the archive and their ids, then the ids
-- of the records that moved into the cold history. The count of records retired starts again, and
-- the history holds no stale bytes any more (meta `cstale`, set by a write that took an id out).
-- Writes nothing (returns 0) when the user was written since or the archive's newest segment is
-- not the one read; the version stays (nothing a reader sees changes).
if ARGV[1] == 'settle' then
  P = ARGV[2]
  if tonumber(redis.call('HGET', P .. ':meta', 'version') or '0') ~= tonumber(ARGV[3]) then return 0 end
  local newest, written = ARGV[6], ARGV[7]
  if written ~= '' and (redis.call('LINDEX', P .. ':arch', -1) or '') ~= newest then return 0 end
  if ARGV[4] == '' then redis.call('DEL', P .. ':cold')
  else redis.call('HSET', P .. ':cold', 'ids', ARGV[4], 'data', ARGV[5]) end
  if written ~= '' then
    if ARGV[8] == '1' then redis.call('LSET', P .. ':arch', -1, written)
    else redis.call('RPUSH', P .. ':arch', written) end
  end
  local n_fields = tonumber(ARGV[9])
  for k = 10, 9 + 2 * n_fields, 2 do
    if ARGV[k + 1] == '' then redis.call('HDEL', P .. ':lin', ARGV[k])
    else redis.call('HSET', P .. ':lin', ARGV[k], ARGV[k + 1]) end
  end
  local at_aliases = 10 + 2 * n_fields
  local n_aliases = tonumber(ARGV[at_aliases])
  for first = at_aliases + 1, at_aliases + n_aliases, 1000 do
    redis.call('HDEL', P .. ':alias', unpack(ARGV, first, math.min(first + 999, at_aliases + n_aliases)))
  end
  redis.call('HSET', P .. ':meta', 'retired', 0)
  redis.call('HDEL', P .. ':meta', 'cstale')
  for first = at_aliases + n_aliases + 1, #ARGV, 1000 do
    redis.call('HDEL', P .. ':rec', unpack(ARGV, first, math.min(first + 999, #ARGV)))
  end
  return 1
end
local replies = {}
for k = 1, #KEYS do replies[k] = apply_user() end
return replies
