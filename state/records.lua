-- One user's stored records, each whole in one read: a tail (state/codec.py) comes with its row,
-- and records of the cold history as one triple ("*", its data, the ids of it wanted).
-- KEYS[1] = <prefix>:meta (routes the call: every key of the user shares the hash tag)
-- ARGV[1] = <prefix>, ARGV[2] = "ids" then the record ids | "all" | "scan", cursor, count
-- Reply: {next cursor ("0": done; "0" for "ids" and "all"), id, stored, row or false, ...}
-- "scan" pages through <prefix>:rec, then the cold history, at most `count` records a page (a
-- page may hold none). The cursor's low two bits say where it is: 1, an HSCAN of a hash of more
-- than ORDERED_UP_TO records (the rest: HSCAN's cursor; its count is a hint, a page may hold a few
-- more); 2 and 3, the ids of a smaller hash (HSCAN returns a compact hash whole, whatever its
-- count), then of the cold history, in the order of a hash of the id (the rest: the last one's).
-- A record present throughout a scan is returned (by HSCAN maybe twice).
local P = ARGV[1]
local ORDERED_UP_TO = 512  -- paged in id order up to this many records (each page reads their ids)
local out = {'0'}
local function add(id, raw)
  if raw then
    out[#out + 1] = id
    out[#out + 1] = raw
    out[#out + 1] = row_of(P, id, raw)
  end
end

-- the first 48 bits of an id's SHA-1, as a number (exact in a Lua number, and times 4 too)
local function order_of(id) return tonumber(string.sub(redis.sha1hex(id), 1, 12), 16) end
local function as_cursor(value, part) return string.format('%.0f', value * 4 + part) end
-- up to `count` of `ids` past `after` in their order, and the cursor after them (`part`; `done`
-- when none is left)
local function ordered_page(ids, after, count, part, done)
  local keyed = {}
  for _, id in ipairs(ids) do
    local h = order_of(id)
    if h > after then keyed[#keyed + 1] = {h, id} end
  end
  table.sort(keyed, function(a, b) return a[1] < b[1] end)
  local page = {}
  for k = 1, math.min(count, #keyed) do page[k] = keyed[k][2] end
  if #keyed <= count then return page, done end
  return page, as_cursor(keyed[count][1], part)
end

local cold = nil
if ARGV[2] == 'ids' then
  local missing = {}
  for first = 3, #ARGV, 1000 do  -- in blocks: unpack cannot spread more than a few thousand values
    local last = math.min(first + 999, #ARGV)
    local vals = redis.call('HMGET', P .. ':rec', unpack(ARGV, first, last))
    for i = first, last do
      add(ARGV[i], vals[i - first + 1])
      if not vals[i - first + 1] then missing[#missing + 1] = ARGV[i] end
    end
  end
  if #missing > 0 then cold = cold_triple(P, missing) end
elseif ARGV[2] == 'all' then
  local all = redis.call('HGETALL', P .. ':rec')
  for i = 1, #all, 2 do add(all[i], all[i + 1]) end
  cold = cold_triple(P, nil)
else
  local cursor, count = tonumber(ARGV[3]), tonumber(ARGV[4])
  local part, value = cursor % 4, math.floor(cursor / 4)
  local to_cold = next(cold_ids(P)) and as_cursor(0, 3) or '0'  -- (no cold history: done)
  if cursor == 0 then  -- (a scan keeps the way of paging it started with)
    if redis.call('HLEN', P .. ':rec') > ORDERED_UP_TO then part, value = 1, 0 else part, value = 2, -1 end
  end
  if part == 1 then
    local page = redis.call('HSCAN', P .. ':rec', string.format('%.0f', value), 'COUNT', count)
    out[1] = page[1] == '0' and to_cold or as_cursor(tonumber(page[1]), 1)
    for i = 1, #page[2], 2 do add(page[2][i], page[2][i + 1]) end
  elseif part == 2 then
    local ids, after = ordered_page(redis.call('HKEYS', P .. ':rec'), value, count, 2, to_cold)
    out[1] = after
    if #ids > 0 then
      local vals = redis.call('HMGET', P .. ':rec', unpack(ids))
      for k = 1, #ids do add(ids[k], vals[k]) end
    end
  else
    local listed = {}
    for id in pairs(cold_ids(P)) do listed[#listed + 1] = id end
    local ids, after = ordered_page(listed, value == 0 and -1 or value, count, 3, '0')
    out[1] = after
    if #ids > 0 then cold = cold_triple(P, ids) end
  end
end
if cold then for _, part in ipairs(cold) do out[#out + 1] = part end end
return out
