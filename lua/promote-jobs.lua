--[[
  promote-jobs: delayed -> waiting now for the given jobs (run a delayed job
  now), ahead of their due time. A job no longer delayed is skipped.

  KEYS[1..17] queue keys (includes/queue)

  ARGV[1..3] channels and queue name (includes/queue)
  ARGV[4..] job ids

  Returns how many jobs moved.
  Publishes: sched 'w:<queue>' when a worker is idle.
]]
--- @include "includes/now"
--- @include "includes/queue"
--- @include "includes/place"
--- @include "includes/wake"

local Q = spool_queue()
local now = spool_now()
local moved, claimable = 0, 0
for i = 4, #ARGV do
  local id = ARGV[i]
  local jobKey = Q.jobPrefix .. id
  local f = redis.call('HMGET', jobKey, 'state', 'priority', 'lifo')
  if f[1] == 'delayed' and redis.call('ZREM', Q.delayed, id) == 1 then
    redis.call('HSET', jobKey, 'runAt', now)
    if spool_place(Q, jobKey, id, spool_wait_score(Q, tonumber(f[2]) or 0, f[3] == '1')) then
      claimable = claimable + 1
    end
    moved = moved + 1
  end
end
spool_wake(Q, claimable)
return moved
