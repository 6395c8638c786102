--[[
  reserve-ids: takes a block of job ids from the queue's counter, for jobs
  added without a jobId (lib/engine/ids, includes/ids). Its own field, not
  `seq`: `seq` numbers waiting places and moves with every put-back.

  A block whose first or last number a job already holds means the counter
  went back (a failover lost its last draws): the counter moves on by a
  margin until a block is clear, so a producer drawing after the failover
  does not take numbers that jobs hold. (A producer that drew before it and
  still holds such numbers is caught by add: includes/ids spool_renumber.)

  A sharded queue draws every id from its first shard's counter, and when
  another shard finds a drawn number taken it draws a fresh one here with
  `taken` (lib/store/sharded-store.ts): the counter first moves past every
  block drawn around that number, as includes/ids spool_renumber does, so
  renumbering and drawing stay on one counter.

  KEYS[1] meta        the queue's meta hash
  KEYS[2] jobPrefix   prefix of job hashes (its id follows)

  ARGV[1] count       how many ids (> 0)
  ARGV[2] taken id    a numbered id a job was found holding, or '' (none)

  Returns the last id's counter value (the ids are ID_BASE + last - count + 1 .. ID_BASE + last).
]]
--- @include "includes/ids"

local count = tonumber(ARGV[1])
if ARGV[2] ~= '' then
  local floor = tonumber(ARGV[2]) - SPOOL_ID_BASE + SPOOL_ID_MARGIN
  if (tonumber(redis.call('HGET', KEYS[1], 'ids')) or 0) < floor then
    redis.call('HSET', KEYS[1], 'ids', floor)
  end
end
local last = redis.call('HINCRBY', KEYS[1], 'ids', count)
-- Bounded, as every script must be: past 1,000 margins (8 million numbers) later draws go on skipping.
for _ = 1, 1000 do
  if redis.call('EXISTS', KEYS[2] .. string.format('%d', SPOOL_ID_BASE + last - count + 1)) == 0
    and redis.call('EXISTS', KEYS[2] .. string.format('%d', SPOOL_ID_BASE + last)) == 0 then
    break
  end
  last = redis.call('HINCRBY', KEYS[1], 'ids', SPOOL_ID_MARGIN + count)
end
return last
