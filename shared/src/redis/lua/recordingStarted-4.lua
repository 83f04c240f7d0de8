--[[
  Registers a recording that has just started: its metadata hash, the session's pointer to its
  latest recording (what .../recording/file.wav serves), its entry in the expiry set, and its id
  on the session's list of recordings (GET /sessions/{uuid}) while the session is readable. Until
  it stops, the recording expires at a fallback time far ahead, so that the file and metadata
  of a recording whose node died mid-call are still swept one day.

  KEYS[1] recording: recording hash
  KEYS[2] latest: session's latest-recording pointer
  KEYS[3] expiry: expiry zset
  KEYS[4] session: session hash

  ARGV[1] member: expiry member (`<session id>/<recording id>`)
  ARGV[2] recordingId: recording id
  ARGV[3] expiresAt: fallback expiry (epoch ms)
  ARGV[4..] fields: field, value pairs

  Returns 1.
]]

redis.call('HSET', KEYS[1], unpack(ARGV, 4))
redis.call('PEXPIREAT', KEYS[1], ARGV[3])
redis.call('SET', KEYS[2], ARGV[2])
redis.call('PEXPIREAT', KEYS[2], ARGV[3])
redis.call('ZADD', KEYS[3], ARGV[3], ARGV[1])
-- Only on a session hash that exists: a write to an expired one would leave it without a TTL.
if redis.call('HEXISTS', KEYS[4], 'app_id') == 1 then
  local ids = redis.call('HGET', KEYS[4], 'recording_ids')
  redis.call('HSET', KEYS[4], 'recording_ids', ids and (ids .. ',' .. ARGV[2]) or ARGV[2])
end
return 1
