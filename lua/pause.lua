--[[
  pause: workers stop claiming from this queue. Waiting jobs keep their
  places; active ones run on.

  KEYS[1..17] queue keys (includes/queue)

  Returns 1 when the queue was running, 0 when it was already paused.
]]
--- @include "includes/queue"

return redis.call('HSETNX', spool_queue().meta, 'paused', '1')
