--[[
  progress: the lease holder records progress on the job it runs. A stale
  holder (its lease was reaped or the job re-claimed) writes nothing.

  KEYS[1] job         the job hash

  ARGV[1] lease token
  ARGV[2] progress (JSON)

  Returns 1 written, -1 lease lost.
]]
if redis.call('HGET', KEYS[1], 'token') ~= ARGV[1] then
  return -1
end
redis.call('HSET', KEYS[1], 'progress', ARGV[2])
return 1
