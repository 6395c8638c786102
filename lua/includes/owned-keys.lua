--[[
  owned-keys: which keys besides its hash a job may own, so that dropping
  jobs (includes/retention spool_drop_jobs) names only keys that can exist:
  each key named costs a lookup even when absent, and with the default
  retention every completion drops an older job (four such keys were ~4% of
  Redis's work per processed job at c100, ~8% with removeOnComplete).
  Meta fields:
    kt     the queue tracks them: set at its first placement ever (seq was
           0), when no job of it can have been claimed, so none has a log;
    klog   a job of the queue wrote a log line (log.lua);
    kflow  a job of the queue is a flow parent with deps, results and
           failures keys (flow-add; or found by spool_keys_born).
  A queue without kt held jobs before tracking began: its drops name all
  four keys, as they always did.
]]
--- @include "includes/flow"

-- The queue's first placement: from now on its log and flow keys are tracked.
local function spool_keys_born(Q)
  redis.call('HSET', Q.meta, 'kt', '1')
  -- A flow parent written before tracking began and never placed waits for its
  -- children or its delay, or failed or was cancelled with them.
  if redis.call('EXISTS', spool_waiting_children(Q)) == 1 or redis.call('ZCARD', Q.delayed) > 0
    or redis.call('ZCARD', Q.failed) > 0 or redis.call('ZCARD', Q.cancelled) > 0 then
    redis.call('HSET', Q.meta, 'kflow', '1')
  end
end

-- Whether the queue's jobs may own a log list, and flow keys (true, true when untracked).
local function spool_owned_keys(Q)
  local m = redis.call('HMGET', Q.meta, 'kt', 'klog', 'kflow')
  if not m[1] then
    return true, true
  end
  return m[2] ~= false, m[3] ~= false
end
