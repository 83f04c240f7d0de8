--[[
  Marks a room's playback stopped when the operation that started it has finished playing, unless
  a later play (another operation id) has taken over meanwhile.

  KEYS[1] room: room hash
  ARGV[1] operationId: operation id of the finished playback

  Returns 1 when the room was marked stopped, 0 otherwise.
]]

if redis.call('HGET', KEYS[1], 'playback_operation_id') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'playback_status', 'stopped', 'playback_urls', '[]',
  'playback_operation_id', '')
return 1
