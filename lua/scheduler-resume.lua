--[[
  scheduler-resume: a paused scheduler (scheduler-pause) ticks again: its
  next tick after now is armed as scheduler-upsert arms one; the ticks that
  fell while it was paused are not run (they were not missed, they were
  paused). A cron scheduler out of listed times is marked starved, and the
  next promote asks for more.

  KEYS[1..17] queue keys (includes/queue)
  KEYS[18] schedulers  schedulers by pending tick ms (zset)
  KEYS[19] scheduler   the scheduler's hash

  ARGV[1..3] channels and queue name (includes/queue)
  ARGV[4] scheduler id

  Returns {code, pending tick ms ('' = none)}: code 1 resumed, 2 it was not
  paused, 0 no such scheduler.
  Publishes: sched 'd:<ms>:<queue>' when the new tick is the earliest delayed job.
]]
--- @include "includes/now"
--- @include "includes/queue"
--- @include "includes/wake"
--- @include "includes/schedulers"

local Q = spool_queue()
local now = spool_now()
local index, key, sid = KEYS[18], KEYS[19], ARGV[4]
local paused = redis.call('HGET', key, 'paused')
local h = spool_sched_read(key)
if not h then
  return {0, ''}
end
if paused ~= '1' then
  return {2, h.next and spool_int(h.next) or ''}
end
redis.call('HDEL', key, 'paused')
local next = spool_sched_arm(Q, index, key, sid, h, now)
if next then
  spool_announce_delayed(Q, sid .. ':' .. spool_int(next), next - now)
  return {1, spool_int(next)}
end
return {1, ''}
