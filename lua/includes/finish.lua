--[[
  finish: moves out of active and into terminal states.
  - leaving active frees the job's group slot (the group may rejoin the ring);
  - the lease token is spent in place (includes/lease): the holder that
    finished the job, retrying the same call after a lost reply, is
    recognised and answered idempotently, while no caller holds it any more.
    Overwriting the value is one listpack write where dropping `token` and
    adding a finishing-token field were two (jobs finished before this carry
    that field, `ft`: the retry checks read it too);
  - a dedup key held "until the job finishes" (dk) is released if it still
    points at this job;
  - retention (rc for completed, rf for failed and cancelled) trims old jobs;
  - a flow child notifies its parent through the outbox, and a watched job
    (waitUntilFinished) is announced on the done channel, before retention
    may drop the hash (includes/flow).
]]
--- @include "includes/lease"
--- @include "includes/groups"
--- @include "includes/retention"
--- @include "includes/announce"
--- @include "includes/wake"
--- @include "includes/global-cap"
--- @include "includes/flow"
--- @include "includes/dead"
--- @include "includes/events"

--[[
  Fields a job gets when it is created (add, flow-add, scheduler refills) and
  that only finishing reads: its group slot, dedup key and flow parent. A
  claim that finds none of them and no `id` field (the compact layout, where
  an absent rc is the default retention) marks the lease token's last byte:
  SPOOL_PLAIN_LEASE without an rc field, SPOOL_PLAIN_RC_LEASE with one.
  Completing such a job reads only the fields that can appear while it runs
  (token, cancel, w), and rc when it has one: every field an HMGET asks for
  and the hash lacks is a full scan of its listpack. A token is compared
  with the job's whole before its last byte is trusted; a token without a
  mark (those made before it end in a digit) takes the full read.
]]
local SPOOL_FINISH_FIELDS = { group = true, dk = true, pq = true }
local SPOOL_PLAIN_LEASE, SPOOL_PLAIN_RC_LEASE = '.', '+'
local SPOOL_PLAIN_BYTE, SPOOL_PLAIN_RC_BYTE = string.byte(SPOOL_PLAIN_LEASE), string.byte(SPOOL_PLAIN_RC_LEASE)

-- Out of active (after complete, fail, reap, release, throttle): the lease ends.
local function spool_leave_active(Q, jobKey, id, keepToken)
  redis.call('ZREM', Q.active, id)
  local f = redis.call('HMGET', jobKey, 'group', 'token')
  if f[2] then
    if keepToken then
      redis.call('HSET', jobKey, 'token', f[2] .. SPOOL_SPENT)
    else
      redis.call('HDEL', jobKey, 'token')
    end
  end
  if spool_group_released(Q, f[1]) then
    -- Workers that went idle while every group with work was at its cap must hear of the free slot.
    spool_wake(Q, 1)
  end
  spool_global_freed(Q, 1)
end

local function spool_release_dedup(jobKey, id)
  local dk = redis.call('HGET', jobKey, 'dk')
  if dk and redis.call('GET', dk) == id then
    redis.call('DEL', dk)
  end
end

-- Into a terminal state's index. Returns true when retention removed the job hash.
local function spool_finish(Q, jobKey, id, indexKey, state, now, specField)
  redis.call('HSET', jobKey, 'state', state, 'finishedAt', now)
  redis.call('ZADD', indexKey, now, id)
  spool_release_dedup(jobKey, id)
  spool_flow_finished(Q, jobKey, id, state)
  local f = redis.call('HMGET', jobKey, specField, 'id')
  return spool_retain(Q, indexKey, jobKey, id, spool_spec_of(specField, f[1], f[2]), now)
end

-- Dead-letter: record why, then finish into the failed index.
-- Emits failed (next dead) and keeps the dead-letter indexes (includes/dead).
local function spool_dead_letter(Q, jobKey, id, now, reason, message, stack, code)
  redis.call('HSET', jobKey, 'reason', reason, 'error', message, 'stack', stack, 'code', code)
  spool_dead_index(Q, jobKey, id, now)
  spool_event(Q, 'failed', 'jobId', id, 'next', 'dead', 'reason', reason, 'message', spool_event_text(message))
  return spool_finish(Q, jobKey, id, Q.failed, 'failed', now, 'rf')
end

-- Cancelled: the same path as any terminal state; removeOnFail governs retention.
local function spool_cancelled(Q, jobKey, id, now)
  redis.call('HDEL', jobKey, 'cancel')
  spool_event(Q, 'cancelled', 'jobId', id)
  return spool_finish(Q, jobKey, id, Q.cancelled, 'cancelled', now, 'rf')
end
