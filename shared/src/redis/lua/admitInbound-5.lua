--[[
  Admits an inbound call in one round trip: the session must not have ended already (a call this
  node lost track of and that was reported over), the DID must still route to the app the node
  expects (the node's copy of the DID map may be stale), and then the session's events (call.new,
  and call.answered when the channel was answered before the node took it), its hash and its
  place in the app's and the node's indexes. Either all of it happens or none.

  KEYS[1] session: the session hash
  KEYS[2] didRoutes: DID → app id (hash)
  KEYS[3] liveSessions: the app's live inbound sessions (zset by created_at)
  KEYS[4] nodeSessions: the node's sessions (set)
  KEYS[5] events: event stream

  ARGV[1] did: the called number
  ARGV[2] appId: the app the node takes the call for
  ARGV[3] routed: '1' when that app comes from the DID map (checked here), '0' when the
          dialplan named it (voicegw_app_id)
  ARGV[4] createdAt: created_at (epoch ms)
  ARGV[5] sessionId: the session id
  ARGV[6] fieldCount: how many of the ARGV after it are session hash fields
  ARGV[7..] fieldsThenEvents: session hash fields as name, value pairs (SessionStore's), then
            4 per event, in order: event stream field of the app id, app id, event stream field
            of the body, event JSON.

  Returns:
    0                  admitted
    SESSION_ENDED      the session was reported over already
    {DID_ROUTE_CHANGED, app id}  the DID routes to this other app now ('' for none)
]]
--- @include "scriptCodes"

if redis.call('HEXISTS', KEYS[1], 'ended_at') == 1 then return ScriptCode.SESSION_ENDED end
if ARGV[3] == '1' then
  local app = redis.call('HGET', KEYS[2], ARGV[1])
  if app ~= ARGV[2] then return { ScriptCode.DID_ROUTE_CHANGED, app or '' } end
end

-- Redis does not roll a script back on error: the XADDs, the writes that can fail (a stream key
-- of the wrong type), go first; the HSET, ZADD and SADD on keys of known types cannot fail.
local fields = tonumber(ARGV[6])
for i = 7 + fields, #ARGV, 4 do
  redis.call('XADD', KEYS[5], '*', ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3])
end
redis.call('HSET', KEYS[1], unpack(ARGV, 7, 6 + fields))
redis.call('ZADD', KEYS[3], ARGV[4], ARGV[5])
redis.call('SADD', KEYS[4], ARGV[5])
return 0
