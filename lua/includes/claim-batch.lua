--[[
  claim-batch: waiting -> active for up to `count` jobs, each under a fresh
  lease token <workerId>:<call number> (meta lc counts the claim calls that
  started a job; the jobs of one call share it: a token is only ever
  compared with its own job's, and a job is claimed at most once per call).
  A token may end in a mark of a plain job (includes/finish).
  Order (includes/claim-pop): the ungrouped jobs and the groups of the ring take turns (the
  ungrouped jobs count as one more group: they take a turn once every group
  in the ring had one since their last, meta rr); inside each, strict priority then
  FIFO/LIFO. A group that can take no more after a claim (cap reached, rate
  window used up, nothing left) leaves the ring.
  On the way:
  - a paused queue, an open throttle (lu) or a used-up queue rate window
    gives nothing, and says how long to wait (waitMs);
  - a global concurrency cap (meta gc) takes at most its free slots: the
    cap less the active index's size, across every worker and process
    (includes/global-cap wakes the workers it turned away when a slot frees);
  - a job whose deadline passed while it waited is dead-lettered (reason deadline);
  - a job whose name was paused after it was placed is parked now;
  - `room` limits job names the worker caps (nameConcurrency): at most
    room[name] jobs of that name are taken; the rest, and every job of a
    name with room 0, are stepped over and put back at their places
    afterwards, so a batch claim never takes more of a capped name than
    the worker can start;
  - an index entry whose hash is gone is dropped;
  - finding fewer jobs than asked sets the idle marker, so the next add
    publishes a wake-up (see wake), and, for a worker that listens for
    pushes, names it as the one the next add hands its jobs to (see push).
]]
--- @include "includes/place"
--- @include "includes/finish"
--- @include "includes/metrics"
--- @include "includes/limits"
--- @include "includes/claim-pop"
--- @include "includes/claim-job"
--- @include "includes/push"
--- @include "includes/global-cap"

--[[
  Cost: the queue-wide checks are paid once per call; per claimed job the
  cost is one HGETALL and one HSET (plus the group's own bookkeeping). Meta
  counters touched per job (rr, gw, n:<name>) are kept in `C` and written once
  at the end; active-index entries are added by one ZADD, and the active
  events go as one stream entry (includes/events).
]]

local SPOOL_ACTIVE_FIELDS = { 'jobId', 'attempt' }

-- Writes the per-call counters and the active events (one entry) back to Redis.
local function spool_claim_flush(Q, C)
  if C.rrUsed then
    redis.call('HSET', Q.meta, 'rr', C.rr)
  end
  if C.gw ~= 0 then
    redis.call('HINCRBY', Q.meta, 'gw', C.gw)
  end
  for name, delta in pairs(C.names) do
    redis.call('HINCRBY', Q.meta, 'n:' .. name, delta)
  end
  if #C.active > 0 then
    redis.call('ZADD', Q.active, unpack(C.active))
  end
  spool_events(Q, 'active', SPOOL_ACTIVE_FIELDS, C.events)
end

-- The queue looked empty to a claim: mark it so the next add announces new work
-- (see includes/wake). The one place the marker and its TTL are set.
local SPOOL_IDLE_TTL_MS = 3600000
local function spool_mark_idle(Q)
  redis.call('SET', Q.idle, '1', 'PX', SPOOL_IDLE_TTL_MS)
end

-- Woken by a sched message: spends the wake-hint budget; returns how many slots it
-- grants, and whether a budget was there to spend (none: every slot, nothing to give back).
local function spool_claim_granted(Q, count)
  local budget = redis.call('GET', Q.hint)
  if not budget then
    return count, false
  end
  local n = tonumber(budget) or 0
  local granted = count
  if n < count then
    granted = n > 0 and n or 0
    spool_mark_idle(Q)
  end
  if granted > 0 then
    redis.call('DECRBY', Q.hint, granted)
  end
  return granted, true
end

--[[
  The queue-wide checks, paid once per call. Returns the meta fields and the
  queue rate window (allowance, reopen, fresh) when jobs may start; else nil
  and the ms to wait (0: paused, an add will announce).
]]
local function spool_claim_gate(Q, now)
  local m = redis.call('HMGET', Q.meta, 'paused', 'rl', 'rlw', 'rln', 'lu', 'rr', 'grl', 'gw', 'np', 'gc')
  if m[1] then
    spool_mark_idle(Q)
    return nil, 0
  end
  local throttled = tonumber(m[5])
  if throttled and now < throttled then
    return nil, throttled - now
  end
  local allowance, reopen, fresh = spool_window(m[2], m[3], m[4], now)
  if allowance <= 0 then
    return nil, reopen - now
  end
  return m, allowance, reopen, fresh
end

-- Nothing left to pop: mark the queue idle and say when the first rate-limited group reopens (0: none).
local function spool_claim_ran_dry(Q, grouped, now)
  spool_mark_idle(Q)
  -- Groups waiting for their rate window: no add will announce the reopening, so say when it is.
  local reopenAt = grouped and redis.call('ZRANGE', Q.glimited, 0, 0, 'WITHSCORES') or {}
  if reopenAt[2] then
    return math.max(1, tonumber(reopenAt[2]) - now)
  end
  return 0
end

-- Puts the stepped-over jobs back at their places (their group's queue, or the ungrouped one).
local function spool_claim_put_back(Q, skipped)
  for i = 1, #skipped, 3 do
    local pick = skipped[i + 2]
    redis.call('ZADD', pick and pick.source or Q.wait, skipped[i + 1], skipped[i])
    if pick then
      redis.call('HINCRBY', Q.meta, 'gw', 1)
      spool_group_ready(Q, pick.gid)
    end
  end
end

-- Counts the claimed jobs against the queue's rate window; returns the wait, set when this claim used it up.
local function spool_claim_count_window(Q, m, claimed, allowance, reopen, fresh, now, waitMs)
  if not m[2] then
    return waitMs
  end
  if claimed >= allowance and waitMs == 0 then
    -- This claim used up the queue's window: say when it reopens, or a
    -- worker with free slots would sleep until its next poll.
    waitMs = math.max(1, reopen - now)
  end
  if claimed > 0 then
    if fresh then
      redis.call('HSET', Q.meta, 'rlw', now, 'rln', claimed)
    else
      redis.call('HINCRBY', Q.meta, 'rln', claimed)
    end
  end
  return waitMs
end

--[[
  Returns the claimed job hashes and, when nothing may start yet, the ms to wait.
  The hashes are appended to `out` when given (the caller's reply, with its
  own entries first), else to a new table.
  `hinted`: the caller was woken by a sched message and first spends the
  wake-hint budget: it claims only the slots granted. `pushSlots` (nil:
  the worker does not listen for pushes): the worker has that many running
  slots free for this claim; if the claim leaves some of them empty (the
  queue ran dry), it is named for the next add's push (includes/push),
  else its name, if it holds it, is dropped. A worker whose free slots
  are only its prefetch reserve is not named: a push would wait there
  behind a running job while another worker may be idle.
  Steps: wake-hint budget, queue-wide gate, pop and take jobs in turn, put
  back the stepped-over ones, flush counters, count the rate window.
]]
local function spool_claim(Q, count, workerId, lockMs, now, room, hinted, out, pushSlots)
  out = out or {}
  local base = #out
  local spent = false
  if hinted then
    count, spent = spool_claim_granted(Q, count)
  end
  if count <= 0 then
    return out, 0
  end
  local m, allowance, reopen, fresh = spool_claim_gate(Q, now)
  if not m then
    return out, allowance
  end
  if count > allowance then
    count = allowance
  end
  local free = spool_global_free(Q, m[10])
  if free <= 0 then
    spool_global_full(Q)
    spool_mark_idle(Q)
    return out, 0
  end
  if count > free then
    count = free
  end
  local C = spool_claim_state(Q, m)
  -- No grouped job waits (meta gw): the ring and the rate-limited groups have nothing to give.
  local grouped = (tonumber(m[8]) or 0) > 0
  if grouped then
    spool_groups_reopen(Q, now)
  else
    C.ringLen = 0
  end
  -- Per-call inputs of the job steps; skipped: {id, score, group pick} triples stepped over (no room for their name);
  -- fields and counts: scratch reused for every job (spool_claim_fields, spool_count_string).
  local J = { workerId = workerId, lockMs = lockMs, now = now, nowS = tostring(now), expiresS = tostring(now + lockMs), room = room, checkPaused = (tonumber(m[9]) or 0) > 0, skipped = {}, fields = {}, counts = {} }
  local waitMs = 0
  local budget = count + 100
  while #out - base < count and budget > 0 do
    budget = budget - 1
    local id, score, pick = spool_pop(Q, C, now, count - (#out - base))
    if not id then
      waitMs = spool_claim_ran_dry(Q, grouped, now)
      break
    end
    spool_claim_one(Q, C, J, id, score, pick, out)
  end
  spool_unpop(Q, C)
  spool_claim_flush(Q, C)
  spool_claim_put_back(Q, J.skipped)
  local claimed = #out - base
  if claimed >= free then
    -- The cap is reached: this worker (which may have asked for more) and the
    -- ones turned away hear when a slot frees (or configure raises the cap).
    spool_global_full(Q)
    spool_mark_idle(Q)
  end
  if pushSlots then
    if pushSlots > claimed and not room and waitMs == 0 and claimed < count then
      spool_push_register(Q, workerId, lockMs, pushSlots - claimed)
    else
      spool_push_drop(Q, workerId)
    end
  end
  if spent and #J.skipped > 0 and claimed < count then
    -- Slots granted for jobs this worker may not take (no room for their name):
    -- give them back, so another idle worker woken by the same message can.
    -- Only to a budget this call spent from: INCRBY on a missing key would
    -- make one without the TTL the wake-up gives it (includes/wake), a
    -- budget that never expires.
    redis.call('INCRBY', Q.hint, math.min(count - claimed, #J.skipped / 3))
  end
  return out, spool_claim_count_window(Q, m, claimed, allowance, reopen, fresh, now, waitMs)
end

-- ARGV[from..] as name, room pairs: name -> how many jobs of it a claim may take (nil when none).
local function spool_name_room(from)
  if from > #ARGV then
    return nil
  end
  local room = {}
  for i = from, #ARGV - 1, 2 do
    room[ARGV[i]] = tonumber(ARGV[i + 1])
  end
  return room
end
