--[[
  flow: parent/child bookkeeping shared by the job-moving scripts.

  A flow spans queues, and each queue has its own hash tag, so no script may
  touch a child and its parent at once (Redis Cluster would refuse). The
  move is split in two idempotent steps:
    1. the child's terminal transition (complete, fail, reap, cancel, release,
       all through spool_finish) writes a self-contained notification into the
       OUTBOX of the child's own queue, in the same atomic step;
    2. child-done, on the parent's queue, applies it (records the result,
       removes the child from the parent's pending set once, moves the parent
       on); the notification is then acknowledged (outbox-ack) in the child's
       queue. The completing worker delivers at once; the reaper sweep
       re-delivers what a crash left behind. Applying twice changes nothing.

  Flow keys are not part of the 17-key queue bundle (every script would have
  to shift its own KEYS); they share the bundle's hash tag by construction:
  the bundle's meta key is `{prefix:queue}:meta`, and lib/store/keys.ts builds
  the same names from the same base (test/unit/flow-keys.spec checks it).
    {prefix:queue}:waiting-children   parents waiting for children (zset, score = createdAt)
    {prefix:queue}:outbox             child id -> notification for its parent (hash, JSON)
    {prefix:queue}:flow-intents       flow adds not yet committed here: token -> intent (hash, JSON)
    {prefix:queue}:deps:<id>          children a parent still waits for (set of "queue\nid")
    {prefix:queue}:results:<id>       completed children's results (hash "queue\nid" -> JSON)
    {prefix:queue}:failures:<id>      failed/cancelled children as the parent saw them (hash -> JSON)
  The job-finished channel is `<prefix>:done` (the sched channel with its
  last word changed), published only for jobs someone waits on (field w).
]]
--- @include "includes/announce"
local function spool_flow_base(Q)
  return string.sub(Q.meta, 1, -5)
end

local function spool_outbox(Q)
  return spool_flow_base(Q) .. 'outbox'
end

-- Flow adds in progress that wrote nodes here: token -> intent (lib/store/flow-intents.ts).
local function spool_flow_intents(Q)
  return spool_flow_base(Q) .. 'flow-intents'
end

local function spool_waiting_children(Q)
  return spool_flow_base(Q) .. 'waiting-children'
end

-- A parent's own flow keys are base .. one of these .. id (base: spool_flow_base).
local SPOOL_DEPS, SPOOL_KID_RESULTS, SPOOL_KID_FAILURES = 'deps:', 'results:', 'failures:'

local function spool_deps(Q, id)
  return spool_flow_base(Q) .. SPOOL_DEPS .. id
end

local function spool_kid_results(Q, id)
  return spool_flow_base(Q) .. SPOOL_KID_RESULTS .. id
end

local function spool_kid_failures(Q, id)
  return spool_flow_base(Q) .. SPOOL_KID_FAILURES .. id
end

-- Drops the flow keys a (parent) job owns; called wherever a job hash is deleted.
local function spool_drop_flow(Q, id)
  redis.call('DEL', spool_deps(Q, id), spool_kid_results(Q, id), spool_kid_failures(Q, id))
end

-- Queues a notification for the job's parent in this queue's outbox. st: completed, failed, cancelled, redriven.
local function spool_post_parent(Q, jobKey, id, st)
  local f = redis.call('HMGET', jobKey, 'pq', 'pid', 'pol', 'result', 'error', 'reason')
  if not f[1] then
    return
  end
  -- n makes every message unique, so an ack never deletes a newer message for the same child.
  local n = redis.call('HINCRBY', Q.meta, 'obx', 1)
  redis.call('HSET', spool_outbox(Q), id, cjson.encode({
    n = n, pq = f[1], pid = f[2], pol = f[3] or 'fail', q = Q.name, id = id, st = st,
    r = f[4] or 'null', e = f[5] or '', why = f[6] or '',
  }))
end

-- A job reached a terminal state: tell its parent (outbox) and anyone waiting on it (done channel).
-- One HMGET on the hot path: plain unwatched jobs pay nothing more.
local function spool_flow_finished(Q, jobKey, id, state)
  local f = redis.call('HMGET', jobKey, 'pq', 'w')
  if f[1] then
    spool_post_parent(Q, jobKey, id, state)
  end
  if f[2] then
    spool_announce(Q, 'done', Q.name .. '\n' .. id .. '\n' .. state)
  end
end
