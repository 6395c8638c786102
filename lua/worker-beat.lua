--[[
  worker-beat: a running worker's heartbeat (lib/store/worker-registry.ts):
  its entry in the queue's workers hash, stamped with Redis's time, and the
  entries whose last heartbeat is older than the stale bound removed (their
  workers died without closing), found by score in the seen set, so a beat
  costs O(log n) whatever the number of workers. A closing worker sends no
  info: its entry goes.

  KEYS[1] workers      the queue's workers hash (worker id -> JSON)
  KEYS[2] workersSeen  the same workers by last heartbeat (zset, score = seenAt ms)

  ARGV[1] worker id
  ARGV[2] info: JSON object (hostname, pid, concurrency, running, startedAt, paused); '' drops the worker
  ARGV[3] stale ms: entries not refreshed for longer are removed

  Returns the number of workers left in the hash.
]]
--- @include "includes/now"

local id = ARGV[1]
if ARGV[2] == '' then
  redis.call('HDEL', KEYS[1], id)
  redis.call('ZREM', KEYS[2], id)
  return redis.call('HLEN', KEYS[1])
end
local now = spool_now()
local info = cjson.decode(ARGV[2])
info.seenAt = now
redis.call('HSET', KEYS[1], id, cjson.encode(info))
redis.call('ZADD', KEYS[2], now, id)
-- At most 100 a beat: a backlog of dead workers goes over the next beats.
local stale = redis.call('ZRANGE', KEYS[2], '-inf', '(' .. (now - tonumber(ARGV[3])), 'BYSCORE', 'LIMIT', 0, 100)
if #stale > 0 then
  redis.call('HDEL', KEYS[1], unpack(stale))
  redis.call('ZREM', KEYS[2], unpack(stale))
end
return redis.call('HLEN', KEYS[1])
