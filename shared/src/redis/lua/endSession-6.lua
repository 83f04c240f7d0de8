--[[
  Ends a session exactly once, cluster-wide: marks the session hash ended (with its hangup cause
  and duration), takes the session off its node's live set and its app's index of live sessions,
  files it in the app's index of ended sessions for as long as its record stays readable, and
  appends its call.hangup to the event stream, all or nothing. The media node (real hangup) and
  the orphan sweeper (synthetic hangup) both end sessions through this script, so whichever comes
  second finds `ended_at` set and publishes nothing.

  KEYS[1] session: session hash
  KEYS[2] nodeSessions: owning node's live-session set
  KEYS[3] events: event stream
  KEYS[4] liveSessions: app's live sessions of this direction (zset by created_at)
  KEYS[5] endedSessions: app's ended sessions of this direction (zset by created_at)
  KEYS[6] endedExpiry: app's ended sessions of this direction → epoch ms their record expires
          (zset)

  ARGV[1] sessionId: session id
  ARGV[2..5] event: call.hangup (see eventArgs in shared/src/events): event stream field of the
             app id, app id, event stream field of the body, call.hangup JSON
  ARGV[6] endedAt: ended_at (epoch ms)
  ARGV[7] reason: end reason (hangup | orphaned)
  ARGV[8] graceMs: ms the ended hash stays readable (0 = delete at once)
  ARGV[9] onlyIfExists: '1' = publish only if the session hash exists (the sweeper), '0' =
          always (the owner)
  ARGV[10] hangupCause: hangup_cause
  ARGV[11] durationSeconds: duration_seconds

  Returns 1 when the event was appended, 0 when the session had already ended (or was unknown).
]]

if redis.call('HEXISTS', KEYS[1], 'ended_at') == 1 then
  redis.call('SREM', KEYS[2], ARGV[1])
  return 0
end
local exists = redis.call('EXISTS', KEYS[1]) == 1
if not exists and ARGV[9] == '1' then
  redis.call('SREM', KEYS[2], ARGV[1])
  redis.call('ZREM', KEYS[4], ARGV[1])
  return 0
end

redis.call('XADD', KEYS[3], '*', ARGV[2], ARGV[3], ARGV[4], ARGV[5])
redis.call('SREM', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[4], ARGV[1])
if exists then
  local grace = tonumber(ARGV[8])
  if grace > 0 then
    redis.call('HSET', KEYS[1], 'ended_at', ARGV[6], 'end_reason', ARGV[7],
      'hangup_cause', ARGV[10], 'duration_seconds', ARGV[11])
    if redis.call('HEXISTS', KEYS[1], 'dial_status') == 1 then
      redis.call('HSET', KEYS[1], 'dial_status', 'ended')
    end
    redis.call('PEXPIRE', KEYS[1], grace)
    local now = tonumber(ARGV[6])
    redis.call('ZADD', KEYS[5], redis.call('HGET', KEYS[1], 'created_at') or now, ARGV[1])
    redis.call('ZADD', KEYS[6], now + grace, ARGV[1])
    -- The index forgets sessions whose records have expired, a bounded batch at a time; the
    -- newest entry expires last, so both sets can expire with it if no session ends after it.
    local gone = redis.call('ZRANGE', KEYS[6], '-inf', now, 'BYSCORE', 'LIMIT', 0, 100)
    if #gone > 0 then
      redis.call('ZREM', KEYS[5], unpack(gone))
      redis.call('ZREM', KEYS[6], unpack(gone))
    end
    for i = 5, 6 do
      local ttl = redis.call('PTTL', KEYS[i])
      if ttl >= 0 and ttl < grace or ttl == -1 then redis.call('PEXPIRE', KEYS[i], grace) end
    end
  else
    redis.call('DEL', KEYS[1])
  end
end
return 1
