--[[
  worker-beat: a running worker's heartbeat (lib/store/worker-registry.ts):
  its entry in the queue's workers hash, stamped with Redis's time, and the
  entries whose last heartbeat is older than the stale bound removed (their
  workers died without closing). A closing worker sends no info: its entry
  goes.

  KEYS[1] workers     the queue's workers hash (worker id -> JSON)

  ARGV[1] worker id
  ARGV[2] info: JSON object (hostname, pid, concurrency, running, startedAt); '' drops the worker
  ARGV[3] stale ms: entries not refreshed for longer are removed

  Returns the number of workers left in the hash.
]]
--- @include "includes/now"

local id = ARGV[1]
if ARGV[2] == '' then
  redis.call('HDEL', KEYS[1], id)
  return redis.call('HLEN', KEYS[1])
end
local now = spool_now()
local info = cjson.decode(ARGV[2])
info.seenAt = now
redis.call('HSET', KEYS[1], id, cjson.encode(info))
-- Bounded by the queue's workers (a few to a few hundred): read whole, stale ones dropped.
local oldest = now - tonumber(ARGV[3])
local all = redis.call('HGETALL', KEYS[1])
for i = 1, #all, 2 do
  local ok, entry = pcall(cjson.decode, all[i + 1])
  if not ok or type(entry) ~= 'table' or (tonumber(entry.seenAt) or 0) < oldest then
    redis.call('HDEL', KEYS[1], all[i])
  end
end
return redis.call('HLEN', KEYS[1])
