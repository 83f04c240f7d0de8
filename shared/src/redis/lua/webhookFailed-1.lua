--[[
  Records a failed webhook attempt of an app, and disables the app once its webhook has failed
  for long enough without a success (a success clears `webhook_failing_since`; re-enabled by
  saving the app's configuration, which rewrites its hash).

  KEYS[1] app: the app's configuration hash

  ARGV[1] now: now (epoch ms)
  ARGV[2] disableAfterMs: ms of failure without success that disable the app

  Returns 1 when this call disabled the app, 2 when it was disabled already, 0 otherwise (also
  when the app no longer exists).
]]

if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if redis.call('HEXISTS', KEYS[1], 'disabled_at') == 1 then return 2 end
redis.call('HSETNX', KEYS[1], 'webhook_failing_since', ARGV[1])
local since = tonumber(redis.call('HGET', KEYS[1], 'webhook_failing_since'))
if tonumber(ARGV[1]) - since >= tonumber(ARGV[2]) then
  redis.call('HSET', KEYS[1], 'disabled_at', ARGV[1])
  return 1
end
return 0
