--[[
  cursor: where a page of an index (zset) resumes. A cursor names the last
  entry a caller saw (member and score). When that member is still there,
  its rank says where to go on (O(log n)); when it left meanwhile (re-driven,
  removed), a binary search over the members that share its score finds the
  first one after it (members of one score are ordered by their bytes).
  desc: newest first (ZRANGE ... REV).
]]
--- @include "includes/bisect"

local function spool_member_at(index, rank, desc)
  if desc then
    return redis.call('ZRANGE', index, rank, rank, 'REV')[1]
  end
  return redis.call('ZRANGE', index, rank, rank)[1]
end

-- The rank (0-based, in the page order) of the first entry after the cursor (id, score).
local function spool_cursor_rank(index, id, score, desc)
  local rank = desc and redis.call('ZREVRANK', index, id) or redis.call('ZRANK', index, id)
  if rank then
    return rank + 1
  end
  local lo, hi
  if desc then
    lo = redis.call('ZCOUNT', index, '(' .. score, '+inf')
    hi = redis.call('ZCOUNT', index, score, '+inf')
  else
    lo = redis.call('ZCOUNT', index, '-inf', '(' .. score)
    hi = redis.call('ZCOUNT', index, '-inf', score)
  end
  return spool_bisect(lo, hi, function(mid)
    local m = spool_member_at(index, mid, desc)
    return (desc and m > id) or (not desc and m < id)
  end)
end
