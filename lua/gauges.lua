--[[
  gauges: one sample a minute of the two gauges getMetrics() reports now
  (oldest waiting age, delayed lag), kept in the minute's metrics hash
  (includes/metrics) so they live and expire with its counters (62 minutes)
  and lua/metrics.lua reads them with no command of its own. A running
  worker calls it from its heartbeat at most once per minute; the first
  call of a minute samples, any later one finds the sample and returns at
  once (one HEXISTS), so concurrent workers never overwrite it.

  KEYS[1..17] queue keys (includes/queue)

  ARGV[1..3] channels and queue name (includes/queue)

  Fields written (ms, integers): gw oldest waiting age (0: none waits),
  gl delayed lag (0: no delayed job is due).

  Returns 1 when it took the minute's sample, 0 when the minute had one.
]]
--- @include "includes/now"
--- @include "includes/queue"
--- @include "includes/metrics"
--- @include "includes/waiting-age"

local Q = spool_queue()
local now = spool_now()
local key = spool_metrics_key(Q, now)
if redis.call('HEXISTS', key, 'gw') == 1 then
  return 0
end
local oldest = spool_oldest_waiting(Q)
local earliest = spool_earliest_delayed(Q)
local waited = oldest and math.max(0, now - oldest) or 0
local lag = earliest and math.max(0, now - earliest) or 0
redis.call('HSET', key, 'gw', spool_int(waited), 'gl', spool_int(lag))
-- The minute's counters may have set its expiry already; a minute the sample opens gets it here.
redis.call('EXPIRE', key, SPOOL_METRICS_TTL, 'NX')
return 1
