--[[
  Extends leases (taken with redlock: SET NX PX with a value of the holder's own), each only
  while it still holds its holder's value: a batch, one call per lease, so that every lease of a
  dispatcher (one per shard it reads, and the router's) is extended in one round trip.

  Per call, KEYS_EACH (1) KEYS and ARGV_EACH (2) ARGV, the calls' slices back to back:
  KEYS[k+1] lease: the leased resource
  ARGV[a+1] value: the holder's value
  ARGV[a+2] ttlMs: its new lifetime from now (ms)

  Returns two entries per call, {code, value, code, value, ...}:
    1, nil   extended
    0, nil   not held any more (expired, or another holder's): left as it is
]]
--- @include "batchLayout"

local replies = {}
for i = 0, #KEYS / KEYS_EACH - 1 do
  local k, a = i * KEYS_EACH, i * ARGV_EACH
  local held = redis.call('GET', KEYS[k + 1]) == ARGV[a + 1]
  if held then redis.call('PEXPIRE', KEYS[k + 1], ARGV[a + 2]) end
  replies[#replies + 1] = held and 1 or 0
  replies[#replies + 1] = false
end
return replies
