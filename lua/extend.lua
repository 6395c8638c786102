--[[
  extend: renew every lease one worker holds, in one call. A lease is renewed
  only while the given token is the job's current one.

  KEYS[1] active      active index (score = lease expiry ms)
  KEYS[2..] one job hash per lease, in the order of the ARGV pairs

  ARGV[1] lease duration ms
  ARGV[2..] pairs: job id, lease token

  Returns one code per lease: 1 renewed, 2 renewed but a cancel was requested
  (the holder should abort), 0 lost (reaped, cancelled or re-claimed).
]]
--- @include "includes/now"
--- @include "includes/fmt"
--- @include "includes/lease"

local expiry = spool_int(spool_now() + tonumber(ARGV[1]))
local out = {}
for i = 2, #KEYS do
  local id, token = ARGV[(i - 1) * 2], ARGV[(i - 1) * 2 + 1]
  local fields = redis.call('HMGET', KEYS[i], 'token', 'cancel')
  if spool_holds(fields[1], token) then
    redis.call('ZADD', KEYS[1], 'XX', expiry, id)
    out[#out + 1] = fields[2] and 2 or 1
  else
    out[#out + 1] = 0
  end
end
return out
