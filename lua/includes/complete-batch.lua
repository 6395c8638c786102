--[[
  complete-batch: active -> completed for several jobs in one call, each
  checked against its own lease token.

  Per job the cost is one HMGET (token, and the fields the rare paths
  need; the idempotent-retry fields only when the token does not match),
  one HSET (none for a job removed on completion: the token is spent in place, includes/finish); the index writes (ZREM active, ZADD
  completed), the completed events (one entry, includes/events), the
  metrics counters and the retention trim are paid once per call for the
  whole batch (see spool_complete_flush).
  B (from spool_complete_state) collects them while the jobs are checked.
]]
--- @include "includes/fmt"
--- @include "includes/finish"
--- @include "includes/metrics"

local SPOOL_COMPLETED_FIELDS = { 'jobId', 'size' }

-- nowS: the call's time as the string every job's write uses (a Lua number given
-- to redis.call is converted on each use, about 1 us here).
-- The per-duration and per-size memos exist because a batch's jobs mostly
-- repeat the same few values, and each conversion (tonumber, tostring, a
-- JSON number) is a strtod or a printf inside Redis.
local function spool_complete_state(now)
  return { done = {}, kept = {}, specs = {}, specOrder = {}, removed = {}, buckets = {}, ms = {}, events = {}, nowS = tostring(now),
    durations = {}, sizes = {}, dropSpec = {}, suffixes = {} }
end

-- One job's duration (the string the worker sent) into the batch's metric counters of its name (see includes/metrics).
local function spool_complete_metric(Q, B, duration, name, now)
  local d = B.durations[duration]
  if not d then
    local ms = tonumber(duration)
    if ms and ms >= 0 then
      ms = math.ceil(ms)
      d = { 'h' .. spool_duration_bucket(ms), ms }
    else
      d = { 'hn', 0 }
    end
    B.durations[duration] = d
  end
  local suffix = B.suffixes[name or '']
  if not suffix then
    suffix = spool_metric_suffix(Q, name, now)
    B.suffixes[name or ''] = suffix
  end
  local field = d[1] .. suffix
  B.buckets[field] = (B.buckets[field] or 0) + 1
  B.ms[suffix] = (B.ms[suffix] or 0) + d[2]
end

-- removeOnComplete: true ("0,...") drops the job at once.
local function spool_complete_drops(B, rc)
  local dropped = B.dropSpec[rc]
  if dropped == nil then
    dropped = string.sub(rc, 1, 2) == '0,'
    B.dropSpec[rc] = dropped
  end
  return dropped
end

--[[
  One job under its lease token: returns code, state (the per-job entry of
  the reply). 1 completed, 3 cancelled, 2 already finished by this token
  (a retried call), -1 lease lost (nothing written).
]]
local function spool_complete_one(Q, B, jobKey, id, token, result, duration, now)
  local f
  local mark = string.byte(token, -1)
  if mark == SPOOL_PLAIN_BYTE then
    -- A plain job (includes/finish): the fields only finishing reads were absent at its claim.
    f = redis.call('HMGET', jobKey, 'token', 'cancel', 'w', 'name')
    f[6], f[9], f[3], f[4] = f[3], f[4], nil, nil
  elseif mark == SPOOL_PLAIN_RC_BYTE then
    f = redis.call('HMGET', jobKey, 'token', 'cancel', 'w', 'rc', 'name')
    f[6], f[7], f[9], f[3], f[4], f[5] = f[3], f[4], f[5], nil, nil, nil
  else
    f = redis.call('HMGET', jobKey, 'token', 'cancel', 'group', 'dk', 'pq', 'w', 'rc', 'id', 'name')
  end
  if f[1] ~= token or mark == SPOOL_SPENT_BYTE then
    -- Not (or no longer) its lease: this token finished the job already (a retried call), or lost it.
    local done = redis.call('HMGET', jobKey, 'ft', 'state')
    if f[1] == token .. SPOOL_SPENT or done[1] == token then
      return 2, done[2] or ''
    end
    return -1, ''
  end
  if f[2] then
    spool_leave_active(Q, jobKey, id, true)
    redis.call('HSET', jobKey, 'result', result)
    spool_cancelled(Q, jobKey, id, now)
    return 3, 'cancelled'
  end
  local group, dk, pq, w, rc = f[3], f[4], f[5], f[6], spool_spec_of('rc', f[7], f[8])
  B.done[#B.done + 1] = id
  -- removeOnComplete: true drops the hash in this call (spool_complete_flush): the fields
  -- would be written only to be deleted, unless a flow parent reads the result from it first.
  local dropped = spool_complete_drops(B, rc)
  if pq or not dropped then
    redis.call('HSET', jobKey, 'token', token .. SPOOL_SPENT, 'result', result, 'state', 'completed', 'finishedAt', B.nowS)
  end
  if group and spool_group_released(Q, group) then
    spool_wake(Q, 1)
  end
  B.events[#B.events + 1] = { id, spool_count_string(B.sizes, #result) }
  if dk and redis.call('GET', dk) == id then
    redis.call('DEL', dk)
  end
  if pq then
    spool_post_parent(Q, jobKey, id, 'completed')
  end
  if w then
    spool_announce(Q, 'done', Q.name .. '\n' .. id .. '\ncompleted')
  end
  spool_complete_metric(Q, B, duration, f[9], now)
  if dropped then
    -- removeOnComplete: true: the job goes at once and never enters the completed index.
    B.removed[#B.removed + 1] = id
  else
    B.kept[#B.kept + 1] = B.nowS
    B.kept[#B.kept + 1] = id
    if rc ~= '-1,-1' and not B.specs[rc] then
      B.specs[rc] = true
      B.specOrder[#B.specOrder + 1] = rc
    end
  end
  return 1, 'completed'
end

-- The batch's index writes, metrics and retention, once per call.
local function spool_complete_flush(Q, B, now)
  if #B.done == 0 then
    return
  end
  redis.call('ZREM', Q.active, unpack(B.done))
  if #B.kept > 0 then
    redis.call('ZADD', Q.completed, unpack(B.kept))
  end
  if #B.removed > 0 then
    spool_drop_jobs(Q, B.removed, false)
  end
  spool_events(Q, 'completed', SPOOL_COMPLETED_FIELDS, B.events)
  local key = spool_metrics_key(Q, now)
  for field, n in pairs(B.buckets) do
    spool_metric_add(key, field, n)
  end
  for suffix, ms in pairs(B.ms) do
    if ms > 0 then
      redis.call('HINCRBY', key, 'ms' .. suffix, ms)
    end
  end
  for i = 1, #B.specOrder do
    spool_trim(Q, Q.completed, B.specOrder[i], now)
  end
end
