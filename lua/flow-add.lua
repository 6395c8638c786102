--[[
  flow-add: step 1 of adding a flow, for the nodes that live in this queue.
  Every node enters waiting-children: a parent with its pending children
  (deps set), a leaf held (field hold) so nothing of the tree can run before
  every queue of it is written. flow-commit then releases the leaves, or
  discards the nodes when another queue of the tree refused its part.
  All-or-nothing per queue: if any node's id exists, nothing is written.

  KEYS[1..17] queue keys (includes/queue)
  KEYS[18] waitingChildren  parents waiting for children (zset)
  KEYS[19..] two per node, in node order: its job hash, then its deps set

  ARGV[1..3] channels and queue name (includes/queue)
  ARGV[4] flow token (marks the nodes for flow-commit)
  ARGV[5] nodes: JSON array of {id, name, data, opts, delay, priority, lifo,
          maxAttempts, deadline, rc, rf, group, tc, pq, pid, pol, deps: ["queue\nid", ...]}
          (numbers as strings; pq/pid/pol empty for the root)
  ARGV[6] intent: JSON {at, dq, ids} kept in flow-intents under the token until
          flow-commit, so a sweep can finish the add of a producer that died
          (lib/store/flow-intents.ts)

  Returns {1, createdAt} written, or {0, id} when that id already names a job.
]]
--- @include "includes/now"
--- @include "includes/queue"
--- @include "includes/flow"
--- @include "includes/owned-keys"

local Q = spool_queue()
local wc = KEYS[18]
local token = ARGV[4]
local nodes = cjson.decode(ARGV[5])
for i = 1, #nodes do
  if redis.call('EXISTS', KEYS[17 + i * 2]) == 1 then
    return {0, nodes[i].id}
  end
end

local now = spool_now()
for i = 1, #nodes do
  local n = nodes[i]
  local jobKey, depsKey = KEYS[17 + i * 2], KEYS[18 + i * 2]
  redis.call('HSET', jobKey, 'id', n.id,
    'name', n.name, 'data', n.data, 'opts', n.opts,
    'attempt', 0, 'maxAttempts', n.maxAttempts, 'createdAt', now,
    'priority', n.priority, 'stalled', 0,
    'deadline', n.deadline, 'rc', n.rc, 'rf', n.rf,
    'state', 'waiting-children', 'fl', token)
  if n.lifo == '1' then
    redis.call('HSET', jobKey, 'lifo', '1')
  end
  if n.group ~= '' then
    redis.call('HSET', jobKey, 'group', n.group)
  end
  if n.tc ~= '' then
    redis.call('HSET', jobKey, 'tc', n.tc)
  end
  if n.pq ~= '' then
    redis.call('HSET', jobKey, 'pq', n.pq, 'pid', n.pid, 'pol', n.pol)
  end
  if #n.deps > 0 then
    redis.call('SADD', depsKey, unpack(n.deps))
  else
    redis.call('HSET', jobKey, 'hold', n.delay)
  end
  redis.call('ZADD', wc, now, n.id)
end
for i = 1, #nodes do
  if #nodes[i].deps > 0 then
    -- Its deps, results and failures keys go when it is dropped (includes/owned-keys).
    redis.call('HSET', Q.meta, 'kflow', '1')
    break
  end
end
redis.call('HSET', spool_flow_intents(Q), token, ARGV[6])
return {1, now}
