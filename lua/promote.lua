--[[
  promote: delayed -> waiting for every job due now (at most `limit` per call),
  in due order. Idempotent: many workers may race to run it; each job moves once.
  Due schedulers move on first (includes/schedulers): the missed policy is
  applied and each one's next tick is created as a delayed job, in the same
  call that promotes the current tick, so a tick has one job whoever promotes.
  While the queue is paused or at maxWaiting, due ticks are held (delayed,
  looked at again a second later) instead of piling up.

  KEYS[1..17] queue keys (includes/queue)
  KEYS[18] schedulers      schedulers by pending tick ms (zset)
  KEYS[19] schedulerPrefix scheduler hashes are schedulerPrefix..id

  ARGV[1..3] channels and queue name (includes/queue)
  ARGV[4] limit

  Returns {moved, ms until the next delayed job is due (-1 = none), ids of
  schedulers whose list of cron times runs low (JS refills them)}.
  Publishes: sched 'w:<queue>' when a worker is idle.
]]
--- @include "includes/now"
--- @include "includes/queue"
--- @include "includes/place"
--- @include "includes/wake"
--- @include "includes/schedulers"

local Q = spool_queue()
local now = spool_now()
local ticked, refill = spool_sched_advance(Q, KEYS[18], KEYS[19], now)
local due = redis.call('ZRANGE', Q.delayed, '-inf', now, 'BYSCORE', 'LIMIT', 0, tonumber(ARGV[4]))
local moved, claimable = 0, ticked
for i = 1, #due do
  local id = due[i]
  local jobKey = Q.jobPrefix .. id
  redis.call('ZREM', Q.delayed, id)
  local fields = redis.call('HMGET', jobKey, 'priority', 'lifo', 'name')
  if fields[3] then
    if spool_place(Q, jobKey, id, spool_wait_score(Q, tonumber(fields[1]), fields[2] == '1')) then
      claimable = claimable + 1
    end
    moved = moved + 1
  end
end
spool_wake(Q, claimable)

local nextDue = redis.call('ZRANGE', Q.delayed, 0, 0, 'WITHSCORES')
if nextDue[2] then
  local wait = tonumber(nextDue[2]) - now
  if wait < 0 then wait = 0 end
  return {moved, wait, refill}
end
return {moved, -1, refill}
