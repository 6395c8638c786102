--[[
  counts: how many jobs are in each state, read in one atomic step.
  'paused' counts waiting jobs that may not start because their name is
  paused (parked or not yet reached) or their group is paused (meta gpw),
  or every waiting job when the whole queue is paused; 'waiting' counts
  the rest. Read from counters only: no per-job scan. A job of a paused
  name in a paused group that no claim has parked yet is counted under both
  pauses; the sum is capped at the waiting total.

  KEYS[1..17] queue keys (includes/queue)

  Returns {waiting, paused, delayed, active, completed, failed, cancelled, waiting-children}.
]]
--- @include "includes/queue"
--- @include "includes/wake"
--- @include "includes/flow"

local Q = spool_queue()
local total = spool_waiting_count(Q) + (tonumber(redis.call('HGET', Q.meta, 'pw')) or 0)
local paused = 0
if redis.call('HEXISTS', Q.meta, 'paused') == 1 then
  paused = total
else
  local names = redis.call('SMEMBERS', Q.pausedNames)
  for i = 1, #names do
    paused = paused + (tonumber(redis.call('HGET', Q.meta, 'n:' .. names[i])) or 0)
  end
  paused = math.min(total, paused + (tonumber(redis.call('HGET', Q.meta, 'gpw')) or 0))
end
return {
  total - paused, paused,
  redis.call('ZCARD', Q.delayed), redis.call('ZCARD', Q.active), redis.call('ZCARD', Q.completed),
  redis.call('ZCARD', Q.failed), redis.call('ZCARD', Q.cancelled),
  redis.call('ZCARD', spool_waiting_children(Q)),
}
