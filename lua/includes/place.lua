--[[
  place: where a waiting job lives.
  Ungrouped jobs wait in `wait`; grouped ones in their group's zset (and the
  group joins the ring); jobs whose name is paused are parked in
  parkedPrefix..name until it is resumed. The score gives strict priority
  (lower first) and FIFO, or LIFO on request, wherever the job sits; it is
  kept in the job hash (ws: written here, and by claim for jobs add.lua
  placed without it) so a job handed back returns to the place it held.
  meta n:<name> counts waiting jobs per name (parked ones included).
]]
--- @include "includes/fmt"
--- @include "includes/groups"
--- @include "includes/owned-keys"

--[[
  Score = priority * 2^33 + 2^32 +/- sequence: priority < 2^20 and the
  sequence wraps at 2^32, so scores stay below 2^53 and exact. LIFO jobs go
  ahead of the FIFO ones of their priority, newest first.
]]
local function spool_wait_score(Q, priority, lifo)
  priority = priority or 0
  local raw = redis.call('HINCRBY', Q.meta, 'seq', 1)
  if raw == 1 then
    spool_keys_born(Q)
  end
  local seq = raw % 4294967296
  local base = priority * 8589934592 + 4294967296
  if lifo then
    return base - 1 - seq
  end
  return base + seq
end

-- Places a job whose hash is written; returns true when it is claimable now (not parked).
local function spool_place(Q, jobKey, id, score)
  local f = redis.call('HMGET', jobKey, 'group', 'name')
  local s = spool_int(score)
  redis.call('HSET', jobKey, 'state', 'waiting', 'ws', s)
  redis.call('HINCRBY', Q.meta, 'n:' .. f[2], 1)
  if redis.call('SISMEMBER', Q.pausedNames, f[2]) == 1 then
    redis.call('ZADD', Q.parkedPrefix .. f[2], s, id)
    redis.call('HINCRBY', Q.meta, 'pw', 1)
    return false
  end
  if f[1] then
    redis.call('ZADD', spool_group_wait(Q, f[1]), s, id)
    redis.call('HINCRBY', Q.meta, 'gw', 1)
    redis.call('SADD', Q.groups, f[1])
    local _, paused = spool_group_ready(Q, f[1])
    if paused then
      redis.call('HINCRBY', Q.meta, 'gpw', 1)
    end
  else
    redis.call('ZADD', Q.wait, s, id)
  end
  return true
end

-- A waiting job leaves its place (claimed or cancelled); `where` is the zset it was taken from, if known.
local function spool_unplace(Q, jobKey, id)
  local f = redis.call('HMGET', jobKey, 'group', 'name')
  redis.call('HINCRBY', Q.meta, 'n:' .. (f[2] or ''), -1)
  if f[2] and redis.call('ZREM', Q.parkedPrefix .. f[2], id) == 1 then
    redis.call('HINCRBY', Q.meta, 'pw', -1)
  elseif f[1] then
    if redis.call('ZREM', spool_group_wait(Q, f[1]), id) == 1 then
      redis.call('HINCRBY', Q.meta, 'gw', -1)
      if redis.call('HEXISTS', spool_group_key(Q, f[1]), 'paused') == 1 then
        redis.call('HINCRBY', Q.meta, 'gpw', -1)
      end
    end
  else
    redis.call('ZREM', Q.wait, id)
  end
end
