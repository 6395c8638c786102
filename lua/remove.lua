--[[
  remove: deletes a finished job (completed, failed or cancelled) with its
  logs and flow bookkeeping. Refused for a job that is not finished (cancel
  it first) and for a parent whose children are still pending (they would
  report to nothing). A notification the job left for its own parent stays
  in the outbox: the parent still gets it.

  KEYS[1..17] queue keys (includes/queue)
  KEYS[18] job    the job hash
  KEYS[19] deps   children the job waits for (set)

  ARGV[1..3] channels and queue name (includes/queue)
  ARGV[4] job id

  Returns {code, state, pending}: 1 removed, 2 not finished, 3 children pending (count), 0 unknown job.
  Events: removed.
]]
--- @include "includes/now"
--- @include "includes/queue"
--- @include "includes/finish"
--- @include "includes/events"

local Q = spool_queue()
local jobKey, deps, id = KEYS[18], KEYS[19], ARGV[4]
local state = redis.call('HGET', jobKey, 'state')
if not state then
  return {0, '', 0}
end
local index = ({ completed = Q.completed, failed = Q.failed, cancelled = Q.cancelled })[state]
if not index then
  return {2, state, 0}
end
local pending = redis.call('SCARD', deps)
if pending > 0 then
  return {3, state, pending}
end
redis.call('ZREM', index, id)
spool_release_dedup(jobKey, id)
spool_drop_jobs(Q, { id }, state == 'failed')
spool_event(Q, 'removed', 'jobId', id, 'state', state)
return {1, state, 0}
