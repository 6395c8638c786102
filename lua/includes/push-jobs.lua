--[[
  push-jobs: the add's side of includes/push: hands up to `n` of the jobs
  that just became waiting to the named idle worker; returns how many it took.
]]
--- @include "includes/claim-batch"

local function spool_push(Q, n, now)
  if n <= 0 or Q.sched == '' or Q.pushTaken then
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
    spool_push_send(Q, workerId, lockMs, cjson.encode(jobs))
  end
  return #jobs
end

--[[
  The one-job push: an add of one plain job (priority 0, FIFO, no group,
  delay or deadline) to a queue where nothing else waits and nothing gates
  a start (not paused, no throttle, no rate limit, no global concurrency cap, no paused name, no
  grouped job, both ungrouped lanes empty) starts it for the named
  worker in its own writes. The claim would pop exactly this job, so the
  add writes its hash once, already active, and skips the claim's per-call
  tables, the list push and pop, the re-read and the scan of the hash it
  just wrote (about a quarter of the Redis work of an add that pushes,
  `npm run bench:lone-add`). What it writes is what spool_claim writes for
  the job: the same token (the lease counter, the mark of spool_claim_fields),
  attempt, state, startedAt and ws, the active index entry and event, and
  the same message; test/lua/push-direct.spec compares the two paths.
]]

--[[
  Takes the named worker for the one-job push: {workerId, lockMs} (the add
  sets id), or nil. nil when the claim's gates would refuse the start or
  reorder it (paused, throttled, rate limited, a grouped job or another
  ungrouped one waiting ahead, a ring turn owed): spool_push then goes the
  claim's way. No name: spool_push is not asked again. A name it cannot read
  is dropped, as spool_push drops it. The gates are read only once a worker
  is named, so an add no worker waits for pays one GET, as before.
]]
local function spool_push_take(Q, now)
  local key = spool_push_key(Q)
  local named = redis.call('GET', key)
  if not named then
    Q.pushTaken = true
    return nil
  end
  local m = redis.call('HMGET', Q.meta, 'paused', 'lu', 'rl', 'gw', 'rr', 'gc')
  if m[1] or m[3] or m[6] or (tonumber(m[2]) or 0) > now or (tonumber(m[4]) or 0) > 0 or (tonumber(m[5]) or 0) ~= 0
    or redis.call('LLEN', Q.fifo) > 0 or redis.call('ZCARD', Q.wait) > 0 then
    return nil
  end
  Q.pushTaken = true
  redis.call('DEL', key)
  local workerId, lockMs = string.match(named, '^(.*)|(%d+)|(%d+)$')
  if not workerId then
    return nil
  end
  return { workerId = workerId, lockMs = tonumber(lockMs) }
end

-- Makes the new job's fields (its one HSET) those of a started job; returns them as the worker gets them.
local function spool_push_start(Q, to, id, fields, nowS)
  local F = {}
  spool_claim_fields(fields, F)
  local token = to.workerId .. ':' .. redis.call('HINCRBY', Q.meta, 'lc', 1) .. F.mark
  fields[F.iState] = 'active'
  local f = #fields
  fields[f + 1], fields[f + 2], fields[f + 3], fields[f + 4], fields[f + 5], fields[f + 6] =
    'attempt', tostring(F.attempt + 1), 'token', token, 'startedAt', nowS
  local job = {}
  for i = 1, #fields do
    job[i] = tostring(fields[i]) -- ws is a Lua number; a claim's reply carries strings
  end
  job[#job + 1], job[#job + 2] = 'id', id -- as the claim patches it in (compact hashes do not store it)
  return job
end

-- After the add's own events: the active index entry and event, then the message.
local function spool_push_started(Q, to, job, now)
  redis.call('ZADD', Q.active, tostring(now + to.lockMs), to.id)
  spool_events(Q, 'active', SPOOL_ACTIVE_FIELDS, { { to.id, '1' } })
  spool_push_send(Q, to.workerId, to.lockMs, cjson.encode({ job }))
end
