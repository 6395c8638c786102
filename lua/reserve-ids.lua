--[[
  reserve-ids: takes a block of job ids from the queue's counter, for jobs
  added without a jobId (lib/engine/ids). Its own field, not `seq`: `seq`
  numbers waiting places and moves with every put-back. A script rather than
  a bare HINCRBY so that it is retried as every script is (BUSY, LOADING).

  KEYS[1] meta        the queue's meta hash

  ARGV[1] count       how many ids (> 0)

  Returns the last id of the block (the ids are last - count + 1 .. last).
]]
return redis.call('HINCRBY', KEYS[1], 'ids', ARGV[1])
