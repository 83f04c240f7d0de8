--[[
  Publishes a session command's command.result (after the events it reports, e.g. answer's
  call.answered) and acknowledges its stream entry, in one step, only while the entry is still
  pending: else a sweeper that took the node for dead (cut off from Redis past its heartbeat's
  TTL) answered it as lost already (failDeadCommands-3.lua acknowledges what it answers), and a
  command gets one command.result, not two.

  KEYS[1] commandStream: the node's command stream
  KEYS[2] events: event stream

  ARGV[1] group: consumer group
  ARGV[2] entryId: stream entry id of the command
  ARGV[3..] events: 4 per event, in order, the command.result last: event stream field of the
            app id, app id, event stream field of the body, event JSON.

  Returns 1 when the events were appended, 0 when the command had been answered already.
]]

if #redis.call('XPENDING', KEYS[1], ARGV[1], ARGV[2], ARGV[2], 1) == 0 then return 0 end
for i = 3, #ARGV, 4 do
  redis.call('XADD', KEYS[2], '*', ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3])
end
redis.call('XACK', KEYS[1], ARGV[1], ARGV[2])
return 1
