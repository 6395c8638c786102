--[[
  outbox-ack: step 3 of a child's outcome: the parent applied the
  notification (child-done), so it leaves the child queue's outbox, unless a
  newer one for the same child replaced it meanwhile (then that one stays).

  KEYS[1] outbox   the child queue's outbox (hash)

  ARGV[1] child id
  ARGV[2] the notification that was applied

  Returns 1 removed, 0 not there or replaced.
]]
if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then
  return redis.call('HDEL', KEYS[1], ARGV[1])
end
return 0
