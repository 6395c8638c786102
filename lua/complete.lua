--[[
  complete: active -> completed for one or more jobs, each under its own
  lease token, then (same call) claim up to `count` next jobs for that worker.
  A worker sends the completions of its jobs that finished while its
  previous call was in flight as one call (includes/complete-batch).

  KEYS[1..17] queue keys (includes/queue); the job hashes are jobPrefix..id
  (same hash tag: no key argument per job)

  ARGV[1..3] channels and queue name (includes/queue)
  ARGV[4] worker id (as in claim)
  ARGV[5] count: how many next jobs to claim (0 = none)
  ARGV[6] lease duration ms
  ARGV[7] push slots (as in claim: the worker's running slots free for the next claim once these jobs are done; '': not pushable)
  ARGV[8] number of jobs n
  ARGV[9..] 4 per job: job id, lease token, result (JSON), handler duration ms
            (counted in the minute's metrics; '' = not measured);
            then name, room pairs for the next claim (see claim)

  Returns {waitMs, n, code, state (per job, n pairs), next job hashes...}; per job:
    1 completed   3 cancelled (a cancel request won; the result is kept)
    2 this token already finished the job (a retried call); state is the current one
   -1 lease lost: the token is not the current one; nothing was written for that job
  waitMs > 0 when the next claim was refused by a rate limit (see claim).
  Publishes: sched 'w:<queue>' when the global cap held workers back and a slot is still free (includes/global-cap).
  Events: completed (with the result size), or cancelled, per job; active per next job claimed.
]]
--- @include "includes/now"
--- @include "includes/queue"
--- @include "includes/claim-batch"
--- @include "includes/complete-batch"

local Q = spool_queue()
local FIRST_JOB_ARG = 9
local n = tonumber(ARGV[8])
local now = spool_now()
local reply = {0, n}
local B = spool_complete_state(now)
for i = 0, n - 1 do
  local a = FIRST_JOB_ARG + i * 4
  local code, state = spool_complete_one(Q, B, Q.jobPrefix .. ARGV[a], ARGV[a], ARGV[a + 1], ARGV[a + 2], ARGV[a + 3], now)
  reply[#reply + 1] = code
  reply[#reply + 1] = state
end
spool_complete_flush(Q, B, now)

local _, waitMs = spool_claim(Q, tonumber(ARGV[5]), ARGV[4], tonumber(ARGV[6]), now, spool_name_room(FIRST_JOB_ARG + n * 4), false, reply, tonumber(ARGV[7]))
-- After this worker's own claim took what the completions freed: the workers the global cap held back hear of what is left.
spool_global_freed(Q, #B.done)
reply[1] = waitMs
return reply
