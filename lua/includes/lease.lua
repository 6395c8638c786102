--[[
  lease: who holds a job. The job's `token` field is its lease token while
  it runs; when the lease ends by finishing (complete, fail, throttle,
  cancel) the field keeps it spent, SPOOL_SPENT appended (includes/finish),
  so the holder that finished it is recognised when it retries the same call
  after a lost reply. Every script that takes a caller's token checks it
  here: a spent token presented back holds nothing.
  lib/store/reply-values.ts SPENT_LEASE_MARK is the same byte.
]]
local SPOOL_SPENT = '!'
local SPOOL_SPENT_BYTE = string.byte(SPOOL_SPENT)

-- Whether the caller's token holds the lease whose token field reads `stored`.
local function spool_holds(stored, token)
  return stored == token and string.byte(token, -1) ~= SPOOL_SPENT_BYTE
end
