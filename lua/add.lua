--[[
  add: new jobs enter waiting (their group's, when they have one) or delayed.
  One call adds one job or a whole batch (addBulk): one round trip, one script.

  KEYS[1..17] queue keys (includes/queue)
  KEYS[18..] two per job, in job order: its job hash, then its dedup key (the job hash again when it has none)

  ARGV[1..3] channels and queue name (includes/queue)
  ARGV[4] number of jobs n
  ARGV[5..] 5 per job: id, name, data (JSON), opts (JSON), and the options
            that differ from their defaults as one JSON object ('' when none),
            every value a string:
              d   delay ms (default 0 = now)
              p   priority 0 .. 2^20-1 (0)
              l   '1' for LIFO (FIFO)
              a   maxAttempts (1)
              dl  deadline ms (0 = none)
              t   dedup ttl ms (-1 = no dedup, 0 = until the job finishes)
              rc  removeOnComplete spec, rf removeOnFail spec ("count,ageMs", '-1,-1')
              g   group id (none)
            Packing the rare options keeps a plain add at 5 arguments per job.

  Returns one entry per job:
    {1, id, state, createdAt, runAt}   created ('waiting' or 'delayed')
    {0, id, hash...}                   the id (or the dedup key) already names a job: that job's hash, not re-added
    {0, id}                            dedup window still open but its job is gone
  or, when the new waiting jobs would pass maxWaiting (meta mw) or
  maxWaitingPerGroup (meta mwg), nothing is written and it returns
    {-1, limit, group ('' for the whole queue)}
  Publishes: sched 'w:<queue>' when a worker is idle (wake), 'd:<ms>:<queue>'
  when a new delayed job is the earliest due.

  Cost: per job one EXISTS and one HSET; the wait/delayed/group indexes,
  the meta counters (seq, n:<name>, gw, pw) and the wake-up are written once
  per call for the whole batch.
]]
--- @include "includes/now"
--- @include "includes/queue"
--- @include "includes/place"
--- @include "includes/wake"

local Q = spool_queue()
local STRIDE = 5
local FIRST_JOB_KEY = 18
local now = spool_now()
local n = tonumber(ARGV[4])
local NONE = {}

-- Pass 1: decode, and backpressure before anything is written. Jobs that already exist do not count.
local jobs = {}
local newWaiting, perGroup = 0, {}
for i = 0, n - 1 do
  local a = 5 + i * STRIDE
  local x = ARGV[a + 4] ~= '' and cjson.decode(ARGV[a + 4]) or NONE
  local job = {
    id = ARGV[a], name = ARGV[a + 1], data = ARGV[a + 2], opts = ARGV[a + 3],
    jobKey = KEYS[FIRST_JOB_KEY + i * 2], dedupKey = KEYS[FIRST_JOB_KEY + 1 + i * 2],
    delay = tonumber(x.d) or 0, priority = tonumber(x.p) or 0, lifo = x.l == '1',
    maxAttempts = x.a or '1', deadline = x.dl or '0', dedupTtl = tonumber(x.t) or -1,
    rc = x.rc or '-1,-1', rf = x.rf or '-1,-1', group = x.g,
  }
  job.exists = redis.call('EXISTS', job.jobKey) == 1
  if not job.exists and job.dedupTtl >= 0 then
    job.dedupHolder = redis.call('GET', job.dedupKey) or nil
  end
  jobs[i + 1] = job
  if not job.exists and not job.dedupHolder and job.delay <= 0 then
    newWaiting = newWaiting + 1
    if job.group then
      perGroup[job.group] = (perGroup[job.group] or 0) + 1
    end
  end
end
local anyPaused = false
if newWaiting > 0 then
  local limits = redis.call('HMGET', Q.meta, 'mw', 'mwg', 'pw', 'np')
  anyPaused = (tonumber(limits[4]) or 0) > 0
  local maxWaiting, maxPerGroup = tonumber(limits[1]), tonumber(limits[2])
  if maxWaiting and spool_waiting_count(Q) + (tonumber(limits[3]) or 0) + newWaiting > maxWaiting then
    return {-1, maxWaiting, ''}
  end
  if maxPerGroup then
    for gid, count in pairs(perGroup) do
      if redis.call('ZCARD', spool_group_wait(Q, gid)) + count > maxPerGroup then
        return {-1, maxPerGroup, gid}
      end
    end
  end
end

-- Sequence numbers for the waiting jobs of this call, taken in one step.
local seq = newWaiting > 0 and (redis.call('HINCRBY', Q.meta, 'seq', newWaiting) - newWaiting) or 0
local function next_score(priority, lifo)
  seq = seq + 1
  local s = seq % 4294967296
  local base = priority * 8589934592 + 4294967296
  if lifo then
    return base - 1 - s
  end
  return base + s
end

local checkPaused = anyPaused
local pausedName = {}
local function is_paused(name)
  if not checkPaused then
    return false
  end
  if pausedName[name] == nil then
    pausedName[name] = redis.call('SISMEMBER', Q.pausedNames, name) == 1
  end
  return pausedName[name]
end

local function put(fields, field, value, default)
  if value ~= default then
    fields[#fields + 1] = field
    fields[#fields + 1] = value
  end
end

-- Pass 2: write the job hashes; index entries are collected and written after.
local out = {}
local created = {}    -- ids created by this call (the same id may come twice in one batch)
local dedupTaken = {} -- dedup keys taken by this call
local wait, delayed, groupWait, groupOrder, parked, names = {}, {}, {}, {}, {}, {}
local woken, grouped, parkedCount = 0, 0, 0
local earliestId, earliestDue
for i = 1, n do
  local job = jobs[i]
  local id = job.id
  local known
  if job.exists or created[id] then
    known = id
  elseif job.dedupTtl >= 0 then
    known = dedupTaken[job.dedupKey] or job.dedupHolder
  end
  if known then
    local hash = redis.call('HGETALL', Q.jobPrefix .. known)
    local entry = {0, known}
    for j = 1, #hash do
      entry[#entry + 1] = hash[j]
    end
    out[#out + 1] = entry
  else
    created[id] = true
    -- Fields at their default are not written (attempt, stalled, claims 0; maxAttempts 1;
    -- priority, deadline 0; rc, rf '-1,-1'): every reader falls back to the default.
    local fields = {'id', id, 'name', job.name, 'data', job.data, 'opts', job.opts, 'createdAt', now}
    put(fields, 'maxAttempts', job.maxAttempts, '1')
    put(fields, 'priority', job.priority, 0)
    put(fields, 'deadline', job.deadline, '0')
    put(fields, 'rc', job.rc, '-1,-1')
    put(fields, 'rf', job.rf, '-1,-1')
    if job.lifo then
      fields[#fields + 1] = 'lifo'
      fields[#fields + 1] = '1'
    end
    if job.group then
      fields[#fields + 1] = 'group'
      fields[#fields + 1] = job.group
    end
    if job.dedupTtl > 0 then
      redis.call('SET', job.dedupKey, id, 'PX', job.dedupTtl)
      dedupTaken[job.dedupKey] = id
    elseif job.dedupTtl == 0 then
      redis.call('SET', job.dedupKey, id)
      dedupTaken[job.dedupKey] = id
      fields[#fields + 1] = 'dk'
      fields[#fields + 1] = job.dedupKey
    end

    local state, runAt
    if job.delay > 0 then
      state, runAt = 'delayed', now + job.delay
      fields[#fields + 1] = 'state'
      fields[#fields + 1] = state
      fields[#fields + 1] = 'runAt'
      fields[#fields + 1] = runAt
      delayed[#delayed + 1] = runAt
      delayed[#delayed + 1] = id
      if earliestDue == nil or runAt < earliestDue then
        earliestId, earliestDue = id, runAt
      end
    else
      -- Where includes/place puts a waiting job, for the whole batch at once.
      state, runAt = 'waiting', now
      local s = spool_int(next_score(job.priority, job.lifo))
      fields[#fields + 1] = 'state'
      fields[#fields + 1] = state
      fields[#fields + 1] = 'ws'
      fields[#fields + 1] = s
      fields[#fields + 1] = 'runAt'
      fields[#fields + 1] = runAt
      names[job.name] = (names[job.name] or 0) + 1
      if is_paused(job.name) then
        parked[job.name] = parked[job.name] or {}
        local p = parked[job.name]
        p[#p + 1] = s
        p[#p + 1] = id
        parkedCount = parkedCount + 1
      elseif job.group then
        if not groupWait[job.group] then
          groupWait[job.group] = {}
          groupOrder[#groupOrder + 1] = job.group
        end
        local g = groupWait[job.group]
        g[#g + 1] = s
        g[#g + 1] = id
        grouped = grouped + 1
        woken = woken + 1
      else
        wait[#wait + 1] = s
        wait[#wait + 1] = id
        woken = woken + 1
      end
    end
    redis.call('HSET', job.jobKey, unpack(fields))
    out[#out + 1] = {1, id, state, now, runAt}
  end
end

-- Indexes and counters, once per call. unpack is bounded by Lua's stack, so big lists go in slices.
local function zadd(key, list)
  for from = 1, #list, 2000 do
    redis.call('ZADD', key, unpack(list, from, math.min(from + 1999, #list)))
  end
end
zadd(Q.wait, wait)
zadd(Q.delayed, delayed)
for name, count in pairs(names) do
  redis.call('HINCRBY', Q.meta, 'n:' .. name, count)
end
for name, p in pairs(parked) do
  zadd(Q.parkedPrefix .. name, p)
end
if parkedCount > 0 then
  redis.call('HINCRBY', Q.meta, 'pw', parkedCount)
end
if grouped > 0 then
  redis.call('HINCRBY', Q.meta, 'gw', grouped)
  redis.call('SADD', Q.groups, unpack(groupOrder))
  for _, gid in ipairs(groupOrder) do
    zadd(spool_group_wait(Q, gid), groupWait[gid])
    spool_group_ready(Q, gid)
  end
end

spool_wake(Q, woken)
if earliestId then
  spool_announce_delayed(Q, earliestId, earliestDue - now)
end
return out
