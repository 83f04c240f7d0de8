--[[
  Appends numbers to an app's caller-ID allow-list while the app exists, so a list can never
  outlive (or be recreated after) the app's deletion. Nothing is removed.

  KEYS[1] the app's configuration hash    KEYS[2] the app's caller-ID set

  ARGV    the numbers to add (possibly none)

  Returns the resulting members, or -1 when the app does not exist.
]]
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
if #ARGV > 0 then redis.call('SADD', KEYS[2], unpack(ARGV)) end
return redis.call('SMEMBERS', KEYS[2])
