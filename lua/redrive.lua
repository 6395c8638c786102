--[[
  redrive: failed -> waiting for a dead letter: attempts and stalls reset,
  the error forgotten. A parent that still has pending children goes back
  to waiting-children instead. A flow child tells its parent (outbox,
  includes/flow), so a parent dead-lettered by this child can resume.

  KEYS[1..17] queue keys (includes/queue)
  KEYS[18] job              the job hash
  KEYS[19] deps             children the job waits for (set)
  KEYS[20] waitingChildren  the queue's waiting-children index

  ARGV[1..3] channels and queue name (includes/queue)
  ARGV[4] job id

  Returns {code, state}: 1 re-driven (new state), 2 not failed (its state), 0 unknown job.
  Publishes: sched 'w:<queue>' when a worker is idle.
]]
--- @include "includes/now"
--- @include "includes/queue"
--- @include "includes/place"
--- @include "includes/wake"
--- @include "includes/flow"

local Q = spool_queue()
local jobKey, deps, wc, id = KEYS[18], KEYS[19], KEYS[20], ARGV[4]
local f = redis.call('HMGET', jobKey, 'state', 'priority', 'lifo')
if not f[1] then
  return {0, ''}
end
if f[1] ~= 'failed' then
  return {2, f[1]}
end
local now = spool_now()
redis.call('ZREM', Q.failed, id)
redis.call('HDEL', jobKey, 'finishedAt', 'error', 'stack', 'code', 'reason', 'ft')
redis.call('HSET', jobKey, 'attempt', 0, 'stalled', 0, 'runAt', now)
local state = 'waiting'
if redis.call('SCARD', deps) > 0 then
  state = 'waiting-children'
  redis.call('HSET', jobKey, 'state', state)
  redis.call('ZADD', wc, now, id)
elseif spool_place(Q, jobKey, id, spool_wait_score(Q, tonumber(f[2]) or 0, f[3] == '1')) then
  spool_wake(Q, 1)
end
spool_post_parent(Q, jobKey, id, 'redriven')
return {1, state}
