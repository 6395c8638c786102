--[[
  watch: someone waits for this job to finish (waitUntilFinished / waitFor):
  mark it, so its terminal script announces it on the done channel
  (includes/flow). Unwatched jobs cost no PUBLISH.

  KEYS[1] job    the job hash

  Returns the job's state, or false when there is no such job.
]]
local state = redis.call('HGET', KEYS[1], 'state')
if state then
  redis.call('HSET', KEYS[1], 'w', '1')
end
return state
