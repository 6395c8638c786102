--[[
  schedulers: the ticks of cron and every-N schedulers (lib/engine/schedulers.ts).

  A scheduler is a hash (schedulerPrefix..id) and a member of the schedulers
  zset, scored by the time of its pending tick: +inf when it has none (ended
  by endAt or limit), or a retry time when it ran out of cron times and waits
  for a promoter to refill them (field starved = '1').
  Hash fields:
    spec     canonical JSON of the definition: an upsert with the same spec changes nothing
    kind     'every' or 'cron'
    every    interval ms; anchor: every-N ticks fall at anchor + k * every
    ts       cron only: the tick times after the pending one (ms, ascending,
             comma separated). JS computes them: Lua cannot evaluate a cron
             pattern in a time zone. scheduler-refill appends more.
    end      no tick after this ms (0 = none); limit: at most this many tick jobs run (0 = none)
    missed   skip | once | all: ticks that fell while nothing promoted, or
             while the queue held them back (paused, or at maxWaiting)
    tpl      JSON array of the job hash fields every tick job starts from
    count    ticks run so far; skipped: ticks dropped by the missed policy
    next     pending tick ms ('' = none); last, lastAt: id and time of the last tick that ran
  A tick job's id is <scheduler id>:<tick ms> and its hash holds sch = the
  scheduler id: however many processes upsert or promote, a tick has one job.
]]
--- @include "includes/fmt"
--- @include "includes/place"

-- 'all' creates at most this many missed ticks per promotion; the rest count as skipped.
local SPOOL_SCHED_CATCH_UP = 50
-- Fewer cron times left than this: the promote reply asks JS for more.
local SPOOL_SCHED_REFILL_BELOW = 25
-- Keep at most this many cron times.
local SPOOL_SCHED_KEEP = 100
-- A scheduler out of cron times is due again after this long, to ask again.
local SPOOL_SCHED_STARVED_RETRY = 60000
-- A tick held back (queue paused or full) is looked at again after this long.
local SPOOL_SCHED_HOLD_RETRY = 1000

--[[
  How many more tick jobs the queue takes now: none while it is paused,
  maxWaiting less the jobs waiting (parked ones by a paused name included,
  as add.lua counts them), unbounded without maxWaiting. Ticks are not
  refused like an add: they wait for room (spool_sched_hold).
]]
local function spool_sched_room(Q)
  local m = redis.call('HMGET', Q.meta, 'paused', 'mw', 'pw', 'gw')
  if m[1] then
    return 0
  end
  local limit = tonumber(m[2])
  if not limit then
    return math.huge
  end
  local waiting = redis.call('ZCARD', Q.wait) + redis.call('LLEN', Q.fifo) + (tonumber(m[4]) or 0)
  return limit - waiting - (tonumber(m[3]) or 0)
end

--[[
  A due tick the queue has no room for: it stays the pending tick, delayed
  (its job rescored, its runAt kept) and the scheduler is due again in
  SPOOL_SCHED_HOLD_RETRY, so a paused queue piles up nothing. When there is
  room again, the ticks that fell meanwhile are missed ones and the missed
  policy applies, as after a stop of every worker.
]]
local function spool_sched_hold(Q, index, sid, t0, now)
  local at = now + SPOOL_SCHED_HOLD_RETRY
  redis.call('ZADD', index, at, sid)
  -- XX: only while the tick's job is still delayed (not promoted by hand).
  redis.call('ZADD', Q.delayed, 'XX', at, sid .. ':' .. spool_int(t0))
end

local function spool_sched_times(ts)
  local out = {}
  if ts and ts ~= '' then
    for t in string.gmatch(ts, '[^,]+') do
      out[#out + 1] = tonumber(t)
    end
  end
  return out
end

local function spool_sched_join(times, from, to)
  local parts = {}
  for i = from, to do
    parts[#parts + 1] = spool_int(times[i])
  end
  return table.concat(parts, ',')
end

-- The fields arm and advance work with, read in one HMGET.
local function spool_sched_read(key)
  local r = redis.call('HMGET', key, 'kind', 'every', 'anchor', 'ts', 'end', 'limit', 'count', 'tpl', 'next', 'missed', 'skipped')
  if not r[1] then
    return nil
  end
  return {
    kind = r[1], every = tonumber(r[2]) or 0, anchor = tonumber(r[3]) or 0, times = spool_sched_times(r[4]),
    stop = tonumber(r[5]) or 0, limit = tonumber(r[6]) or 0, count = tonumber(r[7]) or 0, tpl = r[8],
    next = tonumber(r[9] or ''), missed = r[10], skipped = tonumber(r[11]) or 0,
  }
end

-- Writes the hash of tick `tick` of scheduler `sid` as a delayed job; nil when that id already names a job.
local function spool_sched_job(Q, sid, tpl, tick, now)
  local id = sid .. ':' .. spool_int(tick)
  local jobKey = Q.jobPrefix .. id
  if redis.call('EXISTS', jobKey) == 1 then
    return nil
  end
  local f = cjson.decode(tpl)
  local n = #f
  f[n + 1], f[n + 2], f[n + 3], f[n + 4] = 'id', id, 'createdAt', now
  f[n + 5], f[n + 6], f[n + 7], f[n + 8], f[n + 9], f[n + 10] = 'state', 'delayed', 'runAt', spool_int(tick), 'sch', sid
  redis.call('HSET', jobKey, unpack(f))
  return id, jobKey
end

-- Deletes the pending tick job of `sid` at `tick` if it is still delayed (never promoted).
local function spool_sched_drop_pending(Q, sid, tick)
  local id = sid .. ':' .. tick
  local jobKey = Q.jobPrefix .. id
  if redis.call('HGET', jobKey, 'state') == 'delayed' and redis.call('ZREM', Q.delayed, id) == 1 then
    redis.call('DEL', jobKey, Q.logPrefix .. id)
  end
end

--[[
  Creates the next pending tick after `now` (first tick >= anchor for every-N,
  first listed time for cron), within endAt and limit, and scores the
  scheduler by it. Returns the tick (nil when none) and whether the cron
  list runs low (JS should refill it).
]]
local function spool_sched_arm(Q, index, key, sid, h, now)
  local next, from = nil, 1
  if h.kind == 'every' then
    if now < h.anchor then
      next = h.anchor
    else
      next = h.anchor + (math.floor((now - h.anchor) / h.every) + 1) * h.every
    end
  else
    while h.times[from] and h.times[from] <= now do
      from = from + 1
    end
    next = h.times[from]
    if next then
      from = from + 1
    end
  end
  local listed = #h.times - from + 1
  redis.call('HSET', key, 'ts', spool_sched_join(h.times, from, #h.times))
  if next == nil and h.kind == 'cron' then
    redis.call('HSET', key, 'next', '', 'starved', '1')
    redis.call('ZADD', index, now + SPOOL_SCHED_STARVED_RETRY, sid)
    return nil, true
  end
  redis.call('HDEL', key, 'starved')
  if (h.stop > 0 and next > h.stop) or (h.limit > 0 and h.count >= h.limit) then
    redis.call('HSET', key, 'next', '')
    redis.call('ZADD', index, '+inf', sid)
    return nil, false
  end
  local id = spool_sched_job(Q, sid, h.tpl, next, now)
  if id then
    redis.call('ZADD', Q.delayed, next, id)
  end
  redis.call('HSET', key, 'next', spool_int(next))
  redis.call('ZADD', index, next, sid)
  return next, h.kind == 'cron' and listed < SPOOL_SCHED_REFILL_BELOW
end

--[[
  promote's part: every scheduler whose pending tick is due moves on. The
  ticks that fell after the pending one (t0) up to now are missed: 'skip'
  drops them and t0 too, 'once' lets t0 run for all of them, 'all' also runs
  each missed tick (at most SPOOL_SCHED_CATCH_UP, and no more than the
  queue's room under maxWaiting: the rest count as skipped) as a waiting
  job. t0's job itself is promoted by promote's own loop. Then the next tick
  is armed. While the queue has no room (paused, or maxWaiting reached) a
  due scheduler is held instead (spool_sched_hold).
  Returns the number of claimable jobs placed and the ids whose cron list runs low.
]]
local function spool_sched_advance(Q, index, prefix, now)
  local due = redis.call('ZRANGE', index, '-inf', now, 'BYSCORE', 'LIMIT', 0, 100)
  local claimable, refill = 0, {}
  local room = #due > 0 and spool_sched_room(Q) or 0
  for _, sid in ipairs(due) do
    local key = prefix .. sid
    local h = spool_sched_read(key)
    if not h then
      redis.call('ZREM', index, sid)
    elseif h.next and room <= 0 then
      spool_sched_hold(Q, index, sid, h.next, now)
    else
      local t0 = h.next
      if t0 then
        local fell, total = {}, 0
        if h.kind == 'every' then
          local upto = now
          if h.stop > 0 and h.stop < upto then
            upto = h.stop
          end
          if upto > t0 then
            total = math.floor((upto - t0) / h.every)
          end
          for k = 1, math.min(total, SPOOL_SCHED_CATCH_UP) do
            fell[k] = t0 + k * h.every
          end
        else
          for _, t in ipairs(h.times) do
            if t > now or (h.stop > 0 and t > h.stop) then
              break
            end
            total = total + 1
            if total <= SPOOL_SCHED_CATCH_UP then
              fell[total] = t
            end
          end
        end
        if h.missed == 'skip' and total > 0 then
          spool_sched_drop_pending(Q, sid, spool_int(t0))
          h.skipped = h.skipped + total + 1
        else
          h.count = h.count + 1
          room = room - 1
          local last, lastAt = sid .. ':' .. spool_int(t0), t0
          local ran = 0
          if h.missed == 'all' and #fell > 0 then
            -- t0 goes first, so the catch-up runs in tick order.
            local id0 = sid .. ':' .. spool_int(t0)
            if redis.call('ZREM', Q.delayed, id0) == 1 then
              local key0 = Q.jobPrefix .. id0
              local f = redis.call('HMGET', key0, 'priority', 'lifo')
              if spool_place(Q, key0, id0, spool_wait_score(Q, tonumber(f[1]), f[2] == '1')) then
                claimable = claimable + 1
              end
            end
            for _, t in ipairs(fell) do
              if (h.limit > 0 and h.count >= h.limit) or room <= 0 then
                break
              end
              local id, jobKey = spool_sched_job(Q, sid, h.tpl, t, now)
              if id then
                local f = redis.call('HMGET', jobKey, 'priority', 'lifo')
                if spool_place(Q, jobKey, id, spool_wait_score(Q, tonumber(f[1]), f[2] == '1')) then
                  claimable = claimable + 1
                end
              end
              h.count, ran, last, lastAt, room = h.count + 1, ran + 1, sid .. ':' .. spool_int(t), t, room - 1
            end
          end
          h.skipped = h.skipped + total - ran
          redis.call('HSET', key, 'last', last, 'lastAt', spool_int(lastAt))
        end
        redis.call('HSET', key, 'count', h.count, 'skipped', h.skipped)
      end
      local _, low = spool_sched_arm(Q, index, key, sid, h, now)
      if low then
        refill[#refill + 1] = sid
      end
    end
  end
  return claimable, refill
end
