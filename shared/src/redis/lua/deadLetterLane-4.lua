--[[
  Moves an app's whole retry lane to its dead letters (the app was disabled).

  KEYS[1] lane: the app's lane
  KEYS[2] laneIds: the lane's event id set
  KEYS[3] lanesDue: due set of the app's bus partition
  KEYS[4] deadLetters: the app's dead letters

  ARGV[1] appId: app id
  ARGV[2] now: now (epoch ms)
  ARGV[3] reason: reason
  ARGV[4] deadLetterMax: dead letters kept per app (oldest dropped)

  Returns the event names of the events moved, in lane order.
]]

local entries = redis.call('LRANGE', KEYS[1], 0, -1)
local letters, names = {}, {}
for i, raw in ipairs(entries) do
  local entry = cjson.decode(raw)
  names[i] = entry.event
  entry.reason = ARGV[3]
  entry.failed_at = tonumber(ARGV[2])
  entry.next_at = nil
  letters[i] = cjson.encode(entry)
end
for i = 1, #letters, 1000 do
  redis.call('RPUSH', KEYS[4], unpack(letters, i, math.min(i + 999, #letters)))
end
if #letters > 0 then redis.call('LTRIM', KEYS[4], -tonumber(ARGV[4]), -1) end
redis.call('DEL', KEYS[1], KEYS[2])
redis.call('ZREM', KEYS[3], ARGV[1])
return names
