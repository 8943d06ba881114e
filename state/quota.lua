-- One decision of a tenant's quota (state/quotas.py): GCRA, a token bucket held as one number, the
-- theoretical arrival time (TAT) of the next unit, in microseconds of the server's clock. Every
-- process that asks reads the same clock, so processes whose clocks disagree still share one rate.
--
-- KEYS[1]  the quota's key (state/keys.py quota_key)
-- ARGV[1]  microseconds per unit (1e6 / rate, a whole number: no rounding builds up in the TAT)
-- ARGV[2]  burst: units that may come at once
-- ARGV[3]  cost: units this request takes
-- Returns {1, units left} when allowed (and taken), {0, microseconds to wait} when refused (nothing
-- taken). A cost above the burst is never allowed: the caller refuses it before asking.
local interval = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local cost = tonumber(ARGV[3])
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000000 + tonumber(clock[2])
local tat = tonumber(redis.call('GET', KEYS[1]) or now)
if tat < now then tat = now end
local tolerance = burst * interval
local after = tat + cost * interval
local allowed_at = after - tolerance
if allowed_at > now then
  return {0, math.ceil(allowed_at - now)}
end
-- integers written whole (Lua's default format keeps 14 digits; these have 16); the key lapses
-- once its TAT is past, when it would mean the same as no key
redis.call('SET', KEYS[1], string.format('%.0f', after), 'PX', math.max(1, math.ceil((after - now) / 1000)))
return {1, math.floor((tolerance - (after - now)) / interval + 1e-9)}
