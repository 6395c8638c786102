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
  -- Sequence positions first..last held by `wait`, at ranks `shift` lower.
  local function ranked(first, last, shift)
    local a, b = math.max(from, first), math.min(to, last)
    if a <= b then
      local got = scores and redis.call('ZRANGE', Q.wait, a - shift, b - shift, 'WITHSCORES')
        or redis.call('ZRANGE', Q.wait, a - shift, b - shift)
      for i = 1, #got do
        out[#out + 1] = got[i]
      end
    end
  end
  ranked(0, L.low - 1, 0)
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
  ranked(L.low + L.listed, L.total - 1, L.listed)
  return out
end

-- The first list position whose job's score (its ws) is above `score`: the list is in score order.
local function spool_fifo_after(Q, L, score)
  return spool_bisect(0, L.listed, function(mid)
    local id = redis.call('LINDEX', Q.fifo, mid)
    if not id then
      return false -- past the list's end (false, not nil, from redis.call): later than everything
    end
    -- A listed id without a hash (claims drop it) counts as later: a page may repeat a job, never skip one.
    local ws = tonumber(redis.call('HGET', Q.jobPrefix .. id, 'ws'))
    return ws ~= nil and ws <= score
  end)
end

--[[
  The position of the first job after a page cursor: the last id seen and
  the score the page reported for it, negative for a listed job (minus its
  ws, see spool_lanes_cursor). A listed cursor is found by its score with
  a binary search of the list, whether it is still there or was claimed or
  cancelled meanwhile; a `wait` cursor by its rank, or by its score.
]]
local function spool_lanes_after(Q, L, id, score)
  local s = tonumber(score) or -1
  if s < 0 then
    return L.low + spool_fifo_after(Q, L, -s)
  end
  local rank = redis.call('ZRANK', Q.wait, id)
  if rank then
    return (rank < L.low and rank or rank + L.listed) + 1
  end
  rank = spool_cursor_rank(Q.wait, id, score, false)
  if s < SPOOL_FIFO_TOP then
    return rank
  end
  return rank + L.listed
end

-- A page's last entry as its cursor: a listed job (read with score '-1') reports minus its ws.
local function spool_lanes_cursor(Q, out)
  if out[3] == '-1' then
    local ws = redis.call('HGET', Q.jobPrefix .. out[2], 'ws')
    if ws then
      out[3] = '-' .. ws
    end
  end
  return out
end
