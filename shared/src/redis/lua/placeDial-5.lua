--[[
  Places an outbound call in one round trip: the caller-ID allow-list check, a re-check of the
  chosen node (it may have died or started draining since the api picked it), the new session
  hash, its entry in the app's index of live sessions and the originate command on the node's
  stream. Either all of it happens or none.

  KEYS[1] callerIds: the app's caller-ID allow-list (set)
  KEYS[2] heartbeat: chosen node's heartbeat hash
  KEYS[3] session: the new session hash
  KEYS[4] commandStream: chosen node's command stream
  KEYS[5] liveSessions: the app's live outbound sessions (zset by created_at)

  ARGV[1] from: the `from` number
  ARGV[2] command: stream message JSON
  ARGV[3] createdAt: created_at (epoch ms)
  ARGV[4] sessionId: the session id
  ARGV[5..] fields: session hash fields as name, value pairs (SessionStore's)

  Returns:
    0                      placed
    CALLER_ID_NOT_ALLOWED  `from` is not on the allow-list
    NODE_UNAVAILABLE       the node is gone, draining or has no outbound capacity left
    SESSION_EXISTS         a session with this id already exists (never expected: the id holds
                           a random UUID)
]]
--- @include "scriptCodes"

if redis.call('SISMEMBER', KEYS[1], ARGV[1]) == 0 then return ScriptCode.CALLER_ID_NOT_ALLOWED end

local node = redis.call('HMGET', KEYS[2], 'name', 'draining', 'outbound_capacity')
if not node[1] or node[2] == '1' or (tonumber(node[3]) or 0) <= 0 then return ScriptCode.NODE_UNAVAILABLE end

if redis.call('EXISTS', KEYS[3]) == 1 then return ScriptCode.SESSION_EXISTS end

-- Redis does not roll a script back on error: the XADD, the one write that can fail (a stream
-- key of the wrong type), goes first; the HSET and ZADD on keys of known types cannot fail.
redis.call('XADD', KEYS[4], '*', 'c', ARGV[2])
redis.call('HSET', KEYS[3], unpack(ARGV, 5))
redis.call('ZADD', KEYS[5], ARGV[3], ARGV[4])
return 0
