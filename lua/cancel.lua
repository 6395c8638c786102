--[[
  cancel: a waiting or delayed job is cancelled at once; an active one gets a
  cancel request: its holder hears it on the ownership-lost channel (and from
  its next lease renewal), aborts job.signal, and the job finishes as
  cancelled when the holder reports back or its lease expires.

  KEYS[1..17] queue keys (includes/queue)
  KEYS[18] job        the job hash

  ARGV[1..3] channels and queue name (includes/queue)
  ARGV[4] job id

  A flow parent waiting for its children (waiting-children) is cancelled at
  once too. Whatever the outcome, the reply lists the children the job still
  waits for ("queue\nid"), so the engine cancels them in their own queues.

  Returns {code, state, pending children...}: 1 cancelled now, 2 cancel
  requested (state active), 3 already finished (its terminal state), 0 unknown job.
  Publishes: owls 'cancel\n<queue>\n<id>\n<token>' for an active job.
  Events: cancelled (a job not running; an active job emits it when its worker ends it).
]]
--- @include "includes/now"
--- @include "includes/queue"
--- @include "includes/announce"
--- @include "includes/place"
--- @include "includes/finish"
--- @include "includes/flow"

local Q = spool_queue()
local jobKey, id = KEYS[18], ARGV[4]
local fields = redis.call('HMGET', jobKey, 'state', 'token')
local state = fields[1]
if not state then
  return {0, ''}
end
-- Read before the job may be dropped by retention.
local pending = redis.call('SMEMBERS', spool_deps(Q, id))
local function reply(code, st)
  local out = {code, st}
  for i = 1, #pending do
    out[#out + 1] = pending[i]
  end
  return out
end
if state == 'waiting' or state == 'delayed' or state == 'waiting-children' then
  if state == 'waiting' then
    spool_unplace(Q, jobKey, id)
  elseif state == 'delayed' then
    redis.call('ZREM', Q.delayed, id)
  else
    redis.call('ZREM', spool_waiting_children(Q), id)
  end
  spool_cancelled(Q, jobKey, id, spool_now())
  return reply(1, 'cancelled')
end
if state == 'active' then
  redis.call('HSET', jobKey, 'cancel', '1')
  spool_announce(Q, 'owls', 'cancel\n' .. Q.name .. '\n' .. id .. '\n' .. (fields[2] or ''))
  return reply(2, 'active')
end
return reply(3, state)
