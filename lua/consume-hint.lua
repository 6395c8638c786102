--[[
  consume-hint: idle workers of one process, woken by a sched message, take
  up to `max` slots of the wake-hint budget before they claim. A missing
  budget (never set, or expired) grants everything asked: better one extra
  claim than a missed wake-up. Granting less than asked leaves the asker
  idle, so it sets the idle marker again: the next add must wake it.

  KEYS[1] hint        wake-hint budget
  KEYS[2] idle        idle-worker marker

  ARGV[1] max (free slots the process would fill)

  Returns the number of slots granted (0 .. max).
]]
local want = tonumber(ARGV[1])
local current = redis.call('GET', KEYS[1])
if not current then
  return want
end
local n = tonumber(current) or 0
local granted = want
if n < want then
  granted = n > 0 and n or 0
  redis.call('SET', KEYS[2], '1', 'PX', 3600000)
end
if granted > 0 then
  redis.call('DECRBY', KEYS[1], granted)
end
return granted
