--[[
  metrics: what getMetrics() reports besides the counts, in one atomic read
  whose cost does not grow with the number of jobs: at most 60 HGETALL of the
  per-minute hashes (includes/metrics), a few ZRANGE per priority band of the
  waiting jobs (at most 16 bands) and per group in rotation (at most 16).

  KEYS[1..17] queue keys (includes/queue)

  ARGV[1..3] channels and queue name (includes/queue)

  Returns {now, oldestWaitingSince, earliestDelayedAt, minute, fields...} where
  the two times are '' when there is none, `minute` is the current minute
  number, and then 60 flat HGETALL replies, oldest minute first.

  oldestWaitingSince is the smallest runAt among the jobs that waited longest
  in their line: per priority band of the ungrouped jobs the first FIFO job
  and the last LIFO one, and the next job of each of the first 16 groups in
  rotation, and the head of the fifo list. Jobs parked behind a paused name
  are not ready and not looked at.
]]
--- @include "includes/now"
--- @include "includes/queue"
--- @include "includes/fmt"
--- @include "includes/metrics"

local Q = spool_queue()
local now = spool_now()
local BAND = 8589934592 -- 2^33: one priority band of wait scores (includes/place)
local FIFO = 4294967296 -- 2^32: FIFO scores start here within a band, LIFO ones below
local MAX_BANDS, MAX_GROUPS = 16, 16

local oldest = false
local function consider(id)
  if id then
    -- No runAt field: it is createdAt (add.lua writes none while they are equal).
    local f = redis.call('HMGET', Q.jobPrefix .. id, 'runAt', 'createdAt')
    local runAt = tonumber(f[1] or f[2])
    if runAt and (not oldest or runAt < oldest) then
      oldest = runAt
    end
  end
end

-- Ungrouped: hop from band to band (each hop one ZRANGE BYSCORE LIMIT 1).
local from = 0
for _ = 1, MAX_BANDS do
  local first = redis.call('ZRANGE', Q.wait, spool_int(from), '+inf', 'BYSCORE', 'LIMIT', 0, 1, 'WITHSCORES')
  if #first == 0 then
    break
  end
  local band = math.floor(tonumber(first[2]) / BAND) * BAND
  local fifo = redis.call('ZRANGE', Q.wait, spool_int(band + FIFO), '(' .. spool_int(band + BAND), 'BYSCORE', 'LIMIT', 0, 1)
  consider(fifo[1])
  local lifo = redis.call('ZRANGE', Q.wait, '(' .. spool_int(band + FIFO), spool_int(band), 'BYSCORE', 'REV', 'LIMIT', 0, 1)
  consider(lifo[1])
  from = band + BAND
end

-- The fifo list's head (includes/place): its oldest job.
consider(redis.call('LINDEX', Q.fifo, 0) or nil)

-- Grouped: the next job of the first groups in rotation.
local groups = redis.call('LRANGE', Q.ring, 0, MAX_GROUPS - 1)
for i = 1, #groups do
  consider(redis.call('ZRANGE', Q.groupPrefix .. groups[i] .. ':wait', 0, 0)[1])
end

local earliest = redis.call('ZRANGE', Q.delayed, 0, 0, 'WITHSCORES')
local minute = math.floor(now / 60000)
local out = {now, oldest and tostring(oldest) or '', earliest[2] or '', minute}
for m = minute - 59, minute do
  out[#out + 1] = redis.call('HGETALL', spool_metrics_key(Q, m * 60000))
end
return out
