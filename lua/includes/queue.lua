--[[
  queue: the keys and arguments every job-moving script receives first.

  KEYS[1] wait         ungrouped waiting jobs (zset, score from place.spool_wait_score), but for
                       the ones in `fifo`
  (built) fifo         new ungrouped jobs of priority 0, FIFO (list of ids, oldest first;
                       {prefix:queue}:fifo, from jobPrefix): see includes/place
  KEYS[2] delayed      delayed jobs (zset, score = run-at ms)
  KEYS[3] active       active jobs (zset, score = lease expiry ms)
  KEYS[4] completed    completed jobs (zset, score = finishedAt)
  KEYS[5] failed       dead letters (zset, score = finishedAt)
  KEYS[6] cancelled    cancelled jobs (zset, score = finishedAt)
  KEYS[7] meta         queue hash: seq, paused, gw (grouped waiting), pw (parked waiting),
                       rl/rlw/rln (rate limit "max,duration", window start, count), lu (throttled until),
                       gcap, grl (group defaults), mw, mwg (backpressure limits), rr (group turns since the ungrouped jobs' last),
                       np (number of paused job names, kept by pause-names/resume-names),
                       gpw (waiting jobs of paused groups, see includes/groups)
  KEYS[8] hint         wake-hint budget (string integer, 60 s TTL)
  KEYS[9] idle         idle-worker marker; idle..':push' names the idle worker an add may
                       hand its new jobs to (includes/push)
  KEYS[10] jobPrefix   job hashes are jobPrefix..id
  KEYS[11] logPrefix   job logs are logPrefix..id
  KEYS[12] ring        groups ready to be served, in round-robin order (list)
  KEYS[13] groups      every group with jobs or settings (set)
  KEYS[14] glimited    groups waiting for their rate window to reopen (zset, score = reopen ms)
  KEYS[15] groupPrefix group hashes are groupPrefix..gid, their waiting jobs groupPrefix..gid..':wait'
  KEYS[16] pausedNames paused job names (set)
  KEYS[17] parkedPrefix waiting jobs of a paused name are parked in parkedPrefix..name (zset)

  ARGV[1] sched channel, ARGV[2] ownership-lost channel, ARGV[3] queue name;
  a script's own arguments start at ARGV[4].

  Every key carries the queue's hash tag, so keys built from the prefixes
  above live in the same cluster slot as the declared ones.
]]
local function spool_queue()
  return {
    wait = KEYS[1], delayed = KEYS[2], active = KEYS[3], completed = KEYS[4],
    failed = KEYS[5], cancelled = KEYS[6], meta = KEYS[7], hint = KEYS[8], idle = KEYS[9],
    jobPrefix = KEYS[10], logPrefix = KEYS[11], ring = KEYS[12], groups = KEYS[13],
    glimited = KEYS[14], groupPrefix = KEYS[15], pausedNames = KEYS[16], parkedPrefix = KEYS[17],
    sched = ARGV[1], owls = ARGV[2], name = ARGV[3],
    fifo = string.sub(KEYS[10], 1, -5) .. 'fifo', -- jobPrefix is {prefix:queue}:job:
  }
end
