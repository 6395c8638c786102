--[[
  worker-list: the queue's workers hash with Redis's time, so a reader tells
  live workers from stale entries by the same clock the heartbeats were
  stamped with (lua/worker-beat.lua). Writes nothing.

  KEYS[1] workers     the queue's workers hash (worker id -> JSON)

  Returns {now, id, json, id, json, ...}.
]]
--- @include "includes/now"

local out = { spool_now() }
local all = redis.call('HGETALL', KEYS[1])
for i = 1, #all do
  out[#out + 1] = all[i]
end
return out
