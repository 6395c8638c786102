--[[
  limits: fixed-window rate limits, "max,duration" strings.
  A window opens at the first start after the previous one closed and admits
  `max` starts until `duration` ms later. Over many windows the rate is exact;
  inside one duration straddling two windows up to 2*max may start (the
  trade-off every counter-based limiter makes, BullMQ's included).
]]
-- How many starts the window still admits (math.huge without a limit), and when it reopens.
local function spool_window(limit, windowStart, count, now)
  if not limit then
    return math.huge, 0, false
  end
  local comma = string.find(limit, ',', 1, true)
  local max = tonumber(string.sub(limit, 1, comma - 1))
  local duration = tonumber(string.sub(limit, comma + 1))
  windowStart = tonumber(windowStart) or 0
  count = tonumber(count) or 0
  local fresh = now >= windowStart + duration
  if fresh then
    return max, now + duration, true
  end
  return max - count, windowStart + duration, false
end
