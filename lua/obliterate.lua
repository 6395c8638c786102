--[[
  obliterate: the first step of queue.obliterate(): refuses while jobs are
  active (unless forced), else pauses the queue, so no worker claims while
  the caller deletes every key under the queue's hash tag in short steps
  (lib/store/obliterate.ts; the meta hash, which holds the pause, goes last),
  and takes the idle worker's push name, so no add leases a job meanwhile.

  KEYS[1..17] queue keys (includes/queue)

  ARGV[1..3] channels and queue name (includes/queue)
  ARGV[4] force: '1' to go on while jobs are active (their workers lose them)

  Returns {code, active}: 1 go on, -1 refused (jobs active, their count).
]]
--- @include "includes/queue"
--- @include "includes/push"

local Q = spool_queue()
local active = redis.call('ZCARD', Q.active)
if active > 0 and ARGV[4] ~= '1' then
  return {-1, active}
end
redis.call('HSET', Q.meta, 'paused', '1')
redis.call('DEL', spool_push_key(Q))
return {1, active}
