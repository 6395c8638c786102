--[[
  metrics: what getMetrics() reports besides the counts, in one atomic read
  whose cost does not grow with the number of jobs: at most 60 HGETALL of the
  per-minute hashes (includes/metrics), a few ZRANGE per priority band of the
  waiting jobs (at most 16 bands) and per group in rotation (at most 16).

  KEYS[1..17] queue keys (includes/queue)

  ARGV[1..3] channels and queue name (includes/queue)

  Returns {now, oldestWaitingSince, earliestDelayedAt, minute, fields...} where
  the two times are '' when there is none, `minute` is the current minute
  number, and then 60 flat HGETALL replies, oldest minute first (with the
  gauge samples of lua/gauges.lua, fields gw and gl, where one was taken).

  oldestWaitingSince: includes/waiting-age (spool_oldest_waiting).
]]
--- @include "includes/now"
--- @include "includes/queue"
--- @include "includes/metrics"
--- @include "includes/waiting-age"

local Q = spool_queue()
local now = spool_now()
local oldest = spool_oldest_waiting(Q)
local earliest = spool_earliest_delayed(Q)
local minute = math.floor(now / 60000)
local out = {now, oldest and spool_int(oldest) or '', earliest and spool_int(earliest) or '', minute}
for m = minute - 59, minute do
  out[#out + 1] = redis.call('HGETALL', spool_metrics_key(Q, m * 60000))
end
return out
