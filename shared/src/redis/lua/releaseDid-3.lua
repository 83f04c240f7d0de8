--[[
  Removes one DID from an app's DID set and from the global routes, so inbound calls to it are
  no longer routed to the app.

  KEYS[1] the app's configuration hash    KEYS[2] the app's DID set
  KEYS[3] the global DID routes hash (DID → app id)

  ARGV[1] app id    ARGV[2] the DID

  Returns the app's remaining DIDs, -1 when the app does not exist, -2 when the DID is not the
  app's.
]]
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
if redis.call('SREM', KEYS[2], ARGV[2]) == 0 then return -2 end
if redis.call('HGET', KEYS[3], ARGV[2]) == ARGV[1] then redis.call('HDEL', KEYS[3], ARGV[2]) end
return redis.call('SMEMBERS', KEYS[2])
