--[[
  wake: announce new waiting work to idle workers.
  Publishes only when a worker left the idle marker (it found nothing to
  claim), so a busy queue pays no PUBLISH per job. The wake-hint budget is
  raised by the number of new jobs but never above the waiting count: idle
  workers spend it before they claim, so N new jobs wake about N workers,
  not every idle one (seed 000's thundering-herd guard).
]]
--- @include "includes/announce"

local function spool_waiting_count(Q)
  return redis.call('ZCARD', Q.wait) + redis.call('LLEN', Q.fifo) + (tonumber(redis.call('HGET', Q.meta, 'gw')) or 0)
end

local function spool_wake(Q, n)
  if n <= 0 or redis.call('EXISTS', Q.idle) == 0 then
    return
  end
  -- The global concurrency cap is reached (includes/global-cap's marker): an idle
  -- worker could start nothing. The first job to leave active wakes them instead.
  if redis.call('EXISTS', Q.idle .. ':gc') == 1 then
    return
  end
  redis.call('DEL', Q.idle)
  local waiting = spool_waiting_count(Q)
  -- Published here: the budget lives in Redis and claim spends it. Collected
  -- (includes/announce): the adapter keeps the budget (at most `waiting` more).
  if spool_announce(Q, 'sched', 'w:' .. Q.name, math.min(n, waiting)) then
    local budget = math.min((tonumber(redis.call('GET', Q.hint)) or 0) + n, waiting)
    redis.call('SET', Q.hint, budget, 'PX', 60000)
  end
end

--[[
  A delayed job that became the earliest due one: workers re-arm their one
  promotion timer. Payload: d:<ms until due>:<queue>.
]]
local function spool_announce_delayed(Q, id, dueIn)
  local first = redis.call('ZRANGE', Q.delayed, 0, 0)
  if first[1] == id then
    spool_announce(Q, 'sched', 'd:' .. dueIn .. ':' .. Q.name)
  end
end
