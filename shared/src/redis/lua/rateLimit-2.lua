--[[
  Counts one request against two fixed windows (per app+client IP per second, per app per minute).

  KEYS[1] ipWindow: first window key
  KEYS[2] appWindow: second window key
  ARGV[1] ipLimit: first limit
  ARGV[2] ipWindowMs: first window ms
  ARGV[3] appLimit: second limit (0 = no second window)
  ARGV[4] appWindowMs: second window ms

  Returns 0 when allowed, otherwise the ms until the exceeded window ends.
]]
--- @include "fixedWindow"

local wait = fixedWindow(KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2]))
if wait > 0 then return wait end
if tonumber(ARGV[3]) > 0 then
  return fixedWindow(KEYS[2], tonumber(ARGV[3]), tonumber(ARGV[4]))
end
return 0
