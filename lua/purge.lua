--[[
  purge: deletes finished jobs (completed, failed or cancelled), oldest
  first, in batches that keep the call short: at most `batch` removed and
  `budget` entries examined per call. Jobs a filter does not match, and flow
  parents whose children are still pending (as remove refuses them), stay;
  the caller goes on after the last one that stayed (its cursor).

  KEYS[1..17] queue keys (includes/queue)
  KEYS[18..] index    the zset to walk: the state's index or a dead-letter index (one key)

  ARGV[1..3] channels and queue name (includes/queue)
  ARGV[4] state: 'completed', 'failed' or 'cancelled'
  ARGV[5] max finishedAt (olderThan cut-off; '+inf' for none)
  ARGV[6] job name to purge ('' = any)
  ARGV[7] batch: jobs to remove at most
  ARGV[8] budget: entries to examine at most
  ARGV[9] cursor: the last job that stayed ('' = from the oldest)

  Returns {removed, done, cursor}: done 1 when nothing older is left to examine.
  Events: removed (one per job).
]]
--- @include "includes/queue"
--- @include "includes/flow"
--- @include "includes/dead"
--- @include "includes/events"
--- @include "includes/cursor"

local Q = spool_queue()
local index, state = KEYS[18], ARGV[4]
local stateIndex = ({ completed = Q.completed, failed = Q.failed, cancelled = Q.cancelled })[state]
local maxN = tonumber(ARGV[5])
local name, batch, budget, cursor = ARGV[6], tonumber(ARGV[7]), tonumber(ARGV[8]), ARGV[9]
local rank = 0
if cursor ~= '' then
  local score = redis.call('ZSCORE', index, cursor)
  rank = score and spool_cursor_rank(index, cursor, score, false) or 0
end
local removed = 0
local chunk = redis.call('ZRANGE', index, rank, rank + budget - 1, 'WITHSCORES')
for i = 1, #chunk, 2 do
  local id = chunk[i]
  if maxN and tonumber(chunk[i + 1]) > maxN then
    return {removed, 1, cursor}
  end
  if removed >= batch then
    return {removed, 0, cursor}
  end
  local jobKey = Q.jobPrefix .. id
  -- One read per job; what spool_release_dedup, spool_drop_jobs and spool_dead_unindex would each read.
  local f = redis.call('HMGET', jobKey, 'state', 'name', 'reason', 'dk')
  if not f[1] then
    -- An index entry without its hash: drop the entry.
    redis.call('ZREM', index, id)
  elseif f[1] ~= state or (name ~= '' and f[2] ~= name) or redis.call('SCARD', spool_deps(Q, id)) > 0 then
    cursor = id
  else
    redis.call('ZREM', stateIndex, id)
    if f[4] and redis.call('GET', f[4]) == id then
      redis.call('DEL', f[4])
    end
    if state == 'failed' then
      local byName, byReason, byBoth = spool_dead_keys(Q, f[2] or '', f[3] or '')
      redis.call('ZREM', byName, id)
      redis.call('ZREM', byReason, id)
      redis.call('ZREM', byBoth, id)
    end
    redis.call('DEL', jobKey, Q.logPrefix .. id, spool_deps(Q, id), spool_kid_results(Q, id), spool_kid_failures(Q, id))
    spool_event(Q, 'removed', 'jobId', id, 'state', state)
    removed = removed + 1
  end
end
return {removed, #chunk / 2 < budget and 1 or 0, cursor}
