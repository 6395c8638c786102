--[[
  add: new jobs enter waiting (their group's, when they have one) or delayed.
  One call adds one job or a whole batch (addBulk): one round trip, one script.

  KEYS[1..17] queue keys (includes/queue)
  KEYS[18..] two per job, in job order: its job hash, then its dedup key (the job hash again when it has none)

  ARGV[1..3] channels and queue name (includes/queue)
  ARGV[4] number of jobs n
  ARGV[5..] 13 per job: id, name, data (JSON), opts (JSON), delay ms (0 = now),
            priority (0 .. 2^20-1), lifo (0/1), maxAttempts, deadline ms (0 = none),
            dedup ttl ms (-1 = no dedup, 0 = until the job finishes),
            removeOnComplete spec, removeOnFail spec ("count,ageMs", -1 = unbounded),
            group id ('' = none)

  Returns one entry per job:
    {1, id, state, createdAt, runAt}   created ('waiting' or 'delayed')
    {0, id, hash...}                   the id (or the dedup key) already names a job: that job's hash, not re-added
    {0, id}                            dedup window still open but its job is gone
  or, when the new waiting jobs would pass maxWaiting (meta mw) or
  maxWaitingPerGroup (meta mwg), nothing is written and it returns
    {-1, limit, group ('' for the whole queue)}
  Publishes: sched 'w:<queue>' when a worker is idle (wake), 'd:<ms>:<queue>'
  when a new delayed job is the earliest due.
]]
--- @include "includes/now"
--- @include "includes/queue"
--- @include "includes/place"
--- @include "includes/wake"

local Q = spool_queue()
local STRIDE = 13
local FIRST_JOB_KEY = 18
local now = spool_now()
local n = tonumber(ARGV[4])

-- Pass 1: backpressure, before anything is written. Jobs that already exist do not count.
local newWaiting, perGroup = 0, {}
for i = 0, n - 1 do
  local a = 5 + i * STRIDE
  local jobKey, dedupKey = KEYS[FIRST_JOB_KEY + i * 2], KEYS[FIRST_JOB_KEY + 1 + i * 2]
  local exists = redis.call('EXISTS', jobKey) == 1 or (tonumber(ARGV[a + 9]) >= 0 and redis.call('EXISTS', dedupKey) == 1)
  if not exists and tonumber(ARGV[a + 4]) <= 0 then
    newWaiting = newWaiting + 1
    local gid = ARGV[a + 12]
    if gid ~= '' then
      perGroup[gid] = (perGroup[gid] or 0) + 1
    end
  end
end
if newWaiting > 0 then
  local limits = redis.call('HMGET', Q.meta, 'mw', 'mwg', 'pw')
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

-- Pass 2: write.
local out = {}
local woken = 0
local earliestId, earliestDue
for i = 0, n - 1 do
  local a = 5 + i * STRIDE
  local jobKey, dedupKey = KEYS[FIRST_JOB_KEY + i * 2], KEYS[FIRST_JOB_KEY + 1 + i * 2]
  local id = ARGV[a]
  local dedupTtl = tonumber(ARGV[a + 9])
  -- Checked again: the same id or dedup key may come twice in one batch.
  local known
  if redis.call('EXISTS', jobKey) == 1 then
    known = id
  elseif dedupTtl >= 0 then
    known = redis.call('GET', dedupKey) or nil
  end
  if known then
    local hash = redis.call('HGETALL', Q.jobPrefix .. known)
    local entry = {0, known}
    for j = 1, #hash do
      entry[#entry + 1] = hash[j]
    end
    out[#out + 1] = entry
  else
    local delay = tonumber(ARGV[a + 4])
    local priority = tonumber(ARGV[a + 5])
    local lifo = ARGV[a + 6] == '1'
    redis.call('HSET', jobKey, 'id', id,
      'name', ARGV[a + 1], 'data', ARGV[a + 2], 'opts', ARGV[a + 3],
      'attempt', 0, 'maxAttempts', ARGV[a + 7], 'createdAt', now,
      'priority', priority, 'stalled', 0, 'claims', 0,
      'deadline', ARGV[a + 8], 'rc', ARGV[a + 10], 'rf', ARGV[a + 11])
    if lifo then
      redis.call('HSET', jobKey, 'lifo', '1')
    end
    if ARGV[a + 12] ~= '' then
      redis.call('HSET', jobKey, 'group', ARGV[a + 12])
    end
    if dedupTtl > 0 then
      redis.call('SET', dedupKey, id, 'PX', dedupTtl)
    elseif dedupTtl == 0 then
      redis.call('SET', dedupKey, id)
      redis.call('HSET', jobKey, 'dk', dedupKey)
    end

    local state, runAt
    if delay > 0 then
      state, runAt = 'delayed', now + delay
      redis.call('HSET', jobKey, 'state', state, 'runAt', runAt)
      redis.call('ZADD', Q.delayed, runAt, id)
      if earliestDue == nil or runAt < earliestDue then
        earliestId, earliestDue = id, runAt
      end
    else
      state, runAt = 'waiting', now
      redis.call('HSET', jobKey, 'runAt', runAt)
      if spool_place(Q, jobKey, id, spool_wait_score(Q, priority, lifo)) then
        woken = woken + 1
      end
    end
    out[#out + 1] = {1, id, state, now, runAt}
  end
end

spool_wake(Q, woken)
if earliestId then
  spool_announce_delayed(Q, earliestId, earliestDue - now)
end
return out
