--[[
  now: the Redis server clock in milliseconds.
  Every script takes time from here, so leases, delays and deadlines agree
  across processes whatever their local clocks say. Redis 7 replicates script
  effects, so TIME is allowed inside scripts.
]]
local function spool_now()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
