--[[
  group-limits: one group's own concurrency cap and rate limit, over the
  queue's defaults ('-' clears an override and falls back to the default).
  A group that may now start more rejoins the ring at once.

  KEYS[1..17] queue keys (includes/queue)

  ARGV[1..3] channels and queue name (includes/queue)
  ARGV[4] group id
  ARGV[5] concurrency cap (0 = none, '-' = the queue default, '=' = unchanged)
  ARGV[6] rate limit "max,duration" ('-' = the queue default, '=' = unchanged)

  Returns 1.
  Publishes: sched 'w:<queue>' when a worker is idle.
]]
--- @include "includes/queue"
--- @include "includes/groups"
--- @include "includes/wake"

local Q = spool_queue()
local gid = ARGV[4]
local gkey = spool_group_key(Q, gid)
redis.call('SADD', Q.groups, gid)
if ARGV[5] == '-' then redis.call('HDEL', gkey, 'cap') elseif ARGV[5] ~= '=' then redis.call('HSET', gkey, 'cap', ARGV[5]) end
if ARGV[6] == '-' then redis.call('HDEL', gkey, 'rl') elseif ARGV[6] ~= '=' then redis.call('HSET', gkey, 'rl', ARGV[6]) end
spool_group_ready(Q, gid)
spool_wake(Q, redis.call('ZCARD', spool_group_wait(Q, gid)))
return 1
