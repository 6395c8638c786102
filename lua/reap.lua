--[[
  reap: active jobs whose lease expired (the holder died, hung, or lost its
  connection) are taken from their holder. Each is re-delivered to waiting at
  its old place with a stall counted (the attempt does not count), or
  dead-lettered with reason 'stalled' once it stalled more than maxStalled
  times, or finished as cancelled when a cancel was pending. Every old holder
  is told on the ownership-lost channel.

  KEYS[1..17] queue keys (includes/queue)

  ARGV[1..3] channels and queue name (includes/queue)
  ARGV[4] maxStalledCount
  ARGV[5] limit (jobs per call)

  Returns a flat list: id, new state ('waiting', 'failed' or 'cancelled'), ...
  Publishes: owls 'lost\n<queue>\n<id>\n<token>' per job; sched when re-delivered.
  Events: stalled (next retry or dead), then failed (next dead) or cancelled.
  Metrics: a stall per job, and a dead letter past maxStalled (includes/metrics).
]]
--- @include "includes/now"
--- @include "includes/queue"
--- @include "includes/announce"
--- @include "includes/place"
--- @include "includes/finish"
--- @include "includes/wake"
--- @include "includes/events"
--- @include "includes/metrics"

local Q = spool_queue()
local now = spool_now()
local maxStalled = tonumber(ARGV[4])
local expired = redis.call('ZRANGE', Q.active, '-inf', now, 'BYSCORE', 'LIMIT', 0, tonumber(ARGV[5]))
local out = {}
local requeued = 0
for i = 1, #expired do
  local id = expired[i]
  local jobKey = Q.jobPrefix .. id
  local fields = redis.call('HMGET', jobKey, 'token', 'cancel', 'ws', 'state', 'name')
  if not fields[4] then
    redis.call('ZREM', Q.active, id)
  else
    if fields[1] then
      spool_announce(Q, 'owls', 'lost\n' .. Q.name .. '\n' .. id .. '\n' .. fields[1])
    end
    spool_leave_active(Q, jobKey, id, false)
    local state
    if fields[2] then
      spool_cancelled(Q, jobKey, id, now)
      state = 'cancelled'
    else
      local stalled = redis.call('HINCRBY', jobKey, 'stalled', 1)
      redis.call('HINCRBY', jobKey, 'attempt', -1)
      spool_event(Q, 'stalled', 'jobId', id, 'next', stalled > maxStalled and 'dead' or 'retry')
      if stalled > maxStalled then
        spool_dead_letter(Q, jobKey, id, now, 'stalled',
          'job stalled more than maxStalledCount (' .. maxStalled .. ') times: its worker died or blocked past the lease',
          '', 'StalledError')
        state = 'failed'
      else
        if spool_place(Q, jobKey, id, tonumber(fields[3])) then
          requeued = requeued + 1
        end
        state = 'waiting'
      end
    end
    spool_metric_reaped(Q, now, state, fields[5])
    out[#out + 1] = id
    out[#out + 1] = state
  end
end
spool_wake(Q, requeued)
return out
