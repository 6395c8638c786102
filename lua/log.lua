--[[
  log: the lease holder appends a line to its job's log, keeping the newest
  `keep` lines. A stale holder writes nothing.

  KEYS[1] job         the job hash
  KEYS[2] logs        the job's log list

  ARGV[1] lease token
  ARGV[2] line
  ARGV[3] keep (lines)

  Returns the number of lines kept, or -1 when the lease is lost.
]]
if redis.call('HGET', KEYS[1], 'token') ~= ARGV[1] then
  return -1
end
redis.call('RPUSH', KEYS[2], ARGV[2])
redis.call('LTRIM', KEYS[2], -tonumber(ARGV[3]), -1)
return redis.call('LLEN', KEYS[2])
