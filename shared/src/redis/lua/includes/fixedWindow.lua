-- Counts one request in a fixed window; returns 0 when within `limit`, else the ms until the
-- window ends (for Retry-After). The window key already names its window index.
local function fixedWindow(key, limit, windowMs)
  local count = redis.call('INCR', key)
  if count == 1 then redis.call('PEXPIRE', key, windowMs) end
  if count > limit then
    local ttl = redis.call('PTTL', key)
    if ttl < 0 then ttl = windowMs end
    return ttl
  end
  return 0
end
