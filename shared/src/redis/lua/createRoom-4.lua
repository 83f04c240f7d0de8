--[[
  Creates a conference room whose name is unique within its app: the name is claimed in the app's
  name index, and a script runs alone: of concurrent creates of one name exactly one wins.

  KEYS[1] roomNames: the app's room-name index (hash name → room id)
  KEYS[2] room: the new room's hash
  KEYS[3] appRooms: the app's rooms (zset scored by creation time in µs: rooms created one
          after the other keep their order, which whole milliseconds did not)
  KEYS[4] events: the event ingest stream

  ARGV[1] appId: app id
  ARGV[2] name: room name
  ARGV[3] roomId: room id
  ARGV[4] node: host node prefix
  ARGV[5..8] event: conference.created, appended with the room (see eventArgs in
             shared/src/events)

  Returns {0, created_at_ms} created, or {ROOM_NAME_TAKEN, existing_room_id}.
]]
--- @include "scriptCodes"
local taken = redis.call('HGET', KEYS[1], ARGV[2])
if taken then return {ScriptCode.ROOM_NAME_TAKEN, taken} end

-- Server time, so that rooms created through different api replicas order consistently.
local t = redis.call('TIME')
local createdUs = t[1] * 1000000 + t[2]
local createdAt = math.floor(createdUs / 1000)

-- Redis does not roll a script back on error: the XADD, the one write that can fail (a stream
-- key of the wrong type), goes first, so a failed create claims no name and leaves no room.
redis.call('XADD', KEYS[4], '*', ARGV[5], ARGV[6], ARGV[7], ARGV[8])
redis.call('HSET', KEYS[1], ARGV[2], ARGV[3])
redis.call('HSET', KEYS[2],
  'app_id', ARGV[1],
  'name', ARGV[2],
  'created_at', createdAt,
  'node', ARGV[4],
  'playback_status', 'stopped',
  'playback_volume', 0,
  'playback_urls', '[]',
  'playback_operation_id', '')
-- %.0f: Lua would print a number this large with 14 significant digits and lose the µs.
redis.call('ZADD', KEYS[3], string.format('%.0f', createdUs), ARGV[3])
return {0, createdAt}
