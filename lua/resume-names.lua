--[[
  resume-names: jobs of these names may start again. Their parked jobs go back
  to their places (their scores keep the order), at most `limit` per call so
  one call never blocks Redis for long; the caller repeats while some remain.

  KEYS[1..17] queue keys (includes/queue)

  ARGV[1..3] channels and queue name (includes/queue)
  ARGV[4] limit (jobs moved per call)
  ARGV[5..] job names

  Returns the number of jobs still parked under these names.
  Publishes: sched 'w:<queue>' when a worker is idle.
  Events: resumed (one per name that was paused).
]]
--- @include "includes/queue"
--- @include "includes/place"
--- @include "includes/wake"
--- @include "includes/events"

local Q = spool_queue()
local budget = tonumber(ARGV[4])
local claimable, remaining = 0, 0
for i = 5, #ARGV do
  local name = ARGV[i]
  if redis.call('SREM', Q.pausedNames, name) == 1 then
    spool_event(Q, 'resumed', 'name', name)
  end
  local parked = Q.parkedPrefix .. name
  local batch = budget > 0 and redis.call('ZPOPMIN', parked, budget) or {}
  for j = 1, #batch, 2 do
    local id, score = batch[j], batch[j + 1]
    local jobKey = Q.jobPrefix .. id
    redis.call('HINCRBY', Q.meta, 'pw', -1)
    if redis.call('EXISTS', jobKey) == 1 then
      -- place() counts the name again; it was counted while parked.
      redis.call('HINCRBY', Q.meta, 'n:' .. name, -1)
      if spool_place(Q, jobKey, id, tonumber(score)) then
        claimable = claimable + 1
      end
    end
    budget = budget - 1
  end
  remaining = remaining + redis.call('ZCARD', parked)
end
-- meta np mirrors the paused-names set's size (see pause-names).
local np = redis.call('SCARD', Q.pausedNames)
if np > 0 then
  redis.call('HSET', Q.meta, 'np', np)
else
  redis.call('HDEL', Q.meta, 'np')
end
spool_wake(Q, claimable)
return remaining
