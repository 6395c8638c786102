--[[
  import: jobs brought in from another queue system (lib/migrate) enter this
  queue with their history: waiting (in the order given, after the waiting
  jobs already here), delayed until their own due time, waiting for their
  flow children, or straight into failed (a dead letter with its error) or
  completed (with its result). add.lua cannot do this: it starts every job
  afresh (attempt 0, created now, due after a delay from now).
  Idempotent: a job whose id exists here, or was imported here before (the
  `imported` set, kept after the job itself is gone), is left as it is, so
  running an import again after a crash writes each job once.

  KEYS[1..17] queue keys (includes/queue)
  KEYS[18] waitingChildren  flow parents waiting for children (zset, score = createdAt)
  KEYS[19] imported         ids ever imported into this queue (set)

  ARGV[1..3] channels and queue name (includes/queue)
  ARGV[4] jobs: JSON array of {id, name, data, opts, st (waiting, delayed,
          waiting-children, failed or completed), ca (createdAt ms), ra
          (runAt ms, delayed), at (attempts made), a (maxAttempts), p
          (priority), l ('1' LIFO), rc, rf (retention specs), pq, pid, pol
          (flow parent and its failure policy, all three or none), deps
          (["queue\nid", ...] pending children), res ({"queue\nid": result JSON}),
          fails ({"queue\nid": failure JSON}), fa (finishedAt ms), e, s, c,
          why (error message, stack, code and reason of a dead letter),
          r (result JSON of a completed job)}
          The job hashes and a parent's deps/results/failures keys are built
          here from the queue's prefixes (same hash tag), as add.lua does.

  Returns one entry per job: 1 imported, 0 already here (or imported before).
  Publishes: sched (wake) for new waiting jobs, 'd:<ms>:<queue>' when a new
  delayed job is the earliest due.
  Events: added (per imported job, with name and state).
]]
--- @include "includes/now"
--- @include "includes/queue"
--- @include "includes/place"
--- @include "includes/wake"
--- @include "includes/flow"
--- @include "includes/dead"
--- @include "includes/events"

local Q = spool_queue()
local wc, imported = KEYS[18], KEYS[19]
local jobs = cjson.decode(ARGV[4])
local now = spool_now()
local out, added = {}, {}
local woken, flows = 0, false
local earliestId, earliestDue

-- cjson turns an empty JSON object into an empty table: both read as "nothing to write".
local function pairsOf(map)
  local flat = {}
  for k, v in pairs(map or {}) do
    flat[#flat + 1] = k
    flat[#flat + 1] = v
  end
  return flat
end

for i = 1, #jobs do
  local j = jobs[i]
  local jobKey = Q.jobPrefix .. j.id
  if redis.call('SISMEMBER', imported, j.id) == 1 or redis.call('EXISTS', jobKey) == 1 then
    out[i] = 0
  else
    -- The full layout (an `id` field): retention is read from rc/rf, always written here.
    redis.call('HSET', jobKey, 'id', j.id, 'name', j.name, 'data', j.data, 'opts', j.opts,
      'attempt', j.at, 'maxAttempts', j.a, 'createdAt', j.ca, 'priority', j.p, 'stalled', 0,
      'deadline', 0, 'rc', j.rc, 'rf', j.rf, 'state', j.st)
    if j.l == '1' then
      redis.call('HSET', jobKey, 'lifo', '1')
    end
    if j.pq then
      redis.call('HSET', jobKey, 'pq', j.pq, 'pid', j.pid, 'pol', j.pol)
    end
    local results, failures = pairsOf(j.res), pairsOf(j.fails)
    if #results > 0 then
      redis.call('HSET', spool_kid_results(Q, j.id), unpack(results))
      flows = true
    end
    if #failures > 0 then
      redis.call('HSET', spool_kid_failures(Q, j.id), unpack(failures))
      flows = true
    end
    if j.st == 'waiting' then
      -- FIFO in the order given: the caller sends jobs in the order the old system would run them.
      redis.call('HSET', jobKey, 'runAt', j.ra)
      if spool_place(Q, jobKey, j.id, spool_wait_score(Q, tonumber(j.p), false)) then
        woken = woken + 1
      end
    elseif j.st == 'delayed' then
      local runAt = tonumber(j.ra)
      redis.call('HSET', jobKey, 'runAt', runAt)
      redis.call('ZADD', Q.delayed, runAt, j.id)
      if earliestDue == nil or runAt < earliestDue then
        earliestId, earliestDue = j.id, runAt
      end
    elseif j.st == 'waiting-children' then
      redis.call('SADD', spool_deps(Q, j.id), unpack(j.deps))
      redis.call('ZADD', wc, j.ca, j.id)
      flows = true
    elseif j.st == 'failed' then
      redis.call('HSET', jobKey, 'finishedAt', j.fa, 'reason', j.why, 'error', j.e, 'stack', j.s, 'code', j.c)
      redis.call('ZADD', Q.failed, j.fa, j.id)
      spool_dead_index(Q, jobKey, j.id, j.fa)
    else -- completed
      redis.call('HSET', jobKey, 'finishedAt', j.fa, 'result', j.r)
      redis.call('ZADD', Q.completed, j.fa, j.id)
    end
    redis.call('SADD', imported, j.id)
    added[#added + 1] = { j.id, j.name, j.st }
    out[i] = 1
  end
end

if flows then
  -- Its deps, results and failures keys go when a parent is dropped (includes/owned-keys).
  redis.call('HSET', Q.meta, 'kflow', '1')
end
spool_events(Q, 'added', {'jobId', 'name', 'state'}, added)
spool_wake(Q, woken)
if earliestId then
  spool_announce_delayed(Q, earliestId, earliestDue - now)
end
return out
