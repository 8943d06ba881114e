-- Load what reconciliation needs for one user's ops, in one round trip.
-- KEYS[1] = <prefix>:meta (routes the call: every key of the user shares the hash tag)
-- ARGV[1] = <prefix>, ARGV[2] = JSON {ops=[op ids], slots=[slot keys], ids=[record ids],
--           attrs=[[subject, attribute, family]], history=bool, list_slots_up_to=n}
-- history: the histories of the slots of `slots` and of the records of `ids` come too
-- slot_keys: every slot key of the user, when there are at most list_slots_up_to (else absent)
-- The dependency index (<prefix>:dep) is always returned whole, with the records listed in it:
-- reconciliation moves dependents to needs_review in the same apply, transitively.
local P = ARGV[1]
local req = cjson.decode(ARGV[2])
local out = {applied = {}, records = {}, slots = {}, history = {}, sup = {}, aliases = {}, deps = {}}
for _, op in ipairs(req.ops or {}) do
  if redis.call('HEXISTS', P .. ':ops', op) == 1 then out.applied[op] = 1 end
end
out.version = tonumber(redis.call('HGET', P .. ':meta', 'version') or '0')
out.erased_at = redis.call('HGET', P .. ':meta', 'erased_at') or ''
local sup = redis.call('HGETALL', P .. ':sup')
for i = 1, #sup, 2 do out.sup[sup[i]] = sup[i + 1] end

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
  out.slot_keys = redis.call('HKEYS', P .. ':slot')
end
for _, id in ipairs(req.ids or {}) do
  local target = redis.call('HGET', P .. ':alias', id)
  if target then out.aliases[id] = target; id = target end
  want_id(id)
  local raw = redis.call('HGET', P .. ':rec', id)
  if raw then
    local r = cjson.decode(raw)
    local sk = r.subject .. '|' .. r.attribute .. '|' .. r.scope
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
  out.deps[deps[i]] = deps[i + 1]
  for _, id in ipairs(cjson.decode(deps[i + 1])) do want_id(id) end
end
for _, sk in ipairs(hist_slots) do
  local ids = redis.call('LRANGE', P .. ':hist:' .. redis.sha1hex(sk), 0, -1)
  out.history[sk] = ids
  for _, id in ipairs(ids) do want_id(id) end
end
-- in blocks: unpack cannot spread more than a few thousand values onto Lua's stack
for first = 1, #want, 1000 do
  local last = math.min(first + 999, #want)
  local vals = redis.call('HMGET', P .. ':rec', unpack(want, first, last))
  for i = first, last do
    if vals[i - first + 1] then out.records[want[i]] = vals[i - first + 1] end
  end
end
return cjson.encode(out)
