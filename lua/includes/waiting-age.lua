--[[
  waiting-age: the two gauges of a queue's health, read without a per-job
  scan (lua/metrics.lua reports them now, lua/gauges.lua samples them once a
  minute for the history charts).

  spool_oldest_waiting(Q): the smallest runAt among the jobs that waited
  longest in their line, or false when none waits: per priority band of the
  ungrouped jobs (at most 16) the first FIFO job and the last LIFO one, the
  head of the fifo list, and the next job of each of the first 16 groups in
  rotation. Jobs parked behind a paused name are not ready and not looked at.
  Cost: a few ZRANGE per band and one per group, whatever the queue's size.

  spool_earliest_delayed(Q): run-at of the earliest delayed job, or false.
]]
--- @include "includes/fmt"

local SPOOL_BAND = 8589934592 -- 2^33: one priority band of wait scores (includes/place)
local SPOOL_FIFO = 4294967296 -- 2^32: FIFO scores start here within a band, LIFO ones below

local function spool_oldest_waiting(Q)
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
  for _ = 1, 16 do
    local first = redis.call('ZRANGE', Q.wait, spool_int(from), '+inf', 'BYSCORE', 'LIMIT', 0, 1, 'WITHSCORES')
    if #first == 0 then
      break
    end
    local band = math.floor(tonumber(first[2]) / SPOOL_BAND) * SPOOL_BAND
    local fifo = redis.call('ZRANGE', Q.wait, spool_int(band + SPOOL_FIFO), '(' .. spool_int(band + SPOOL_BAND), 'BYSCORE', 'LIMIT', 0, 1)
    consider(fifo[1])
    local lifo = redis.call('ZRANGE', Q.wait, '(' .. spool_int(band + SPOOL_FIFO), spool_int(band), 'BYSCORE', 'REV', 'LIMIT', 0, 1)
    consider(lifo[1])
    from = band + SPOOL_BAND
  end
  -- The fifo list's head (includes/place): its oldest job.
  consider(redis.call('LINDEX', Q.fifo, 0) or nil)
  -- Grouped: the next job of the first groups in rotation.
  local groups = redis.call('LRANGE', Q.ring, 0, 15)
  for i = 1, #groups do
    consider(redis.call('ZRANGE', Q.groupPrefix .. groups[i] .. ':wait', 0, 0)[1])
  end
  return oldest
end

local function spool_earliest_delayed(Q)
  local earliest = redis.call('ZRANGE', Q.delayed, 0, 0, 'WITHSCORES')
  return tonumber(earliest[2]) or false
end
