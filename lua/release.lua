--[[
  release: graceful shutdown hands an active job back to waiting, at the place
  it held, without counting the attempt. Only the current lease holder can.

  KEYS[1..17] queue keys (includes/queue)
  KEYS[18] job        the job hash

  ARGV[1..3] channels and queue name (includes/queue)
  ARGV[4] job id
  ARGV[5] lease token

  Returns 1 released, 2 finished as cancelled, -1 lease lost (nothing written).
  Publishes: sched 'w:<queue>' when a worker is idle.
  Events: cancelled, when a cancel request was pending.
]]
--- @include "includes/now"
--- @include "includes/queue"
--- @include "includes/place"
--- @include "includes/finish"
--- @include "includes/wake"

local Q = spool_queue()
local jobKey, id, token = KEYS[18], ARGV[4], ARGV[5]
local fields = redis.call('HMGET', jobKey, 'token', 'cancel', 'ws')
if not spool_holds(fields[1], token) then
  return -1
end
spool_leave_active(Q, jobKey, id, false)
redis.call('HINCRBY', jobKey, 'attempt', -1)
if fields[2] then
  spool_cancelled(Q, jobKey, id, spool_now())
  return 2
end
if spool_place(Q, jobKey, id, tonumber(fields[3])) then
  spool_wake(Q, 1)
end
return 1
