-- One session command: rate limits, ownership, node liveness, idempotency, conference state
-- rules, cooldown, claim, state change and XADD to the owning node's command stream.
-- K and A are this command's 9 keys and 12 arguments, laid out as sessionCommands-n.lua says.
-- Returns {code, value}; a missing value is nil in the reply.
local function sessionCommand(K, A)
  local appId = A[1]
  local command = A[6]

  local wait = fixedWindow(K[1], tonumber(A[2]), tonumber(A[3]))
  if wait == 0 then wait = fixedWindow(K[2], tonumber(A[4]), tonumber(A[5])) end
  if wait > 0 then return {-1, wait} end

  local s = redis.call('HMGET', K[3], 'app_id', 'conf_room', 'conf_state', 'conf_muted', 'ended_at')
  if not s[1] then return {-2} end
  if s[1] ~= appId then return {-3} end
  -- An ended session lingers a while for the dial status lookup; commands no longer reach it.
  if s[5] then return {-2} end
  if redis.call('EXISTS', K[4]) == 0 then return {-2} end

  local claimTtl = tonumber(A[8])
  if claimTtl > 0 then
    local previous = redis.call('GET', K[5])
    if previous then return {1, previous} end
  end

  local room, state, muted = s[2] or '', s[3] or 'none', s[4] == '1'
  -- The body of a deferred command's 202 is the api's own (A[9]); only a body made here is returned.
  local body = nil
  local change = nil

  local function membership(status)
    return cjson.encode({status = status, room_id = room})
  end

  if command == 'conference/join' then
    local target = A[11]
    if state ~= 'none' then
      if room ~= target then return {-7} end
      if state == 'joined' then return {2, cjson.encode({status = 'already_joined', room_id = room})} end
      if state == 'joining' then return {2, membership('joining')} end
      return {-12}
    end
    local owner = redis.call('HGET', K[8], 'app_id')
    if not owner then return {-5} end
    if owner ~= appId then return {-6} end
    room = target
    body = membership('joining')
    change = {'conf_state', 'joining', 'conf_room', target, 'conf_muted', '1', 'conf_member_id', ''}
  elseif command == 'conference/leave' or command == 'conference/mute' or command == 'conference/unmute' then
    if state == 'none' then return {-8} end
    if state == 'joining' then return {-9} end
    if state == 'leaving' then return {-12} end
    if command == 'conference/leave' then
      body = membership('leaving')
      change = {'conf_state', 'leaving'}
    elseif command == 'conference/mute' then
      if muted then return {-10} end
      body = membership('muted')
      change = {'conf_muted', '1'}
    else
      if not muted then return {-11} end
      body = membership('unmuted')
      change = {'conf_muted', '0'}
    end
  end

  local cooldown = tonumber(A[7])
  if cooldown > 0 and not redis.call('SET', K[6], '1', 'PX', cooldown, 'NX') then return {-4} end

  if claimTtl > 0 then redis.call('SET', K[5], body or A[9], 'PX', claimTtl) end
  if change then redis.call('HSET', K[3], unpack(change)) end
  if command == 'conference/join' then
    -- A per-room sequence, not the clock: members list in exact join order, even within one ms.
    redis.call('ZADD', K[9], 'NX', redis.call('HINCRBY', K[8], 'join_seq', 1), A[12])
  end
  redis.call('XADD', K[7], '*', 'c', A[10])
  return {0, body or false}
end
