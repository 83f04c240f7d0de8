-- One session command: rate limits, ownership, node liveness, idempotency, conference, media
-- stream and bridge state rules, cooldown, claim, state change and XADD to the owning node's
-- command stream.
-- Its KEYS_EACH keys are KEYS[k + 1..] and its ARGV_EACH arguments ARGV[a + 1..], laid out as
-- sessionCommands-n.lua's header says (offsets rather than copied tables: this runs for every
-- command). Failures answer ScriptCode codes.
-- `alive` memoizes node heartbeats within one script run, where they cannot change.
-- Returns {code, value}; a missing value is nil in the reply.

local function membership(status, room)
  return cjson.encode({status = status, room_id = room})
end

local function isAlive(heartbeatKey, alive)
  local live = alive[heartbeatKey]
  if live == nil then
    live = redis.call('EXISTS', heartbeatKey) == 1
    alive[heartbeatKey] = live
  end
  return live
end

-- The refusal of a bridge's other session, nil when it can be bridged: live on a live node, the
-- same app's, answered, in no room and in no bridge (docs/decisions/connecting-calls.md).
local function peerRefusal(peerKey, peerHeartbeatKey, appId, alive)
  local p = redis.call('HMGET', peerKey, 'app_id', 'ended_at', 'answered_at', 'conf_state', 'bridge_state')
  if not p[1] then return {ScriptCode.PEER_NOT_FOUND} end
  if p[1] ~= appId then return {ScriptCode.PEER_OF_ANOTHER_APP} end
  if p[2] or not isAlive(peerHeartbeatKey, alive) then return {ScriptCode.PEER_NOT_FOUND} end
  if not p[3] then return {ScriptCode.NOT_ANSWERED, 'peer'} end
  if (p[4] or 'none') ~= 'none' then return {ScriptCode.IN_CONFERENCE, 'peer'} end
  if p[5] then return {ScriptCode.ALREADY_BRIDGED, 'peer'} end
  return nil
end

-- The refusal of a transfer's new leg, nil when it can be placed: dial's caller-ID allow-list,
-- then the capacity of the node that will own it (the caller's: placeDial's rule), 403 before
-- 503 as for dial.
local function legRefusal(fields, callerIdsKey, heartbeatKey, legKey)
  if redis.call('SISMEMBER', callerIdsKey, fields.caller_id) == 0 then
    return {ScriptCode.CALLER_ID_NOT_ALLOWED}
  end
  local node = redis.call('HMGET', heartbeatKey, 'draining', 'outbound_capacity')
  if node[1] == '1' or (tonumber(node[2]) or 0) <= 0 then return {ScriptCode.NODE_UNAVAILABLE} end
  -- Never expected: the leg's id holds a random UUID.
  if redis.call('EXISTS', legKey) == 1 then return {ScriptCode.SESSION_EXISTS} end
  return nil
end

local function hashArgs(fields)
  local flat = {}
  for name, value in pairs(fields) do
    flat[#flat + 1] = name
    flat[#flat + 1] = value
  end
  return flat
end

local function sessionCommand(k, a, alive)
  local appId, command = ARGV[a + 1], ARGV[a + 6]
  local sessionKey, heartbeatKey, claimKey = KEYS[k + 3], KEYS[k + 4], KEYS[k + 5]

  -- A negative ip limit: the api counted the request's windows before (both slots unused).
  local ipLimit = tonumber(ARGV[a + 2])
  if ipLimit >= 0 then
    local wait = fixedWindow(KEYS[k + 1], ipLimit, tonumber(ARGV[a + 3]))
    if wait == 0 then wait = fixedWindow(KEYS[k + 2], tonumber(ARGV[a + 4]), tonumber(ARGV[a + 5])) end
    if wait > 0 then return {ScriptCode.RATE_LIMITED, wait} end
  end

  local s = redis.call('HMGET', sessionKey, 'app_id', 'conf_room', 'conf_state', 'conf_muted',
    'ended_at', 'stream', 'answered_at', 'bridge_state', 'bridge_peer')
  if not s[1] then return {ScriptCode.SESSION_NOT_FOUND} end
  if s[1] ~= appId then return {ScriptCode.SESSION_OF_ANOTHER_APP} end
  -- An ended session lingers a while for the dial status lookup; commands no longer reach it.
  if s[5] then return {ScriptCode.SESSION_NOT_FOUND} end
  if not isAlive(heartbeatKey, alive) then return {ScriptCode.SESSION_NOT_FOUND} end

  -- A claim holds "<fingerprint>\n<answer body>": a repeat is the same command only when its
  -- fingerprint (command name and body) matches; another command under the uid is refused.
  local claimTtl, fingerprint = tonumber(ARGV[a + 8]), ARGV[a + 13]
  if claimTtl > 0 then
    local previous = redis.call('GET', claimKey)
    if previous then
      local cut = string.find(previous, '\n', 1, true)
      -- A claim without one was written before fingerprints (a rolling upgrade): replayed.
      if not cut then return {1, previous} end
      if string.sub(previous, 1, cut - 1) ~= fingerprint then return {ScriptCode.COMMAND_UID_REUSED} end
      return {1, string.sub(previous, cut + 1)}
    end
  end

  local room, state, muted = s[2] or '', s[3] or 'none', s[4] == '1'
  local stream = s[6] or ''
  local bridgeState, sessionId, peerKey, peerId = s[8] or '', ARGV[a + 12], KEYS[k + 10], ARGV[a + 15]
  -- The body of a deferred command's 202 is the api's own (ARGV[a + 9]); only a body made here
  -- is returned.
  local body = nil
  local change = nil
  -- The peer's hash: its bridge fields (bridge, unbridge), or a transfer's new leg (`leg`).
  local peerChange = nil
  local leg = nil

  -- The bridge is the call's audio: what would play into the call, or move it, waits for the
  -- unbridge (the api says which commands, from one list).
  if ARGV[a + 14] == '1' and bridgeState ~= '' then return {ScriptCode.BRIDGED} end

  if command == 'conference/join' then
    local roomKey, target = KEYS[k + 8], ARGV[a + 11]
    if state ~= 'none' then
      if room ~= target then return {ScriptCode.IN_DIFFERENT_ROOM} end
      if state == 'joined' then return {2, membership('already_joined', room)} end
      if state == 'joining' then return {2, membership('joining', room)} end
      return {ScriptCode.STILL_LEAVING}
    end
    local owner = redis.call('HGET', roomKey, 'app_id')
    if not owner then return {ScriptCode.ROOM_NOT_FOUND} end
    if owner ~= appId then return {ScriptCode.ROOM_OF_ANOTHER_APP} end
    body = membership('joining', target)
    change = {'conf_state', 'joining', 'conf_room', target, 'conf_muted', '1', 'conf_member_id', ''}
  elseif command == 'conference/leave' or command == 'conference/mute' or command == 'conference/unmute' then
    if state == 'none' then return {ScriptCode.NOT_IN_CONFERENCE} end
    if state == 'joining' then return {ScriptCode.STILL_JOINING} end
    if state == 'leaving' then return {ScriptCode.STILL_LEAVING} end
    if command == 'conference/leave' then
      body = membership('leaving', room)
      change = {'conf_state', 'leaving'}
    elseif command == 'conference/mute' then
      if muted then return {ScriptCode.ALREADY_MUTED} end
      body = membership('muted', room)
      change = {'conf_muted', '1'}
    else
      if not muted then return {ScriptCode.ALREADY_UNMUTED} end
      body = membership('unmuted', room)
      change = {'conf_muted', '0'}
    end
  elseif command == 'stream/start' then
    -- One media stream per session. Its id is the operation_id of this stream/start; the media
    -- node clears the field when the stream ends (streamEnded). Its command_uid too: the sweeper
    -- ends the stream of a node that died, and its event names the command.
    if stream ~= '' then return {ScriptCode.STREAM_ALREADY_RUNNING} end
    local message = cjson.decode(ARGV[a + 10])
    change = {'stream', message.operation_id, 'stream_uid', message.command_uid}
  elseif command == 'stream/stop' then
    if stream == '' then return {ScriptCode.NO_STREAM} end
  elseif command == 'bridge' or command == 'transfer' then
    if not s[7] then return {ScriptCode.NOT_ANSWERED} end
    if state ~= 'none' then return {ScriptCode.IN_CONFERENCE} end
    if bridgeState ~= '' then return {ScriptCode.ALREADY_BRIDGED} end
    local refusal, newState
    if command == 'bridge' then
      refusal = peerRefusal(peerKey, KEYS[k + 11], appId, alive)
      newState = 'bridging'
    else
      leg = cjson.decode(ARGV[a + 16])
      refusal = legRefusal(leg, KEYS[k + 12], heartbeatKey, peerKey)
      newState = 'transferring'
    end
    if refusal then return refusal end
    -- Both parties at once, each naming the other: two bridges racing for one session cannot
    -- both be accepted, and the media node's end of the bridge clears each side once.
    local uid = cjson.decode(ARGV[a + 10]).command_uid
    change = {'bridge_state', newState, 'bridge_peer', peerId, 'bridge_uid', uid}
    peerChange = {'bridge_state', newState, 'bridge_peer', sessionId, 'bridge_uid', uid}
  elseif command == 'unbridge' then
    if bridgeState == '' then return {ScriptCode.NOT_BRIDGED} end
    if bridgeState ~= 'bridged' then return {ScriptCode.BRIDGE_PENDING} end
    if s[9] ~= peerId then return {ScriptCode.BRIDGE_PEER_CHANGED} end
    change = {'bridge_state', 'unbridging'}
    -- The peer only while its fields still name this session: it may have left the bridge
    -- already (hung up), its node clearing its side first.
    local p = redis.call('HMGET', peerKey, 'bridge_peer', 'bridge_state', 'ended_at')
    if p[1] == sessionId and p[2] == 'bridged' and not p[3] then
      peerChange = {'bridge_state', 'unbridging'}
    end
  end

  local cooldown = tonumber(ARGV[a + 7])
  if cooldown > 0 and not redis.call('SET', KEYS[k + 6], '1', 'PX', cooldown, 'NX') then
    return {ScriptCode.COOLDOWN, redis.call('PTTL', KEYS[k + 6])}
  end

  -- Redis does not roll a script back: the XADD, the one write that can fail (a stream key of
  -- the wrong type), goes before the changes on keys of known types.
  redis.call('XADD', KEYS[k + 7], '*', 'c', ARGV[a + 10])
  if claimTtl > 0 then
    redis.call('SET', claimKey, fingerprint .. '\n' .. (body or ARGV[a + 9]), 'PX', claimTtl)
  end
  if change then redis.call('HSET', sessionKey, unpack(change)) end
  if leg then
    -- The new leg as placeDial creates a dial's session: the same fields (sessionFields), its
    -- entry in the app's index of live sessions.
    redis.call('HSET', peerKey, unpack(hashArgs(leg)))
    redis.call('ZADD', KEYS[k + 13], leg.created_at, peerId)
  end
  if peerChange then redis.call('HSET', peerKey, unpack(peerChange)) end
  if command == 'conference/join' then
    -- A per-room sequence, not the clock: members list in exact join order, even within one ms.
    local order = redis.call('HINCRBY', KEYS[k + 8], 'join_seq', 1)
    redis.call('ZADD', KEYS[k + 9], 'NX', order, sessionId)
  end
  return {0, body or false}
end
