--[[
  child-done: step 2 of a child's outcome, on the PARENT's queue. Applies a
  notification the child's terminal script left in its queue's outbox
  (includes/flow). Idempotent: the child leaves the parent's pending set once
  (SREM), so the parent moves once however often, or however concurrently,
  notifications arrive.

  completed  result recorded; last pending child -> parent waiting
  failed / cancelled, by the child's policy:
    fail      (default) the parent is dead-lettered (reason child-failed);
              a dead child stays pending, so re-driving it can resume the parent
              (a cancelled child, or one whose parent went on, is done)
    continue  failure recorded, the parent starts now (other children may still run)
    ignore    failure recorded, the child counts as done
    remove    the child is dropped from the parent's dependencies
  redriven   a dead child was re-driven: its failure is forgotten and a parent
             dead-lettered by child failures alone goes back to waiting-children

  KEYS[1..17] queue keys of the parent's queue (includes/queue)
  KEYS[18] job              the parent's hash
  KEYS[19] deps             children the parent waits for (set)
  KEYS[20] results          completed children's results (hash)
  KEYS[21] failures         failed children (hash)
  KEYS[22] waitingChildren  the queue's waiting-children index

  ARGV[1..3] channels and queue name (includes/queue)
  ARGV[4] the notification (JSON: q, id, st, r, e, why, pol, pid)

  Returns {code, parent state}: 1 applied, 0 the parent is gone (dropped).
  Publishes: sched when the parent becomes waiting.
  Events: redriven (a parent its child's redrive revived), failed (next dead) for a parent.
  Metrics: a dead letter when a failed child fails its parent (includes/metrics).
]]
--- @include "includes/now"
--- @include "includes/queue"
--- @include "includes/place"
--- @include "includes/wake"
--- @include "includes/finish"
--- @include "includes/metrics"

local Q = spool_queue()
local jobKey, deps, results, failures, wc = KEYS[18], KEYS[19], KEYS[20], KEYS[21], KEYS[22]
local m = cjson.decode(ARGV[4])
local pid = m.pid
local state = redis.call('HGET', jobKey, 'state')
if not state then
  return {0, ''}
end
local ref = m.q .. '\n' .. m.id
local now = spool_now()

-- waiting-children -> waiting (or straight on when something else already moved it).
local function start_parent()
  if state ~= 'waiting-children' or redis.call('HEXISTS', jobKey, 'hold') == 1 then
    return
  end
  redis.call('ZREM', wc, pid)
  local f = redis.call('HMGET', jobKey, 'priority', 'lifo')
  redis.call('HSET', jobKey, 'runAt', now)
  if spool_place(Q, jobKey, pid, spool_wait_score(Q, tonumber(f[1]) or 0, f[2] == '1')) then
    spool_wake(Q, 1)
  end
end

local function child_done()
  if redis.call('SREM', deps, ref) == 1 and redis.call('SCARD', deps) == 0 then
    start_parent()
  end
end

if m.st == 'completed' then
  redis.call('HSET', results, ref, m.r)
  redis.call('HDEL', failures, ref)
  child_done()
elseif m.st == 'redriven' then
  redis.call('HDEL', failures, ref)
  if state == 'failed' and redis.call('HGET', jobKey, 'reason') == 'child-failed' then
    local left = redis.call('HVALS', failures)
    local blocking = false
    for i = 1, #left do
      if cjson.decode(left[i]).policy == 'fail' then
        blocking = true
      end
    end
    if not blocking then
      spool_dead_unindex(Q, jobKey, pid)
      redis.call('ZREM', Q.failed, pid)
      spool_event(Q, 'redriven', 'jobId', pid, 'state', 'waiting-children')
      redis.call('HDEL', jobKey, 'finishedAt', 'error', 'stack', 'code', 'reason')
      redis.call('HSET', jobKey, 'state', 'waiting-children')
      redis.call('ZADD', wc, now, pid)
      state = 'waiting-children'
      if redis.call('SCARD', deps) == 0 then
        start_parent()
      end
    end
  end
else
  local failure = cjson.encode({ state = m.st, reason = m.why, message = m.e, policy = m.pol })
  if m.pol == 'remove' then
    redis.call('HDEL', failures, ref)
    child_done()
  elseif m.pol == 'ignore' then
    redis.call('HSET', failures, ref, failure)
    child_done()
  elseif m.pol == 'continue' then
    redis.call('HSET', failures, ref, failure)
    redis.call('SREM', deps, ref)
    start_parent()
  else
    redis.call('HSET', failures, ref, failure)
    local waitsOnIt = state == 'waiting-children'
      or (state == 'failed' and redis.call('HGET', jobKey, 'reason') == 'child-failed')
    -- A dead child stays pending while its parent waits on it (re-driving it resumes
    -- the parent); a cancelled one cannot come back, and a parent that went on
    -- (cancelled, running, done) no longer waits: for them the child is done.
    if m.st == 'cancelled' or not waitsOnIt then
      redis.call('SREM', deps, ref)
    end
    if state == 'waiting-children' then
      redis.call('ZREM', wc, pid)
      local what = m.st == 'cancelled' and 'was cancelled' or ('died (' .. m.why .. '): ' .. m.e)
      spool_dead_letter(Q, jobKey, pid, now, 'child-failed',
        'child ' .. m.id .. ' of queue ' .. m.q .. ' ' .. what, '', 'ChildFailedError')
      spool_metric_dead(Q, now, redis.call('HGET', jobKey, 'name'))
    end
  end
end
return {1, redis.call('HGET', jobKey, 'state') or 'removed'}
