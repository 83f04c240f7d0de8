--[[
  Ends a media stream: appends its stream.stopped or stream.failed (the one event that ends it)
  to the event stream and clears the session's `stream` field, the api's one-stream-per-session
  guard, only while the field still names this stream, in one step: a stream/start the app sends
  once it has the event always finds the session free. The field is deleted, never written, so
  the hash of a session that expired is not brought back.

  KEYS[1] session: session hash
  KEYS[2] events: event stream

  ARGV[1] streamId: the stream's id (the operation_id of its stream/start)
  ARGV[2..5] event: stream.stopped or stream.failed (see eventArgs in shared/src/events): event
             stream field of the app id, app id, event stream field of the body, event JSON
  ARGV[6] orphaned: '1' = the sweeper's, for a node that died: published only while the field
          names this stream; '0' = its node's: not published once the session ended without the
          field naming it (the sweeper ended both, the node was taken for dead), so a stream has
          one end event either way

  Returns 1 when the field was cleared, 0 when it named no stream or another one.
]]

local named = redis.call('HGET', KEYS[1], 'stream') == ARGV[1]
if not named and (ARGV[6] == '1' or redis.call('HEXISTS', KEYS[1], 'ended_at') == 1) then
  return 0
end
redis.call('XADD', KEYS[2], '*', ARGV[2], ARGV[3], ARGV[4], ARGV[5])
if named then
  redis.call('HDEL', KEYS[1], 'stream')
  return 1
end
return 0
