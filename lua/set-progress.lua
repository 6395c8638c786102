--[[
  set-progress: job.updateProgress() from the producer's side, for a job
  that has not started (waiting, delayed, a flow parent waiting for its
  children): progress made elsewhere, shown before a worker takes it. A
  running job's progress is its lease holder's (progress.lua).

  KEYS[1] job         the job hash

  ARGV[1] progress (JSON)

  Returns {code, state}: 1 written, 2 refused in this state (its state), 0 unknown job.
  Events: progress (the value when at most 1 KiB, else its size).
]]
--- @include "includes/events"

local state = redis.call('HGET', KEYS[1], 'state')
if not state then
  return {0, ''}
end
if state ~= 'waiting' and state ~= 'delayed' and state ~= 'waiting-children' then
  return {2, state}
end
redis.call('HSET', KEYS[1], 'progress', ARGV[1])
local Q = spool_events_of_job(KEYS[1])
if spool_events_on(Q) then
  local id = spool_job_id_of(KEYS[1])
  if #ARGV[1] <= 1024 then
    spool_event(Q, 'progress', 'jobId', id, 'progress', ARGV[1])
  else
    spool_event(Q, 'progress', 'jobId', id, 'size', #ARGV[1])
  end
end
return {1, state}
