--[[
  announce: tell other processes about new work, a lost lease, a finished job.
  ARGV[1] (the sched channel, includes/queue) chooses how, per call:
  - a channel name: PUBLISH at once, inside the script (Redis pub/sub: the
    message costs no extra round trip);
  - '' (the store's notify adapter carries messages itself, e.g. NATS):
    collect the announcement; the script loader wraps every script that
    includes this file so its reply becomes {notes, reply}, and the store
    hands the notes to the adapter (lib/store/announced.ts).
  Notes are flat triples: channel ('sched', 'owls', 'done'), payload (the
  same text Redis subscribers get), wake hints (sched 'w:' only, else 0).
  spool_notes is declared by the loader's wrapper, outside the script body.
]]
local function spool_announce(Q, channel, payload, hints)
  if Q.sched ~= '' then
    local target = Q.owls
    if channel == 'sched' then
      target = Q.sched
    elseif channel == 'done' then
      target = string.sub(Q.sched, 1, -6) .. 'done'
    end
    redis.call('PUBLISH', target, payload)
    return true
  end
  local n = #spool_notes
  spool_notes[n + 1] = channel
  spool_notes[n + 2] = payload
  spool_notes[n + 3] = hints or 0
  return false
end
