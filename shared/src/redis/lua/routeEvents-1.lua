--[[
  One step of the event router (shared/src/bus/router.ts): appends a batch of ingest-stream
  events to their shard streams and moves the router's cursor past them, only while the cursor
  is where this router left it, so that a displaced router cannot write behind its successor.
  One round trip, where WATCH, GET and MULTI took two. A router whose sink is not in Redis
  (Kafka) has stored the events itself and passes none: the step then only moves the cursor.

  KEYS[1] cursor: the router's cursor (the last ingest id forwarded)

  ARGV[1] from: the cursor as this router left it
  ARGV[2] to: the last ingest id of the batch
  ARGV[3] appField: stream field of the app id
  ARGV[4] bodyField: stream field of the event body
  ARGV[5] sourceField: stream field of the ingest id the event came from
  ARGV[6..] events: 4 per event, in ingest order: shard stream (a key built by RedisKeys),
            app id, body, ingest id

  Returns 0; ROUTER_DISPLACED, having changed nothing, when the cursor is not `from`.
]]
--- @include "scriptCodes"

if (redis.call('GET', KEYS[1]) or '0-0') ~= ARGV[1] then return ScriptCode.ROUTER_DISPLACED end
for i = 6, #ARGV, 4 do
  redis.call('XADD', ARGV[i], '*', ARGV[3], ARGV[i + 1], ARGV[4], ARGV[i + 2], ARGV[5], ARGV[i + 3])
end
redis.call('SET', KEYS[1], ARGV[2])
return 0
