--[[
  scheduler-upsert: creates or replaces a scheduler (includes/schedulers) and
  its pending tick, in one step. The same spec again changes nothing, so any
  number of processes upserting the same definition at boot make one
  scheduler and one pending tick. A new spec replaces the pending tick of
  the old one (deleted while still delayed) and starts the count afresh.

  KEYS[1..17] queue keys (includes/queue)
  KEYS[18] schedulers  schedulers by pending tick ms (zset)
  KEYS[19] scheduler   the scheduler's hash

  ARGV[1..3] channels and queue name (includes/queue)
  ARGV[4] scheduler id
  ARGV[5] spec (canonical JSON of the definition)
  ARGV[6] kind: 'every' or 'cron'
  ARGV[7] every ms (0 for cron)
  ARGV[8] anchor ms: every-N ticks fall at anchor + k * every
  ARGV[9] endAt ms (0 = none)
  ARGV[10] limit (0 = none)
  ARGV[11] missed policy: skip | once | all
  ARGV[12] tick job template: JSON array of job hash fields
  ARGV[13] cron: upcoming tick times, ascending, comma separated ('' for every)

  Returns {changed (1 written, 0 same spec), pending tick ms ('' = none)}.
  Publishes: sched 'd:<ms>:<queue>' when the new tick is the earliest delayed job.
]]
--- @include "includes/now"
--- @include "includes/queue"
--- @include "includes/wake"
--- @include "includes/schedulers"

local Q = spool_queue()
local now = spool_now()
local index, key, sid, spec = KEYS[18], KEYS[19], ARGV[4], ARGV[5]
local cur = redis.call('HMGET', key, 'spec', 'next', 'createdAt')
if cur[1] == spec then
  return {0, cur[2] or ''}
end
if cur[2] and cur[2] ~= '' then
  spool_sched_drop_pending(Q, sid, cur[2])
end
redis.call('DEL', key)
redis.call('HSET', key, 'spec', spec, 'kind', ARGV[6], 'every', ARGV[7], 'anchor', ARGV[8], 'end', ARGV[9],
  'limit', ARGV[10], 'missed', ARGV[11], 'tpl', ARGV[12], 'count', 0, 'skipped', 0,
  'createdAt', cur[3] or now, 'updatedAt', now)
local h = spool_sched_read(key)
h.times = spool_sched_times(ARGV[13])
local next = spool_sched_arm(Q, index, key, sid, h, now)
if next then
  spool_announce_delayed(Q, sid .. ':' .. spool_int(next), next - now)
  return {1, spool_int(next)}
end
return {1, ''}
