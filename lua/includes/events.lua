--[[
  events: the queue's event stream, written by the script that makes the
  transition, so an event exists exactly when its transition happened.

  The stream is `{prefix:queue}:events` (built from the meta key, like the
  flow keys: same hash tag, same slot). Queue meta field `ev` holds
  maxLen, the events it keeps (about: see spool_events_fit); '0' turns the
  stream off; absent means 10,000.
  Every entry has `event` and, for job events, `jobId`; the other fields
  are per event (lib/engine/queue-events-types.ts lists them).
]]

-- The stream settings of a queue, read once per script call and kept on Q.
local function spool_events_on(Q)
  if Q.evLen == nil then
    Q.evLen = tonumber(redis.call('HGET', Q.meta, 'ev')) or 10000
    Q.evKey = string.sub(Q.meta, 1, -5) .. 'events'
  end
  return Q.evLen > 0
end

-- Appends one event: fields after the event name as name, value pairs.
local function spool_event(Q, event, ...)
  if spool_events_on(Q) then
    redis.call('XADD', Q.evKey, 'MAXLEN', '~', Q.evLen, '*', 'event', event, ...)
  end
end

--[[
  maxLen counts events, not entries. An entry of k events (spool_events)
  is remembered until it leaves the stream: its id and k - 1 in the list
  `{prefix:queue}:events:rows` (oldest first), and meta `evx` sums those
  k - 1. After writing such an entry the stream is trimmed, oldest entries
  first and whole, to maxLen events (XLEN + evx), or as near as whole
  entries allow: an entry of k events is kept when dropping it would leave
  more than k / 2 events fewer than maxLen. An entry that
  single-event XADDs trimmed meanwhile (they trim by entries, MAXLEN ~) is
  forgotten when the trim meets it. Single events keep their one XADD:
  between two multi-event entries the stream may grow past maxLen by the
  single events written since (up to about 2 x maxLen after a bulk).
  Returns the new evx.
]]
local function spool_events_fit(Q, rowsKey, newest, extra)
  local len = redis.call('XLEN', Q.evKey)
  local excess = len + extra - Q.evLen
  while excess > 0 do
    local head = redis.call('LINDEX', rowsKey, 0)
    local space = string.find(head, ' ', 1, true)
    local id, more = string.sub(head, 1, space - 1), tonumber(string.sub(head, space + 1))
    if id == newest then
      -- Single events before it only (its k <= maxLen: it stays); evx is its k - 1 alone.
      redis.call('XTRIM', Q.evKey, 'MAXLEN', Q.evLen - more)
      return more
    end
    -- The single events before it, and it (when it is still there) last.
    local older = redis.call('XRANGE', Q.evKey, '-', id, 'COUNT', excess + 1)
    local n = #older
    local there = n > 0 and older[n][1] == id
    if (there and n - 1 >= excess) or (not there and n > excess) then
      redis.call('XTRIM', Q.evKey, 'MAXLEN', len - excess)
      return extra
    end
    if there and more + 1 > 2 * (excess - (n - 1)) then
      -- Without it the stream would fall further below maxLen than it stays above with it.
      redis.call('XTRIM', Q.evKey, 'MAXLEN', len - (n - 1))
      return extra
    end
    redis.call('LPOP', rowsKey)
    extra = extra - more
    if there then
      len = len - n
      redis.call('XTRIM', Q.evKey, 'MAXLEN', len)
      excess = excess - (n - 1) - (more + 1)
    else
      excess = excess - more -- trimmed already: it held none of the excess
    end
  end
  return extra
end

--[[
  The same event for several jobs of one call, as one entry: `names` the
  per-job fields ({'jobId', ...}), `rows` one value list per job. One job
  gives an ordinary entry. More give one entry whose fields are `event`,
  the columns with one value in every row (as ordinary fields: a bulk's
  name and state are written once), `fields` (the other names, joined by
  commas; jobId always) and `rows` (JSON, those columns per job); the
  readers expand it into one event per row (lib/store/event-rows.ts).
  A batch of completions or claims then costs one XADD, not one per job
  (an XADD per job was about 12% of the c100 bench row's throughput), and
  the trim that counts its events (spool_events_fit). Of more than maxLen
  rows only the newest maxLen are written: the trim would take the others
  at once.
]]
local function spool_events(Q, event, names, rows)
  if #rows == 0 or not spool_events_on(Q) then
    return
  end
  if #rows == 1 then
    local args, row = {}, rows[1]
    for i = 1, #names do
      args[i * 2 - 1], args[i * 2] = names[i], row[i]
    end
    redis.call('XADD', Q.evKey, 'MAXLEN', '~', Q.evLen, '*', 'event', event, unpack(args))
    return
  end
  if #rows > Q.evLen then
    local newest, skip = {}, #rows - Q.evLen
    for r = 1, Q.evLen do
      newest[r] = rows[skip + r]
    end
    return spool_events(Q, event, names, newest)
  end
  local shared, varying, columns = {}, { names[1] }, { 1 }
  for c = 2, #names do
    local v, same = rows[1][c], true
    for r = 2, #rows do
      if rows[r][c] ~= v then
        same = false
        break
      end
    end
    if same then
      shared[#shared + 1] = names[c]
      shared[#shared + 1] = v
    else
      varying[#varying + 1] = names[c]
      columns[#columns + 1] = c
    end
  end
  local packed = rows
  if #columns < #names then
    packed = {}
    for r = 1, #rows do
      local row, out = rows[r], {}
      for j = 1, #columns do
        out[j] = row[columns[j]]
      end
      packed[r] = out
    end
  end
  local id = redis.call('XADD', Q.evKey, '*', 'event', event, 'fields', table.concat(varying, ','), 'rows', cjson.encode(packed), unpack(shared))
  local rowsKey = Q.evKey .. ':rows'
  redis.call('RPUSH', rowsKey, id .. ' ' .. (#rows - 1))
  local extra = redis.call('HINCRBY', Q.meta, 'evx', #rows - 1)
  local fitted = spool_events_fit(Q, rowsKey, id, extra)
  if fitted ~= extra then
    redis.call('HINCRBY', Q.meta, 'evx', fitted - extra)
  end
end

-- For scripts without the queue bundle: the Q an event needs, from a job key `{prefix:queue}:job:<id>`.
local function spool_events_of_job(jobKey)
  local close = string.find(jobKey, '}', 1, true)
  return { meta = string.sub(jobKey, 1, close) .. ':meta' }
end

-- A job's id from its key `{prefix:queue}:job:<id>` (compact job hashes, add.lua, hold no `id` field).
local function spool_job_id_of(jobKey)
  local close = string.find(jobKey, '}', 1, true)
  return string.sub(jobKey, close + 6)
end

-- Long texts (error messages, progress) are cut: the stream is for signals, the job hash keeps the whole.
local function spool_event_text(text)
  if text and #text > 1024 then
    return string.sub(text, 1, 1024)
  end
  return text or ''
end
