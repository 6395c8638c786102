--[[
  cancel: a waiting or delayed job is cancelled at once; an active one gets a
  cancel request: its holder hears it on the ownership-lost channel (and from
  its next lease renewal), aborts job.signal, and the job finishes as
  cancelled when the holder reports back or its lease expires.

  KEYS[1..17] queue keys (includes/queue)
  KEYS[18] job        the job hash

  ARGV[1..3] channels and queue name (includes/queue)
  ARGV[4] job id

  Returns {code, state}: 1 cancelled now, 2 cancel requested (state active),
  3 already finished (its terminal state), 0 unknown job.
  Publishes: owls 'cancel\n<queue>\n<id>\n<token>' for an active job.
]]
--- @include "includes/now"
--- @include "includes/queue"
--- @include "includes/place"
--- @include "includes/finish"

local Q = spool_queue()
local jobKey, id = KEYS[18], ARGV[4]
local fields = redis.call('HMGET', jobKey, 'state', 'token')
local state = fields[1]
if not state then
  return {0, ''}
end
if state == 'waiting' or state == 'delayed' then
  if state == 'waiting' then
    spool_unplace(Q, jobKey, id)
  else
    redis.call('ZREM', Q.delayed, id)
  end
  spool_cancelled(Q, jobKey, id, spool_now())
  return {1, 'cancelled'}
end
if state == 'active' then
  redis.call('HSET', jobKey, 'cancel', '1')
  redis.call('PUBLISH', Q.owls, 'cancel\n' .. Q.name .. '\n' .. id .. '\n' .. (fields[2] or ''))
  return {2, 'active'}
end
return {3, state}
