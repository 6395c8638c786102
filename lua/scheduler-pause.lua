--[[
  scheduler-pause: stops one scheduler (includes/schedulers) without
  forgetting it: its pending tick job goes while still delayed, no tick is
  armed until scheduler-resume, and getScheduler() shows it paused. Its
  count, limit and definition stay. Upserting the same spec leaves it paused;
  a new spec replaces it, running.

  KEYS[1..17] queue keys (includes/queue)
  KEYS[18] schedulers  schedulers by pending tick ms (zset)
  KEYS[19] scheduler   the scheduler's hash

  ARGV[1..3] channels and queue name (includes/queue)
  ARGV[4] scheduler id

  Returns 1 paused now, 2 it was paused already, 0 no such scheduler.
]]
--- @include "includes/queue"
--- @include "includes/schedulers"

local Q = spool_queue()
local index, key, sid = KEYS[18], KEYS[19], ARGV[4]
local r = redis.call('HMGET', key, 'spec', 'next', 'paused', 'kind', 'ts')
if not r[1] then
  return 0
end
if r[3] == '1' then
  return 2
end
if r[2] and r[2] ~= '' then
  spool_sched_drop_pending(Q, sid, r[2])
  if r[4] == 'cron' then
    -- The pending tick's time goes back to the list: a resume before it arms it again.
    redis.call('HSET', key, 'ts', (r[5] and r[5] ~= '') and (r[2] .. ',' .. r[5]) or r[2])
  end
end
redis.call('HSET', key, 'paused', '1', 'next', '')
redis.call('ZADD', index, '+inf', sid)
return 1
