--[[
  Appends numbers to an app's caller-ID allow-list while the app exists, so a list can never
  outlive (or be recreated after) the app's deletion. Nothing is removed.

  KEYS[1] app: the app's configuration hash
  KEYS[2] callerIds: the app's caller-ID set

  ARGV[1..] numbers: the numbers to add (possibly none)

  Returns the resulting members, or APP_NOT_FOUND.
]]
--- @include "scriptCodes"
if redis.call('EXISTS', KEYS[1]) == 0 then return ScriptCode.APP_NOT_FOUND end
if #ARGV > 0 then redis.call('SADD', KEYS[2], unpack(ARGV)) end
return redis.call('SMEMBERS', KEYS[2])
