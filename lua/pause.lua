--[[
  pause: workers stop claiming from this queue. Waiting jobs keep their
  places; active ones run on.

  KEYS[1..17] queue keys (includes/queue)

  Returns 1 when the queue was running, 0 when it was already paused.
  Events: paused (when it was running).
]]
--- @include "includes/queue"
--- @include "includes/events"

local Q = spool_queue()
if redis.call('HSETNX', Q.meta, 'paused', '1') == 0 then
  return 0
end
spool_event(Q, 'paused')
return 1
