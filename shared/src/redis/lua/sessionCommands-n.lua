--[[
  A batch of session commands, each handled as if it ran alone, in the order given: the api
  coalesces the commands of one event-loop turn into one call (ScriptBatcher), so under load
  tens of requests share one round trip, one socket write and one script run.

  Per command, KEYS_EACH (13) KEYS and ARGV_EACH (16) ARGV, the commands' slices back to back;
  `k` and `a` are where the command's slices start (both sizes come from the script's builder,
  shared/src/redis/lua/sessionCommands.ts, through `--- @include "batchLayout"`):
  KEYS[k+1] ipWindow: rate window: app + client IP, 1 s
  KEYS[k+2] appWindow: rate window: app, 60 s
  KEYS[k+3] session: session hash (stream/start sets its `stream` field to the message's
            operation_id: the running media stream's id; bridge, unbridge and transfer its
            `bridge_*` fields)
  KEYS[k+4] heartbeat: owning node's heartbeat
  KEYS[k+5] claim: command_uid claim (when claimTtlMs > 0)
  KEYS[k+6] cooldown: cooldown marker of the group (when cooldownMs > 0)
  KEYS[k+7] commandStream: owning node's command stream
  KEYS[k+8] room: room hash (conference/join; else unused)
  KEYS[k+9] roomMembers: room members zset (conference/join; else unused)
  KEYS[k+10] peer: the other session's hash: bridge's `session_uuid`, unbridge's bridge peer
             as the api read it, or transfer's new leg, created here (else unused)
  KEYS[k+11] peerHeartbeat: the peer's node heartbeat (bridge; else unused)
  KEYS[k+12] callerIds: the app's caller-ID allow-list (transfer; else unused)
  KEYS[k+13] liveSessions: the app's live outbound sessions zset (transfer; else unused)
  (a slot a command does not use holds RedisKeys.unused(): it is never touched)
  ARGV[a+1] appId: app id
  ARGV[a+2] ipLimit: ip limit; -1 when the api counted both windows before the script (a
            command whose check resolves host names), whose slots then hold unused keys
  ARGV[a+3] ipWindowMs: ip window ms
  ARGV[a+4] appLimit: app limit
  ARGV[a+5] appWindowMs: app window ms
  ARGV[a+6] command: command name
  ARGV[a+7] cooldownMs: cooldown ms (0 = none)
  ARGV[a+8] claimTtlMs: claim ttl ms, 0 when the api generated the command_uid (nobody can
            repeat it, so nothing is claimed or remembered)
  ARGV[a+9] deferredBody: the deferred 202 body JSON, stored for repeats of a claimed
            command_uid ('' when nothing is claimed)
  ARGV[a+10] message: stream message JSON
  ARGV[a+11] roomId: room id (conference/join)
  ARGV[a+12] sessionId: session id
  ARGV[a+13] fingerprint: the command's fingerprint (its name and a hash of its arguments),
             kept with the claim so that a repeat of the command_uid for another command or
             body is told apart
  ARGV[a+14] refusedWhileBridged: '1' for a command a bridge excludes (refused while the
             session's `bridge_state` is set), else '0'
  ARGV[a+15] peerId: the peer's session id (bridge, unbridge, transfer's new leg; else '')
  ARGV[a+16] peerFields: transfer: the new leg's hash fields as a JSON object (sessionFields:
             its `caller_id` is the `from` checked against the allow-list); else ''

  Returns two entries per command, {code, value, code, value, ...}:
    0, nil     accepted and enqueued (the api answers its own 202 body)
    0, body    accepted and enqueued, with the membership body made here (conference commands)
    1, body    repeated command_uid of the same command and body: the original body
    2, body    answered without enqueueing (already joined / still joining the same room)
    RATE_LIMITED, retry_ms    SESSION_NOT_FOUND    SESSION_OF_ANOTHER_APP    COOLDOWN, retry_ms
    ROOM_NOT_FOUND    ROOM_OF_ANOTHER_APP    IN_DIFFERENT_ROOM    NOT_IN_CONFERENCE
    STILL_JOINING    ALREADY_MUTED    ALREADY_UNMUTED    STILL_LEAVING    COMMAND_UID_REUSED
    STREAM_ALREADY_RUNNING (stream/start while `stream` is set)    NO_STREAM (stream/stop while
    it is not)
    bridge, transfer: NOT_ANSWERED    IN_CONFERENCE    ALREADY_BRIDGED (each with the value
    'peer' when the bridge's other session is the one at fault)    PEER_NOT_FOUND
    PEER_OF_ANOTHER_APP    CALLER_ID_NOT_ALLOWED    NODE_UNAVAILABLE    SESSION_EXISTS
    unbridge: NOT_BRIDGED    BRIDGE_PENDING    BRIDGE_PEER_CHANGED (the api reads it again)
    BRIDGED: a command the bridge excludes, on a session whose `bridge_state` is set
    COMMAND_FAILED, message  the command raised an error (its writes so far stay, as in any
                             script)
]]
--- @include "scriptCodes"
--- @include "batchLayout"
--- @include "fixedWindow"
--- @include "sessionCommand"

local alive = {}
local replies = {}
for i = 0, #KEYS / KEYS_EACH - 1 do
  -- A command that raises an error (a key of the wrong type, say) fails alone, as it would have
  -- in a script run of its own: the other commands of the batch are not its business.
  local ok, reply = pcall(sessionCommand, i * KEYS_EACH, i * ARGV_EACH, alive)
  if not ok then
    local message = type(reply) == 'table' and (reply.err or 'error') or tostring(reply)
    reply = {ScriptCode.COMMAND_FAILED, message}
  end
  replies[#replies + 1] = reply[1]
  replies[#replies + 1] = reply[2] or false
end
return replies
