--[[
  Marks a recording stopped: its final metadata, and its retention counted from now (the stop),
  on the hash, on the session's latest-recording pointer when it still names this recording,
  and in the expiry set the sweeper reads.

  KEYS[1] recording: recording hash
  KEYS[2] latest: session's latest-recording pointer
  KEYS[3] expiry: expiry zset

  ARGV[1] member: expiry member (`<session id>/<recording id>`)
  ARGV[2] recordingId: recording id
  ARGV[3] expiresAt: expires_at (epoch ms)
  ARGV[4..] fields: field, value pairs

  Returns 1, or 0 when the recording is unknown (already expired or swept).
]]

if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV, 4))
redis.call('PEXPIREAT', KEYS[1], ARGV[3])
if redis.call('GET', KEYS[2]) == ARGV[2] then
  redis.call('PEXPIREAT', KEYS[2], ARGV[3])
end
redis.call('ZADD', KEYS[3], ARGV[3], ARGV[1])
return 1
