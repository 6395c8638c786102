--[[
  resume: workers claim again; idle ones are woken with a budget of the
  waiting count.

  KEYS[1..17] queue keys (includes/queue)

  ARGV[1..3] channels and queue name (includes/queue)

  Returns 1 when the queue was paused, 0 otherwise.
  Publishes: sched 'w:<queue>' when a worker is idle.
  Events: resumed (when it was paused).
]]
--- @include "includes/queue"
--- @include "includes/wake"
--- @include "includes/events"

local Q = spool_queue()
if redis.call('HDEL', Q.meta, 'paused') == 0 then
  return 0
end
spool_event(Q, 'resumed')
spool_wake(Q, spool_waiting_count(Q))
return 1
