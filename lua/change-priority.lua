--[[
  change-priority: job.changePriority(): a waiting job takes a new place
  at the end of its new priority (first of it with LIFO), in the lane its
  priority and order call for (includes/place: the fifo list for priority
  0 FIFO, `wait` otherwise; its group's set or its paused name's set when
  it has one, as at add); a delayed job keeps the new priority and order
  for when it becomes due.

  KEYS[1..17] queue keys (includes/queue)
  KEYS[18] job    the job hash

  ARGV[1..3] channels and queue name (includes/queue)
  ARGV[4] job id
  ARGV[5] priority (0 .. 2^20-1, 0 the highest)
  ARGV[6] lifo: '1' LIFO, '0' FIFO

  Returns {code, state}: 1 changed (its state), 2 neither waiting nor delayed (its state), 0 unknown job.
]]
--- @include "includes/queue"
--- @include "includes/place"

local Q = spool_queue()
local jobKey, id, priority, lifo = KEYS[18], ARGV[4], tonumber(ARGV[5]), ARGV[6] == '1'
local state = redis.call('HGET', jobKey, 'state')
if not state then
  return {0, ''}
end
if state ~= 'waiting' and state ~= 'delayed' then
  return {2, state}
end
-- Fields at their default are not stored (add.lua's compact layout).
if priority == 0 then
  redis.call('HDEL', jobKey, 'priority')
else
  redis.call('HSET', jobKey, 'priority', priority)
end
if lifo then
  redis.call('HSET', jobKey, 'lifo', '1')
else
  redis.call('HDEL', jobKey, 'lifo')
end
if state == 'waiting' then
  spool_unplace(Q, jobKey, id)
  spool_place(Q, jobKey, id, spool_wait_score(Q, priority, lifo))
end
return {1, state}
