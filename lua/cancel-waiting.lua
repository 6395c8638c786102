--[[
  cancel-waiting: cancels many waiting jobs at once, as cancel.lua cancels
  one (queue.cancel({ filter: { state: 'waiting' } }) sends each page of
  matches here). The jobs of the fifo list (includes/place) are found
  together: the earliest by a binary search on its score (the list is in
  score order), the others in a window read from there (a page's matches
  lie close together); each is marked with a tombstone, and one LREM takes
  every tombstone out at the end. Cancelled one by one, each scanned the
  list (LREM by id).

  KEYS[1..17] queue keys (includes/queue)

  ARGV[1..3] channels and queue name (includes/queue)
  ARGV[4..] job ids

  Returns one entry per id: 1 cancelled, 2 cancelled and its flow parent's
  notification waits in the outbox (the caller delivers it), 0 not waiting
  (unknown, or it moved since it was listed), or a flow parent with children
  still pending: the caller cancels it on its own (cancel.lua).
  Events: cancelled (one per job).
]]
--- @include "includes/now"
--- @include "includes/queue"
--- @include "includes/place"
--- @include "includes/finish"
--- @include "includes/waiting-lanes"

local Q = spool_queue()
local now = spool_now()
local TOMBSTONE = '' -- never a job id (ids are non-empty)
-- A page's matches span about its scan budget of list entries (1,000): read once, past the first.
local WINDOW = 2000
local L = spool_lanes(Q)

-- The list index of the listed job `id` with score `ws` (scores are integers), or nil when it is not where its score says.
local function listedAt(id, ws)
  if not ws then
    return nil
  end
  local at = spool_fifo_after(Q, L, ws - 1)
  if at < L.listed and redis.call('LINDEX', Q.fifo, at) == id then
    return at
  end
  return nil
end

-- Listed jobs to take out, found after the loop: {id, score} pairs.
local listed = {}
local function unlist(id, ws)
  listed[#listed + 1] = { id, tonumber(ws) }
end

local out = {}
for i = 4, #ARGV do
  local id = ARGV[i]
  local jobKey = Q.jobPrefix .. id
  -- A flow parent with children still pending is left to cancel.lua, which cancels them too.
  if redis.call('HGET', jobKey, 'state') == 'waiting' and redis.call('EXISTS', spool_deps(Q, id)) == 0 then
    spool_unplace(Q, jobKey, id, unlist)
    spool_cancelled(Q, jobKey, id, now)
    -- 2: a flow child whose parent has a notification in the outbox (the caller delivers it).
    out[#out + 1] = redis.call('HEXISTS', spool_outbox(Q), id) == 1 and 2 or 1
  else
    out[#out + 1] = 0
  end
end

if #listed > 0 then
  -- Every place is found before any is marked: a tombstone has no score, and a
  -- binary search that met one went the wrong way (then the job was removed by a
  -- scan that shortened the list under the searches still to come).
  table.sort(listed, function(a, b) return (a[2] or -1) < (b[2] or -1) end)
  local where = {}
  local from = listedAt(listed[1][1], listed[1][2])
  if from then
    local window = redis.call('LRANGE', Q.fifo, from, from + WINDOW - 1)
    for i = 1, #window do
      where[window[i]] = from + i - 1
    end
  end
  local found, scanned = {}, {}
  for _, job in ipairs(listed) do
    local at = where[job[1]] or listedAt(job[1], job[2])
    if at then
      found[#found + 1] = at
    else
      scanned[#scanned + 1] = job[1] -- not in score order (a wrapped sequence): the scan finds it
    end
  end
  for _, at in ipairs(found) do
    redis.call('LSET', Q.fifo, at, TOMBSTONE)
  end
  if #found > 0 then
    redis.call('LREM', Q.fifo, 0, TOMBSTONE)
  end
  for _, id in ipairs(scanned) do
    redis.call('LREM', Q.fifo, 1, id)
  end
end
return out
