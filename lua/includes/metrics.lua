--[[
  metrics: per-minute counters of a queue, written by the scripts that make
  the transitions (complete, fail, reap, child-done, claim), read by
  lua/metrics.lua. No scan ever computes them.

  One hash per queue and minute, `{prefix:queue}:metrics:<minute>` (minute =
  floor(ms / 60000); built from the meta key like the flow keys: same hash
  tag, same slot). It expires 62 minutes after its first write, so old
  minutes clean themselves up: the EXPIRE is sent only when a field is
  created (its HINCRBY answers 1), a few times per minute, not per job.
  Fields (all counts):
    h<k> completed jobs whose handler ran at most 2^k ms, k = 0..20; h21 longer
    hn  completed jobs without a measured duration
        (completed = hn + the h<k>: no separate counter on the hot path)
    ms  sum of the measured durations, ms
    f   failed attempts (retried or dead)   d   dead-lettered
    r   retries scheduled                   s   stalled (reaped)
  Cost on the hot path (complete): two HINCRBY per call, whatever the
  number of jobs it completes (includes/complete-batch adds them up first).
]]

local SPOOL_METRICS_TTL = 3720
local SPOOL_DURATION_TOP = 21

local function spool_metrics_key(Q, now)
  return string.sub(Q.meta, 1, -5) .. 'metrics:' .. math.floor(now / 60000)
end

-- +n on `field` of this minute; the first write of a field sets the minute's expiry.
local function spool_metric_add(key, field, n)
  if redis.call('HINCRBY', key, field, n) == n then
    redis.call('EXPIRE', key, SPOOL_METRICS_TTL)
  end
end

local function spool_metric_count(key, field)
  spool_metric_add(key, field, 1)
end

-- The duration bucket of `ms`: the smallest k with ms <= 2^k, capped at SPOOL_DURATION_TOP.
local function spool_duration_bucket(ms)
  if ms <= 1 then
    return 0
  end
  -- frexp(ms - 1) = m * 2^e with 0.5 <= m < 1: 2^(e-1) <= ms - 1 < 2^e, so e is the smallest k with ms <= 2^k.
  local _, e = math.frexp(ms - 1)
  if e > SPOOL_DURATION_TOP then
    return SPOOL_DURATION_TOP
  end
  return e
end

-- fail: an attempt failed; delay >= 0 schedules a retry, < 0 dead-letters.
local function spool_metric_failed(Q, now, delay)
  local key = spool_metrics_key(Q, now)
  spool_metric_count(key, 'f')
  if delay < 0 then
    spool_metric_count(key, 'd')
  else
    spool_metric_count(key, 'r')
  end
end

-- reap: a lease expired; `state` is where the job went ('waiting', 'failed' or 'cancelled').
local function spool_metric_reaped(Q, now, state)
  if state == 'cancelled' then
    return
  end
  local key = spool_metrics_key(Q, now)
  spool_metric_count(key, 's')
  if state == 'failed' then
    spool_metric_count(key, 'd')
  end
end

-- A job dead-lettered outside fail and reap (a passed deadline at claim, a failed child).
local function spool_metric_dead(Q, now)
  spool_metric_count(spool_metrics_key(Q, now), 'd')
end
