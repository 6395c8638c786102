--[[
  redrive: failed -> waiting for one dead letter (shared by redrive and
  redrive-bulk). With reset, attempts and stalls start again from 0; the
  error is forgotten either way. With delay > 0 the job goes to delayed.
  A parent that still has pending children goes back to waiting-children.
  A flow child tells its parent (outbox, includes/flow), so a parent
  dead-lettered by this child can resume.
]]
--- @include "includes/place"
--- @include "includes/wake"
--- @include "includes/flow"
--- @include "includes/dead"
--- @include "includes/events"

-- Returns code, state, parent: 1 re-driven (new state), 2 not failed (its state), 0 unknown job;
-- parent is 1 when the job reports to a flow parent (the caller delivers the outbox message).
local function spool_redrive(Q, jobKey, deps, wc, id, reset, delay, now)
  local f = redis.call('HMGET', jobKey, 'state', 'priority', 'lifo', 'pq')
  if not f[1] then
    return 0, '', 0
  end
  if f[1] ~= 'failed' then
    return 2, f[1], 0
  end
  redis.call('ZREM', Q.failed, id)
  spool_dead_unindex(Q, jobKey, id)
  redis.call('HDEL', jobKey, 'finishedAt', 'error', 'stack', 'code', 'reason', 'ft', 'token')
  if reset then
    redis.call('HSET', jobKey, 'attempt', 0, 'stalled', 0)
  end
  local state = 'waiting'
  if redis.call('SCARD', deps) > 0 then
    state = 'waiting-children'
    redis.call('HSET', jobKey, 'state', state, 'runAt', now)
    redis.call('ZADD', wc, now, id)
  elseif delay > 0 then
    state = 'delayed'
    redis.call('HSET', jobKey, 'state', state, 'runAt', now + delay)
    redis.call('ZADD', Q.delayed, now + delay, id)
    spool_announce_delayed(Q, id, delay)
  else
    redis.call('HSET', jobKey, 'runAt', now)
    if spool_place(Q, jobKey, id, spool_wait_score(Q, tonumber(f[2]) or 0, f[3] == '1')) then
      spool_wake(Q, 1)
    end
  end
  spool_event(Q, 'redriven', 'jobId', id, 'state', state)
  spool_post_parent(Q, jobKey, id, 'redriven')
  return 1, state, f[4] and 1 or 0
end
