--[[
  change-delay: job.changeDelay(ms): a delayed job becomes due `ms` from
  now (0: waiting now, as promote-job); a waiting job is taken out of its
  place and delayed by `ms` (0 leaves it waiting). When it becomes due it
  takes a new place in its priority, as any delayed job does.

  KEYS[1..17] queue keys (includes/queue)
  KEYS[18] job    the job hash

  ARGV[1..3] channels and queue name (includes/queue)
  ARGV[4] job id
  ARGV[5] delay ms (0 or more)

  Returns {code, state}: 1 changed (the new state), 2 neither waiting nor delayed (its state), 0 unknown job.
  Publishes: sched 'd:<ms>:<queue>' when the job became the earliest delayed one,
  'w:<queue>' when it became waiting and a worker is idle.
  Events: delayed (with delay and runAt) for a delay above 0.
]]
--- @include "includes/now"
--- @include "includes/queue"
--- @include "includes/place"
--- @include "includes/wake"
--- @include "includes/events"

local Q = spool_queue()
local jobKey, id, delay = KEYS[18], ARGV[4], tonumber(ARGV[5])
local f = redis.call('HMGET', jobKey, 'state', 'priority', 'lifo')
local state = f[1]
if not state then
  return {0, ''}
end
if state ~= 'waiting' and state ~= 'delayed' then
  return {2, state}
end
local now = spool_now()
if delay == 0 then
  if state == 'delayed' then
    redis.call('ZREM', Q.delayed, id)
    redis.call('HSET', jobKey, 'runAt', now)
    if spool_place(Q, jobKey, id, spool_wait_score(Q, tonumber(f[2]) or 0, f[3] == '1')) then
      spool_wake(Q, 1)
    end
      end
  return {1, 'waiting'}
end
if state == 'waiting' then
  spool_unplace(Q, jobKey, id)
  -- Its waiting place is given up: the promotion draws a new one.
  redis.call('HDEL', jobKey, 'ws')
end
redis.call('HSET', jobKey, 'state', 'delayed', 'runAt', now + delay)
redis.call('ZADD', Q.delayed, now + delay, id)
spool_event(Q, 'delayed', 'jobId', id, 'delay', delay, 'runAt', now + delay)
spool_announce_delayed(Q, id, delay)
return {1, 'delayed'}
