--[[
  Puts an app's dead letters back at the end of its retry lane, oldest first, as never-tried
  events with their original event ids; the dispatcher that owns the app delivers them in that
  order. Events parked after them on the bus go behind them.

  KEYS[1] deadLetters: the app's dead letters
  KEYS[2] lane: the app's lane
  KEYS[3] laneIds: the lane's event id set
  KEYS[4] lanesDue: due set of the app's bus partition

  ARGV[1] appId: app id
  ARGV[2] now: now (epoch ms)
  ARGV[3] eventIds: JSON array of the event ids to replay, or '' for all of them

  Returns the number of events replayed.
]]
--- @include "webhookLane"

local wanted = nil
if ARGV[3] ~= '' then
  wanted = {}
  for _, id in ipairs(cjson.decode(ARGV[3])) do wanted[id] = true end
end

local tailPosition = ''
local tail = redis.call('LINDEX', KEYS[2], -1)
if tail then tailPosition = cjson.decode(tail).position end

local keep, replay = {}, {}
for _, raw in ipairs(redis.call('LRANGE', KEYS[1], 0, -1)) do
  local entry = cjson.decode(raw)
  if (wanted == nil or wanted[entry.event_id]) and redis.call('SADD', KEYS[3], entry.event_id) == 1 then
    replay[#replay + 1] = cjson.encode({
      event_id = entry.event_id,
      event = entry.event,
      partition = entry.partition,
      position = tailPosition,
      attempts = 0,
      next_at = 0,
      body = entry.body,
    })
  else
    keep[#keep + 1] = raw
  end
end

if #replay > 0 then
  redis.call('DEL', KEYS[1])
  lanePush('RPUSH', KEYS[1], keep)
  lanePush('RPUSH', KEYS[2], replay)
  laneDue(KEYS[2], KEYS[4], ARGV[1], ARGV[2])
end
return #replay
