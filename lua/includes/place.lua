--[[
  place: where a waiting job lives.
  Ungrouped jobs wait in `wait`; grouped ones in their group's zset (and the
  group joins the ring); jobs whose name is paused are parked in
  parkedPrefix..name until it is resumed. The score gives strict priority
  (lower first) and FIFO, or LIFO on request, wherever the job sits; it is
  kept in the job hash (ws: written here, and by claim for jobs add.lua
  placed without it) so a job handed back returns to the place it held.
  meta n:<name> counts waiting jobs per name (parked ones included).

  Two lanes for the ungrouped jobs. A new job of priority 0 in FIFO order
  (most jobs) goes to the `fifo` list: about 30 bytes per job where a sorted
  set entry costs about 120, and RPUSH/LPOP cost less than ZADD/ZPOPMIN.
  Such a job only ever joins the list's tail with the newest sequence
  number, so the list stays in score order. Every other ungrouped job waits
  in `wait`: priorities, LIFO, and jobs put back with the score they held
  (released, reaped, stepped over, resumed after a name pause). Claims take,
  in order: `wait` entries of priority 0 (LIFO ones, then those put back:
  they had already reached the head of the list, or were held back by a
  pause), then the list, then `wait`'s higher priorities (includes/claim-pop).
]]
--- @include "includes/fmt"
--- @include "includes/groups"
--- @include "includes/owned-keys"

--[[
  Score = priority * 2^33 + 2^32 +/- sequence: priority < 2^20 and the
  sequence wraps at 2^32, so scores stay below 2^53 and exact. LIFO jobs go
  ahead of the FIFO ones of their priority, newest first.
  Second value: the job may join the fifo list (priority 0, FIFO), passed
  on to spool_place as its `fresh` argument.
]]
local SPOOL_FIFO_TOP = 8589934592 -- 2^33: wait scores below it are priority 0's

local function spool_wait_score(Q, priority, lifo)
  priority = priority or 0
  local raw = redis.call('HINCRBY', Q.meta, 'seq', 1)
  if raw == 1 then
    spool_keys_born(Q)
  end
  local seq = raw % 4294967296
  local base = priority * 8589934592 + 4294967296
  if lifo then
    return base - 1 - seq, false
  end
  return base + seq, priority == 0
end

--[[
  Places a job whose hash is written; returns true when it is claimable now
  (not parked). `fresh`: the score was just drawn (spool_wait_score's second
  value) for a priority 0 FIFO job, which then joins the fifo list's tail.
]]
local function spool_place(Q, jobKey, id, score, fresh)
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
  elseif fresh then
    redis.call('RPUSH', Q.fifo, id)
  else
    redis.call('ZADD', Q.wait, s, id)
  end
  return true
end

--[[
  A waiting job leaves its place (cancelled). A listed one is taken out of
  the fifo list by LREM, a scan, unless `unlist` is given: then
  unlist(id, ws) takes it out (cancel-waiting defers the removal of a
  batch to one pass).
]]
local function spool_unplace(Q, jobKey, id, unlist)
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
  elseif redis.call('ZREM', Q.wait, id) == 0 then
    if unlist then
      unlist(id, redis.call('HGET', jobKey, 'ws'))
    else
      redis.call('LREM', Q.fifo, 1, id)
    end
  end
end
