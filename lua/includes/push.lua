--[[
  push: an add hands its new jobs straight to an idle worker: it leases them
  to that worker in its own call (the claim's steps and gates, claim-batch)
  and publishes them on the worker's channel, so the worker starts them
  without a claim of its own: one round trip less between add and start.

  Which worker: the last whose claim ran dry while it listens for pushes
  (Redis pub/sub stores only), kept as idle..':push' =
  "<worker id>|<lease ms>|<free slots>", expiring after the lease duration
  (a worker that died idle is not named for long), taken (deleted) by the add
  that pushes to it and dropped by a worker that closes (push-off.lua).
  One worker at a time: the jobs a push does not take wake the other idle
  workers as before (includes/wake).

  The message is the JSON array of the claimed job hashes (as a claim's
  reply carries them), appended to the worker's push list
  idle..':pushed:'..<worker id>, on which the worker waits in BLPOP on a
  connection of its own (lib/store/push-receiver.ts). A list rather than a
  pub/sub channel, for latency: Redis answers a client blocked on a key
  right after the script, before the add's own reply goes out, so the
  worker reads its job first (a published message went out after the
  reply, and the producer's reply was read first in a process that runs
  both); and a push made while the worker's connection is down waits in
  the list instead of being lost. The list expires with the lease (a
  worker that died while named leaves nothing behind for long). A push the
  worker never takes (it died) is a lease like any other: it expires, and
  the reaper hands the job back (counted as a stall).
]]

local function spool_push_key(Q)
  return Q.idle .. ':push'
end

-- Names the worker whose claim ran dry as the one the next add pushes to.
local function spool_push_register(Q, workerId, lockMs, slots)
  redis.call('SET', spool_push_key(Q), workerId .. '|' .. lockMs .. '|' .. slots, 'PX', lockMs)
end

-- Appends one push message to the worker's list; the list lives as long as the lease it carries
-- (EXPIRE in whole seconds, rounded up: the ACL line of docs/operations/connections grants expire).
local function spool_push_send(Q, workerId, lockMs, message)
  local key = Q.idle .. ':pushed:' .. workerId
  redis.call('RPUSH', key, message)
  redis.call('EXPIRE', key, math.ceil(tonumber(lockMs) / 1000))
end

-- The worker is not idle (any more): drops the name if it is this worker's. Returns 1 when dropped.
local function spool_push_drop(Q, workerId)
  local key = spool_push_key(Q)
  local named = redis.call('GET', key)
  if named and string.sub(named, 1, #workerId + 1) == workerId .. '|' then
    redis.call('DEL', key)
    return 1
  end
  return 0
end
