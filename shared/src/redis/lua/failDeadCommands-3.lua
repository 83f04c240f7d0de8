--[[
  Answers, exactly once cluster-wide, the commands a dead media node left in its command stream:
  each prepared entry that is still open (unread, or read and never acknowledged) is
  acknowledged and its failed command.result appended to the event stream, in one step. Whoever
  comes second (another sweeper, the node itself after a restart) finds it acknowledged.
  Nothing is done while the node's heartbeat exists: then the node's own consumer answers.

  KEYS[1] commandStream: the node's command stream
  KEYS[2] heartbeat: the node's heartbeat
  KEYS[3] events: event stream

  ARGV[1] group: consumer group
  ARGV[2] consumer: consumer name the unread entries are read by (the sweeper)
  ARGV[3..] entries: 5 per entry: stream entry id, event stream field of the app id, app id,
            event stream field of the body, command.result JSON (the four event fields '' =
            acknowledge only: a command with no result event).

  Once nothing is left pending, the stream is emptied (XTRIM MAXLEN 0; the group stays).

  Returns the number of entries answered (acknowledged here), or NODE_ALIVE.
]]
--- @include "scriptCodes"

if redis.call('EXISTS', KEYS[2]) == 1 then return ScriptCode.NODE_ALIVE end
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end

local group, reader = ARGV[1], ARGV[2]
-- A node that died before its consumer started has no group yet: nothing of it was read.
pcall(redis.call, 'XGROUP', 'CREATE', KEYS[1], group, '0')
-- Unread entries become pending under `reader`, so that they can be acknowledged. Entries the
-- caller did not prepare stay pending there for its next round.
redis.call('XREADGROUP', 'GROUP', group, reader, 'STREAMS', KEYS[1], '>')

local answered = 0
for i = 3, #ARGV, 5 do
  local id = ARGV[i]
  if #redis.call('XPENDING', KEYS[1], group, id, id, 1) > 0 then
    if ARGV[i + 1] ~= '' then
      redis.call('XADD', KEYS[3], '*', ARGV[i + 1], ARGV[i + 2], ARGV[i + 3], ARGV[i + 4])
    end
    redis.call('XACK', KEYS[1], group, id)
    answered = answered + 1
  end
end
-- Everything answered: the entries are kept by nobody, so later rounds read an empty stream.
-- (The group keeps its last-delivered id: a restarted node reads only what comes after.)
if redis.call('XPENDING', KEYS[1], group)[1] == 0 then redis.call('XTRIM', KEYS[1], 'MAXLEN', 0) end
return answered
