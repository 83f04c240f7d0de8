--[[
  A party of a bridge is connected: FreeSWITCH reported its CHANNEL_BRIDGE. Marks its side
  `bridged` and appends its call.bridged, in one step, only while its fields still name that
  peer in a bridge not yet confirmed (`bridging`, or `transferring` for a transfer's two
  parties): a bridge refused, ended or taken over meanwhile gets no call.bridged, and a repeat
  (a claimed command run twice, a restarted node) gets no second one.

  KEYS[1] session: the party's session hash
  KEYS[2] events: event stream

  ARGV[1] peer: the other session's id
  ARGV[2..5] event: call.bridged (see eventArgs in shared/src/events): event stream field of the
             app id, app id, event stream field of the body, event JSON

  Returns 1 when the event was appended, 0 otherwise.
]]

local s = redis.call('HMGET', KEYS[1], 'bridge_peer', 'bridge_state', 'ended_at')
if s[1] ~= ARGV[1] or s[3] or (s[2] ~= 'bridging' and s[2] ~= 'transferring') then return 0 end
redis.call('XADD', KEYS[2], '*', ARGV[2], ARGV[3], ARGV[4], ARGV[5])
redis.call('HSET', KEYS[1], 'bridge_state', 'bridged')
return 1
