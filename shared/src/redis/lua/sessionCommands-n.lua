--[[
  A batch of session commands, each handled as if it ran alone, in the order given: the api
  coalesces the commands of one event-loop turn into one call (ScriptBatcher), so under load
  tens of requests share one round trip, one socket write and one script run.

  Per command, 9 KEYS and 13 ARGV, the commands' slices back to back:
  KEYS: 1 rate window: app + client IP, 1 s     2 rate window: app, 60 s
        3 session hash                          4 owning node's heartbeat
        5 command_uid claim (when ARGV 8 > 0)   6 cooldown marker of the group (when ARGV 7 > 0)
        7 owning node's command stream          8 room hash (conference/join; else unused)
        9 room members zset (conference/join; else unused)
        (a slot a command does not use holds RedisKeys.unused(): it is never touched)
  ARGV: 1 app id          2 ip limit          3 ip window ms
        4 app limit       5 app window ms
        6 command name    7 cooldown ms (0 = none)
        8 claim ttl ms, 0 when the api generated the command_uid (nobody can repeat it, so
          nothing is claimed or remembered)
        9 the deferred 202 body JSON, stored for repeats of a claimed command_uid ('' when
          nothing is claimed)
        10 stream message JSON    11 room id (conference/join)    12 session id
        13 the command's fingerprint (its name and a hash of its arguments), kept with the claim
           so that a repeat of the command_uid for another command or body is told apart

  Returns two entries per command, {code, value, code, value, ...}:
    0, nil     accepted and enqueued (the api answers its own 202 body)
    0, body    accepted and enqueued, with the membership body made here (conference commands)
    1, body    repeated command_uid of the same command and body: the original body
    2, body    answered without enqueueing (already joined / still joining the same room)
    -1, retry_ms  rate limited     -2 session not found      -3 session of another app
    -4 command cooldown            -5 room not found         -6 room of another app
    -7 in a different room         -8 not in a conference    -9 still joining
    -10 already muted              -11 already unmuted       -12 still leaving
    -13 command_uid already claimed for another command or body
    -100, message  the command raised an error (its writes so far stay, as in any script)
]]
--- @include "fixedWindow"
--- @include "sessionCommand"

local KEYS_EACH, ARGV_EACH = 9, 13
local alive = {}
local replies = {}
for i = 0, #KEYS / KEYS_EACH - 1 do
  -- A command that raises an error (a key of the wrong type, say) fails alone, as it would have
  -- in a script run of its own: the other commands of the batch are not its business.
  local ok, reply = pcall(sessionCommand, i * KEYS_EACH, i * ARGV_EACH, alive)
  if not ok then
    reply = {-100, type(reply) == 'table' and (reply.err or 'error') or tostring(reply)}
  end
  replies[#replies + 1] = reply[1]
  replies[#replies + 1] = reply[2] or false
end
return replies
