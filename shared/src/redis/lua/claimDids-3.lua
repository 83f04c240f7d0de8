--[[
  Routes DIDs (called numbers) to an app for inbound calls. A DID belongs to one app: when any
  of them is routed to another app nothing changes. Existing DIDs of the app are kept.

  KEYS[1] app: the app's configuration hash
  KEYS[2] dids: the app's DID set
  KEYS[3] didRoutes: the global DID routes hash (DID → app id)

  ARGV[1] appId: app id
  ARGV[2..] dids: the DIDs to claim (possibly none)

  Returns the app's resulting DIDs, APP_NOT_FOUND, or {DID_TAKEN, did, owner} when `did` is
  routed to the app `owner`.
]]
--- @include "scriptCodes"
if redis.call('EXISTS', KEYS[1]) == 0 then return ScriptCode.APP_NOT_FOUND end
local appId = ARGV[1]
for i = 2, #ARGV do
  local owner = redis.call('HGET', KEYS[3], ARGV[i])
  if owner and owner ~= appId then return {ScriptCode.DID_TAKEN, ARGV[i], owner} end
end
for i = 2, #ARGV do
  redis.call('HSET', KEYS[3], ARGV[i], appId)
  redis.call('SADD', KEYS[2], ARGV[i])
end
return redis.call('SMEMBERS', KEYS[2])
