--[[
  global-cap: at most `gc` (meta) jobs of the queue active at once, across
  every worker and process (queue.setGlobalConcurrency). The active index
  is the count: a claim takes at most the cap less its size, prefetched
  jobs included (they hold leases). A claim that reached the cap, or was
  turned away by it, leaves a marker (idle..':gc'); while it is there an
  add wakes no idle worker (it could start nothing, includes/wake), and the
  first job to leave active drops it and wakes them, so a turned-away
  worker does not sleep until its next poll while a slot is free.
  configure.lua drops it too (a raised or removed cap).
]]
--- @include "includes/wake"

local SPOOL_GLOBAL_FULL_TTL_MS = 3600000

-- Free slots under the cap (math.huge without one); `cap` is meta gc as the claim gate read it.
local function spool_global_free(Q, cap)
  local n = tonumber(cap)
  Q.gc = n or false
  if not n then
    return math.huge
  end
  return n - redis.call('ZCARD', Q.active)
end

local function spool_global_full(Q)
  redis.call('SET', Q.idle .. ':gc', '1', 'PX', SPOOL_GLOBAL_FULL_TTL_MS)
end

-- The queue's cap (meta gc), read once per call and kept on Q (the claim gate reads it with its other fields); false: none.
local function spool_global_cap(Q)
  if Q.gc == nil then
    Q.gc = tonumber(redis.call('HGET', Q.meta, 'gc')) or false
  end
  return Q.gc
end

--[[
  `n` jobs left active: wake idle workers when a claim was held back by the
  cap and a slot is free now. complete.lua calls it after its own claim for
  the worker that finished them (which takes a freed slot first), so a queue
  without a cap pays nothing here: that claim has read meta already.
]]
local function spool_global_freed(Q, n)
  local cap = spool_global_cap(Q)
  if not cap or n <= 0 or redis.call('ZCARD', Q.active) >= cap then
    return
  end
  if redis.call('DEL', Q.idle .. ':gc') == 1 then
    spool_wake(Q, n)
  end
end
