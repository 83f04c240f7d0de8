--[[
  Settles the head of an app's retry lane after an attempt: `done` (delivered, or dropped by
  rule) takes it off; `retry` stores its new attempt count and due time; `dead` moves it to the
  app's dead letters. The next head becomes due at its own `next_at` (now when never tried).

  KEYS[1] lane: the app's lane
  KEYS[2] laneIds: the lane's event id set
  KEYS[3] lanesDue: due set of the app's bus partition
  KEYS[4] deadLetters: the app's dead letters

  ARGV[1] appId: app id
  ARGV[2] now: now (epoch ms)
  ARGV[3] eventId: event id of the attempted head
  ARGV[4] action: done | retry | dead
  ARGV[5] payload: retry: the updated head entry JSON; dead: the dead letter JSON
  ARGV[6] deadLetterMax: dead letters kept per app (oldest dropped)

  Returns the lane's length afterwards, or LANE_HEAD_CHANGED when the head is no longer that
  event.
]]
--- @include "scriptCodes"
--- @include "webhookLane"

local raw = redis.call('LINDEX', KEYS[1], 0)
if not raw or cjson.decode(raw).event_id ~= ARGV[3] then
  laneDue(KEYS[1], KEYS[3], ARGV[1], ARGV[2])
  return ScriptCode.LANE_HEAD_CHANGED
end

if ARGV[4] == 'retry' then
  redis.call('LSET', KEYS[1], 0, ARGV[5])
else
  redis.call('LPOP', KEYS[1])
  redis.call('SREM', KEYS[2], ARGV[3])
  if ARGV[4] == 'dead' then
    redis.call('RPUSH', KEYS[4], ARGV[5])
    redis.call('LTRIM', KEYS[4], -tonumber(ARGV[6]), -1)
  end
end

return laneDue(KEYS[1], KEYS[3], ARGV[1], ARGV[2])
