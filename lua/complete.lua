--[[
  complete: active -> completed for the current lease holder, then (same call)
  claim up to `fetch` next jobs for that worker.

  KEYS[1..17] queue keys (includes/queue)
  KEYS[18] job        the job hash

  ARGV[1..3] channels and queue name (includes/queue)
  ARGV[4] job id
  ARGV[5] lease token
  ARGV[6] result (JSON)
  ARGV[7] worker id (as in claim)
  ARGV[8] count: how many next jobs to claim (0 = none)
  ARGV[9] lease duration ms
  ARGV[10] handler duration ms, counted in the minute's metrics ('' = not measured)
  ARGV[11..] name, room pairs for the next claim (see claim)

  Returns {code, state, waitMs, next job hashes...}:
    1 completed   3 cancelled (a cancel request won; the result is kept)
    2 this token already finished the job (a retried call); state is the current one
   -1 lease lost: the token is not the current one; nothing was written
  waitMs > 0 when the next claim was refused by a rate limit (see claim).
  Events: completed (with the result size), or cancelled; active per next job claimed.
]]
--- @include "includes/now"
--- @include "includes/queue"
--- @include "includes/claim-batch"
--- @include "includes/metrics"

local Q = spool_queue()
local jobKey, id, token = KEYS[18], ARGV[4], ARGV[5]
local fields = redis.call('HMGET', jobKey, 'token', 'ft', 'cancel', 'state', 'group', 'dk', 'pq', 'w', 'rc')
if fields[1] ~= token then
  if fields[2] == token then
    return {2, fields[4], 0}
  end
  return {-1, '', 0}
end

local now = spool_now()
local code, state = 1, 'completed'
if fields[3] then
  spool_leave_active(Q, jobKey, id, true)
  redis.call('HSET', jobKey, 'result', ARGV[6])
  code, state = 3, 'cancelled'
  spool_cancelled(Q, jobKey, id, now)
else
  spool_completed(Q, jobKey, id, token, ARGV[6], now, fields[5], fields[6], fields[7], fields[8], fields[9])
  spool_metric_completed(Q, now, ARGV[10])
end

local reply = {code, state, 0}
local _, waitMs = spool_claim(Q, tonumber(ARGV[8]), ARGV[7], tonumber(ARGV[9]), now, spool_name_room(11), false, reply)
reply[3] = waitMs
return reply
