--[[
  resume-group: a paused group may start jobs again; it rejoins the ring and
  idle workers are woken.

  KEYS[1..17] queue keys (includes/queue)

  ARGV[1..3] channels and queue name (includes/queue)
  ARGV[4] group id

  Returns 1 when the group was paused, 0 otherwise.
  Publishes: sched 'w:<queue>' when a worker is idle.
]]
--- @include "includes/queue"
--- @include "includes/groups"
--- @include "includes/wake"

local Q = spool_queue()
local gid = ARGV[4]
if redis.call('HDEL', spool_group_key(Q, gid), 'paused') == 0 then
  return 0
end
local waiting = redis.call('ZCARD', spool_group_wait(Q, gid))
if waiting > 0 then
  redis.call('HINCRBY', Q.meta, 'gpw', -waiting)
end
spool_group_ready(Q, gid)
spool_wake(Q, waiting)
return 1
