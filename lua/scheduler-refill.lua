--[[
  scheduler-refill: appends upcoming cron times to a scheduler's list
  (includes/schedulers), only those after the last one it holds, so racing
  promoters refilling from the same list add each time once. A scheduler
  that ran out of times (starved) gets its pending tick now; one whose
  pattern has no time left ends (scored +inf).

  KEYS[1..17] queue keys (includes/queue)
  KEYS[18] schedulers  schedulers by pending tick ms (zset)
  KEYS[19] scheduler   the scheduler's hash

  ARGV[1..3] channels and queue name (includes/queue)
  ARGV[4] scheduler id
  ARGV[5] spec the times were computed for (another spec: nothing is written)
  ARGV[6] tick times, ascending, comma separated

  Returns the number of times appended, or -1 when the scheduler is gone or has another spec.
  Publishes: sched 'd:<ms>:<queue>' when a starved scheduler's new tick is the earliest delayed job.
]]
--- @include "includes/now"
--- @include "includes/queue"
--- @include "includes/wake"
--- @include "includes/schedulers"

local Q = spool_queue()
local now = spool_now()
local index, key, sid = KEYS[18], KEYS[19], ARGV[4]
local r = redis.call('HMGET', key, 'spec', 'ts', 'next', 'starved', 'paused')
if r[1] ~= ARGV[5] then
  return -1
end
local times = spool_sched_times(r[2])
local last = times[#times] or tonumber(r[3] or '') or 0
local added = 0
for _, t in ipairs(spool_sched_times(ARGV[6])) do
  if t > last and #times < SPOOL_SCHED_KEEP then
    times[#times + 1], last, added = t, t, added + 1
  end
end
redis.call('HSET', key, 'ts', spool_sched_join(times, 1, #times))
-- A paused scheduler keeps its times; scheduler-resume arms it.
if r[4] == '1' and r[5] ~= '1' then
  if #times == 0 then
    redis.call('HSET', key, 'next', '')
    redis.call('HDEL', key, 'starved')
    redis.call('ZADD', index, '+inf', sid)
    return added
  end
  local h = spool_sched_read(key)
  local next = spool_sched_arm(Q, index, key, sid, h, now)
  if next then
    spool_announce_delayed(Q, sid .. ':' .. spool_int(next), next - now)
  end
end
return added
