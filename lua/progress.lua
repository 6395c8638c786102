--[[
  progress: the lease holder records progress on the job it runs. A stale
  holder (its lease was reaped or the job re-claimed) writes nothing.

  KEYS[1] job         the job hash

  ARGV[1] lease token
  ARGV[2] progress (JSON)

  Returns 1 written, -1 lease lost.
  Events: progress (the value when at most 1 KiB, else its size).
]]
--- @include "includes/events"
--- @include "includes/lease"

if not spool_holds(redis.call('HGET', KEYS[1], 'token'), ARGV[1]) then
  return -1
end
redis.call('HSET', KEYS[1], 'progress', ARGV[2])
local Q = spool_events_of_job(KEYS[1])
if spool_events_on(Q) then
  local id = spool_job_id_of(KEYS[1])
  if #ARGV[2] <= 1024 then
    spool_event(Q, 'progress', 'jobId', id, 'progress', ARGV[2])
  else
    spool_event(Q, 'progress', 'jobId', id, 'size', #ARGV[2])
  end
end
return 1
