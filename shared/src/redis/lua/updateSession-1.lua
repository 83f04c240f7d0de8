--[[
  Sets fields of a live session (dial status, conference state...) without resurrecting one that
  ended or expired: a write after teardown would otherwise leave a partial hash with no TTL.

  KEYS[1] session: session hash
  ARGV[1..] fields: field, value pairs

  Returns 1 when written, 0 when the session is gone or has ended.
]]

if redis.call('HEXISTS', KEYS[1], 'app_id') == 0 or redis.call('HEXISTS', KEYS[1], 'ended_at') == 1 then
  return 0
end
redis.call('HSET', KEYS[1], unpack(ARGV))
return 1
