--[[
  events: the queue's event stream, written by the script that makes the
  transition, so an event exists exactly when its transition happened.

  The stream is `{prefix:queue}:events` (built from the meta key, like the
  flow keys: same hash tag, same slot). Queue meta field `ev` holds the
  approximate MAXLEN; '0' turns the stream off; absent means 10,000.
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
  The same event for several jobs of one call, as one entry: `names` the
  per-job fields ({'jobId', ...}), `rows` one value list per job. One job
  gives an ordinary entry. More give one entry whose fields are `event`,
  the columns with one value in every row (as ordinary fields: a bulk's
  name and state are written once), `fields` (the other names, joined by
  commas; jobId always) and `rows` (JSON, those columns per job); the
  readers expand it into one event per row (lib/store/event-rows.ts).
  A batch of completions or claims then costs one XADD, not one per job
  (an XADD per job was about 12% of the c100 bench row's throughput).
  maxLen bounds events, not entries: an entry of k events trims the stream
  to about maxLen / k entries, or a stream of bulk entries would keep
  maxLen x the bulk size events.
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
  local maxLen = math.max(1, math.floor(Q.evLen / #rows))
  redis.call('XADD', Q.evKey, 'MAXLEN', '~', maxLen, '*', 'event', event, 'fields', table.concat(varying, ','), 'rows', cjson.encode(packed), unpack(shared))
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
