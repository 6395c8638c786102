--[[
  redrive: failed -> waiting for one dead letter: attempts and stalls reset,
  the error forgotten (includes/redrive). A parent that still has pending
  children goes back to waiting-children instead. A flow child tells its
  parent (outbox, includes/flow), so a parent dead-lettered by this child
  can resume.

  KEYS[1..17] queue keys (includes/queue)
  KEYS[18] job              the job hash
  KEYS[19] deps             children the job waits for (set)
  KEYS[20] waitingChildren  the queue's waiting-children index

  ARGV[1..3] channels and queue name (includes/queue)
  ARGV[4] job id

  Returns {code, state}: 1 re-driven (new state), 2 not failed (its state), 0 unknown job.
  Publishes: sched 'w:<queue>' when a worker is idle.
  Events: redriven.
]]
--- @include "includes/now"
--- @include "includes/queue"
--- @include "includes/redrive"

local Q = spool_queue()
local code, state = spool_redrive(Q, KEYS[18], KEYS[19], KEYS[20], ARGV[4], true, 0, spool_now())
return {code, state}
