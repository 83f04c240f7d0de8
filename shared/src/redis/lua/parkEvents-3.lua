--[[
  Parks events in an app's retry lane, in bus order: behind what waits there already, or in
  front of it when they are older (a new shard holder re-reading what its predecessor never
  acknowledged). An event already in the lane is not parked twice.

  KEYS[1] lane: the app's lane
  KEYS[2] laneIds: the lane's event id set
  KEYS[3] lanesDue: due set of the app's bus partition

  ARGV[1] appId: app id
  ARGV[2] now: now (epoch ms)
  ARGV[3..] entries: lane entries as JSON, in bus order

  Returns the lane's length afterwards.
]]
--- @include "webhookLane"

local fresh = {}
for i = 3, #ARGV do
  local entry = cjson.decode(ARGV[i])
  if redis.call('SADD', KEYS[2], entry.event_id) == 1 then
    fresh[#fresh + 1] = { position = entry.position, raw = ARGV[i] }
  end
end

if #fresh > 0 then
  local raws = {}
  for i, item in ipairs(fresh) do raws[i] = item.raw end
  local length = redis.call('LLEN', KEYS[1])
  if length == 0 then
    lanePush('RPUSH', KEYS[1], raws)
  else
    local head = cjson.decode(redis.call('LINDEX', KEYS[1], 0))
    local tail = cjson.decode(redis.call('LINDEX', KEYS[1], -1))
    if fresh[#fresh].position < head.position then
      local reversed = {}
      for i = #raws, 1, -1 do reversed[#reversed + 1] = raws[i] end
      lanePush('LPUSH', KEYS[1], reversed)
    elseif fresh[1].position >= tail.position then
      lanePush('RPUSH', KEYS[1], raws)
    else
      local merged = {}
      local j = 1
      for _, raw in ipairs(redis.call('LRANGE', KEYS[1], 0, -1)) do
        local position = cjson.decode(raw).position
        while j <= #fresh and fresh[j].position < position do
          merged[#merged + 1] = fresh[j].raw
          j = j + 1
        end
        merged[#merged + 1] = raw
      end
      for k = j, #fresh do merged[#merged + 1] = fresh[k].raw end
      redis.call('DEL', KEYS[1])
      lanePush('RPUSH', KEYS[1], merged)
    end
  end
end

return laneDue(KEYS[1], KEYS[3], ARGV[1], ARGV[2])
