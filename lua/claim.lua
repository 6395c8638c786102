--[[
  claim: waiting -> active for up to `count` jobs in one call, each under a
  fresh lease token (see includes/claim-batch for the order and the gates).

  KEYS[1..17] queue keys (includes/queue)

  ARGV[1..3] channels and queue name (includes/queue)
  ARGV[4] worker id (tokens are <worker id>:<claim call number>, includes/claim-batch)
  ARGV[5] count
  ARGV[6] lease duration ms
  ARGV[7] woken: '1' when woken by a sched message: spend the wake-hint budget first and
          claim only the slots it grants (in the same call, to save a
          round trip); '0': claim `count`
  ARGV[8] push slots: the worker listens for pushes and has this many running
          slots free for this claim's jobs; one that comes back with fewer
          names it for the next add's push, for the rest (includes/push),
          and one that does not drops its name; '': not pushable
  ARGV[9..] name, room pairs: take at most `room` jobs of that name (0: step
            over them; the worker runs that name at its cap)

  Returns {waitMs, job hashes...}: the claimed jobs (flat field/value lists,
  token and attempt included), and waitMs > 0 when nothing may start before
  then (rate limit window used up, or throttled by a handler).
  Events: active (one per claimed job); failed (next dead) for a job past its deadline.
]]
--- @include "includes/now"
--- @include "includes/queue"
--- @include "includes/claim-batch"

local Q = spool_queue()
local reply = {0}
local _, waitMs = spool_claim(Q, tonumber(ARGV[5]), ARGV[4], tonumber(ARGV[6]), spool_now(), spool_name_room(9), ARGV[7] == '1', reply, tonumber(ARGV[8]))
reply[1] = waitMs
return reply
