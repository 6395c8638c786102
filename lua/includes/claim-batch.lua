--[[
  claim-batch: waiting -> active for up to `count` jobs, each under a fresh
  lease token (<workerId>:<claim number>).
  Order: the ungrouped jobs and the groups of the ring take turns (the
  ungrouped jobs count as one more group); inside each, strict priority then
  FIFO/LIFO. A group that can take no more after a claim (cap reached, rate
  window used up, nothing left) leaves the ring.
  On the way:
  - a paused queue, an open throttle (lu) or a used-up queue rate window
    gives nothing, and says how long to wait (waitMs);
  - a job whose deadline passed while it waited is dead-lettered (reason deadline);
  - a job whose name was paused after it was placed is parked now;
  - jobs whose name is in `exclude` (the worker runs them at their cap) are
    stepped over and put back at their places afterwards;
  - an index entry whose hash is gone is dropped;
  - finding fewer jobs than asked sets the idle marker, so the next add
    publishes a wake-up (see wake).
]]
--- @include "includes/place"
--- @include "includes/finish"
--- @include "includes/limits"

-- The next waiting job in turn: {id, score, gid, source zset, group state} or nil.
local function spool_pop(Q, now)
  local ringLen = redis.call('LLEN', Q.ring)
  if ringLen > 0 then
    local turn = redis.call('HINCRBY', Q.meta, 'rr', 1)
    if turn % (ringLen + 1) ~= 0 or redis.call('ZCARD', Q.wait) == 0 then
      local defaultRate = redis.call('HGET', Q.meta, 'grl')
      for _ = 1, ringLen do
        local gid = redis.call('LMOVE', Q.ring, Q.ring, 'LEFT', 'RIGHT')
        local gkey = spool_group_key(Q, gid)
        local g = redis.call('HMGET', gkey, 'paused', 'active', 'cap', 'rl', 'rlw', 'rln')
        local cap = spool_group_cap(Q, g[3])
        local active = tonumber(g[2]) or 0
        local allowance, reopen, fresh = spool_window(g[4] or defaultRate, g[5], g[6], now)
        if g[1] or (cap > 0 and active >= cap) then
          redis.call('LREM', Q.ring, -1, gid)
          redis.call('HDEL', gkey, 'sched')
        elseif allowance <= 0 then
          redis.call('LREM', Q.ring, -1, gid)
          redis.call('ZADD', Q.glimited, reopen, gid)
        else
          local gwait = spool_group_wait(Q, gid)
          local top = redis.call('ZPOPMIN', gwait)
          if top[1] then
            redis.call('HINCRBY', Q.meta, 'gw', -1)
            return { id = top[1], score = top[2], gid = gid, source = gwait, gkey = gkey,
              cap = cap, active = active, allowance = allowance, reopen = reopen, fresh = fresh,
              rated = (g[4] or defaultRate) ~= nil }
          end
          redis.call('LREM', Q.ring, -1, gid)
          redis.call('HDEL', gkey, 'sched')
        end
      end
    end
  end
  local top = redis.call('ZPOPMIN', Q.wait)
  if top[1] then
    return { id = top[1], score = top[2], source = Q.wait }
  end
  return nil
end

-- A grouped job was started: count it, and take the group out of the ring if it can take no more.
local function spool_group_started(Q, pick, now)
  redis.call('HINCRBY', pick.gkey, 'active', 1)
  local left = pick.allowance - 1
  if pick.rated then
    if pick.fresh then
      redis.call('HSET', pick.gkey, 'rlw', now, 'rln', 1)
    else
      redis.call('HINCRBY', pick.gkey, 'rln', 1)
    end
  end
  if left <= 0 then
    redis.call('LREM', Q.ring, -1, pick.gid)
    redis.call('ZADD', Q.glimited, pick.reopen, pick.gid)
  elseif (pick.cap > 0 and pick.active + 1 >= pick.cap) or redis.call('ZCARD', pick.source) == 0 then
    redis.call('LREM', Q.ring, -1, pick.gid)
    redis.call('HDEL', pick.gkey, 'sched')
  end
end

-- Returns the claimed job hashes and, when nothing may start yet, the ms to wait.
local function spool_claim(Q, count, workerId, lockMs, now, exclude)
  local out = {}
  if count <= 0 then
    return out, 0
  end
  local m = redis.call('HMGET', Q.meta, 'paused', 'rl', 'rlw', 'rln', 'lu')
  if m[1] then
    redis.call('SET', Q.idle, '1', 'PX', 3600000)
    return out, 0
  end
  local throttled = tonumber(m[5])
  if throttled and now < throttled then
    return out, throttled - now
  end
  local allowance, reopen, fresh = spool_window(m[2], m[3], m[4], now)
  if allowance <= 0 then
    return out, reopen - now
  end
  if count > allowance then
    count = allowance
  end
  spool_groups_reopen(Q, now)
  local checkPaused = redis.call('SCARD', Q.pausedNames) > 0
  local skipped = {}
  local waitMs = 0
  local budget = count + 100
  while #out < count and budget > 0 do
    budget = budget - 1
    local pick = spool_pop(Q, now)
    if not pick then
      redis.call('SET', Q.idle, '1', 'PX', 3600000)
      -- Groups waiting for their rate window: no add will announce the reopening, so say when it is.
      local reopen = redis.call('ZRANGE', Q.glimited, 0, 0, 'WITHSCORES')
      if reopen[2] then
        waitMs = math.max(1, tonumber(reopen[2]) - now)
      end
      break
    end
    local id = pick.id
    local jobKey = Q.jobPrefix .. id
    local f = redis.call('HMGET', jobKey, 'deadline', 'name')
    if not f[1] then
      -- An index entry without its hash: dropped.
    elseif checkPaused and redis.call('SISMEMBER', Q.pausedNames, f[2]) == 1 then
      redis.call('ZADD', Q.parkedPrefix .. f[2], pick.score, id)
      redis.call('HINCRBY', Q.meta, 'pw', 1)
    elseif exclude[f[2]] then
      skipped[#skipped + 1] = pick
    else
      redis.call('HINCRBY', Q.meta, 'n:' .. f[2], -1)
      local deadline = tonumber(f[1])
      if deadline > 0 and now > deadline then
        spool_dead_letter(Q, jobKey, id, now, 'deadline', 'deadline passed before the job could start', '', 'DeadlineExceededError')
      else
        local claims = redis.call('HINCRBY', jobKey, 'claims', 1)
        redis.call('HINCRBY', jobKey, 'attempt', 1)
        redis.call('HSET', jobKey, 'state', 'active', 'token', workerId .. ':' .. claims, 'startedAt', now)
        redis.call('ZADD', Q.active, now + lockMs, id)
        if pick.gid then
          spool_group_started(Q, pick, now)
        end
        out[#out + 1] = redis.call('HGETALL', jobKey)
      end
    end
  end
  for i = 1, #skipped do
    local pick = skipped[i]
    redis.call('ZADD', pick.source, pick.score, pick.id)
    if pick.gid then
      redis.call('HINCRBY', Q.meta, 'gw', 1)
      spool_group_ready(Q, pick.gid)
    end
  end
  if m[2] and #out > 0 then
    if fresh then
      redis.call('HSET', Q.meta, 'rlw', now, 'rln', #out)
    else
      redis.call('HINCRBY', Q.meta, 'rln', #out)
    end
  end
  return out, waitMs
end

-- ARGV[from..] as a set of excluded job names.
local function spool_name_set(from)
  local set = {}
  for i = from, #ARGV do
    set[ARGV[i]] = true
  end
  return set
end
