--[[
  throttle: the handler reported that a downstream service rate-limits it
  (RateLimitedError with a retry-after). The job goes back to delayed for
  that long without spending the attempt, and the whole queue starts nothing
  new until then (meta lu): every worker sees it at its next claim.
  With ARGV[7] '0' only the job waits (DelayedError: the handler asked to
  run the job again later, a step job waiting for something).

  KEYS[1..17] queue keys (includes/queue)
  KEYS[18] job        the job hash

  ARGV[1..3] channels and queue name (includes/queue)
  ARGV[4] job id
  ARGV[5] lease token
  ARGV[6] retry after, ms
  ARGV[7] whole queue: '1' the queue waits too (meta lu), '0' only this job

  Returns {code, state, runAt}: 1 delayed (or 'cancelled' when a cancel was
  pending), 2 already done by this token (a retried call), -1 lease lost.
  Publishes: sched 'd:<ms>:<queue>' when it is the earliest delayed job.
  Events: delayed, or cancelled.
]]
--- @include "includes/now"
--- @include "includes/queue"
--- @include "includes/wake"
--- @include "includes/finish"
--- @include "includes/events"

local Q = spool_queue()
local jobKey, id, token = KEYS[18], ARGV[4], ARGV[5]
local fields = redis.call('HMGET', jobKey, 'token', 'ft', 'cancel', 'state')
if not spool_holds(fields[1], token) then
  -- This token finished the attempt already (includes/finish: spent in place, or ft before that).
  if fields[1] == token .. SPOOL_SPENT or fields[2] == token then
    return {2, fields[4], 0}
  end
  return {-1, '', 0}
end

local now = spool_now()
spool_leave_active(Q, jobKey, id, true)
if fields[3] then
  spool_cancelled(Q, jobKey, id, now)
  return {1, 'cancelled', 0}
end
local after = tonumber(ARGV[6])
local runAt = now + after
redis.call('HINCRBY', jobKey, 'attempt', -1)
redis.call('HSET', jobKey, 'state', 'delayed', 'runAt', runAt)
redis.call('ZADD', Q.delayed, runAt, id)
spool_event(Q, 'delayed', 'jobId', id, 'delay', after, 'runAt', runAt)
if ARGV[7] ~= '0' then
  local until_ = tonumber(redis.call('HGET', Q.meta, 'lu')) or 0
  if runAt > until_ then
    redis.call('HSET', Q.meta, 'lu', runAt)
  end
end
spool_announce_delayed(Q, id, after)
return {1, 'delayed', runAt}
