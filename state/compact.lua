-- Rewrite one user's keys in their compact forms (state/compaction.py), only if nothing was applied
-- to the user since the caller read them: a compaction pass runs beside the workers.
-- KEYS[1] = <prefix>:meta; ARGV[1] = the version the caller read; then commands, each: name,
-- number of arguments, arguments (HSET, HDEL, DEL or RPUSH, on keys of this user only).
-- Returns 1 when written, 0 when the user was written in between (read again and retry).
local allowed = {HSET = true, HDEL = true, DEL = true, RPUSH = true}
if tonumber(redis.call('HGET', KEYS[1], 'version') or '0') ~= tonumber(ARGV[1]) then return 0 end
local i = 2
while i <= #ARGV do
  local name, n = ARGV[i], tonumber(ARGV[i + 1])
  if not allowed[name] then error('compact.lua: ' .. name .. ' is not a compaction command') end
  redis.call(name, unpack(ARGV, i + 2, i + 1 + n))
  i = i + 2 + n
end
return 1
