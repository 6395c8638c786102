--[[
  push-off: a closing worker takes no more pushes (includes/push): drops the
  name when it is still this worker's, so no add leases a job to a worker
  that stopped listening.

  KEYS[1..17] queue keys (includes/queue)

  ARGV[1..3] channels and queue name (includes/queue)
  ARGV[4] worker id

  Returns 1 when the name was this worker's (dropped), else 0.
]]
--- @include "includes/queue"
--- @include "includes/push"

local Q = spool_queue()
local key = spool_push_key(Q)
local named = redis.call('GET', key)
if named and string.sub(named, 1, #ARGV[4] + 1) == ARGV[4] .. '|' then
  redis.call('DEL', key)
  return 1
end
return 0
