-- Load what reconciliation needs for one user's ops, in one round trip.
-- KEYS[1] = <prefix>:meta (routes the call: every key of the user shares the hash tag)
-- ARGV[1] = <prefix>, ARGV[2] = JSON {ops=[op ids], slots=[slot keys], ids=[record ids],
--           attrs=[[subject, attribute, family]], history=bool, list_slots_up_to=n}
-- history: the histories of the slots of `slots` and of the records of `ids` come too
-- slot_keys: every slot key of the user, when there are at most list_slots_up_to (else absent)
-- The dependency index (<prefix>:dep) is always returned whole, with the records listed in it:
-- reconciliation moves dependents to needs_review in the same apply, transitively.
-- Reply (flat arrays, so stored values come back byte for byte, whatever their form): {version,
-- erased_at, applied op ids, records {id, stored, row of a tail or false, ..., and the wanted
-- records of the cold history as one triple "*", data, ids: state/codec.py}, live lists {slot, JSON list, ...},
-- histories {slot, {ids}, ...}, suppressions {key, JSON, ...}, aliases {id, target, ...},
-- dependency index {key, JSON list, ...}, slot keys (false: more than list_slots_up_to), the op
-- ledger's floor (meta's lfloor: the newest event time of an op it forgot, ms), the positions of
-- the archive's segments (state/archive.py; the engine reads them when a record or a history is
-- wanted that Redis does not hold whole)}
local P = ARGV[1]
local req = cjson.decode(ARGV[2])
local out = {slots = {}}
local applied = {}
for _, op in ipairs(req.ops or {}) do
  if redis.call('HEXISTS', P .. ':ops', op) == 1 then applied[#applied + 1] = op end
end
local meta = redis.call('HMGET', P .. ':meta', 'version', 'erased_at', 'lfloor')
local version = tonumber(meta[1] or '0')
local erased_at = meta[2] or ''
local sup = redis.call('HGETALL', P .. ':sup')
local aliases = {}
local slot_keys = false

local want, wanted = {}, {}
local function want_id(id)
  if not wanted[id] then wanted[id] = true; want[#want + 1] = id end
end
local hist_slots, hist_seen = {}, {}
local function want_history(sk)
  if not hist_seen[sk] then hist_seen[sk] = true; hist_slots[#hist_slots + 1] = sk end
end
local function load_slot(sk)
  if out.slots[sk] == nil then
    local live = redis.call('HGET', P .. ':slot', sk)
    out.slots[sk] = live or '[]'
    if live then for _, id in ipairs(cjson.decode(live)) do want_id(id) end end
  end
end

-- with history: an op of the batch walks a slot's history, maybe the slot of a record an earlier op
-- of the batch creates (not stored yet, so not found by id below): the batch's slots come with theirs
for _, sk in ipairs(req.slots or {}) do
  load_slot(sk)
  if req.history then want_history(sk) end
end
if req.list_slots_up_to and redis.call('HLEN', P .. ':slot') <= req.list_slots_up_to then
  slot_keys = redis.call('HKEYS', P .. ':slot')
end
-- the slot of a record of the cold history: the one whose lineage field lists it (a retired record)
local lineage_fields = nil
local function cold_slot(id)
  if not cold_ids(P)[id] then return nil end
  lineage_fields = lineage_fields or redis.call('HGETALL', P .. ':lin')
  for i = 1, #lineage_fields, 2 do
    if string.find(' ' .. lineage_fields[i + 1] .. ' ', ' ' .. id .. ' ', 1, true) then return lineage_fields[i] end
  end
  return nil
end
for _, id in ipairs(req.ids or {}) do
  local target = redis.call('HGET', P .. ':alias', id)
  if target then aliases[#aliases + 1] = id; aliases[#aliases + 1] = target; id = target end
  want_id(id)
  local raw = redis.call('HGET', P .. ':rec', id)
  local sk = raw and slot_of(raw, row_of(P, id, raw)) or cold_slot(id)
  if sk then
    load_slot(sk)
    if req.history then want_history(sk) end
  end
end
for _, sa in ipairs(req.attrs or {}) do
  local head = sa[1] .. '|' .. sa[2] .. '|'
  -- a family match also takes the attributes under it: "<attribute>.<anything>|"; "*": every
  -- attribute of the subject (a target named in the user's words may be anywhere)
  local family = sa[3] and (sa[1] .. '|' .. sa[2] .. '.') or nil
  if sa[2] == '*' then head = sa[1] .. '|'; family = nil end
  for _, sk in ipairs(redis.call('HKEYS', P .. ':slot')) do
    if string.sub(sk, 1, #head) == head or (family and string.sub(sk, 1, #family) == family) then
      load_slot(sk); want_history(sk)
    end
  end
end
local deps = redis.call('HGETALL', P .. ':dep')
for i = 1, #deps, 2 do
  for _, id in ipairs(cjson.decode(deps[i + 1])) do want_id(id) end
end
local history = {}
for _, sk in ipairs(hist_slots) do
  -- the field, then the live ids it leaves out; else a list of its own, written before the
  -- lineage hash (apply.lua)
  local joined, ids = redis.call('HGET', P .. ':lin', sk), {}
  if joined then
    for id in string.gmatch(joined, '%S+') do ids[#ids + 1] = id end
  else
    ids = redis.call('LRANGE', P .. ':hist:' .. redis.sha1hex(sk), 0, -1)
  end
  if joined or #ids == 0 then
    local held = {}
    for _, id in ipairs(ids) do held[id] = true end
    local live = redis.call('HGET', P .. ':slot', sk)
    for _, id in ipairs(live and cjson.decode(live) or {}) do
      if not held[id] then ids[#ids + 1] = id end
    end
  end
  history[#history + 1] = sk
  history[#history + 1] = ids
  for _, id in ipairs(ids) do want_id(id) end
end
-- in blocks: unpack cannot spread more than a few thousand values onto Lua's stack
local records, missing = {}, {}
for first = 1, #want, 1000 do
  local last = math.min(first + 999, #want)
  local vals = redis.call('HMGET', P .. ':rec', unpack(want, first, last))
  for i = first, last do
    local raw = vals[i - first + 1]
    if raw then
      records[#records + 1] = want[i]
      records[#records + 1] = raw
      records[#records + 1] = row_of(P, want[i], raw)
    else
      missing[#missing + 1] = want[i]
    end
  end
end
-- the wanted records of the cold history, as one triple (state/codec.py)
local cold = #missing > 0 and cold_triple(P, missing)
if cold then for _, part in ipairs(cold) do records[#records + 1] = part end end
local slots = {}
for sk, live in pairs(out.slots) do slots[#slots + 1] = sk; slots[#slots + 1] = live end
local archived = redis.call('LRANGE', P .. ':arch', 0, -1)
return {version, erased_at, applied, records, slots, history, sup, aliases, deps, slot_keys, tonumber(meta[3] or '0'), archived}
