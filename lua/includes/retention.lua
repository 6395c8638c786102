--[[
  retention: what a finished job leaves behind.
  spec is "count,ageMs" (-1 = unbounded): count 0 removes the job at once,
  count n keeps the newest n, ageMs drops those older than that. Trimming is
  bounded per call (SPOOL_TRIM_MAX old jobs per rule) so one completion never
  turns into a long scan; the next completions finish the job.
  The finished job must already be in indexKey (score = finishedAt).
  The dropped jobs' keys (hash, and the log and flow bookkeeping where the
  queue's jobs may own them: includes/owned-keys) go in one DEL.

  Where the spec lives: job field rc (completed) or rf (failed, cancelled).
  When the field is absent, what it means depends on the hash's layout:
  - compact (add.lua; the hash has no `id` field): the default retention,
    SPOOL_DEFAULT_SPECS below = DEFAULT_SPECS in lib/store/store.ts
    (test/unit/scripts.spec compares them); keep-all is written as '-1,-1';
  - full (an `id` field: flow-add, scheduler refills, and every job stored
    before the compact layout): keep everything ('-1,-1').
]]
local SPOOL_DEFAULT_SPECS = { rc = '1000,86400000', rf = '10000,2592000000' }

-- The spec of a job from its field (specField 'rc' or 'rf') and its `id` field, as HMGET read them.
local function spool_spec_of(specField, spec, idField)
  if spec then
    return spec
  end
  if idField then
    return '-1,-1'
  end
  return SPOOL_DEFAULT_SPECS[specField]
end
--- @include "includes/flow"
--- @include "includes/dead"
--- @include "includes/owned-keys"

-- dead: the jobs are dead letters, which leave the name/reason indexes with their hashes (includes/dead).
local function spool_drop_jobs(Q, ids, dead)
  local keys = {}
  local base = spool_flow_base(Q)
  local logs, flows = spool_owned_keys(Q)
  for i = 1, #ids do
    local id = ids[i]
    if dead then
      spool_dead_unindex(Q, Q.jobPrefix .. id, id)
    end
    keys[#keys + 1] = Q.jobPrefix .. id
    if logs then
      keys[#keys + 1] = Q.logPrefix .. id
    end
    if flows then
      -- A dropped parent takes its children bookkeeping with it (includes/flow:
      -- spool_deps, spool_kid_results, spool_kid_failures, built from one base).
      keys[#keys + 1] = base .. SPOOL_DEPS .. id
      keys[#keys + 1] = base .. SPOOL_KID_RESULTS .. id
      keys[#keys + 1] = base .. SPOOL_KID_FAILURES .. id
    end
  end
  if #keys > 0 then
    redis.call('DEL', unpack(keys))
  end
end

--[[
  Most jobs one trim drops, per rule (count, age). A single finish trims as
  its job lands (excess 1), but a worker's completion write trims once for
  up to 128 jobs (lib/engine/prefetch.ts MAX_WRITE_BATCH), so the bound must
  exceed that: at 100, 128-job writes grew a count-1000 index to 3,291 jobs
  over a 20,000-job run. Still bounded, so that lowering a retention spec on
  a big index spreads the deletions over later calls.
]]
local SPOOL_TRIM_MAX = 1000

-- Trims indexKey to the spec's count and age (count 0 is the caller's: the job never stays).
local function spool_trim(Q, indexKey, spec, now)
  local comma = string.find(spec, ',', 1, true)
  local count = tonumber(string.sub(spec, 1, comma - 1))
  local age = tonumber(string.sub(spec, comma + 1))
  local dead = indexKey == Q.failed
  if count > 0 then
    local excess = redis.call('ZCARD', indexKey) - count
    if excess > 0 then
      if excess > SPOOL_TRIM_MAX then excess = SPOOL_TRIM_MAX end
      -- ZRANGE then ZREMRANGEBYRANK rather than ZPOPMIN: the scores are not
      -- needed, and Redis formats each one it replies with as a printf.
      local ids = redis.call('ZRANGE', indexKey, 0, excess - 1)
      redis.call('ZREMRANGEBYRANK', indexKey, 0, excess - 1)
      spool_drop_jobs(Q, ids, dead)
    end
  end
  if age >= 0 then
    local old = redis.call('ZRANGE', indexKey, '-inf', '(' .. (now - age), 'BYSCORE', 'LIMIT', 0, SPOOL_TRIM_MAX)
    if #old > 0 then
      redis.call('ZREM', indexKey, unpack(old))
      spool_drop_jobs(Q, old, dead)
    end
  end
end

-- Returns true when the finished job itself was removed.
local function spool_retain(Q, indexKey, jobKey, id, spec, now)
  if spec == '-1,-1' then
    -- Keep everything (removeOnComplete/removeOnFail: false): nothing to trim, the job stays.
    return false
  end
  if string.sub(spec, 1, 2) == '0,' then
    redis.call('ZREM', indexKey, id)
    spool_drop_jobs(Q, { id }, indexKey == Q.failed)
    return true
  end
  spool_trim(Q, indexKey, spec, now)
  return redis.call('EXISTS', jobKey) == 0
end
