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

return spool_push_drop(spool_queue(), ARGV[4])
