--[[
  update-data: the lease holder replaces the payload of the job it runs, so
  a later attempt (a retry, a redelivery after a crash) starts from what the
  handler wrote (step jobs: the step reached, a cursor). A stale holder
  (its lease was reaped or the job re-claimed) writes nothing.

  KEYS[1] job         the job hash

  ARGV[1] lease token
  ARGV[2] data (JSON)

  Returns 1 written, -1 lease lost.
]]
--- @include "includes/lease"

if not spool_holds(redis.call('HGET', KEYS[1], 'token'), ARGV[1]) then
  return -1
end
redis.call('HSET', KEYS[1], 'data', ARGV[2])
return 1
