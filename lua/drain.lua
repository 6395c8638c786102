--[[
  drain: queue.drain(): removes waiting jobs (and, on request, delayed
  ones) in batches that keep the call short: at most `batch` jobs per call,
  taken lane by lane (the fifo list, `wait`, the paused names' parked sets,
  the groups' sets, found with SSCAN from a cursor the caller passes back,
  then the delayed index). A flow child is cancelled instead of removed,
  so its parent hears (the caller delivers the outbox notification, as
  after cancel.lua); a flow parent waiting for its children is not waiting
  and stays. Active and finished jobs are untouched.

  KEYS[1..17] queue keys (includes/queue)

  ARGV[1..3] channels and queue name (includes/queue)
  ARGV[4] delayed: '1' to remove delayed jobs too
  ARGV[5] batch: jobs to take at most
  ARGV[6] group cursor: where the SSCAN of the groups goes on ('0' from the start)

  Returns {removed, done, group cursor, flow child ids...}: done 1 when the
  lanes were empty before `batch` jobs were taken.
  Events: removed (one entry per call), cancelled (per flow child).
]]
--- @include "includes/now"
--- @include "includes/queue"
--- @include "includes/finish"
--- @include "includes/events"

local Q = spool_queue()
local withDelayed, batch, cursor = ARGV[4] == '1', tonumber(ARGV[5]), ARGV[6]
local now = spool_now()
local removed, events, children = {}, {}, {}
local names = {} -- n:<name> decrements, written once
local left = batch

-- One job taken out of its index: `waiting` counts it out of meta n:<name>.
local function take(id, waiting)
  left = left - 1
  local jobKey = Q.jobPrefix .. id
  local f = redis.call('HMGET', jobKey, 'state', 'name', 'pq')
  if not f[1] then
    return -- an index entry without its hash
  end
  if waiting and f[2] then
    names[f[2]] = (names[f[2]] or 0) + 1
  end
  if f[3] then
    spool_cancelled(Q, jobKey, id, now)
    children[#children + 1] = id
    return
  end
  spool_release_dedup(jobKey, id)
  removed[#removed + 1] = id
  events[#events + 1] = { id, f[1] }
end

-- Up to `left` members of a sorted set, lowest first; returns how many.
local function popSet(key, waiting)
  if left <= 0 then
    return 0
  end
  local popped = redis.call('ZPOPMIN', key, left)
  for i = 1, #popped, 2 do
    take(popped[i], waiting)
  end
  return #popped / 2
end

if left > 0 then
  local listed = redis.call('LRANGE', Q.fifo, 0, left - 1)
  if #listed > 0 then
    redis.call('LTRIM', Q.fifo, #listed, -1)
    for i = 1, #listed do
      take(listed[i], true)
    end
  end
end
popSet(Q.wait, true)
local parked = 0
local paused = redis.call('SMEMBERS', Q.pausedNames)
for i = 1, #paused do
  parked = parked + popSet(Q.parkedPrefix .. paused[i], true)
end
if parked > 0 then
  redis.call('HINCRBY', Q.meta, 'pw', -parked)
end
local grouped, pausedGrouped = 0, 0
while left > 0 do
  local step = redis.call('SSCAN', Q.groups, cursor, 'COUNT', 100)
  for _, gid in ipairs(step[2]) do
    local n = popSet(spool_group_wait(Q, gid), true)
    grouped = grouped + n
    if n > 0 and redis.call('HEXISTS', spool_group_key(Q, gid), 'paused') == 1 then
      pausedGrouped = pausedGrouped + n
    end
  end
  if left <= 0 then
    break -- `cursor` stays at this step: its groups not reached are scanned again by the next call
  end
  cursor = step[1]
  if cursor == '0' then
    break
  end
end
if grouped > 0 then
  redis.call('HINCRBY', Q.meta, 'gw', -grouped)
end
if pausedGrouped > 0 then
  redis.call('HINCRBY', Q.meta, 'gpw', -pausedGrouped)
end
if withDelayed then
  popSet(Q.delayed, false)
end
for name, n in pairs(names) do
  redis.call('HINCRBY', Q.meta, 'n:' .. name, -n)
end
if #removed > 0 then
  spool_drop_jobs(Q, removed, false)
end
spool_events(Q, 'removed', { 'jobId', 'state' }, events)
local out = { #removed + #children, (left > 0 and cursor == '0') and 1 or 0, cursor }
for i = 1, #children do
  out[#out + 1] = children[i]
end
return out
