--[[
  Routes DIDs (called numbers) to an app for inbound calls. A DID belongs to one app: when any
  of them is routed to another app nothing changes. Existing DIDs of the app are kept.

  KEYS[1] the app's configuration hash    KEYS[2] the app's DID set
  KEYS[3] the global DID routes hash (DID → app id)

  ARGV[1] app id    ARGV[2..] the DIDs to claim (possibly none)

  Returns the app's resulting DIDs, -1 when the app does not exist, or {-2, did, owner} when
  `did` is routed to the app `owner`.
]]
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
local appId = ARGV[1]
for i = 2, #ARGV do
  local owner = redis.call('HGET', KEYS[3], ARGV[i])
  if owner and owner ~= appId then return {-2, ARGV[i], owner} end
end
for i = 2, #ARGV do
  redis.call('HSET', KEYS[3], ARGV[i], appId)
  redis.call('SADD', KEYS[2], ARGV[i])
end
return redis.call('SMEMBERS', KEYS[2])
