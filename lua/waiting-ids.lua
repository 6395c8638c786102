--[[
  waiting-ids: ids of the ungrouped waiting jobs by position, in the order
  claims take them (getJobs('waiting'); includes/waiting-lanes). Read only.

  KEYS[1..17] queue keys (includes/queue)

  ARGV[1..3] channels and queue name (includes/queue)
  ARGV[4] start position (0-based)
  ARGV[5] end position (inclusive; negative counts from the last, -1 = the last)

  Returns the ids.
]]
--- @include "includes/queue"
--- @include "includes/waiting-lanes"

local Q = spool_queue()
local L = spool_lanes(Q)
local from, to = tonumber(ARGV[4]), tonumber(ARGV[5])
if to < 0 then
  to = L.total + to
end
return spool_lanes_read(Q, L, from, to, false, {})
