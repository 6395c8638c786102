--[[
  set-data: job.updateData() from the producer's side: replaces the payload
  of a job no worker holds and that has still to run (waiting, delayed, a
  flow parent waiting for its children) or may run again (a dead letter,
  before retry()). The holder of a running job writes through update-data.lua,
  under its lease; a finished job's payload is history and stays.

  KEYS[1] job         the job hash

  ARGV[1] data (JSON)

  Returns {code, state}: 1 written, 2 refused in this state (its state), 0 unknown job.
]]
local state = redis.call('HGET', KEYS[1], 'state')
if not state then
  return {0, ''}
end
if state ~= 'waiting' and state ~= 'delayed' and state ~= 'waiting-children' and state ~= 'failed' then
  return {2, state}
end
redis.call('HSET', KEYS[1], 'data', ARGV[1])
return {1, state}
