--[[
  Applies a conference membership change FreeSWITCH confirmed (or refused) to the session hash
  and the room's member set, but only while the session is still about that room: a late event
  of an old room must not undo a newer join.

  KEYS[1] session: session hash
  KEYS[2] roomMembers: room members zset

  ARGV[1] change: joined | left | muted | unmuted | join_failed | restore_joined
  ARGV[2] roomId: room id
  ARGV[3] sessionId: session id
  ARGV[4] memberId: member id (joined)

  Returns 1 when the session was changed, 0 when it was about another room (or gone).
    joined          conf_state joining → joined, conf_member_id set
    left            conf_state none (conf_* reset); the session leaves the member set
    join_failed     as left, for a join FreeSWITCH refused
    muted/unmuted   conf_muted 1/0 (also restores a mute or unmute FreeSWITCH refused)
    restore_joined  conf_state back to joined (a leave FreeSWITCH refused)
]]

local change, room = ARGV[1], ARGV[2]
if change == 'left' or change == 'join_failed' then
  redis.call('ZREM', KEYS[2], ARGV[3])
end
if redis.call('HGET', KEYS[1], 'conf_room') ~= room then return 0 end
if redis.call('HEXISTS', KEYS[1], 'ended_at') == 1 then return 0 end

if change == 'joined' then
  redis.call('HSET', KEYS[1], 'conf_state', 'joined', 'conf_member_id', ARGV[4])
elseif change == 'left' or change == 'join_failed' then
  redis.call('HSET', KEYS[1], 'conf_state', 'none', 'conf_room', '', 'conf_member_id', '',
    'conf_muted', '0')
elseif change == 'muted' then
  redis.call('HSET', KEYS[1], 'conf_muted', '1')
elseif change == 'unmuted' then
  redis.call('HSET', KEYS[1], 'conf_muted', '0')
elseif change == 'restore_joined' then
  redis.call('HSET', KEYS[1], 'conf_state', 'joined')
end
return 1
