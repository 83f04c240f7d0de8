--[[
  Ends a session exactly once, cluster-wide: marks the session hash ended, takes the session off
  its node's live set and appends its call.hangup to the event stream, all or nothing. The media
  node (real hangup) and the orphan sweeper (synthetic hangup) both end sessions through this
  script, so whichever comes second finds `ended_at` set and publishes nothing.

  KEYS[1] session hash    KEYS[2] owning node's live-session set    KEYS[3] event stream

  ARGV[1] session id      ARGV[2] event stream field of the app id  ARGV[3] app id
  ARGV[4] event stream field of the body                            ARGV[5] call.hangup JSON
  ARGV[6] ended_at (epoch ms)    ARGV[7] end reason (hangup | orphaned)
  ARGV[8] ms the ended hash stays readable (0 = delete at once)
  ARGV[9] '1' = publish only if the session hash exists (the sweeper), '0' = always (the owner)

  Returns 1 when the event was appended, 0 when the session had already ended (or was unknown).
]]

if redis.call('HEXISTS', KEYS[1], 'ended_at') == 1 then
  redis.call('SREM', KEYS[2], ARGV[1])
  return 0
end
local exists = redis.call('EXISTS', KEYS[1]) == 1
if not exists and ARGV[9] == '1' then
  redis.call('SREM', KEYS[2], ARGV[1])
  return 0
end

redis.call('XADD', KEYS[3], '*', ARGV[2], ARGV[3], ARGV[4], ARGV[5])
redis.call('SREM', KEYS[2], ARGV[1])
if exists then
  local grace = tonumber(ARGV[8])
  if grace > 0 then
    redis.call('HSET', KEYS[1], 'ended_at', ARGV[6], 'end_reason', ARGV[7])
    if redis.call('HEXISTS', KEYS[1], 'dial_status') == 1 then
      redis.call('HSET', KEYS[1], 'dial_status', 'ended')
    end
    redis.call('PEXPIRE', KEYS[1], grace)
  else
    redis.call('DEL', KEYS[1])
  end
end
return 1
