--[[
  pause-group: a group starts nothing new until it is resumed; its waiting
  jobs keep their places, its running ones run on. Other groups go on.

  KEYS[1..17] queue keys (includes/queue)

  ARGV[1..3] channels and queue name (includes/queue)
  ARGV[4] group id

  Returns 1 when the group was running, 0 when it was already paused.
]]
--- @include "includes/queue"
--- @include "includes/groups"

local Q = spool_queue()
local gid = ARGV[4]
redis.call('SADD', Q.groups, gid)
-- The ring drops it lazily: the next claim that reaches it sees the flag.
if redis.call('HSETNX', spool_group_key(Q, gid), 'paused', '1') == 0 then
  return 0
end
-- Its waiting jobs now count as paused (meta gpw, read by counts).
local waiting = redis.call('ZCARD', spool_group_wait(Q, gid))
if waiting > 0 then
  redis.call('HINCRBY', Q.meta, 'gpw', waiting)
end
return 1
