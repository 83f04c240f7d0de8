--[[
  Forgets an expired recording once its file is deleted: its metadata hash, the session's
  latest-recording pointer if it still names it, and its expiry entry. Only when it is due, so
  a sweep that read the set earlier cannot remove a recording whose expiry moved.

  KEYS[1] expiry: expiry zset
  KEYS[2] recording: recording hash
  KEYS[3] latest: session's latest-recording pointer

  ARGV[1] member: expiry member (`<session id>/<recording id>`)
  ARGV[2] recordingId: recording id
  ARGV[3] now: now (epoch ms)

  Returns 1 when forgotten, 0 when not due (or already gone).
]]

local due = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not due or tonumber(due) > tonumber(ARGV[3]) then return 0 end
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('DEL', KEYS[2])
if redis.call('GET', KEYS[3]) == ARGV[2] then redis.call('DEL', KEYS[3]) end
return 1
