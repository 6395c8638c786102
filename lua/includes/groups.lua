--[[
  groups: fair service between groups (tenants).
  A group is in the ring while it has waiting jobs and may start one more:
  not paused, under its concurrency cap, rate window open. Claims take the
  ring's head and rotate it to the tail (round-robin); a group that can take
  no more leaves the ring, and comes back when that changes (a job of it
  ends, it is resumed, its cap is raised, its rate window reopens).
  The hash field `sched` marks a group that is in the ring or in glimited,
  so it is never queued twice.
  meta gpw counts the waiting jobs of paused groups (kept by place,
  pause-group and resume-group), so counts reads them without a scan.
]]
--- @include "includes/limits"

local function spool_group_key(Q, gid)
  return Q.groupPrefix .. gid
end

local function spool_group_wait(Q, gid)
  return Q.groupPrefix .. gid .. ':wait'
end

-- The group's concurrency cap: its own, else the queue default (0 = none; read
-- once per call and kept on Q: a claim meets many groups, and no script changes
-- gcap after reading it).
local function spool_group_cap(Q, capField)
  local cap = tonumber(capField)
  if cap == nil then
    if Q.gcap == nil then
      Q.gcap = tonumber(redis.call('HGET', Q.meta, 'gcap')) or 0
    end
    cap = Q.gcap
  end
  return cap
end

--[[
  Puts the group in the ring if it can be served and is not queued already;
  true when it joined now. Second value: the group is paused.
]]
local function spool_group_ready(Q, gid)
  local gkey = spool_group_key(Q, gid)
  local f = redis.call('HMGET', gkey, 'sched', 'paused', 'active', 'cap')
  if f[2] then
    return false, true
  end
  if f[1] then
    return false, false
  end
  local cap = spool_group_cap(Q, f[4])
  if cap > 0 and (tonumber(f[3]) or 0) >= cap then
    return false
  end
  if redis.call('ZCARD', spool_group_wait(Q, gid)) == 0 then
    return false
  end
  redis.call('RPUSH', Q.ring, gid)
  redis.call('HSET', gkey, 'sched', '1')
  return true
end

-- A job of the group left active: one slot frees up. True when the group rejoined the ring.
-- (spool_group_ready's checks inline, reusing the fields read here.)
local function spool_group_released(Q, gid)
  if not gid then
    return false
  end
  local gkey = spool_group_key(Q, gid)
  local active = redis.call('HINCRBY', gkey, 'active', -1)
  local f = redis.call('HMGET', gkey, 'sched', 'paused', 'cap', 'rl')
  local waiting
  if active <= 0 then
    active = 0
    redis.call('HDEL', gkey, 'active')
    if not (f[1] or f[2] or f[3] or f[4]) then
      waiting = redis.call('ZCARD', spool_group_wait(Q, gid))
      if waiting == 0 then
        -- Nothing waits, nothing runs, nothing is configured: forget the group.
        redis.call('SREM', Q.groups, gid)
        redis.call('DEL', gkey)
        return false
      end
    end
  end
  if f[1] or f[2] then
    return false
  end
  local cap = spool_group_cap(Q, f[3])
  if cap > 0 and active >= cap then
    return false
  end
  if (waiting or redis.call('ZCARD', spool_group_wait(Q, gid))) == 0 then
    return false
  end
  redis.call('RPUSH', Q.ring, gid)
  redis.call('HSET', gkey, 'sched', '1')
  return true
end

-- Groups whose rate window reopened go back to the ring.
local function spool_groups_reopen(Q, now)
  local due = redis.call('ZRANGE', Q.glimited, '-inf', now, 'BYSCORE', 'LIMIT', 0, 100)
  for i = 1, #due do
    redis.call('ZREM', Q.glimited, due[i])
    redis.call('HDEL', spool_group_key(Q, due[i]), 'sched')
    spool_group_ready(Q, due[i])
  end
end
