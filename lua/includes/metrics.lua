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
  Per job name: the same fields with ':<name>' appended count the jobs of
  a name that holds one of the queue's SPOOL_METRIC_NAMES slots; the plain
  fields count the rest (the other names). A queue's totals are the plain
  fields plus every name's.
  Name slots: the zset `{prefix:queue}:metric-names`, name -> the last
  minute it was counted in. A name takes a free slot when its jobs are
  first counted; when all are taken, a name not counted for an hour gives
  its slot up; otherwise the newcomer counts among the others. The zset
  expires two hours after its last write.
  Cost on the hot path (complete): two HINCRBY and one ZSCORE per call and
  per job name in it, whatever the number of jobs it completes
  (includes/complete-batch adds them up first).
]]

local SPOOL_METRICS_TTL = 3720
local SPOOL_DURATION_TOP = 21
-- Job names with counters of their own, per queue (the Prometheus `name` label's bound).
local SPOOL_METRIC_NAMES = 20

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

--[[
  The suffix of the fields that count job name `name` this minute: ':<name>'
  when the name holds a slot (taking one if it can), '' (the others) when
  not, or when the job has no name.
]]
local function spool_metric_suffix(Q, name, now)
  if not name then
    return ''
  end
  local key = string.sub(Q.meta, 1, -5) .. 'metric-names'
  local minute = math.floor(now / 60000)
  local seen = redis.call('ZSCORE', key, name)
  if seen and tonumber(seen) >= minute then
    return ':' .. name
  end
  if not seen and redis.call('ZCARD', key) >= SPOOL_METRIC_NAMES then
    local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
    if tonumber(oldest[2]) > minute - 60 then
      return ''
    end
    redis.call('ZREM', key, oldest[1])
  end
  redis.call('ZADD', key, minute, name)
  redis.call('EXPIRE', key, 2 * SPOOL_METRICS_TTL)
  return ':' .. name
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

-- fail: an attempt of a job named `name` failed; delay >= 0 schedules a retry, < 0 dead-letters.
local function spool_metric_failed(Q, now, delay, name)
  local key = spool_metrics_key(Q, now)
  local suffix = spool_metric_suffix(Q, name, now)
  spool_metric_count(key, 'f' .. suffix)
  if delay < 0 then
    spool_metric_count(key, 'd' .. suffix)
  else
    spool_metric_count(key, 'r' .. suffix)
  end
end

-- reap: a lease expired; `state` is where the job went ('waiting', 'failed' or 'cancelled').
local function spool_metric_reaped(Q, now, state, name)
  if state == 'cancelled' then
    return
  end
  local key = spool_metrics_key(Q, now)
  local suffix = spool_metric_suffix(Q, name, now)
  spool_metric_count(key, 's' .. suffix)
  if state == 'failed' then
    spool_metric_count(key, 'd' .. suffix)
  end
end

-- A job dead-lettered outside fail and reap (a passed deadline at claim, a failed child).
local function spool_metric_dead(Q, now, name)
  spool_metric_count(spool_metrics_key(Q, now), 'd' .. spool_metric_suffix(Q, name, now))
end
