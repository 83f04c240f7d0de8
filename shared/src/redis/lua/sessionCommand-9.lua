--[[
  The hot path of a session command, in one round trip: rate limits, ownership, node liveness,
  idempotency, conference state rules, cooldown, claim, state change and XADD to the owning
  node's command stream.

  KEYS[1] rate window: app + client IP, 1 s     KEYS[2] rate window: app, 60 s
  KEYS[3] session hash                          KEYS[4] owning node's heartbeat
  KEYS[5] command_uid claim                     KEYS[6] cooldown marker of the command's group
  KEYS[7] owning node's command stream          KEYS[8] room hash (conference/join; else unused)
  KEYS[9] room members zset (conference/join; else unused)

  ARGV[1] app id          ARGV[2] ip limit     ARGV[3] ip window ms
  ARGV[4] app limit       ARGV[5] app window ms
  ARGV[6] command name    ARGV[7] cooldown ms (0 = none)
  ARGV[8] claim ttl ms, 0 when the api generated the command_uid (nobody can repeat it, so
          nothing is claimed or remembered)
  ARGV[9] 202 body JSON (non-conference commands)
  ARGV[10] stream message JSON    ARGV[11] room id (conference/join)    ARGV[12] session id

  Returns {code, value}:
    {0, body}  accepted and enqueued          {1, body}  repeated command_uid: original body
    {2, body}  answered without enqueueing (already joined / still joining the same room)
    {-1, retry_ms} rate limited     {-2} session not found      {-3} session of another app
    {-4} command cooldown           {-5} room not found         {-6} room of another app
    {-7} in a different room        {-8} not in a conference    {-9} still joining
    {-10} already muted             {-11} already unmuted       {-12} still leaving
]]
--- @include "fixedWindow"

local appId = ARGV[1]
local command = ARGV[6]

local wait = fixedWindow(KEYS[1], tonumber(ARGV[2]), tonumber(ARGV[3]))
if wait == 0 then wait = fixedWindow(KEYS[2], tonumber(ARGV[4]), tonumber(ARGV[5])) end
if wait > 0 then return {-1, wait} end

local s = redis.call('HMGET', KEYS[3], 'app_id', 'conf_room', 'conf_state', 'conf_muted', 'ended_at')
if not s[1] then return {-2} end
if s[1] ~= appId then return {-3} end
-- An ended session lingers a while for the dial status lookup; commands no longer reach it.
if s[5] then return {-2} end
if redis.call('EXISTS', KEYS[4]) == 0 then return {-2} end

local claimTtl = tonumber(ARGV[8])
if claimTtl > 0 then
  local previous = redis.call('GET', KEYS[5])
  if previous then return {1, previous} end
end

local room, state, muted = s[2] or '', s[3] or 'none', s[4] == '1'
local body = ARGV[9]
local change = nil

local function membership(status)
  return cjson.encode({status = status, room_id = room})
end

if command == 'conference/join' then
  local target = ARGV[11]
  if state ~= 'none' then
    if room ~= target then return {-7} end
    if state == 'joined' then return {2, cjson.encode({status = 'already_joined', room_id = room})} end
    if state == 'joining' then return {2, membership('joining')} end
    return {-12}
  end
  local owner = redis.call('HGET', KEYS[8], 'app_id')
  if not owner then return {-5} end
  if owner ~= appId then return {-6} end
  room = target
  body = membership('joining')
  change = {'conf_state', 'joining', 'conf_room', target, 'conf_muted', '1', 'conf_member_id', ''}
elseif command == 'conference/leave' or command == 'conference/mute' or command == 'conference/unmute' then
  if state == 'none' then return {-8} end
  if state == 'joining' then return {-9} end
  if state == 'leaving' then return {-12} end
  if command == 'conference/leave' then
    body = membership('leaving')
    change = {'conf_state', 'leaving'}
  elseif command == 'conference/mute' then
    if muted then return {-10} end
    body = membership('muted')
    change = {'conf_muted', '1'}
  else
    if not muted then return {-11} end
    body = membership('unmuted')
    change = {'conf_muted', '0'}
  end
end

local cooldown = tonumber(ARGV[7])
if cooldown > 0 and not redis.call('SET', KEYS[6], '1', 'PX', cooldown, 'NX') then return {-4} end

if claimTtl > 0 then redis.call('SET', KEYS[5], body, 'PX', claimTtl) end
if change then redis.call('HSET', KEYS[3], unpack(change)) end
if command == 'conference/join' then
  -- A per-room sequence, not the clock: members list in exact join order, even within one ms.
  redis.call('ZADD', KEYS[9], 'NX', redis.call('HINCRBY', KEYS[8], 'join_seq', 1), ARGV[12])
end
redis.call('XADD', KEYS[7], '*', 'c', ARGV[10])
return {0, body}
