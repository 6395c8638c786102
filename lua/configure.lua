--[[
  configure: the queue's limits, shared by every producer and worker because
  they live in Redis (meta): rl (rate limit "max,duration"), gcap (default
  group concurrency), grl (default group rate limit), mw (maxWaiting), mwg
  (maxWaitingPerGroup), gc (global concurrency, includes/global-cap). An
  empty value removes the limit. Groups that may start more under the new
  limits rejoin the ring; idle workers hear of the waiting jobs (a raised
  or removed global cap frees slots).

  KEYS[1..17] queue keys (includes/queue)

  ARGV[1..3] channels and queue name (includes/queue)
  ARGV[4..] pairs: field, value

  Returns 1.
  Publishes: sched 'w:<queue>' when a worker is idle.
]]
--- @include "includes/queue"
--- @include "includes/groups"
--- @include "includes/wake"

local Q = spool_queue()
for i = 4, #ARGV, 2 do
  if ARGV[i + 1] == '' then
    redis.call('HDEL', Q.meta, ARGV[i])
  else
    redis.call('HSET', Q.meta, ARGV[i], ARGV[i + 1])
  end
end
local groups = redis.call('SMEMBERS', Q.groups)
for i = 1, #groups do
  spool_group_ready(Q, groups[i])
end
-- A raised or removed global cap may free slots: the workers it held back are woken.
redis.call('DEL', Q.idle .. ':gc')
spool_wake(Q, spool_waiting_count(Q))
return 1
