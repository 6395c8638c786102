--[[
  scheduler-remove: deletes a scheduler (includes/schedulers) and its
  pending tick job while that is still delayed. Tick jobs already promoted
  run to their end.

  KEYS[1..17] queue keys (includes/queue)
  KEYS[18] schedulers  schedulers by pending tick ms (zset)
  KEYS[19] scheduler   the scheduler's hash

  ARGV[1..3] channels and queue name (includes/queue)
  ARGV[4] scheduler id

  Returns 1 when removed, 0 when there was no such scheduler.
]]
--- @include "includes/queue"
--- @include "includes/schedulers"

local Q = spool_queue()
local index, key, sid = KEYS[18], KEYS[19], ARGV[4]
local next = redis.call('HGET', key, 'next')
local known = redis.call('ZREM', index, sid) + redis.call('DEL', key)
if next and next ~= '' then
  spool_sched_drop_pending(Q, sid, next)
end
return known > 0 and 1 or 0
