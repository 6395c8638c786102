--[[
  fail: an attempt of the current lease holder failed. The job is retried
  (delayed by the backoff, or waiting when the delay is 0) or dead-lettered
  into failed. The caller decides retry vs dead-letter (it knows the error
  class, attempts and backoff); this script only refuses a retry that would
  start after the job's deadline.

  KEYS[1..17] queue keys (includes/queue)
  KEYS[18] job        the job hash

  ARGV[1..3] channels and queue name (includes/queue)
  ARGV[4] job id
  ARGV[5] lease token
  ARGV[6] retry delay ms (-1 = dead-letter now)
  ARGV[7] reason (kept with a dead letter: error, unrecoverable, timeout, ...)
  ARGV[8] error message
  ARGV[9] error stack
  ARGV[10] error code (class name or code)

  Returns {code, state, runAt}:
    1 moved to state ('delayed', 'waiting', 'failed' or 'cancelled')
    2 this token already finished the attempt (a retried call); state is the current one
   -1 lease lost: nothing was written
  Publishes: sched (wake / earliest delayed) when retried.
  Events: failed (next retry or dead), delayed (a retry with backoff), cancelled.
  Metrics: a failed attempt, and a retry or a dead letter (includes/metrics).
]]
--- @include "includes/now"
--- @include "includes/queue"
--- @include "includes/place"
--- @include "includes/wake"
--- @include "includes/finish"
--- @include "includes/events"
--- @include "includes/metrics"

local Q = spool_queue()
local jobKey, id, token = KEYS[18], ARGV[4], ARGV[5]
local fields = redis.call('HMGET', jobKey, 'token', 'ft', 'cancel', 'state', 'deadline', 'priority', 'lifo', 'name')
if not spool_holds(fields[1], token) then
  -- This token finished the attempt already (includes/finish: spent in place, or ft before that).
  if fields[1] == token .. SPOOL_SPENT or fields[2] == token then
    return {2, fields[4], 0}
  end
  return {-1, '', 0}
end

local now = spool_now()
spool_leave_active(Q, jobKey, id, true)
redis.call('HSET', jobKey, 'error', ARGV[8], 'stack', ARGV[9], 'code', ARGV[10])

if fields[3] then
  spool_cancelled(Q, jobKey, id, now)
  return {1, 'cancelled', 0}
end

local delay = tonumber(ARGV[6])
local deadline = tonumber(fields[5]) or 0
local reason = ARGV[7]
if delay >= 0 and deadline > 0 and now + delay > deadline then
  delay, reason = -1, 'deadline'
end
spool_metric_failed(Q, now, delay, fields[8])
if delay < 0 then
  spool_dead_letter(Q, jobKey, id, now, reason, ARGV[8], ARGV[9], ARGV[10])
  return {1, 'failed', 0}
end

spool_event(Q, 'failed', 'jobId', id, 'next', 'retry', 'reason', reason, 'message', spool_event_text(ARGV[8]), 'delay', delay)
if delay == 0 then
  redis.call('HSET', jobKey, 'runAt', now)
  if spool_place(Q, jobKey, id, spool_wait_score(Q, tonumber(fields[6]) or 0, fields[7] == '1')) then
    spool_wake(Q, 1)
  end
  return {1, 'waiting', now}
end
local runAt = now + delay
redis.call('HSET', jobKey, 'state', 'delayed', 'runAt', runAt)
redis.call('ZADD', Q.delayed, runAt, id)
spool_event(Q, 'delayed', 'jobId', id, 'delay', delay, 'runAt', runAt)
spool_announce_delayed(Q, id, delay)
return {1, 'delayed', runAt}
