--[[
  ids: the numbered job ids a queue gives (lib/engine/ids.ts): ID_BASE plus
  the value of the meta field `ids`, drawn by producers in blocks of up to
  4,096 (lua/reserve-ids).
]]

local SPOOL_ID_BASE = 1000000000 -- lib/engine/ids.ts ID_BASE
-- Past any block a lost draw could have handed out: a producer holds its block and the next (RENUMBER_MARGIN).
local SPOOL_ID_MARGIN = 2 * 4096

-- Whether `id` has the form of a numbered id (a decimal number: custom ids may not take it; NUMBERED_ID).
local function spool_numbered(id)
  return id == '0' or string.find(id, '^[1-9]%d*$') ~= nil
end

-- A fresh numbered id for a job whose id `taken` another job holds: the
-- counter is moved past every block drawn around `taken`, then counted on
-- to a number no job holds. Returns the new id.
local function spool_renumber(Q, taken)
  local floor = tonumber(taken) - SPOOL_ID_BASE + SPOOL_ID_MARGIN
  if (tonumber(redis.call('HGET', Q.meta, 'ids')) or 0) < floor then
    redis.call('HSET', Q.meta, 'ids', floor)
  end
  local id
  repeat
    id = string.format('%d', SPOOL_ID_BASE + redis.call('HINCRBY', Q.meta, 'ids', 1))
  until redis.call('EXISTS', Q.jobPrefix .. id) == 0
  return id
end
