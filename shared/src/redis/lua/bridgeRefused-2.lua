--[[
  A bridge or transfer that never connected (FreeSWITCH refused the bridge, a party went before
  it was up, the transfer's new leg was not answered): clears both parties' bridge fields, each
  only while it names the other in a bridge not yet confirmed (`bridging`, `transferring`). No
  event: neither had call.bridged, and the command's failed command.result says what happened.

  KEYS[1] session: the commanded session's hash
  KEYS[2] peerSession: the other party's hash (a transfer's new leg)

  ARGV[1] sessionId: the commanded session's id
  ARGV[2] peer: the other party's id

  Returns how many of the two sides were cleared.
]]

local cleared = 0
for i, other in ipairs({ARGV[2], ARGV[1]}) do
  local s = redis.call('HMGET', KEYS[i], 'bridge_peer', 'bridge_state')
  if s[1] == other and (s[2] == 'bridging' or s[2] == 'transferring') then
    redis.call('HDEL', KEYS[i], 'bridge_peer', 'bridge_state', 'bridge_uid')
    cleared = cleared + 1
  end
end
return cleared
