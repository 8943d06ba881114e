-- One user's stored records, each whole in one read: a tail (state/codec.py) comes with its row,
-- and records of the cold history as one triple ("*", its data, the ids of it wanted).
-- KEYS[1] = <prefix>:meta (routes the call: every key of the user shares the hash tag)
-- ARGV[1] = <prefix>, ARGV[2] = "ids" then the record ids | "all" | "scan", cursor, count (the cold
-- history comes with the first page)
-- Reply: {next cursor ("0": done; "0" for "ids" and "all"), id, stored, row or false, ...}
local P = ARGV[1]
local out = {'0'}
local function add(id, raw)
  if raw then
    out[#out + 1] = id
    out[#out + 1] = raw
    out[#out + 1] = row_of(P, id, raw)
  end
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
  local page = redis.call('HSCAN', P .. ':rec', ARGV[3], 'COUNT', ARGV[4])
  out[1] = page[1]
  for i = 1, #page[2], 2 do add(page[2][i], page[2][i + 1]) end
  if ARGV[3] == '0' then cold = cold_triple(P, nil) end
end
if cold then for _, part in ipairs(cold) do out[#out + 1] = part end end
return out
