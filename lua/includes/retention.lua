--[[
  retention: what a finished job leaves behind.
  spec is "count,ageMs" (-1 = unbounded): count 0 removes the job at once,
  count n keeps the newest n, ageMs drops those older than that. Trimming is
  bounded per call (at most 100 old jobs) so one completion never turns into a
  long scan; the next completions finish the job.
  The finished job must already be in indexKey (score = finishedAt).
]]
--- @include "includes/flow"
--- @include "includes/dead"

-- dead: the job is a dead letter, which leaves the name/reason indexes with its hash (includes/dead).
local function spool_drop_job(Q, id, dead)
  if dead then
    spool_dead_unindex(Q, Q.jobPrefix .. id, id)
  end
  redis.call('DEL', Q.jobPrefix .. id, Q.logPrefix .. id)
  -- A dropped parent takes its children bookkeeping with it.
  spool_drop_flow(Q, id)
end

-- Returns true when the finished job itself was removed.
local function spool_retain(Q, indexKey, jobKey, id, spec, now)
  if spec == '-1,-1' then
    -- Keep everything (removeOnComplete/removeOnFail: false): nothing to trim, the job stays.
    return false
  end
  local comma = string.find(spec, ',', 1, true)
  local count = tonumber(string.sub(spec, 1, comma - 1))
  local age = tonumber(string.sub(spec, comma + 1))
  if count == 0 then
    redis.call('ZREM', indexKey, id)
    spool_drop_job(Q, id, indexKey == Q.failed)
    return true
  end
  if count > 0 then
    local excess = redis.call('ZCARD', indexKey) - count
    if excess > 0 then
      if excess > 100 then excess = 100 end
      local old = redis.call('ZPOPMIN', indexKey, excess)
      for i = 1, #old, 2 do
        spool_drop_job(Q, old[i], indexKey == Q.failed)
      end
    end
  end
  if age >= 0 then
    local old = redis.call('ZRANGE', indexKey, '-inf', '(' .. (now - age), 'BYSCORE', 'LIMIT', 0, 100)
    for i = 1, #old do
      redis.call('ZREM', indexKey, old[i])
      spool_drop_job(Q, old[i], indexKey == Q.failed)
    end
  end
  return redis.call('EXISTS', jobKey) == 0
end
