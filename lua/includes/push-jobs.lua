--[[
  push-jobs: the add's side of includes/push: hands up to `n` of the jobs
  that just became waiting to the named idle worker; returns how many it took.
]]
--- @include "includes/claim-batch"

local function spool_push(Q, n, now)
  if n <= 0 or Q.sched == '' then
    return 0 -- No pub/sub channel: the notify adapter carries wake-ups (NATS), not pushes.
  end
  local key = spool_push_key(Q)
  local named = redis.call('GET', key)
  if not named then
    return 0
  end
  redis.call('DEL', key)
  local workerId, lockMs, slots = string.match(named, '^(.*)|(%d+)|(%d+)$')
  if not workerId then
    return 0
  end
  local jobs = spool_claim(Q, math.min(n, tonumber(slots)), workerId, tonumber(lockMs), now, nil, false)
  if #jobs > 0 then
    redis.call('PUBLISH', Q.sched .. ':push:' .. workerId, cjson.encode(jobs))
  end
  return #jobs
end
