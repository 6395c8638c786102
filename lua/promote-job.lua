--[[
  promote-job: job.promote(): one delayed job -> waiting now, ahead of its
  due time (promote-jobs does the same for many, skipping the others; this
  one says why it did not move).

  KEYS[1..17] queue keys (includes/queue)
  KEYS[18] job    the job hash

  ARGV[1..3] channels and queue name (includes/queue)
  ARGV[4] job id

  Returns {code, state}: 1 promoted (state waiting), 2 not delayed (its state), 0 unknown job.
  Publishes: sched 'w:<queue>' when a worker is idle.
]]
--- @include "includes/now"
--- @include "includes/queue"
--- @include "includes/place"
--- @include "includes/wake"

local Q = spool_queue()
local jobKey, id = KEYS[18], ARGV[4]
local f = redis.call('HMGET', jobKey, 'state', 'priority', 'lifo')
if not f[1] then
  return {0, ''}
end
if f[1] ~= 'delayed' then
  return {2, f[1]}
end
redis.call('ZREM', Q.delayed, id)
redis.call('HSET', jobKey, 'runAt', spool_now())
if spool_place(Q, jobKey, id, spool_wait_score(Q, tonumber(f[2]) or 0, f[3] == '1')) then
  spool_wake(Q, 1)
end
return {1, 'waiting'}
