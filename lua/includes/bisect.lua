--[[
  bisect: binary search over positions. The first position in [lo, hi)
  where before(position) is false, for a predicate that is true for a
  prefix of the range and false after it; hi when it is true throughout.
]]

local function spool_bisect(lo, hi, before)
  while lo < hi do
    local mid = math.floor((lo + hi) / 2)
    if before(mid) then
      lo = mid + 1
    else
      hi = mid
    end
  end
  return lo
end
