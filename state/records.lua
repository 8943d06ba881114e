-- One user's stored records, each whole in one read: a tail (state/codec.py) comes with its row.
-- KEYS[1] = <prefix>:meta (routes the call: every key of the user shares the hash tag)
-- ARGV[1] = <prefix>, ARGV[2] = "ids" then the record ids | "all" | "scan", cursor, count
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
if ARGV[2] == 'ids' then
  for first = 3, #ARGV, 1000 do  -- in blocks: unpack cannot spread more than a few thousand values
    local last = math.min(first + 999, #ARGV)
    local vals = redis.call('HMGET', P .. ':rec', unpack(ARGV, first, last))
    for i = first, last do add(ARGV[i], vals[i - first + 1]) end
  end
elseif ARGV[2] == 'all' then
  local all = redis.call('HGETALL', P .. ':rec')
  for i = 1, #all, 2 do add(all[i], all[i + 1]) end
else
  local page = redis.call('HSCAN', P .. ':rec', ARGV[3], 'COUNT', ARGV[4])
  out[1] = page[1]
  for i = 1, #page[2], 2 do add(page[2][i], page[2][i + 1]) end
end
return out
