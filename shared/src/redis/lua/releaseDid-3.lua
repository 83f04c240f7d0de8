--[[
  Removes one DID from an app's DID set and from the global routes, so inbound calls to it are
  no longer routed to the app.

  KEYS[1] app: the app's configuration hash
  KEYS[2] dids: the app's DID set
  KEYS[3] didRoutes: the global DID routes hash (DID → app id)

  ARGV[1] appId: app id
  ARGV[2] did: the DID

  Returns the app's remaining DIDs, APP_NOT_FOUND, or DID_NOT_OF_APP.
]]
--- @include "scriptCodes"
if redis.call('EXISTS', KEYS[1]) == 0 then return ScriptCode.APP_NOT_FOUND end
if redis.call('SREM', KEYS[2], ARGV[2]) == 0 then return ScriptCode.DID_NOT_OF_APP end
if redis.call('HGET', KEYS[3], ARGV[2]) == ARGV[1] then redis.call('HDEL', KEYS[3], ARGV[2]) end
return redis.call('SMEMBERS', KEYS[2])
