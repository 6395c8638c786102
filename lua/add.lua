--[[
  add: new jobs enter waiting (their group's, when they have one) or delayed.
  One call adds one job or a whole batch (addBulk): one round trip, one script.

  KEYS[1..17] queue keys (includes/queue); a job's hash (jobPrefix..id) and
  dedup key ({prefix:queue}:dedup:<key>) are built here: they share the
  queue's hash tag, and two key arguments per job were half of a bulk's
  bytes on the wire.

  ARGV[1..3] channels and queue name (includes/queue)
  ARGV[4] number of jobs n
  ARGV[5..] 5 per job: id, name, data (JSON), opts (JSON, '{}' when it holds
            nothing), and the options that differ from their defaults as
            one JSON object ('' when none), every value a string:
              d   delay ms (default 0 = now)
              p   priority 0 .. 2^20-1 (0)
              l   '1' for LIFO (FIFO)
              a   maxAttempts (1)
              dl  deadline ms (0 = none)
              t   dedup ttl ms (-1 = no dedup, 0 = until the job finishes)
              k   dedup key (the user's key; with t)
              rc  removeOnComplete spec, rf removeOnFail spec ("count,ageMs";
                  default DEFAULT_RETENTION, includes/retention)
              g   group id (none)
              tc  trace context (JSON carrier, stored as field tc; none)
              nr  '1': the numbered id was drawn from another queue's
                  counter (a sharded queue's first shard): when a job holds
                  it, report it taken ({id, -1}) rather than renumber it
                  from this queue's counter (see includes/ids)
            Packing the rare options keeps a plain add at 5 arguments per job.

  Returns {createdAt, one entry per job}, an entry being:
    0                  created, waiting (runAt = createdAt)
    runAt              created, delayed (a time in ms, > 0)
    {id, hash...}      the id (or the dedup key) already names a job: that job's hash, not re-added
    {id}               dedup window still open but its job is gone
    {newId, 0|runAt}   created under a new id: its numbered id was taken
                       (two entries: the known-job entries have an odd count)
    {id, -1}           its numbered id is taken and it carries nr: not written
  (the caller knows the ids it sent: a plain add's entry is one integer, not
  a table of five values to build here and to encode and decode);
  or, when the new waiting jobs would pass maxWaiting (meta mw) or
  maxWaitingPerGroup (meta mwg), nothing is written and it returns
    {-1, limit, group ('' for the whole queue)}
  Pushes: new waiting jobs go straight to the idle worker named by its last
  claim (includes/push): claimed here for it (events active) and appended
  to its push list; the rest wake idle workers. One plain job added while
  nothing waits is written already started (the one-job push,
  includes/push-jobs): the same writes as the claim's, fewer steps.
  Publishes: sched 'w:<queue>' when a worker is idle (wake), 'd:<ms>:<queue>'
  when a new delayed job is the earliest due.

  The job hash is compact (see includes/retention): no `id` field (the key
  holds it), no `runAt` while it equals createdAt, no `opts` when '{}', no
  field at its default (attempt, stalled 0; maxAttempts 1; priority,
  deadline 0; rc, rf the default retention), and `ws` only for a job of the
  fifo list (includes/place: the list holds ids, and claim takes the score a
  job put back returns with from here; a sorted set entry carries its own).
  A plain waiting job stores name, data, createdAt, state and ws: a
  listpack of about 80 bytes plus its data.

  Cost: per job one EXISTS and one HSET; the fifo/wait/delayed/group indexes,
  the meta counters (seq, n:<name>, gw, pw) and the wake-up are written once
  per call for the whole batch.
  Lua work is most of a one-job call's time (every table and function call
  costs about 0.1-0.7 us inside Redis), so: a job without packed options
  skips cjson and writes its hash from one table constructor, per-job state
  lives in one flat array, and the batch-only tables (same id twice, groups,
  parked names, delayed jobs) are made only when a job needs them.
  Events: added (per created job, with name and state), delayed (per delayed
  job); each kind as one stream entry for the call (includes/events).
]]
--- @include "includes/now"
--- @include "includes/queue"
--- @include "includes/place"
--- @include "includes/wake"
--- @include "includes/events"
--- @include "includes/push-jobs"
--- @include "includes/ids"

local Q = spool_queue()
local DEDUP_PREFIX = string.sub(Q.jobPrefix, 1, -6) .. ':dedup:' -- jobPrefix is {prefix:queue}:job:
local now = spool_now()
local nowS = tostring(now) -- written per job: a Lua number is converted on every redis.call
local n = tonumber(ARGV[4])
local NONE = {}

--[[
  Pass 1: decode, and backpressure before anything is written. Jobs that
  already exist do not count. Per job i (0-based), info[4i+1..4i+4] holds:
  its packed options (NONE when ''), whether its hash exists, the job its
  dedup key points at (false when none), and its hash key.
]]
local info = {}
local newWaiting, perGroup = 0, nil
local renumbered = nil -- job index -> true: created under a new id (spool_renumber)
local reported = nil -- job index -> true: its id is taken and it carries nr, so it is reported, not written
-- Jobs of one call mostly carry the same packed options (a producer's attempts
-- and retention): each distinct string is decoded once; the tables are only read.
local decoded = nil
for i = 0, n - 1 do
  local packed = ARGV[9 + i * 5]
  local x = NONE
  if packed ~= '' then
    decoded = decoded or {}
    x = decoded[packed]
    if x == nil then
      x = cjson.decode(packed)
      decoded[packed] = x
    end
  end
  local jobKey = Q.jobPrefix .. ARGV[5 + i * 5]
  local exists = redis.call('EXISTS', jobKey) == 1
  if exists and x.nr == '1' and spool_numbered(ARGV[5 + i * 5]) then
    -- Drawn from another queue's counter: that counter numbers it anew (reserve-ids with the taken id).
    reported = reported or {}
    reported[i + 1] = true
  elseif exists and spool_numbered(ARGV[5 + i * 5]) then
    -- A number is an id the queue gave (custom ids may not be one), so a job
    -- holding it means the counter went back (a failover lost its last draws):
    -- this job takes a fresh number instead of being taken for that one.
    ARGV[5 + i * 5] = spool_renumber(Q, ARGV[5 + i * 5])
    jobKey = Q.jobPrefix .. ARGV[5 + i * 5]
    exists = false
    renumbered = renumbered or {}
    renumbered[i + 1] = true
  end
  local holder = false
  if not exists and (x.t and tonumber(x.t) or -1) >= 0 then
    holder = redis.call('GET', DEDUP_PREFIX .. x.k) or false
  end
  info[i * 4 + 1], info[i * 4 + 2], info[i * 4 + 3], info[i * 4 + 4] = x, exists, holder, jobKey
  if not exists and not holder and (x.d and tonumber(x.d) or 0) <= 0 then
    newWaiting = newWaiting + 1
    if x.g then
      perGroup = perGroup or {}
      perGroup[x.g] = (perGroup[x.g] or 0) + 1
    end
  end
end
local anyPaused = false
local directOk = false -- the one job may start in this call (includes/push-jobs, the one-job push)
if newWaiting > 0 then
  local limits = redis.call('HMGET', Q.meta, 'mw', 'mwg', 'pw', 'np')
  anyPaused = (limits[4] and tonumber(limits[4]) or 0) > 0
  directOk = n == 1 and not anyPaused and Q.sched ~= ''
  local maxWaiting, maxPerGroup = tonumber(limits[1]), tonumber(limits[2])
  if maxWaiting and spool_waiting_count(Q) + (tonumber(limits[3]) or 0) + newWaiting > maxWaiting then
    return {-1, maxWaiting, ''}
  end
  if maxPerGroup and perGroup then
    for gid, count in pairs(perGroup) do
      if redis.call('ZCARD', spool_group_wait(Q, gid)) + count > maxPerGroup then
        return {-1, maxPerGroup, gid}
      end
    end
  end
end

-- Sequence numbers for the waiting jobs of this call, taken in one step.
-- Score = priority * 2^33 + 2^32 +/- sequence (see includes/place).
local seq = newWaiting > 0 and (redis.call('HINCRBY', Q.meta, 'seq', newWaiting) - newWaiting) or 0
if newWaiting > 0 and seq == 0 then
  spool_keys_born(Q)
end
local pausedName = nil -- name -> paused?, read once per name when some name is paused

-- Pass 2: write the job hashes; index entries are collected and written after.
local out = {now}
local created = n > 1 and {} or nil    -- ids created by this call (the same id may come twice in one batch)
local dedupTaken = n > 1 and {} or nil -- dedup keys taken by this call
local wait, listed, delayed, groupWait, groupOrder, parked = {}, {}, nil, nil, nil, nil
local oneName, oneCount, names = nil, 0, nil -- waiting jobs per name: most calls have one name
local woken, grouped, parkedCount = 0, 0, 0
local earliestId, earliestDue
local addedEvents, delayedEvents = {}, nil -- one stream entry each for the call (includes/events)
local direct, directJob = nil, nil -- the one-job push: its worker, and the job as that worker gets it
for i = 1, n do
  local a = i * 5
  local x, exists, holder, jobKey = info[i * 4 - 3], info[i * 4 - 2], info[i * 4 - 1], info[i * 4]
  local id, name = ARGV[a], ARGV[a + 1]
  local dedupTtl = x.t and tonumber(x.t) or -1
  local dedupKey = dedupTtl >= 0 and (DEDUP_PREFIX .. x.k) or nil
  local known
  if exists or (created and created[id]) then
    known = id
  elseif dedupTtl >= 0 then
    known = (dedupTaken and dedupTaken[dedupKey]) or holder or nil
  end
  if reported and reported[i] then
    out[#out + 1] = { id, -1 }
  elseif known then
    local hash = redis.call('HGETALL', Q.jobPrefix .. known)
    local entry = {known}
    for j = 1, #hash do
      entry[j + 1] = hash[j]
    end
    out[#out + 1] = entry
  else
    if created then
      created[id] = true
    end
    local delay = x.d and tonumber(x.d) or 0
    local state, runAt, s
    local fields
    local fifo = false -- priority 0, FIFO: the fifo list (includes/place)
    if delay > 0 then
      state, runAt = 'delayed', now + delay
      fields = {'name', name, 'data', ARGV[a + 2], 'createdAt', nowS, 'state', state, 'runAt', runAt}
      delayed = delayed or {}
      delayed[#delayed + 1] = runAt
      delayed[#delayed + 1] = id
      if earliestDue == nil or runAt < earliestDue then
        earliestId, earliestDue = id, runAt
      end
    else
      -- Where includes/place puts a waiting job, for the whole batch at once.
      state, runAt = 'waiting', now
      seq = seq + 1
      local priority = x.p and tonumber(x.p) or 0
      local base = priority * 8589934592 + 4294967296
      -- A number, not spool_int's string: redis.call writes an integer below 2^53
      -- exactly (checked against '%.0f'), and skips a printf per job.
      if x.l == '1' then
        s = base - 1 - seq % 4294967296
      else
        s = base + seq % 4294967296
        fifo = priority == 0 and not x.g -- listed, unless parked below
      end
      fields = {'name', name, 'data', ARGV[a + 2], 'createdAt', nowS, 'state', state}
      if fifo and directOk and not (x.dl and x.dl ~= '0') then
        direct = spool_push_take(Q, now)
      end
      if fifo then
        -- The list holds ids only: claim takes the score (for a job put back or parked) from here.
        fields[9], fields[10] = 'ws', s
      end
    end
    if ARGV[a + 3] ~= '{}' then
      fields[#fields + 1], fields[#fields + 2] = 'opts', ARGV[a + 3]
    end
    if x ~= NONE then
      -- Fields at their default are not written (see the header): every reader falls back to the default.
      local f = #fields
      if x.a and x.a ~= '1' then
        fields[f + 1], fields[f + 2], f = 'maxAttempts', x.a, f + 2
      end
      local priority = x.p and tonumber(x.p) or 0
      if priority ~= 0 then
        fields[f + 1], fields[f + 2], f = 'priority', priority, f + 2
      end
      if x.dl and x.dl ~= '0' then
        fields[f + 1], fields[f + 2], f = 'deadline', x.dl, f + 2
      end
      if x.rc then
        fields[f + 1], fields[f + 2], f = 'rc', x.rc, f + 2
      end
      if x.rf then
        fields[f + 1], fields[f + 2], f = 'rf', x.rf, f + 2
      end
      if x.l == '1' then
        fields[f + 1], fields[f + 2], f = 'lifo', '1', f + 2
      end
      if x.g then
        fields[f + 1], fields[f + 2], f = 'group', x.g, f + 2
      end
      if x.tc then
        fields[f + 1], fields[f + 2], f = 'tc', x.tc, f + 2
      end
      if dedupTtl > 0 then
        redis.call('SET', dedupKey, id, 'PX', dedupTtl)
        if dedupTaken then
          dedupTaken[dedupKey] = id
        end
      elseif dedupTtl == 0 then
        redis.call('SET', dedupKey, id)
        if dedupTaken then
          dedupTaken[dedupKey] = id
        end
        fields[f + 1], fields[f + 2], f = 'dk', dedupKey, f + 2
      end
    end
    if direct then
      direct.id, directJob = id, spool_push_start(Q, direct, id, fields, nowS)
    elseif s then
      if oneName == nil or oneName == name then
        oneName, oneCount = name, oneCount + 1
      else
        names = names or {}
        names[name] = (names[name] or 0) + 1
      end
      local paused = false
      if anyPaused then
        pausedName = pausedName or {}
        paused = pausedName[name]
        if paused == nil then
          paused = redis.call('SISMEMBER', Q.pausedNames, name) == 1
          pausedName[name] = paused
        end
      end
      if paused then
        parked = parked or {}
        parked[name] = parked[name] or {}
        local p = parked[name]
        p[#p + 1] = s
        p[#p + 1] = id
        parkedCount = parkedCount + 1
      elseif x.g then
        local gid = x.g
        groupWait = groupWait or {}
        if not groupWait[gid] then
          groupWait[gid] = {}
          groupOrder = groupOrder or {}
          groupOrder[#groupOrder + 1] = gid
        end
        local g = groupWait[gid]
        g[#g + 1] = s
        g[#g + 1] = id
        grouped = grouped + 1
        woken = woken + 1
      elseif fifo then
        listed[#listed + 1] = id
        woken = woken + 1
      else
        wait[#wait + 1] = s
        wait[#wait + 1] = id
        woken = woken + 1
      end
    end
    redis.call('HSET', jobKey, unpack(fields))
    addedEvents[#addedEvents + 1] = { id, name, state }
    if state == 'delayed' then
      delayedEvents = delayedEvents or {}
      delayedEvents[#delayedEvents + 1] = { id, delay, runAt }
    end
    out[#out + 1] = s and 0 or runAt
    if renumbered and renumbered[i] then
      out[#out] = { id, out[#out] }
    end
  end
end

-- Indexes and counters, once per call. unpack is bounded by Lua's stack, so big lists go in slices.
local function zadd(key, list)
  if #list <= 2000 then
    redis.call('ZADD', key, unpack(list))
    return
  end
  for from = 1, #list, 2000 do
    redis.call('ZADD', key, unpack(list, from, math.min(from + 1999, #list)))
  end
end
if #wait > 0 then
  zadd(Q.wait, wait)
end
for from = 1, #listed, 4000 do
  redis.call('RPUSH', Q.fifo, unpack(listed, from, math.min(from + 3999, #listed)))
end
if delayed then
  zadd(Q.delayed, delayed)
end
if oneName then
  redis.call('HINCRBY', Q.meta, 'n:' .. oneName, oneCount)
end
if names then
  for name, count in pairs(names) do
    redis.call('HINCRBY', Q.meta, 'n:' .. name, count)
  end
end
if parked then
  for name, p in pairs(parked) do
    zadd(Q.parkedPrefix .. name, p)
  end
  redis.call('HINCRBY', Q.meta, 'pw', parkedCount)
end
if grouped > 0 then
  redis.call('HINCRBY', Q.meta, 'gw', grouped)
  redis.call('SADD', Q.groups, unpack(groupOrder))
  for _, gid in ipairs(groupOrder) do
    zadd(spool_group_wait(Q, gid), groupWait[gid])
    local _, paused = spool_group_ready(Q, gid)
    if paused then
      redis.call('HINCRBY', Q.meta, 'gpw', #groupWait[gid] / 2)
    end
  end
end

spool_events(Q, 'added', {'jobId', 'name', 'state'}, addedEvents)
if delayedEvents then
  spool_events(Q, 'delayed', {'jobId', 'delay', 'runAt'}, delayedEvents)
end
-- An idle worker that listens for pushes gets its share now, leased in this call (includes/push).
if direct then
  spool_push_started(Q, direct, directJob, now)
end
woken = woken - spool_push(Q, woken, now)
spool_wake(Q, woken)
if earliestId then
  spool_announce_delayed(Q, earliestId, earliestDue - now)
end
return out
