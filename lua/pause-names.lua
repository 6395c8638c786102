--[[
  pause-names: workers everywhere stop starting jobs of these names. New jobs
  of a paused name are parked at once; ones already waiting are parked when a
  claim reaches them. Parked jobs keep their scores, so they come back in order.

  KEYS[1..17] queue keys (includes/queue)

  ARGV[1..3] channels and queue name (includes/queue)
  ARGV[4..] job names

  Returns how many names were newly paused.
  Events: paused (one per name newly paused, with its name).
]]
--- @include "includes/queue"
--- @include "includes/events"

local Q = spool_queue()
local added = 0
for i = 4, #ARGV do
  if redis.call('SADD', Q.pausedNames, ARGV[i]) == 1 then
    added = added + 1
    spool_event(Q, 'paused', 'name', ARGV[i])
  end
end
-- meta np mirrors the set's size, so claim and add learn "no paused names" from the meta read they make anyway.
redis.call('HSET', Q.meta, 'np', redis.call('SCARD', Q.pausedNames))
return added
