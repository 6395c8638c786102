--[[
  flow-commit: step 2 of adding a flow, per queue.
  'release': the held leaves of this flow start (waiting, or delayed by their
  delay); parents stay in waiting-children until their children are done.
  'discard': another queue of the tree refused its nodes, so the nodes this
  flow wrote here are removed; nothing of them ever ran (leaves were held).
  Only nodes still marked with this flow's token are touched: idempotent.
  Either way the flow's intent here is dropped: nothing is left to sweep.

  KEYS[1..17] queue keys (includes/queue)
  KEYS[18] waitingChildren  parents waiting for children (zset)
  KEYS[19..] two per node, in id order: its job hash, then its deps set

  ARGV[1..3] channels and queue name (includes/queue)
  ARGV[4] decision: 'release' or 'discard'
  ARGV[5] flow token
  ARGV[6..] node ids

  Returns how many nodes were released or discarded.
  Publishes: sched (wake / earliest delayed) on release.
  Events: added (one per node released, with name and state), delayed (a delayed leaf).
]]
--- @include "includes/now"
--- @include "includes/queue"
--- @include "includes/place"
--- @include "includes/wake"
--- @include "includes/flow"
--- @include "includes/events"

local Q = spool_queue()
local wc = KEYS[18]
local mode, token = ARGV[4], ARGV[5]
local now = spool_now()
local done, woken = 0, 0
local earliestId, earliestDue
for i = 6, #ARGV do
  local id = ARGV[i]
  local jobKey, depsKey = KEYS[19 + (i - 6) * 2], KEYS[20 + (i - 6) * 2]
  local f = redis.call('HMGET', jobKey, 'fl', 'hold', 'priority', 'lifo')
  if f[1] == token then
    if mode == 'discard' then
      redis.call('ZREM', wc, id)
      redis.call('DEL', jobKey, depsKey)
      done = done + 1
    else
      redis.call('HDEL', jobKey, 'fl')
      local state, delay = 'waiting-children', 0
      if f[2] then
        redis.call('HDEL', jobKey, 'hold')
        redis.call('ZREM', wc, id)
        delay = tonumber(f[2]) or 0
        state = delay > 0 and 'delayed' or 'waiting'
        if delay > 0 then
          local runAt = now + delay
          redis.call('HSET', jobKey, 'state', 'delayed', 'runAt', runAt)
          redis.call('ZADD', Q.delayed, runAt, id)
          if earliestDue == nil or runAt < earliestDue then
            earliestId, earliestDue = id, runAt
          end
        else
          redis.call('HSET', jobKey, 'runAt', now)
          if spool_place(Q, jobKey, id, spool_wait_score(Q, tonumber(f[3]) or 0, f[4] == '1')) then
            woken = woken + 1
          end
        end
      end
      if spool_events_on(Q) then
        spool_event(Q, 'added', 'jobId', id, 'name', redis.call('HGET', jobKey, 'name'), 'state', state)
        if delay > 0 then
          spool_event(Q, 'delayed', 'jobId', id, 'delay', delay, 'runAt', now + delay)
        end
      end
      done = done + 1
    end
  end
end
redis.call('HDEL', spool_flow_intents(Q), token)
spool_wake(Q, woken)
if earliestId then
  spool_announce_delayed(Q, earliestId, earliestDue - now)
end
return done
