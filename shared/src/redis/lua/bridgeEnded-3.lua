--[[
  A party has left its bridge: its CHANNEL_UNBRIDGE, its own hangup (a node's teardown, or the
  sweeper's for a node that died), or its peer gone. Clears its bridge fields and appends its
  call.unbridged, in one step, only while the fields still name that peer: whichever of the
  node's triggers (and the sweeper) comes first publishes, so a session has exactly one
  call.unbridged per bridge, before its call.hangup. A bridge never confirmed (`bridging`,
  `transferring`) is cleared without an event: the party had no call.bridged. The fields are
  deleted, never written, so the hash of a session that expired is not brought back.

  The reason is the state found: `unbridging` (an unbridge was accepted) → unbridged; the party
  itself hanging up → hangup; its peer gone (the node saw the peer's channel go, or the peer's
  session ended) → peer_hangup; otherwise error (the connection between the two failed, both
  calls up).

  KEYS[1] session: the party's session hash
  KEYS[2] peerSession: the peer's session hash
  KEYS[3] events: event stream

  ARGV[1] peer: the peer's session id
  ARGV[2] selfEnded: '1' when the party itself hung up
  ARGV[3] peerGone: '1' when the node saw the peer's channel hang up
  ARGV[4..7] unbridged: call.unbridged with reason `unbridged` (see eventArgs in
             shared/src/events): event stream field of the app id, app id, event stream field
             of the body, event JSON
  ARGV[8..11] hangup: the same event with reason `hangup`
  ARGV[12..15] peerHangup: the same event with reason `peer_hangup`
  ARGV[16..19] error: the same event with reason `error`

  Returns the reason published, 'cleared' for a bridge never confirmed, or false when the
  fields named no bridge with that peer.
]]

local s = redis.call('HMGET', KEYS[1], 'bridge_peer', 'bridge_state')
if s[1] ~= ARGV[1] then return false end
local state = s[2]
if state ~= 'bridged' and state ~= 'unbridging' then
  redis.call('HDEL', KEYS[1], 'bridge_peer', 'bridge_state', 'bridge_uid')
  return 'cleared'
end

local reason, at
if state == 'unbridging' then
  reason, at = 'unbridged', 4
elseif ARGV[2] == '1' then
  reason, at = 'hangup', 8
elseif ARGV[3] == '1' or redis.call('HEXISTS', KEYS[2], 'ended_at') == 1 then
  reason, at = 'peer_hangup', 12
else
  reason, at = 'error', 16
end
redis.call('XADD', KEYS[3], '*', ARGV[at], ARGV[at + 1], ARGV[at + 2], ARGV[at + 3])
redis.call('HDEL', KEYS[1], 'bridge_peer', 'bridge_state', 'bridge_uid')
return reason
