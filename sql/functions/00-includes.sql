-- Shared steps of the transitions, one function per include of lua/includes (now, place, wake, finish,
-- retention, flow). Every function of this directory is created with CREATE OR REPLACE on each migrate.

-- includes/now: the server's clock in epoch ms (every process agrees on it).
CREATE OR REPLACE FUNCTION @schema@.now_ms() RETURNS bigint LANGUAGE sql VOLATILE AS $$
  SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint
$$;

-- includes/place spool_wait_score: strict priority, FIFO within a priority by a sequence, LIFO on request.
CREATE OR REPLACE FUNCTION @schema@.wait_score(p_priority integer, p_lifo boolean) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  seq bigint := nextval('@schema@.wait_seq') % 4294967296;
  base bigint := p_priority::bigint * 8589934592 + 4294967296;
BEGIN
  IF p_lifo THEN RETURN base - 1 - seq; END IF;
  RETURN base + seq;
END $$;

-- includes/wake and announce: idle workers hear of new work. NOTIFY is transactional: sent on commit only,
-- and identical messages of one transaction are sent once.
CREATE OR REPLACE FUNCTION @schema@.wake(p_queue text) RETURNS void LANGUAGE sql AS $$
  SELECT pg_notify('spool:@schema@', json_build_object('c', 's', 'k', 'waiting', 'q', p_queue)::text)
$$;

CREATE OR REPLACE FUNCTION @schema@.announce_delayed(p_queue text, p_due_in bigint) RETURNS void LANGUAGE sql AS $$
  SELECT pg_notify('spool:@schema@', json_build_object('c', 's', 'k', 'delayed', 'q', p_queue, 'd', p_due_in)::text)
$$;

CREATE OR REPLACE FUNCTION @schema@.announce_owner(p_kind text, p_queue text, p_id text, p_token text) RETURNS void LANGUAGE sql AS $$
  SELECT pg_notify('spool:@schema@', json_build_object('c', 'o', 'k', p_kind, 'q', p_queue, 'i', p_id, 't', p_token)::text)
$$;

CREATE OR REPLACE FUNCTION @schema@.announce_done(p_queue text, p_id text, p_state text) RETURNS void LANGUAGE sql AS $$
  SELECT pg_notify('spool:@schema@', json_build_object('c', 'd', 'q', p_queue, 'i', p_id, 's', p_state)::text)
$$;

-- includes/events: one entry of the queue's event stream (off when the queue's `ev` is 0).
-- A queue with a length set trims on write (as XADD MAXLEN does); the default length is trimmed by promote().
CREATE OR REPLACE FUNCTION @schema@.emit(p_queue text, p_event text, p_fields jsonb DEFAULT '{}') RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  len integer;
  s bigint;
BEGIN
  SELECT ev INTO len FROM @schema@.queues WHERE name = p_queue;
  IF len = 0 THEN RETURN; END IF;
  -- The xid before the seq: a reader that saw seq s knows every lower seq was drawn by a transaction with a lower
  -- xid than its snapshot's xmax (lib/postgres/postgres-events.ts), so it can tell when they have all ended.
  PERFORM pg_current_xact_id();
  INSERT INTO @schema@.events (queue, ms, fields) VALUES (p_queue, @schema@.now_ms(), jsonb_build_object('event', p_event) || p_fields)
  RETURNING seq INTO s;
  -- About every 16th event, as XADD MAXLEN ~ trims whole nodes: the stream keeps about len events, and the trim
  -- (and its counter on the queue row) is not paid on every write.
  IF len IS NOT NULL AND s % 16 = 0 THEN PERFORM @schema@.trim_events(p_queue, len); END IF;
END $$;

-- Keeps the newest p_len events of the queue, counting what it drops (StreamInfo.added = trimmed + retained).
-- One trimmer per queue at a time (a try-lock: a transaction that cannot have it skips this trim, the next one
-- does it), so concurrent transitions never wait on each other's trims.
CREATE OR REPLACE FUNCTION @schema@.trim_events(p_queue text, p_len integer) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  n integer;
BEGIN
  IF NOT pg_try_advisory_xact_lock(hashtext('spool-trim:@schema@:' || p_queue)) THEN RETURN; END IF;
  DELETE FROM @schema@.events WHERE queue = p_queue AND seq <= (
    SELECT seq FROM @schema@.events WHERE queue = p_queue ORDER BY seq DESC OFFSET p_len LIMIT 1);
  GET DIAGNOSTICS n = ROW_COUNT;
  IF n > 0 THEN
    INSERT INTO @schema@.event_trims (queue, n) VALUES (p_queue, n) ON CONFLICT (queue) DO UPDATE SET n = @schema@.event_trims.n + EXCLUDED.n;
  END IF;
END $$;

-- The queue's row, created on first use.
CREATE OR REPLACE FUNCTION @schema@.ensure_queue(p_queue text) RETURNS void LANGUAGE sql AS $$
  INSERT INTO @schema@.queues (name) VALUES (p_queue) ON CONFLICT (name) DO NOTHING
$$;

-- includes/retention spool_retain: keep the newest `count` (-1 all, 0 none) finished jobs of the state,
-- drop those older than `age` ms (-1 never); at most 1000 per rule and call.
CREATE OR REPLACE FUNCTION @schema@.retain(p_queue text, p_state text, p_count integer, p_age bigint, p_now bigint) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF p_count > 0 THEN
    DELETE FROM @schema@.jobs WHERE (queue, id) IN (
      SELECT queue, id FROM @schema@.jobs WHERE queue = p_queue AND state = p_state
      ORDER BY finished_at DESC, id DESC OFFSET p_count LIMIT 1000 FOR UPDATE SKIP LOCKED);
  END IF;
  IF p_age >= 0 THEN
    DELETE FROM @schema@.jobs WHERE (queue, id) IN (
      SELECT queue, id FROM @schema@.jobs WHERE queue = p_queue AND state = p_state AND finished_at < p_now - p_age
      LIMIT 1000 FOR UPDATE SKIP LOCKED);
  END IF;
END $$;

-- includes/finish spool_finish: into a terminal state; dedup released, the flow parent and the waiters told,
-- retention applied (count 0 removes the job itself).
CREATE OR REPLACE FUNCTION @schema@.finish(p_queue text, p_id text, p_state text, p_now bigint) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  j @schema@.jobs;
  c integer; a bigint;
BEGIN
  UPDATE @schema@.jobs SET state = p_state, finished_at = p_now, cancel = false, lease_until = NULL
   WHERE queue = p_queue AND id = p_id RETURNING * INTO j;
  IF j.dedup_key IS NOT NULL THEN
    DELETE FROM @schema@.dedup WHERE queue = p_queue AND key = j.dedup_key AND job_id = p_id;
  END IF;
  IF j.parent_id IS NOT NULL THEN PERFORM @schema@.child_done(j, p_now); END IF;
  IF j.watched THEN PERFORM @schema@.announce_done(p_queue, p_id, p_state); END IF;
  IF p_state = 'completed' THEN c := j.rc_count; a := j.rc_age; ELSE c := j.rf_count; a := j.rf_age; END IF;
  IF c = 0 THEN
    DELETE FROM @schema@.jobs WHERE queue = p_queue AND id = p_id;
  ELSIF c > 0 OR a >= 0 THEN
    PERFORM @schema@.retain(p_queue, p_state, c, a, p_now);
  END IF;
END $$;

CREATE OR REPLACE FUNCTION @schema@.dead_letter(p_queue text, p_id text, p_reason text, p_message text, p_stack text, p_code text, p_now bigint) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  UPDATE @schema@.jobs SET reason = p_reason, err_message = p_message, err_stack = p_stack, err_code = p_code
   WHERE queue = p_queue AND id = p_id;
  PERFORM @schema@.emit(p_queue, 'failed', jsonb_build_object('jobId', p_id, 'next', 'dead', 'reason', p_reason, 'message', left(p_message, 1024)));
  PERFORM @schema@.finish(p_queue, p_id, 'failed', p_now);
END $$;

CREATE OR REPLACE FUNCTION @schema@.cancelled(p_queue text, p_id text, p_now bigint) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM @schema@.emit(p_queue, 'cancelled', jsonb_build_object('jobId', p_id));
  PERFORM @schema@.finish(p_queue, p_id, 'cancelled', p_now);
END $$;

-- spool_leave_active: the lease ends (the token kept as finished_token when the holder finished it);
-- workers turned away by a group cap or the global cap hear of the free slot.
CREATE OR REPLACE FUNCTION @schema@.leave_active(p_queue text, p_id text, p_keep_token boolean) RETURNS @schema@.jobs LANGUAGE plpgsql AS $$
DECLARE
  j @schema@.jobs;
BEGIN
  UPDATE @schema@.jobs SET finished_token = CASE WHEN p_keep_token THEN token ELSE finished_token END,
         token = NULL, lease_until = NULL
   WHERE queue = p_queue AND id = p_id RETURNING * INTO j;
  IF j.grp IS NOT NULL THEN PERFORM @schema@.group_ready(p_queue, j.grp); END IF;
  IF j.grp IS NOT NULL OR EXISTS (SELECT 1 FROM @schema@.queues WHERE name = p_queue AND gc IS NOT NULL) THEN
    PERFORM @schema@.wake(p_queue);
  END IF;
  RETURN j;
END $$;

-- Back to waiting at `p_ws` (a job handed back keeps its place); true when it may be claimed now.
CREATE OR REPLACE FUNCTION @schema@.place(p_queue text, p_id text, p_ws bigint, p_now bigint) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  j @schema@.jobs;
BEGIN
  UPDATE @schema@.jobs SET state = 'waiting', ws = p_ws, lease_until = NULL
   WHERE queue = p_queue AND id = p_id RETURNING * INTO j;
  IF j.grp IS NOT NULL THEN PERFORM @schema@.group_ready(p_queue, j.grp); END IF;
  RETURN NOT EXISTS (SELECT 1 FROM @schema@.queues WHERE name = p_queue AND (paused OR j.name = ANY (paused_names)));
END $$;
