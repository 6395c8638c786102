--[[
  waiting-lanes: the ungrouped waiting jobs read as one sequence in the order
  claims take them (includes/place, includes/claim-pop): `wait`'s priority-0
  entries, the fifo list, the rest of `wait`. Positions are 0-based in that
  order; the lanes' sizes are read once per call (a read-only script sees
  no change between its commands). For getJobs('waiting') and pages.
]]
--- @include "includes/place"
--- @include "includes/cursor"

-- The lanes' sizes: {low = wait's priority-0 entries, listed = the list's length, total}.
local function spool_lanes(Q)
  local low = redis.call('ZCOUNT', Q.wait, '-inf', '(' .. SPOOL_FIFO_TOP)
  local listed = redis.call('LLEN', Q.fifo)
  return { low = low, listed = listed, total = redis.call('ZCARD', Q.wait) + listed }
end

--[[
  Positions from..to (inclusive, within the sequence), appended to `out`:
  ids, or with `scores` id, score pairs where a listed job's score is '-1'
  (its place is its position in the list).
]]
local function spool_lanes_read(Q, L, from, to, scores, out)
  to = math.min(to, L.total - 1)
  local function lane(base, size, read)
    local a, b = math.max(from, base), math.min(to, base + size - 1)
    if a <= b then
      local got = read(a - base, b - base)
      for i = 1, #got do
        out[#out + 1] = got[i]
      end
    end
  end
  local function zset(offset)
    return function(a, b)
      if scores then
        return redis.call('ZRANGE', Q.wait, a + offset, b + offset, 'WITHSCORES')
      end
      return redis.call('ZRANGE', Q.wait, a + offset, b + offset)
    end
  end
  lane(0, L.low, zset(0))
  local a, b = math.max(from, L.low), math.min(to, L.low + L.listed - 1)
  if a <= b then
    local ids = redis.call('LRANGE', Q.fifo, a - L.low, b - L.low)
    for i = 1, #ids do
      out[#out + 1] = ids[i]
      if scores then
        out[#out + 1] = '-1'
      end
    end
  end
  lane(L.low + L.listed, L.total - L.low - L.listed, zset(L.low))
  return out
end

--[[
  The position of the first job after a page cursor (the last id seen and
  the score the page reported for it). A listed cursor that left the list
  meanwhile (claimed, cancelled) resumes at the list's head: a job seen
  before may come again, none is skipped.
]]
local function spool_lanes_after(Q, L, id, score)
  local rank = redis.call('ZRANK', Q.wait, id)
  if rank then
    return (rank < L.low and rank or rank + L.listed) + 1
  end
  local at = redis.call('LPOS', Q.fifo, id)
  if at then
    return L.low + at + 1
  end
  local s = tonumber(score) or -1
  if s < 0 then
    return L.low
  end
  rank = spool_cursor_rank(Q.wait, id, score, false)
  if s < SPOOL_FIFO_TOP then
    return rank
  end
  return rank + L.listed
end
