--[[
  page: reads one page of a state index or a dead-letter index (includes/dead),
  for getFailed, exportJobs and the bulk operations by filter. Read only.
  Examines at most `budget` entries, so a filter that matches few jobs costs
  bounded steps; the caller goes on from the returned cursor.

  KEYS[1..17] queue keys (includes/queue)
  KEYS[18..] index    the zset to page (one key); `wait` pages every ungrouped
                      waiting job, the fifo list's included (asc only)

  ARGV[1..3] channels and queue name (includes/queue)
  ARGV[4] order: 'desc' (newest first) or 'asc'
  ARGV[5] cursor member ('' = from the start)
  ARGV[6] cursor score
  ARGV[7] min score (since, '-inf' for none)
  ARGV[8] max score (until, '+inf' for none)
  ARGV[9] limit: jobs to return
  ARGV[10] budget: entries to examine at most
  ARGV[11] error text to look for, lower case ('' = any)
  ARGV[12] job name to keep ('' = any)
  ARGV[13] '1': ids only (no job hashes)

  Returns {done, last member, last score, id, hash, id, hash, ...}: done 1 when
  the index has no more entries in range (then the cursor is not needed);
  hash is the job's flat field list ({} with ids only).
]]
--- @include "includes/queue"
--- @include "includes/cursor"
--- @include "includes/waiting-lanes"

local Q = spool_queue()
local index = KEYS[18]
local desc = ARGV[4] == 'desc'
local min, max = ARGV[7], ARGV[8]
local limit, budget = tonumber(ARGV[9]), tonumber(ARGV[10])
local needle, name, idsOnly = ARGV[11], ARGV[12], ARGV[13] == '1'
local filtered = needle ~= '' or name ~= ''

-- The waiting index is two lanes read as one (includes/waiting-lanes), oldest first;
-- a listed job's cursor score is minus its ws, and min/max (times) do not apply to waiting jobs.
local lanes = index == Q.wait and spool_lanes(Q) or nil
if lanes and desc then
  return redis.error_reply('ERR page: waiting jobs are paged in claim order (asc) only')
end

local rank = 0
if lanes then
  min, max = '-inf', '+inf'
  if ARGV[5] ~= '' then
    rank = spool_lanes_after(Q, lanes, ARGV[5], ARGV[6])
  end
elseif desc and max ~= '+inf' then
  rank = redis.call('ZCOUNT', index, '(' .. max, '+inf')
elseif not desc and min ~= '-inf' then
  rank = redis.call('ZCOUNT', index, '-inf', '(' .. min)
end
if ARGV[5] ~= '' and not lanes then
  rank = math.max(rank, spool_cursor_rank(index, ARGV[5], ARGV[6], desc))
end

local out = {0, ARGV[5], ARGV[6]}
local found, examined = 0, 0
local minN, maxN = tonumber(min), tonumber(max)
while found < limit and examined < budget do
  local want = math.min(100, budget - examined)
  if not filtered then
    want = math.min(want, limit - found)
  end
  local chunk
  if lanes then
    chunk = spool_lanes_read(Q, lanes, rank, rank + want - 1, true, {})
  elseif desc then
    chunk = redis.call('ZRANGE', index, rank, rank + want - 1, 'REV', 'WITHSCORES')
  else
    chunk = redis.call('ZRANGE', index, rank, rank + want - 1, 'WITHSCORES')
  end
  for i = 1, #chunk, 2 do
    local id, score = chunk[i], tonumber(chunk[i + 1])
    if (desc and minN and score < minN) or (not desc and maxN and score > maxN) then
      out[1] = 1
      return lanes and spool_lanes_cursor(Q, out) or out
    end
    examined = examined + 1
    out[2], out[3] = id, chunk[i + 1]
    local keep, hash = true, {}
    if filtered or not idsOnly then
      hash = redis.call('HGETALL', Q.jobPrefix .. id)
      if filtered then
        local f = {}
        for j = 1, #hash, 2 do
          f[hash[j]] = hash[j + 1]
        end
        keep = (name == '' or f.name == name)
          and (needle == '' or string.find(string.lower(f.error or ''), needle, 1, true) ~= nil)
      end
    end
    if keep then
      found = found + 1
      out[#out + 1] = id
      out[#out + 1] = idsOnly and {} or hash
      if found >= limit and i + 1 < #chunk then
        return lanes and spool_lanes_cursor(Q, out) or out
      end
    end
  end
  rank = rank + #chunk / 2
  if #chunk / 2 < want then
    out[1] = 1
    return lanes and spool_lanes_cursor(Q, out) or out
  end
end
return lanes and spool_lanes_cursor(Q, out) or out
