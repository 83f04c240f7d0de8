--[[
  Makes the head of an app's retry lane due now (an operator's "retry now" after fixing the
  receiver), provided it is still the head the caller read: an attempt settled meanwhile wins.
  The dispatcher that owns the app's partition sees the new due time on its next poll.

  KEYS[1] lane: the app's lane
  KEYS[2] lanesDue: due set of the app's bus partition

  ARGV[1] appId: app id
  ARGV[2] now: now (epoch ms)
  ARGV[3] head: the head entry JSON as read
  ARGV[4] dueHead: the head entry JSON, due now

  Returns the lane's length (0: nothing waits), or LANE_HEAD_CHANGED.
]]
--- @include "scriptCodes"
--- @include "webhookLane"

local raw = redis.call('LINDEX', KEYS[1], 0)
if raw and raw ~= ARGV[3] then
  return ScriptCode.LANE_HEAD_CHANGED
end
if raw then
  redis.call('LSET', KEYS[1], 0, ARGV[4])
end
return laneDue(KEYS[1], KEYS[2], ARGV[1], ARGV[2])
