--[[
  A room playback control (play, pause, stop, volume) in one round trip: rate limits, ownership,
  the per-room cooldown, the playback state change and the command for the host media node.

  KEYS[1] ipWindow: rate window: app + client IP, 1 s
  KEYS[2] appWindow: rate window: app, 60 s
  KEYS[3] room: room hash
  KEYS[4] cooldown: cooldown marker of the control's group
  KEYS[5] commandStream: the host node's command stream
  KEYS[6] events: the event ingest stream

  ARGV[1] appId: app id
  ARGV[2] ipLimit: ip limit
  ARGV[3] ipWindowMs: ip window ms
  ARGV[4] appLimit: app limit
  ARGV[5] appWindowMs: app window ms
  ARGV[6] control: play | pause | stop | volume
  ARGV[7] cooldownMs: cooldown ms
  ARGV[8] command: room command message (JSON)
  ARGV[9] operationId: operation id
  ARGV[10] value: play: urls JSON; volume: the volume; else unused
  ARGV[11..14] event: the control's conference.play.* event, appended with the change (see
               eventArgs in shared/src/events)

  Returns {0, playback_status} accepted and enqueued; {RATE_LIMITED, retry_ms};
  {ROOM_NOT_FOUND}; {ROOM_OF_ANOTHER_APP}; {COOLDOWN, retry_ms}.
]]
--- @include "scriptCodes"
--- @include "fixedWindow"

local wait = fixedWindow(KEYS[1], tonumber(ARGV[2]), tonumber(ARGV[3]))
if wait == 0 then wait = fixedWindow(KEYS[2], tonumber(ARGV[4]), tonumber(ARGV[5])) end
if wait > 0 then return {ScriptCode.RATE_LIMITED, wait} end

local room = redis.call('HMGET', KEYS[3], 'app_id', 'playback_status')
if not room[1] then return {ScriptCode.ROOM_NOT_FOUND} end
if room[1] ~= ARGV[1] then return {ScriptCode.ROOM_OF_ANOTHER_APP} end

if not redis.call('SET', KEYS[4], '1', 'PX', tonumber(ARGV[7]), 'NX') then
  return {ScriptCode.COOLDOWN, redis.call('PTTL', KEYS[4])}
end

-- Redis does not roll a script back on error: the XADDs, the only writes that can fail (a stream
-- key of the wrong type), go before the state change, so a failed control changes nothing.
redis.call('XADD', KEYS[6], '*', ARGV[11], ARGV[12], ARGV[13], ARGV[14])
redis.call('XADD', KEYS[5], '*', 'c', ARGV[8])

local control = ARGV[6]
local status = room[2] or 'stopped'
if control == 'play' then
  status = 'playing'
  redis.call('HSET', KEYS[3], 'playback_status', status, 'playback_urls', ARGV[10],
    'playback_operation_id', ARGV[9])
elseif control == 'pause' then
  -- Toggles; with nothing playing there is nothing to pause and the state stays stopped.
  if status == 'playing' then status = 'paused' elseif status == 'paused' then status = 'playing' end
  redis.call('HSET', KEYS[3], 'playback_status', status)
elseif control == 'stop' then
  status = 'stopped'
  redis.call('HSET', KEYS[3], 'playback_status', status, 'playback_urls', '[]',
    'playback_operation_id', '')
elseif control == 'volume' then
  redis.call('HSET', KEYS[3], 'playback_volume', ARGV[10])
end
return {0, status}
