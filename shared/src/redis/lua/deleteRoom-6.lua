--[[
  Destroys a conference room: removes its hash, member set, name index entry and place in the
  app's room list, returns every member session still in this room to "not in a conference",
  and tells the host media node to kick the members, stop recording and tear down bridges.

  KEYS[1] room: room hash
  KEYS[2] roomMembers: room members zset (session ids)
  KEYS[3] roomNames: the app's room-name index
  KEYS[4] appRooms: the app's rooms zset
  KEYS[5] commandStream: the host node's command stream
  KEYS[6] events: the event ingest stream

  ARGV[1] appId: app id
  ARGV[2] roomId: room id
  ARGV[3] command: destroy command message (JSON)
  ARGV[4..7] event: conference.destroyed, appended with the deletion (see eventArgs in
             shared/src/events)
  ARGV[8..] members: pairs of (member session id, its session hash key), as read by the caller
            just before

  Returns {0} destroyed; {ROOM_NOT_FOUND}; {ROOM_OF_ANOTHER_APP}; {ROOM_MEMBERS_CHANGED} when
  the member set holds a session the caller did not pass (it changed meanwhile: read again).
]]
--- @include "scriptCodes"
local owner = redis.call('HMGET', KEYS[1], 'app_id', 'name')
if not owner[1] then return {ScriptCode.ROOM_NOT_FOUND} end
if owner[1] ~= ARGV[1] then return {ScriptCode.ROOM_OF_ANOTHER_APP} end

-- Session keys come from the caller (built by RedisKeys); a join that slipped in after the
-- caller read the member set sends it back for a fresh read instead of leaving a stale member.
local sessionKeys = {}
for i = 8, #ARGV, 2 do sessionKeys[ARGV[i]] = ARGV[i + 1] end
local members = redis.call('ZRANGE', KEYS[2], 0, -1)
for _, id in ipairs(members) do
  if not sessionKeys[id] then return {ScriptCode.ROOM_MEMBERS_CHANGED} end
end

-- Redis does not roll a script back on error: the XADDs, the only writes that can fail (a stream
-- key of the wrong type), go before the deletion, so a failed delete leaves the room whole.
redis.call('XADD', KEYS[6], '*', ARGV[4], ARGV[5], ARGV[6], ARGV[7])
redis.call('XADD', KEYS[5], '*', 'c', ARGV[3])

for _, id in ipairs(members) do
  local key = sessionKeys[id]
  if redis.call('HGET', key, 'conf_room') == ARGV[2] then
    redis.call('HSET', key, 'conf_state', 'none', 'conf_room', '', 'conf_member_id', '', 'conf_muted', '0')
  end
end

redis.call('DEL', KEYS[1], KEYS[2])
if owner[2] and redis.call('HGET', KEYS[3], owner[2]) == ARGV[2] then redis.call('HDEL', KEYS[3], owner[2]) end
redis.call('ZREM', KEYS[4], ARGV[2])
return {0}
