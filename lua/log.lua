--[[
  log: the lease holder appends a line to its job's log, keeping the newest
  `keep` lines. A stale holder writes nothing.

  KEYS[1] job         the job hash
  KEYS[2] logs        the job's log list
  KEYS[3] meta        the queue's meta hash (klog: a job of it has a log, includes/owned-keys)

  ARGV[1] lease token
  ARGV[2] line
  ARGV[3] keep (lines)

  Returns the number of lines kept, or -1 when the lease is lost.
]]
--- @include "includes/lease"

if not spool_holds(redis.call('HGET', KEYS[1], 'token'), ARGV[1]) then
  return -1
end
if redis.call('RPUSH', KEYS[2], ARGV[2]) == 1 then
  redis.call('HSET', KEYS[3], 'klog', '1')
end
redis.call('LTRIM', KEYS[2], -tonumber(ARGV[3]), -1)
return redis.call('LLEN', KEYS[2])
