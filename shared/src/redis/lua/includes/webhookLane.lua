-- Helpers of the webhook retry lanes: a lane is a list of entry JSON objects, oldest first, each
-- with `event_id`, `position` (its place on the bus, comparable as a string) and `next_at` (ms
-- its next attempt is due, 0 = now).

-- Pushes a list of values with `command` (RPUSH or LPUSH), in chunks that unpack can take.
local function lanePush(command, key, values)
  for i = 1, #values, 1000 do
    redis.call(command, key, unpack(values, i, math.min(i + 999, #values)))
  end
end

-- Files the app under the time its lane head is due, or takes it off when the lane is empty.
-- Returns the lane's length.
local function laneDue(laneKey, dueKey, appId, now)
  local length = redis.call('LLEN', laneKey)
  if length == 0 then
    redis.call('ZREM', dueKey, appId)
    return 0
  end
  local head = cjson.decode(redis.call('LINDEX', laneKey, 0))
  local due = tonumber(head.next_at) or 0
  if due <= 0 then due = tonumber(now) end
  redis.call('ZADD', dueKey, due, appId)
  return length
end
