--[[
  claim-job: one popped job through a claim (includes/claim-batch runs the
  loop and the per-call steps): its hash read once (HGETALL) and scanned
  once, then dropped, parked, stepped over, dead-lettered or started under
  the call's lease token, the hash patched in place as the reply.
  J carries the call's inputs and scratch (see spool_claim).
]]
--- @include "includes/fmt"
--- @include "includes/finish"
--- @include "includes/metrics"
--- @include "includes/claim-pop"
--[[
  The fields claim reads of a flat HGETALL reply, and where the fields it
  rewrites sit (nil when absent), so the reply is patched in place without
  a second scan or a table of changes. Written into F, one table per claim
  call reused for every job (a table per job, grown field by field, was a
  handful of allocations each). F.mark: the lease token's last byte when
  the job has none of the fields only finishing reads and no `id`
  (includes/finish), else ''.
]]
local function spool_claim_fields(hash, F)
  F.ws = nil
  local deadline, name, attempt, rare, rc
  local iAttempt, iState, iToken, iStarted, iId
  for i = 1, #hash, 2 do
    local k = hash[i]
    if k == 'name' then
      name = hash[i + 1]
    elseif k == 'state' then
      iState = i + 1
    elseif k == 'attempt' then
      attempt, iAttempt = hash[i + 1], i + 1
    elseif k == 'deadline' then
      deadline = hash[i + 1]
    elseif k == 'token' then
      iToken = i + 1
    elseif k == 'startedAt' then
      iStarted = i + 1
    elseif k == 'id' then
      iId = i + 1
    elseif k == 'rc' then
      rc = true
    elseif SPOOL_FINISH_FIELDS[k] then
      rare = true
    elseif k == 'ws' then
      F.ws = hash[i + 1]
    end
  end
  F.attempt = tonumber(attempt) or 0
  F.mark = (rare or iId) and '' or (rc and SPOOL_PLAIN_RC_LEASE or SPOOL_PLAIN_LEASE)
  F.iAttempt, F.iState, F.iToken, F.iStarted, F.iId = iAttempt, iState, iToken, iStarted, iId
  return deadline, name
end

-- Sets hash[i] when the field was there (i), else appends field and value.
local function spool_patch_at(hash, i, field, value)
  if i then
    hash[i] = value
  else
    hash[#hash + 1] = field
    hash[#hash + 1] = value
  end
end

--[[
  Starts one job: fresh lease token, counters, event; its hash (patched in
  place) goes to `out`. ws keeps the score it was popped with, so release and
  reap put it back at its place (add.lua does not write ws: a job that never
  leaves waiting does not need it).
]]
local function spool_claim_start(Q, C, J, jobKey, id, score, pick, hash, f, out)
  -- A string, not a number: redis.call converts a Lua number on every use.
  local attempt = spool_count_string(J.counts, f.attempt + 1)
  if not J.lease then
    J.lease = J.workerId .. ':' .. redis.call('HINCRBY', Q.meta, 'lc', 1)
    J.leases = {}
  end
  local token = J.leases[f.mark]
  if not token then
    token = J.lease .. f.mark
    J.leases[f.mark] = token
  end
  redis.call('HSET', jobKey, 'attempt', attempt, 'state', 'active', 'token', token, 'startedAt', J.nowS, 'ws', score)
  C.events[#C.events + 1] = { id, attempt }
  C.active[#C.active + 1] = J.expiresS
  C.active[#C.active + 1] = id
  if pick then
    spool_group_started(Q, C, pick, J.now)
  end
  spool_patch_at(hash, f.iAttempt, 'attempt', attempt)
  spool_patch_at(hash, f.iState, 'state', 'active')
  spool_patch_at(hash, f.iToken, 'token', token)
  spool_patch_at(hash, f.iStarted, 'startedAt', J.nowS)
  -- The reply carries the id (decodeClaimed reads it); compact hashes do not store it (add.lua).
  spool_patch_at(hash, f.iId, 'id', id)
  out[#out + 1] = hash
end

--[[
  One popped job: dropped (no hash), parked (its name is paused), stepped
  over (no room for its name: kept in J.skipped), dead-lettered (deadline
  passed) or started.
]]
local function spool_claim_one(Q, C, J, id, score, pick, out)
  local jobKey = Q.jobPrefix .. id
  local hash = redis.call('HGETALL', jobKey)
  local f = J.fields
  local deadline, name = spool_claim_fields(hash, f)
  if not name then
    return -- An index entry without its hash: dropped.
  end
  if not score then
    -- From the fifo list (includes/claim-pop): the score add or place wrote with it
    -- (the start of priority 0's FIFO band for a hash without one).
    score = f.ws or '4294967296'
  end
  if J.checkPaused and redis.call('SISMEMBER', Q.pausedNames, name) == 1 then
    redis.call('ZADD', Q.parkedPrefix .. name, score, id)
    redis.call('HINCRBY', Q.meta, 'pw', 1)
    return
  end
  local room = J.room
  if room and room[name] == 0 then
    local skipped = J.skipped
    skipped[#skipped + 1] = id
    skipped[#skipped + 1] = score
    skipped[#skipped + 1] = pick or false
    return
  end
  C.names[name] = (C.names[name] or 0) - 1
  deadline = tonumber(deadline) or 0
  if deadline > 0 and J.now > deadline then
    spool_dead_letter(Q, jobKey, id, J.now, 'deadline', 'deadline passed before the job could start', '', 'DeadlineExceededError')
    spool_metric_dead(Q, J.now, name)
    return
  end
  if room and room[name] then
    room[name] = room[name] - 1
  end
  spool_claim_start(Q, C, J, jobKey, id, score, pick, hash, f, out)
end
