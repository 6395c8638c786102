--[[
  dead: indexes of dead letters by job name, by reason and by both, so that
  filtered pages of the failed state cost O(page), not O(dead letters).
  Kept by every script that puts a job into failed or takes one out
  (dead-letter, redrive, remove, purge, retention). Keys share the queue's
  hash tag (built from the meta key, like the flow keys):
    {prefix:queue}:dl:n:<name>              failed jobs of a name (zset, score = finishedAt)
    {prefix:queue}:dl:r:<reason>            failed jobs of a reason (zset, score = finishedAt)
    {prefix:queue}:dl:nr:<reason>\n<name>   both (zset, score = finishedAt)
    {prefix:queue}:dl:keys                  every index key ever used (set), so verify() needs no SCAN
]]

local function spool_dead_keys(Q, name, reason)
  local base = string.sub(Q.meta, 1, -5) .. 'dl:'
  return base .. 'n:' .. name, base .. 'r:' .. reason, base .. 'nr:' .. reason .. '\n' .. name
end

-- After the job hash has its reason: index it at `score` (its finishedAt).
local function spool_dead_index(Q, jobKey, id, score)
  local f = redis.call('HMGET', jobKey, 'name', 'reason')
  local byName, byReason, byBoth = spool_dead_keys(Q, f[1] or '', f[2] or '')
  redis.call('ZADD', byName, score, id)
  redis.call('ZADD', byReason, score, id)
  redis.call('ZADD', byBoth, score, id)
  redis.call('SADD', string.sub(Q.meta, 1, -5) .. 'dl:keys', byName, byReason, byBoth)
end

-- Before the job leaves failed (or its hash goes): drop it from the three indexes.
local function spool_dead_unindex(Q, jobKey, id)
  local f = redis.call('HMGET', jobKey, 'name', 'reason')
  local byName, byReason, byBoth = spool_dead_keys(Q, f[1] or '', f[2] or '')
  redis.call('ZREM', byName, id)
  redis.call('ZREM', byReason, id)
  redis.call('ZREM', byBoth, id)
end
