--[[
  remove-job: job.remove(): deletes a job that is not running, with its
  logs and flow bookkeeping: a waiting or delayed job leaves its place (its
  group's or paused name's set, the fifo list, the delayed index), a
  finished one its state's index (as remove.lua). Refused for an active job
  (its worker holds it: cancel it), a flow parent waiting for its children,
  a parent whose children are still pending (they would report to nothing),
  and a flow child that has not finished (its parent would wait forever:
  cancel it, and the parent hears).

  KEYS[1..17] queue keys (includes/queue)
  KEYS[18] job    the job hash
  KEYS[19] deps   children the job waits for (set)

  ARGV[1..3] channels and queue name (includes/queue)
  ARGV[4] job id

  Returns {code, state, pending}: 1 removed, 2 refused in this state,
  3 children pending (count), 4 a flow child not finished, 0 unknown job.
  Events: removed.
]]
--- @include "includes/now"
--- @include "includes/queue"
--- @include "includes/place"
--- @include "includes/finish"
--- @include "includes/events"

local Q = spool_queue()
local jobKey, deps, id = KEYS[18], KEYS[19], ARGV[4]
local f = redis.call('HMGET', jobKey, 'state', 'pq')
local state = f[1]
if not state then
  return {0, '', 0}
end
local finished = ({ completed = Q.completed, failed = Q.failed, cancelled = Q.cancelled })[state]
if not finished and state ~= 'waiting' and state ~= 'delayed' then
  return {2, state, 0}
end
local pending = redis.call('SCARD', deps)
if pending > 0 then
  return {3, state, pending}
end
if not finished and f[2] then
  return {4, state, 0}
end
if state == 'waiting' then
  spool_unplace(Q, jobKey, id)
elseif state == 'delayed' then
  redis.call('ZREM', Q.delayed, id)
else
  redis.call('ZREM', finished, id)
end
spool_release_dedup(jobKey, id)
spool_drop_jobs(Q, { id }, state == 'failed')
spool_event(Q, 'removed', 'jobId', id, 'state', state)
return {1, state, 0}
