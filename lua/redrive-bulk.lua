--[[
  redrive-bulk: failed -> waiting for a batch of dead letters, each as
  redrive does it (includes/redrive). A job no longer failed (already
  re-driven by another operator, removed) is skipped, so two operators
  re-driving the same jobs at once move each job once.

  KEYS[1..17] queue keys (includes/queue)
  KEYS[18] waitingChildren  the queue's waiting-children index
  KEYS[19..] two per job: job hash, deps (children the job waits for)

  ARGV[1..3] channels and queue name (includes/queue)
  ARGV[4] reset attempts: 1 yes, 0 keep them
  ARGV[5] delay ms (0 = waiting now)
  ARGV[6..] job ids, in the order of their keys

  Returns {moved, ids of moved jobs that report to a flow parent...}.
  Publishes: sched 'w:<queue>' when a worker is idle, 'd:' for an earliest delayed.
  Events: redriven (one per moved job).
]]
--- @include "includes/now"
--- @include "includes/queue"
--- @include "includes/redrive"

local Q = spool_queue()
local now = spool_now()
local reset, delay = ARGV[4] == '1', tonumber(ARGV[5])
local out = {0}
for i = 6, #ARGV do
  local k = 19 + (i - 6) * 2
  local code, _, parent = spool_redrive(Q, KEYS[k], KEYS[k + 1], KEYS[18], ARGV[i], reset, delay, now)
  if code == 1 then
    out[1] = out[1] + 1
    if parent == 1 then
      out[#out + 1] = ARGV[i]
    end
  end
end
return out
