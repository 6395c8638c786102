--[[
  claim-pop: which waiting job a claim takes next. The ungrouped jobs
  (Q.wait) and the groups of the ring take turns (meta rr counts the
  groups' turns since the ungrouped jobs' last one); a group that is paused,
  at its cap, out of its rate window or empty leaves the ring as it is met.
  Ungrouped jobs are popped several at a time when no group can interleave,
  and the ones not used go back (spool_unpop). The per-call state `C`
  (spool_claim_state) carries the counters claim-batch writes once at the end.
]]
--- @include "includes/place"
--- @include "includes/groups"
--- @include "includes/limits"

-- Per-call state of a claim: cached meta fields and the counters written at the end.
local function spool_claim_state(Q, m)
  return { rr = tonumber(m[6]) or 0, rrUsed = false, grl = m[7] or nil, gw = 0, names = {}, active = {}, events = {}, ringLen = nil, buffer = nil, at = 1, fromList = false, low = nil, ungrouped = nil }
end

--[[
  How many ungrouped jobs wait (both lanes), read once per call: a claim
  adds none to the lanes before its loop ends (put-backs come after), and
  spool_pop_wait counts down what it takes.
]]
local function spool_ungrouped_left(Q, C)
  if C.ungrouped == nil then
    C.ungrouped = redis.call('ZCARD', Q.wait) + redis.call('LLEN', Q.fifo)
  end
  return C.ungrouped
end

--[[
  The next ungrouped job: id and score, the score false for one from the
  fifo list (claim-job takes the score from the job's ws). Lanes in turn
  (includes/place): `wait` below SPOOL_FIFO_TOP, the fifo list, the rest of
  `wait`. Popped `want` at a time from one lane when no group can
  interleave; C.low counts `wait`'s priority-0 entries, read once per call.
]]
local function spool_pop_wait(Q, C, want)
  local buffer = C.buffer
  if buffer and C.at <= #buffer then
    local at = C.at
    if C.fromList then
      C.at = at + 1
      return buffer[at], false
    end
    C.at = at + 2
    return buffer[at], buffer[at + 1]
  end
  local batch = C.ringLen == 0 and want > 1
  if C.low == nil then
    C.low = redis.call('ZCOUNT', Q.wait, '-inf', '(' .. SPOOL_FIFO_TOP)
  end
  if C.low == 0 then
    local ids = redis.call('LPOP', Q.fifo, batch and want or 1)
    if ids then
      C.buffer, C.at, C.fromList = ids, 2, true
      if C.ungrouped then
        C.ungrouped = C.ungrouped - #ids
      end
      return ids[1], false
    end
  end
  local top = redis.call('ZPOPMIN', Q.wait, batch and (C.low > 0 and math.min(want, C.low) or want) or 1)
  if C.low > 0 then
    C.low = C.low - #top / 2
  end
  if C.ungrouped then
    C.ungrouped = #top > 0 and C.ungrouped - #top / 2 or 0
  end
  C.buffer, C.at, C.fromList = top, 3, false
  return top[1], top[2]
end

-- Puts back ungrouped jobs popped ahead but not used (the batch ended early), each to its lane.
local function spool_unpop(Q, C)
  local buffer = C.buffer
  if buffer and C.at <= #buffer then
    if C.fromList then
      local back = {}
      for i = #buffer, C.at, -1 do
        back[#back + 1] = buffer[i]
      end
      redis.call('LPUSH', Q.fifo, unpack(back))
    else
      local back = {}
      for i = C.at, #buffer, 2 do
        back[#back + 1] = buffer[i + 1]
        back[#back + 1] = buffer[i]
      end
      redis.call('ZADD', Q.wait, unpack(back))
    end
  end
  C.buffer = nil
end

-- Takes a group out of the ring.
local function spool_ring_remove(Q, C, gid)
  C.ringLen = C.ringLen - redis.call('LREM', Q.ring, -1, gid)
end

--[[
  The next waiting job in turn: id, score and, for a grouped job, a table
  with its group's state (gid, source zset, ...); nil when none is left.
  `want`: jobs still wanted. Ungrouped jobs come from Q.wait.
]]
local function spool_pop(Q, C, now, want)
  if C.ringLen == nil then
    C.ringLen = redis.call('LLEN', Q.ring)
  end
  -- rr: turns the groups took since the ungrouped jobs' last one. Once every
  -- group in the ring had its turn, the ungrouped jobs take theirs.
  if C.ringLen > 0 and (C.rr < C.ringLen or spool_ungrouped_left(Q, C) == 0) then
    for _ = 1, C.ringLen do
      local gid = redis.call('LMOVE', Q.ring, Q.ring, 'LEFT', 'RIGHT')
      local gkey = spool_group_key(Q, gid)
      local g = redis.call('HMGET', gkey, 'paused', 'active', 'cap', 'rl', 'rlw', 'rln')
      local cap = spool_group_cap(Q, g[3])
      local active = tonumber(g[2]) or 0
      local allowance, reopen, fresh = spool_window(g[4] or C.grl, g[5], g[6], now)
      if g[1] or (cap > 0 and active >= cap) then
        spool_ring_remove(Q, C, gid)
        redis.call('HDEL', gkey, 'sched')
      elseif allowance <= 0 then
        spool_ring_remove(Q, C, gid)
        redis.call('ZADD', Q.glimited, reopen, gid)
      else
        local gwait = spool_group_wait(Q, gid)
        local top = redis.call('ZPOPMIN', gwait)
        if top[1] then
          C.gw = C.gw - 1
          if C.rr < C.ringLen then
            C.rr = C.rr + 1
            C.rrUsed = true
          end
          return top[1], top[2], { gid = gid, source = gwait, gkey = gkey,
            cap = cap, active = active, allowance = allowance, reopen = reopen, fresh = fresh,
            rated = (g[4] or C.grl) ~= nil }
        end
        spool_ring_remove(Q, C, gid)
        redis.call('HDEL', gkey, 'sched')
      end
      if C.ringLen == 0 then
        break
      end
    end
  end
  local id, score = spool_pop_wait(Q, C, want)
  if id and C.rr ~= 0 then
    C.rr = 0
    C.rrUsed = true
  end
  return id, score
end

-- A grouped job was started: count it, and take the group out of the ring if it can take no more.
local function spool_group_started(Q, C, pick, now)
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
    spool_ring_remove(Q, C, pick.gid)
    redis.call('ZADD', Q.glimited, pick.reopen, pick.gid)
  elseif (pick.cap > 0 and pick.active + 1 >= pick.cap) or redis.call('ZCARD', pick.source) == 0 then
    spool_ring_remove(Q, C, pick.gid)
    redis.call('HDEL', pick.gkey, 'sched')
  end
end
